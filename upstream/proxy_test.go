package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

var loopback = AddrPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}

func testTransport(o TransportOptions) *http.Transport {
	if o.DialTimeout == 0 {
		o.DialTimeout = 5 * time.Second
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 30 * time.Second
	}
	if o.MaxIdleConnsPerHost == 0 {
		o.MaxIdleConnsPerHost = 16
	}
	if o.Policy.Allow == nil {
		o.Policy = loopback
	}
	return NewTransport(o)
}

func newTestProxy(t *testing.T, bases []string, opt Options) *Proxy {
	t.Helper()
	var hosts []*Host
	for _, b := range bases {
		h, err := ParseBaseURL(b)
		if err != nil {
			t.Fatal(err)
		}
		tr := testTransport(TransportOptions{})
		t.Cleanup(tr.CloseIdleConnections)
		h.Transport = tr
		hosts = append(hosts, h)
	}
	p, err := NewProxy(hosts, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// get sends a request through p the way the reverse proxy does: the path
// below the base URL, the body, and reads the whole answer.
func do(t *testing.T, p *Proxy, ctx context.Context, method, path, body string) (*http.Response, string, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://placeholder"+path, rd)
	if err != nil {
		return nil, "", err
	}
	req.GetBody = nil // like a server request: the body cannot be rewound
	if body != "" {
		req.Body = io.NopCloser(strings.NewReader(body))
	}
	resp, err := p.RoundTrip(req)
	if err != nil {
		return nil, "", err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b), err
}

// counted is an httptest server that counts connections and requests.
type counted struct {
	*httptest.Server
	conns    atomic.Int64
	requests atomic.Int64
}

func newCounted(t *testing.T, h http.HandlerFunc) *counted {
	c := &counted{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		h(w, r)
	}))
	c.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.conns.Add(1)
		}
	}
	c.Start()
	t.Cleanup(c.Close)
	return c
}

func TestKeepAliveReusesOneConnection(t *testing.T) {
	up := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	p := newTestProxy(t, []string{up.URL}, Options{})
	for i := 0; i < 20; i++ {
		if _, body, err := do(t, p, context.Background(), "GET", "/x", ""); err != nil || body != "ok" {
			t.Fatalf("request %d: %q %v", i, body, err)
		}
	}
	if n := up.conns.Load(); n != 1 {
		t.Errorf("20 sequential requests used %d connections, want 1", n)
	}
	if s := p.Stats(); s.Sent != 20 || s.Requests != 20 || s.StaleResends != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestEachRequestInFlightHasItsOwnConnection(t *testing.T) {
	const n = 5
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	up := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		io.WriteString(w, "ok")
	})
	p := newTestProxy(t, []string{up.URL}, Options{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := do(t, p, context.Background(), "GET", "/x", ""); err != nil {
				t.Error(err)
			}
		}()
	}
	for i := 0; i < n; i++ {
		<-arrived
	}
	close(release)
	wg.Wait()
	if c := up.conns.Load(); c != n {
		t.Errorf("%d concurrent requests used %d connections, want %d", n, c, n)
	}
	// Afterwards they are all pooled: n more requests open none.
	for i := 0; i < n; i++ {
		if _, _, err := do(t, p, context.Background(), "GET", "/y", ""); err != nil {
			t.Fatal(err)
		}
	}
	if c := up.conns.Load(); c != n {
		t.Errorf("pooled connections not reused: %d connections", c)
	}
}

// rawServer accepts connections on loopback and hands each to script with
// its index (0, 1, ...). It counts connections and requests read.
type rawServer struct {
	ln       net.Listener
	conns    atomic.Int64
	requests atomic.Int64
	bodies   chan string
	wg       sync.WaitGroup
}

func newRawServer(t *testing.T, script func(s *rawServer, i int, c net.Conn, br *bufio.Reader)) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, bodies: make(chan string, 100)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.wg.Add(1)
			go func(i int) {
				defer s.wg.Done()
				defer c.Close()
				script(s, i, c, bufio.NewReader(c))
			}(i)
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) URL() string { return "http://" + s.ln.Addr().String() }

// read reads one request and its body.
func (s *rawServer) read(br *bufio.Reader) bool {
	req, err := http.ReadRequest(br)
	if err != nil {
		return false
	}
	b, _ := io.ReadAll(req.Body)
	s.requests.Add(1)
	s.bodies <- req.Method + " " + req.URL.Path + " " + string(b)
	return true
}

func answer(c net.Conn, body string) {
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n%s", len(body), body)
}

// staleServer answers the first request on connection 0, then reads the
// second request on it and closes the connection without a byte: the
// pooled connection turned out closed. Later connections answer normally.
func staleServer(t *testing.T) *rawServer {
	return newRawServer(t, func(s *rawServer, i int, c net.Conn, br *bufio.Reader) {
		if i == 0 {
			if !s.read(br) {
				return
			}
			answer(c, "first")
			s.read(br)
			return // close, nothing answered
		}
		for s.read(br) {
			answer(c, "fresh")
		}
	})
}

func TestStalePooledConnectionResentOnce(t *testing.T) {
	for _, tc := range []struct {
		name, method, path, body string
		search                   bool
		resent                   bool
	}{
		{"GET", "GET", "/getdoc/1", "", false, true},
		{"search POST", "POST", "/search", "q=woningbouw&twomonths=false", true, true},
		{"other POST", "POST", "/other", "x=1", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := staleServer(t)
			p := newTestProxy(t, []string{up.URL()}, Options{SearchPaths: []string{"/search"}})
			if _, body, err := do(t, p, context.Background(), "GET", "/warm", ""); err != nil || body != "first" {
				t.Fatalf("warm-up: %q %v", body, err)
			}
			<-up.bodies
			_, body, err := do(t, p, context.Background(), tc.method, tc.path, tc.body)
			if !tc.resent {
				if err == nil {
					t.Fatalf("non-replayable POST on a closed pooled connection: got %q, want an error", body)
				}
				if n := up.conns.Load(); n != 1 {
					t.Errorf("non-replayable POST was resent: %d connections", n)
				}
				return
			}
			if err != nil || body != "fresh" {
				t.Fatalf("got %q %v, want the answer from a new connection", body, err)
			}
			want := tc.method + " " + tc.path + " " + tc.body
			for i := 0; i < 2; i++ { // seen on the closed and on the new connection
				if got := <-up.bodies; got != want {
					t.Errorf("upstream saw %q, want %q", got, want)
				}
			}
			if n := up.conns.Load(); n != 2 {
				t.Errorf("connections = %d, want 2 (pooled one closed, one new)", n)
			}
			if s := p.Stats(); s.Sent != 2 || s.StaleResends != 1 || s.Failovers != 0 {
				t.Errorf("stats %+v, want 2 sent (warm-up + this), 1 stale resend", s)
			}
		})
	}
}

func TestNothingResentAfterAResponseByte(t *testing.T) {
	second := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "second") })
	up := newRawServer(t, func(s *rawServer, i int, c net.Conn, br *bufio.Reader) {
		if !s.read(br) {
			return
		}
		if i == 0 {
			answer(c, "first")
			if !s.read(br) {
				return
			}
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Le") // and hang up
	})
	p := newTestProxy(t, []string{up.URL(), second.URL}, Options{Attempts: 2})
	if _, _, err := do(t, p, context.Background(), "GET", "/warm", ""); err != nil {
		t.Fatal(err)
	}
	if _, body, err := do(t, p, context.Background(), "GET", "/x", ""); err == nil {
		t.Fatalf("got %q, want an error: the platform started answering", body)
	}
	if n := up.requests.Load(); n != 2 {
		t.Errorf("first host saw %d requests, want 2 (warm-up, the broken one; no resend)", n)
	}
	if n := second.requests.Load(); n != 0 {
		t.Errorf("second host saw %d requests, want none after a response byte", n)
	}
}

func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestFailover(t *testing.T) {
	t.Run("refused dial costs no attempt", func(t *testing.T) {
		b := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "b") })
		p := newTestProxy(t, []string{closedPort(t), b.URL}, Options{Attempts: 1})
		if _, body, err := do(t, p, context.Background(), "GET", "/x", ""); err != nil || body != "b" {
			t.Fatalf("got %q %v", body, err)
		}
		if s := p.Stats(); s.Sent != 1 || s.Failovers != 1 {
			t.Errorf("stats %+v, want 1 sent, 1 failover", s)
		}
	})
	reset := func(t *testing.T) *rawServer {
		return newRawServer(t, func(s *rawServer, i int, c net.Conn, br *bufio.Reader) {
			if s.read(br) {
				c.(*net.TCPConn).SetLinger(0) // RST
			}
		})
	}
	t.Run("reset before answering fails over", func(t *testing.T) {
		a := reset(t)
		b := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "b") })
		p := newTestProxy(t, []string{a.URL(), b.URL}, Options{SearchPaths: []string{"/search"}})
		if _, body, err := do(t, p, context.Background(), "POST", "/search", "q=x"); err != nil || body != "b" {
			t.Fatalf("got %q %v", body, err)
		}
		if s := p.Stats(); s.Sent != 2 || s.Failovers != 1 {
			t.Errorf("stats %+v, want 2 sent, 1 failover", s)
		}
		if a.requests.Load() != 1 || b.requests.Load() != 1 {
			t.Errorf("requests a=%d b=%d, want 1 each", a.requests.Load(), b.requests.Load())
		}
	})
	t.Run("attempts are fixed", func(t *testing.T) {
		a := reset(t)
		b := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "b") })
		p := newTestProxy(t, []string{a.URL(), b.URL}, Options{Attempts: 1})
		if _, _, err := do(t, p, context.Background(), "GET", "/x", ""); err == nil {
			t.Fatal("want an error: the one attempt failed")
		}
		if b.requests.Load() != 0 {
			t.Error("second host contacted beyond the attempts")
		}
	})
	t.Run("503 fails over, the last answer is passed on", func(t *testing.T) {
		a := newCounted(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
		b := newCounted(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503); io.WriteString(w, "b busy") })
		p := newTestProxy(t, []string{a.URL, b.URL}, Options{})
		resp, body, err := do(t, p, context.Background(), "GET", "/x", "")
		if err != nil || resp.StatusCode != 503 || body != "b busy" {
			t.Fatalf("got %v %q %v", resp, body, err)
		}
		if s := p.Stats(); s.Sent != 2 || s.Failovers != 1 {
			t.Errorf("stats %+v", s)
		}
	})
}

func TestFullHostPassedWithoutCostAndWaitForAPlace(t *testing.T) {
	arrived := make(chan string, 10)
	release := make(chan struct{})
	handler := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			arrived <- name
			if r.URL.Path == "/search" {
				<-release
			}
			io.WriteString(w, name)
		}
	}
	a := newCounted(t, handler("a"))
	b := newCounted(t, handler("b"))
	p := newTestProxy(t, []string{a.URL, b.URL}, Options{
		Attempts: 1, Caps: Caps{Searches: 1}, SearchPaths: []string{"/search"}, QueueWait: time.Hour,
	})
	results := make(chan string, 3)
	search := func() {
		_, body, err := do(t, p, context.Background(), "POST", "/search", "q=x")
		if err != nil {
			body = err.Error()
		}
		results <- body
	}
	go search()
	if got := <-arrived; got != "a" {
		t.Fatalf("first search went to %s", got)
	}
	go search()
	if got := <-arrived; got != "b" {
		t.Fatalf("second search went to %s, want b: a is full", got)
	}
	// Not a search: no cap.
	if _, body, err := do(t, p, context.Background(), "GET", "/getdoc/1", ""); err != nil || body != "a" {
		t.Fatalf("GET while searches are full: %q %v", body, err)
	}
	<-arrived
	// Both full: the third search waits for a place instead of failing.
	go search()
	waitFor(t, func() bool { return p.Stats().Requests == 4 })
	select {
	case got := <-arrived:
		t.Fatalf("third search reached %s while both hosts were full", got)
	default:
	}
	close(release)
	for i := 0; i < 3; i++ {
		if r := <-results; r != "a" && r != "b" {
			t.Errorf("search result %q", r)
		}
	}
	if s := p.Stats(); s.Sent != 4 || s.Failovers != 0 || s.NoPlace != 0 {
		t.Errorf("stats %+v: passing a full host must cost nothing", s)
	}
	for i := range p.hosts {
		if r, s := p.Selector().InFlight(i); r != 0 || s != 0 {
			t.Errorf("host %d still holds %d requests, %d searches", i, r, s)
		}
	}
}

// waitFor polls a condition that another goroutine makes true (no clock).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 100000; i++ {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond / 10)
	}
	t.Fatal("condition never became true")
}

func TestAllFullGivesUpAfterTheBoundedWait(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) { arrived <- struct{}{}; <-release })
	p := newTestProxy(t, []string{a.URL}, Options{Caps: Caps{Requests: 1}, QueueWait: time.Minute})
	fire := make(chan time.Time)
	p.sel.newTimer = func(d time.Duration) (<-chan time.Time, func() bool) {
		if d != time.Minute {
			t.Errorf("wait %v, want the configured minute", d)
		}
		return fire, func() bool { return true }
	}
	go do(t, p, context.Background(), "GET", "/x", "")
	<-arrived
	errc := make(chan error, 1)
	go func() { _, _, err := do(t, p, context.Background(), "GET", "/y", ""); errc <- err }()
	waitFor(t, func() bool { return p.Stats().Requests == 2 })
	fire <- time.Now()
	if err := <-errc; !errors.Is(err, ErrNoPlace) {
		t.Fatalf("got %v, want ErrNoPlace", err)
	}
	if s := p.Stats(); s.NoPlace != 1 || s.Sent != 1 {
		t.Errorf("stats %+v", s)
	}
	// The caller's context ends the wait too.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _, err := do(t, p, ctx, "GET", "/z", ""); errc <- err }()
	waitFor(t, func() bool { return p.Stats().Requests == 3 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	close(release)
}

func TestCallerHangingUpCancelsUpstreamAndFreesThePlace(t *testing.T) {
	upstreamDone := make(chan struct{})
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "part one")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(upstreamDone)
	})
	p := newTestProxy(t, []string{a.URL}, Options{Caps: Caps{Requests: 1}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://placeholder/x", nil)
	resp, err := p.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("reading after the hang-up: want an error")
	}
	resp.Body.Close()
	<-upstreamDone // the platform saw the request end
	if r, _ := p.Selector().InFlight(0); r != 0 {
		t.Errorf("place not freed: %d in flight", r)
	}
	if n := a.requests.Load(); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
}

func TestLongSilentAnswerIsNotCut(t *testing.T) {
	testtier.Full(t, "2.5 s of real silence: the kernel's keep-alive timers cannot be faked")
	t.Parallel() // overlapped with the network-namespace waits
	// The upstream stays silent longer than every timeout configured
	// here (dial, idle, queue wait, and the 2 s TCP user timeout); only
	// then does it answer. Its kernel acknowledges the keep-alive
	// probes, so the connection is alive and must not be cut.
	silence := 2500 * time.Millisecond
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(silence)
		io.WriteString(w, "late but whole")
	})
	h, _ := ParseBaseURL(a.URL)
	h.Transport = testTransport(TransportOptions{DialTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond, ProbeInterval: time.Second, ProbeCount: 1})
	p, err := NewProxy([]*Host{h}, Options{QueueWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, body, err := do(t, p, context.Background(), "GET", "/slow", ""); err != nil || body != "late but whole" {
		t.Fatalf("got %q %v", body, err)
	}
	if n := a.requests.Load(); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
}

// A redirect within the base URL is pointed at our route (or left as it
// is without a prefix); one anywhere else, the platform's own host outside
// the base URL's path included, is refused: passed on, it would be an
// open redirect on our domain. None is followed.
func TestRedirectsPassedOnNotFollowed(t *testing.T) {
	elsewhere := newCounted(t, func(w http.ResponseWriter, r *http.Request) {})
	var a *counted
	a = newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tkconv/get/1":
			w.Header().Set("Location", "/tkconv/getdoc/1?x=1")
		case "/tkconv/abs":
			w.Header().Set("Location", a.URL+"/tkconv/getraw/2")
		case "/tkconv/out":
			w.Header().Set("Location", elsewhere.URL+"/steal")
		case "/tkconv/escape":
			w.Header().Set("Location", "/admin")
		case "/tkconv/scheme":
			w.Header().Set("Location", "javascript:alert(1)")
		}
		w.WriteHeader(301)
	})
	for prefix, within := range map[string]map[string]string{
		"/platforms/opentk": {"/get/1": "/platforms/opentk/getdoc/1?x=1", "/abs": "/platforms/opentk/getraw/2"},
		"":                  {"/get/1": "/tkconv/getdoc/1?x=1", "/abs": a.URL + "/tkconv/getraw/2"},
	} {
		p := newTestProxy(t, []string{a.URL + "/tkconv"}, Options{RedirectPrefix: prefix})
		for path, want := range within {
			resp, _, err := do(t, p, context.Background(), "GET", path, "")
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 301 || resp.Header.Get("Location") != want {
				t.Errorf("prefix %q %s: %d Location %q, want 301 %q", prefix, path, resp.StatusCode, resp.Header.Get("Location"), want)
			}
		}
		for path, target := range map[string]string{"/out": elsewhere.URL + "/steal", "/escape": a.URL + "/admin", "/scheme": "javascript:alert(1)"} {
			_, _, err := do(t, p, context.Background(), "GET", path, "")
			var off *OffPlatformRedirect
			if !errors.As(err, &off) || off.Location != target || off.Status != 301 {
				t.Errorf("prefix %q %s: err %v, want an OffPlatformRedirect to %s", prefix, path, err, target)
			}
		}
	}
	if n := elsewhere.requests.Load(); n != 0 {
		t.Errorf("redirect target contacted %d times", n)
	}
	if n := a.requests.Load(); n != 10 {
		t.Errorf("upstream saw %d requests, want 10 (no redirect followed)", n)
	}
}

func TestPrivateAddressesRefusedAtDial(t *testing.T) {
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h, _ := ParseBaseURL(a.URL)
	h.Transport = NewTransport(TransportOptions{DialTimeout: time.Second, Policy: AddrPolicy{}})
	p, _ := NewProxy([]*Host{h}, Options{})
	_, _, err := do(t, p, context.Background(), "GET", "/x", "")
	var refused *RefusedAddrError
	if !errors.As(err, &refused) {
		t.Fatalf("got %v, want a refused address", err)
	}
	if a.conns.Load() != 0 {
		t.Error("a connection reached the loopback server")
	}
	if s := p.Stats(); s.Sent != 0 {
		t.Errorf("a refused dial counted as sent: %+v", s)
	}
	// localhost resolves to loopback: refused after resolution too.
	port := a.Listener.Addr().(*net.TCPAddr).Port
	h2, _ := ParseBaseURL(fmt.Sprintf("http://localhost:%d", port))
	h2.Transport = NewTransport(TransportOptions{DialTimeout: time.Second})
	p2, _ := NewProxy([]*Host{h2}, Options{})
	if _, _, err := do(t, p2, context.Background(), "GET", "/x", ""); !errors.As(err, &refused) {
		t.Fatalf("localhost: got %v, want a refused address", err)
	}
}

func TestHeadersAndPrefix(t *testing.T) {
	var got *http.Request
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) { got = r.Clone(context.Background()) })
	p := newTestProxy(t, []string{a.URL + "/v1/elastic"}, Options{UserAgent: "BesluitBron/test", SearchPaths: []string{"/*/_search"}})
	req, _ := http.NewRequest("POST", "http://placeholder/ori_a%2Fb/_search", strings.NewReader("{}"))
	req.Header.Set("X-Forwarded-For", "203.0.113.1")
	if _, err := p.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if got.URL.EscapedPath() != "/v1/elastic/ori_a%2Fb/_search" {
		t.Errorf("path %q", got.URL.EscapedPath())
	}
	if got.Header.Get("User-Agent") != "BesluitBron/test" || got.Header.Get("X-Forwarded-For") != "" {
		t.Errorf("headers %v", got.Header)
	}
	if _, ok := got.Header["Idempotency-Key"]; ok {
		t.Error("the replay marker was sent on the wire")
	}
}

func TestUpstreamClosingIdleConnections(t *testing.T) {
	// The platform closes its idle kept-alive connections (as a server
	// with a short idle timeout does); the next request must not fail.
	idle := make(chan net.Conn, 10)
	up := &counted{}
	up.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.requests.Add(1)
		io.WriteString(w, "ok")
	}))
	up.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			up.conns.Add(1)
		case http.StateIdle:
			idle <- c
		}
	}
	up.Start()
	defer up.Close()
	p := newTestProxy(t, []string{up.URL}, Options{})
	for i := 0; i < 3; i++ {
		if _, body, err := do(t, p, context.Background(), "GET", "/x", ""); err != nil || body != "ok" {
			t.Fatalf("request %d after the platform closed the idle connection: %q %v", i, body, err)
		}
		(<-idle).Close() // the platform hangs up the idle connection
	}
	if n := up.requests.Load(); n != 3 {
		t.Errorf("platform saw %d requests, want 3", n)
	}
	if n := up.conns.Load(); n != 3 {
		t.Errorf("connections %d, want 3 (one per request after each close)", n)
	}
}
