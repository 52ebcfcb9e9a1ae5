package platformlimit

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// Issue 31, point 7: the fair queue counts an IPv6 client by its /64, as
// the session registry and client_limit do (session.AddrGroup), so a
// client holding a /64 cannot multiply its share by cycling through its
// addresses. IPv4 addresses stay themselves, an IPv4-mapped address is its
// IPv4 address, and a trusted source's sessions stay clients of their own.

// TestIPv6ClientIsItsSlash64: two addresses of one /64 are one client with
// one share; addresses in different /64s are different clients.
func TestIPv6ClientIsItsSlash64(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-v6", Capacity: 1000, Window: caddy.Duration(time.Minute),
		TrustedSources: []string{"2001:db8:7::/48"}})
	cases := []struct {
		addr, sess   string
		client, want string
	}{
		{"2001:db8:1:2::1", "a", "addr:2001:db8:1:2::/64", "app:a"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "", "addr:2001:db8:1:2::/64", ""},
		{"2001:db8:1:3::1", "a", "addr:2001:db8:1:3::/64", "app:a"},
		{"fe80::1%eth0", "", "addr:fe80::/64", ""},
		{"192.0.2.1", "", "addr:192.0.2.1", ""},
		{"192.0.2.2", "", "addr:192.0.2.2", ""},
		{"::ffff:192.0.2.1", "b", "addr:192.0.2.1", "app:b"},
		{"2001:db8:7:1::1", "c", "app:c", ""},                       // trusted: each session a client
		{"2001:db8:7:1::2", "d", "app:d", ""},                       // of its own, even in one /64
		{"2001:db8:7:1::3", "", "addr:2001:db8:7:1::/64", ""},       // the address alone: its /64
		{"2001:db8:8:1::1", "c", "addr:2001:db8:8:1::/64", "app:c"}, // not trusted
	}
	for _, c := range cases {
		r, _ := from(c.addr, c.sess)
		if got := h.key(r); got.Client != c.client || got.Session != c.want {
			t.Errorf("%s session %q: key %+v; want client %q session %q", c.addr, c.sess, got, c.client, c.want)
		}
	}
	// An in-process sub-request for an address alone (session.WithInternal
	// "addr:<ip>") counts as that address's /64 too.
	r, _ := from("127.0.0.1", "")
	r = r.WithContext(session.WithInternal(r.Context(), "addr:2001:db8:1:2::99"))
	if got := h.key(r); got.Client != "addr:2001:db8:1:2::/64" {
		t.Errorf("sub-request for an IPv6 address: %+v", got)
	}

	// Through the handler: four calls from four addresses of one /64, two
	// from two of another, one from an IPv4 address in both its forms.
	for _, addr := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2::3", "2001:db8:1:2::4",
		"2001:db8:1:3::1", "2001:db8:1:3::2", "192.0.2.1", "::ffff:192.0.2.1"} {
		r, w := from(addr, "")
		if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
	}
	if st := h.budget.Stats(); st.Clients != 3 {
		t.Fatalf("stats %+v; want 3 clients (two /64s, one IPv4 address)", st)
	}
	for client, want := range map[string]float64{"addr:2001:db8:1:2::/64": 4, "addr:2001:db8:1:3::/64": 2, "addr:192.0.2.1": 2} {
		if got := h.budget.Used(client); got != want {
			t.Errorf("%s used %v units, want %v", client, got, want)
		}
	}
}

// TestSlash64CyclingAddressesCannotStarveHonest is the hostile side: one
// client keeps 1,200 calls in flight against an OpenBesluitvorming-sized
// budget (60 units a minute), each from the next address of its /64 and
// under a new session name, and sends a refused call again after 500 ms.
// Counted per address, each call would be a new client with a new
// client's full share, and a newcomer would queue behind a thousand of
// them. Counted by /64 it is one heavy client: after 30 s of flood, an
// honest call from another /64 goes within one unit's refill.
func TestSlash64CyclingAddressesCannotStarveHonest(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-v6-flood", Capacity: 60, Window: caddy.Duration(time.Minute),
		MaxQueue: 1000, MaxWait: caddy.Duration(time.Hour)})
	b, ok := h.budget.(*fairqueue.Budget)
	if !ok {
		t.Fatalf("budget %T; want the local fair queue", h.budget)
	}
	f := &slash64Flood{h: h, b: b, clk: clk, retry: 500 * time.Millisecond}
	for range 1200 {
		f.send()
	}
	clk.Advance(30 * time.Second)
	if st := b.Stats(); st.Waiting != 1000 || st.Clients != 1 {
		t.Fatalf("after 30 s of flood from %d addresses: %+v; want the queue full of one client", f.next, st)
	}

	r, _ := from("2001:db8:77:1::7", "honest")
	var wait time.Duration
	admitted := false
	if _, err := b.Submit(h.key(r), 1, func(a fairqueue.Admission, err error) {
		if err != nil {
			t.Errorf("the honest call was refused: %v", err)
			return
		}
		admitted, wait = true, a.Wait
	}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	f.stopped = true
	if !admitted {
		t.Fatal("the honest call was not admitted within a minute")
	}
	if wait > time.Second {
		t.Fatalf("the honest call waited %v behind a /64 cycling through %d addresses; want one unit's refill at most", wait, f.next)
	}
	t.Logf("flood from %d addresses of one /64: %d refusals, %.0f units; the honest call waited %v", f.next, f.refused, f.units, wait)
}

// slash64Flood is the fair queue's flood (fairqueue/hostile_test.go) from
// the addresses of one /64, keyed by the handler as real requests are.
type slash64Flood struct {
	h       *Handler
	b       *fairqueue.Budget
	clk     *fakeclock.Clock
	retry   time.Duration
	next    int
	units   float64
	refused int
	stopped bool
}

func (f *slash64Flood) send() {
	if f.stopped {
		return
	}
	f.next++
	r, _ := from(fmt.Sprintf("2001:db8:66:1::%x", f.next), "made-up-"+strconv.Itoa(f.next))
	_, _ = f.b.Submit(f.h.key(r), 1, func(a fairqueue.Admission, err error) {
		if err != nil {
			f.refused++
			f.clk.AfterFunc(f.retry, f.send)
			return
		}
		f.units += a.Cost
		f.send()
	})
}
