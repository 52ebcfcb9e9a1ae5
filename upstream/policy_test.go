package upstream

import (
	"context"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAddrPolicy(t *testing.T) {
	var none AddrPolicy
	for _, s := range []string{"127.0.0.1", "127.9.9.9", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
		"169.254.169.254", "fe80::1", "fc00::1", "0.0.0.0", "::", "100.64.0.1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "224.0.0.1"} {
		if err := none.Check(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s: allowed, want refused", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "145.21.0.1", "2001:4860:4860::8888", "172.32.0.1", "100.128.0.1"} {
		if err := none.Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: %v, want allowed", s, err)
		}
	}
	allow, err := ParsePrefixes([]string{"127.0.0.1/8", "10.0.0.5", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	p := AddrPolicy{Allow: allow}
	for _, s := range []string{"127.0.0.1", "127.1.2.3", "10.0.0.5", "fd12::1", "::ffff:127.0.0.1"} {
		if err := p.Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s with allow list: %v", s, err)
		}
	}
	for _, s := range []string{"10.0.0.6", "::1", "169.254.169.254"} {
		if err := p.Check(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s: allowed, not in the allow list", s)
		}
	}
	if err := p.Control("tcp4", "10.0.0.6:80", nil); err == nil || !strings.Contains(err.Error(), "allow_private") {
		t.Errorf("Control: %v", err)
	}
	for _, bad := range []string{"localhost", "10.0.0.0/33", "1.2.3"} {
		if _, err := ParsePrefixes([]string{bad}); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

type fakeTimer chan time.Time

func (f fakeTimer) new(time.Duration) (<-chan time.Time, func() bool) {
	return f, func() bool { return true }
}

func TestSelector(t *testing.T) {
	s := newTestSelector(2, Caps{Searches: 1, Requests: 2})
	ft := make(fakeTimer)
	s.newTimer = ft.new
	ctx := context.Background()

	i, rel0, err := s.Acquire(ctx, true, nil, time.Second)
	if err != nil || i != 0 {
		t.Fatalf("first: %d %v", i, err)
	}
	i, rel1, err := s.Acquire(ctx, true, nil, time.Second)
	if err != nil || i != 1 {
		t.Fatalf("host 0 full of searches: got %d %v, want 1", i, err)
	}
	// Non-searches still fit on host 0 until its request cap.
	i, relG, err := s.Acquire(ctx, false, nil, time.Second)
	if err != nil || i != 0 {
		t.Fatalf("get: %d %v", i, err)
	}
	// Excluded hosts are not used; all excluded: errNoHost.
	if _, _, err := s.Acquire(ctx, false, []bool{true, true}, time.Second); !errors.Is(err, errNoHost) {
		t.Fatalf("all excluded: %v", err)
	}
	// Both full for searches: wait, then a release hands the place over.
	got := make(chan int, 1)
	go func() {
		i, rel, err := s.Acquire(ctx, true, nil, time.Second)
		if err != nil {
			t.Error(err)
			got <- -1
			return
		}
		// Given back before the test hears of it: the test takes the
		// place again at once, without waiting.
		rel()
		got <- i
	}()
	select {
	case i := <-got:
		t.Fatalf("got host %d while all were full", i)
	default:
	}
	rel1()
	rel1() // idempotent
	if i := <-got; i != 1 {
		t.Errorf("waiter got host %d, want the freed 1", i)
	}
	// Timeout.
	if _, rel1, err = s.Acquire(ctx, true, nil, 0); err != nil {
		t.Fatalf("the waiter's place, given back: %v", err)
	}
	errc := make(chan error, 1)
	go func() { _, _, err := s.Acquire(ctx, true, nil, time.Second); errc <- err }()
	ft <- time.Now()
	if err := <-errc; !errors.Is(err, ErrNoPlace) {
		t.Errorf("timeout: %v", err)
	}
	// No wait configured: refuse at once.
	if _, _, err := s.Acquire(ctx, true, nil, 0); !errors.Is(err, ErrNoPlace) {
		t.Errorf("zero wait: %v", err)
	}
	rel0()
	rel1()
	relG()
	for i := 0; i < 2; i++ {
		if r, q := s.InFlight(i); r != 0 || q != 0 {
			t.Errorf("host %d: %d/%d in flight", i, r, q)
		}
	}
}

func TestCheckURL(t *testing.T) {
	// The bases a caller passes: OB's public one; OpenTK's two public
	// mirrors and two emulators a config names.
	bases := map[string][]string{
		"ob":     {"https://repository.overheid.nl"},
		"opentk": {"https://opentk.nl", "https://berthub.eu/tkconv", "http://127.0.0.1:9104", "http://127.0.0.1:9105/tkconv"},
	}
	for _, tc := range []struct{ platform, in, want string }{
		{"ob", "https://repository.overheid.nl/sru?query=x&startRecord=2", "/sru?query=x&startRecord=2"},
		{"ob", "https://repository.overheid.nl/sru/", "/sru/"},
		{"ob", "https://repository.overheid.nl/frbr/officielepublicaties/kst/26100/kst-26100-1/1/xml/kst-26100-1.xml", "/frbr/officielepublicaties/kst/26100/kst-26100-1/1/xml/kst-26100-1.xml"},
		{"ob", "http://repository.overheid.nl/sru/a/b.xml", "/sru/a/b.xml"},
		{"ob", "https://REPOSITORY.overheid.nl:443/sru/x", "/sru/x"},
		{"opentk", "https://berthub.eu/tkconv/getdoc/2023D41173", "/getdoc/2023D41173"},
		{"opentk", "https://opentk.nl/search", "/search"},
		{"opentk", "http://127.0.0.1:9104/getraw/1", "/getraw/1"},
		{"opentk", "http://127.0.0.1:9105/tkconv/getraw/1", "/getraw/1"},
		{"opentk", "https://berthub.eu/tkconv/a/../getdoc/1", "/getdoc/1"},
	} {
		got, err := CheckURL(tc.platform, bases[tc.platform], tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %q %v, want %q", tc.platform, tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ platform, in string }{
		{"ob", "https://repository.overheid.nl.evil.com/sru/x"}, // other host
		{"ob", "https://user:pw@repository.overheid.nl/sru/x"},  // user info
		{"ob", "https://repository.overheid.nl:8443/sru/x"},     // other port
		{"ob", "ftp://repository.overheid.nl/sru/x"},            // scheme
		{"ob", "/sru/x"}, // relative
		{"ob", "http://169.254.169.254/latest/meta-data"}, // metadata service
		{"opentk", "https://berthub.eu/other"},            // outside /tkconv
		{"opentk", "https://berthub.eu/tkconv/../other"},  // escapes /tkconv
		{"opentk", "http://127.0.0.1:9106/x"},             // another emulator
		{"nosuch", "https://opentk.nl/x"},                 // unknown platform
	} {
		if got, err := CheckURL(tc.platform, bases[tc.platform], tc.in); err == nil {
			t.Errorf("%s %s: accepted as %q", tc.platform, tc.in, got)
		}
	}
}

// newTestSelector returns a selector for n hosts with counts of its own.
func newTestSelector(n int, caps Caps) *Selector {
	dials := make([]string, n)
	for i := range dials {
		dials[i] = strconv.Itoa(i)
	}
	return NewPlaces().Selector(dials, caps)
}
