package platformlimit

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// provision provisions h with its budget on clk, as Caddy does for a
// config.
func provision(t *testing.T, clk clock.Clock, h *Handler) *Handler {
	t.Helper()
	h.clock = clk
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Cleanup() })
	return h
}

// budgetsOn makes the budgets of platforms (in this process) on clk
// before a test loads a config: Caddy builds the handlers itself, so a
// test cannot set their clock, but they find these budgets in the pool
// and run on the budget's clock. The limits are the config's, applied in
// place when it loads. release lets the budgets go with the config that
// uses them (the test keeps them until its end otherwise).
func budgetsOn(t *testing.T, clk clock.Clock, keys ...string) (release func()) {
	t.Helper()
	var once sync.Once
	release = func() {
		once.Do(func() {
			for _, k := range keys {
				_, _ = budgets.Delete(k)
			}
		})
	}
	for _, k := range keys {
		_, _, err := budgets.LoadOrNew(k, func() (caddy.Destructor, error) {
			// Full until the config's limits apply: a budget keeps its
			// units up to the new capacity.
			return newPooledBudget(k, nil, fairqueue.Config{Capacity: 1e9, Window: time.Minute}, clk, zap.NewNop())
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(release)
	return release
}

func request(target string, hdr ...string) (*http.Request, *httptest.ResponseRecorder) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	r = caddyhttp.PrepareRequest(r, caddy.NewReplacer(), w, nil)
	return r, w
}

// upstream answers with status and headers.
func upstream(status int, hdr ...string) caddyhttp.Handler {
	return caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.WriteHeader(status)
		_, err := w.Write([]byte("ok"))
		return err
	})
}

func TestOBVCosts(t *testing.T) {
	clk := fakeclock.New(t0)
	obv := provision(t, clk, &Handler{Platform: platforms.OBV})
	oa := provision(t, clk, &Handler{Platform: platforms.OA})
	cases := []struct {
		h      *Handler
		target string
		want   float64
	}{
		{obv, "/api/search?query=x", 1},
		{obv, "/api/search?query=x&limit=24", 1},
		{obv, "/api/search?query=x&limit=25", 2},
		{obv, "/api/search?query=x&limit=100", 5},
		{obv, "/api/search?query=x&limit=1000", 5},
		{obv, "/api/search?query=x&limit=abc", 1},
		{obv, "/api/search?query=x&limit=0", 1},
		{obv, "/api/search?query=x&limit=-5", 1},
		// The same search with a trailing slash is still a search.
		{obv, "/api/search/?query=x&limit=100", 5},
		{obv, "/api/search/?query=x", 1},
		{obv, "/api/entities/document:notubiz:gemeente:soest:1/pdf/page/3", 0.125},
		{obv, "/api/entities/document:notubiz:gemeente:soest:1", 1},
		{obv, "/api/sources", 1},
		{oa, "/api/search?limit=100", 1},
	}
	for _, c := range cases {
		r, _ := request(c.target)
		got, err := c.h.cost(r)
		if err != nil || got != c.want {
			t.Errorf("%s %s: cost %v %v; want %v", c.h.Platform, c.target, got, err, c.want)
		}
	}
	if obv.Capacity != 60 || time.Duration(obv.Window) != time.Minute || oa.Capacity != 120 {
		t.Fatalf("built-in limits: obv %v/%v oa %v", obv.Capacity, obv.Window, oa.Capacity)
	}
}

func TestQueueWaitHeader(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-wait", Capacity: 2, Window: caddy.Duration(2 * time.Second)})
	for range 2 {
		r, w := request("/x")
		if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
		if got := w.Header().Get(platforms.HeaderQueueWait); got != "0" {
			t.Fatalf("%s = %q with room; want 0", platforms.HeaderQueueWait, got)
		}
	}
	r, w := request("/x")
	done := make(chan error, 1)
	go func() { done <- h.ServeHTTP(w, r, upstream(200)) }()
	for h.budget.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond) // waiting for the goroutine to queue, not for time to pass
	}
	clk.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get(platforms.HeaderQueueWait); got != "1000" {
		t.Fatalf("%s = %q; want 1000", platforms.HeaderQueueWait, got)
	}
}

func TestRejectionHasRetryAfterFromBacklog(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-reject", Capacity: 1, Window: caddy.Duration(time.Second), MaxQueue: 3})
	r, w := request("/x")
	if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for range 3 {
		wg.Go(func() {
			r, w := request("/x")
			_ = h.ServeHTTP(w, r, upstream(200))
		})
	}
	for h.budget.Stats().Waiting != 3 {
		time.Sleep(time.Millisecond) // waiting for the goroutines to queue
	}
	r, w = request("/x")
	err := h.ServeHTTP(w, r, upstream(200))
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("over the queue bound: %v; want a 503 handler error", err)
	}
	if got := w.Header().Get("Retry-After"); got != "4" {
		t.Fatalf("Retry-After %q; want 4 (3 calls queued + this one at 1/s)", got)
	}
	// Cleanup: let the waiting ones go.
	clk.Advance(3 * time.Second)
}

func TestUpstream429PausesBudget(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-429", Capacity: 60, Window: caddy.Duration(time.Minute)})
	r, w := request("/x")
	if err := h.ServeHTTP(w, r, upstream(429, "Retry-After", "30")); err != nil {
		t.Fatal(err)
	}
	st := h.budget.Stats()
	if !st.PausedUntil.Equal(clk.Now().Add(30*time.Second)) || st.Available != 0 {
		t.Fatalf("after a 429 with Retry-After 30: %+v", st)
	}
	// An HTTP date works too; without Retry-After the bucket is emptied.
	h2 := provision(t, clk, &Handler{Platform: "test-429b", Capacity: 60, Window: caddy.Duration(time.Minute)})
	r, w = request("/x")
	if err := h2.ServeHTTP(w, r, upstream(429)); err != nil {
		t.Fatal(err)
	}
	if st := h2.budget.Stats(); st.Available != 0 || !st.PausedUntil.IsZero() {
		t.Fatalf("after a bare 429: %+v", st)
	}
	// An HTTP date pauses until that date (httpx.RetryAfter parses both
	// forms); a date already past, or a wait past a day, is no usable
	// pause and empties the bucket as a bare 429 does.
	for _, tc := range []struct {
		platform, v string
		until       time.Time
	}{
		{"test-429c", clk.Now().Add(90 * time.Second).Format(http.TimeFormat), clk.Now().Add(90 * time.Second)},
		{"test-429d", clk.Now().Add(-time.Minute).Format(http.TimeFormat), time.Time{}},
		{"test-429e", "1e9", time.Time{}},
	} {
		h := provision(t, clk, &Handler{Platform: tc.platform, Capacity: 60, Window: caddy.Duration(time.Minute)})
		r, w = request("/x")
		if err := h.ServeHTTP(w, r, upstream(429, "Retry-After", tc.v)); err != nil {
			t.Fatal(err)
		}
		if st := h.budget.Stats(); st.Available != 0 || !st.PausedUntil.Equal(tc.until) {
			t.Errorf("after a 429 with Retry-After %q: %+v, want paused until %v", tc.v, st, tc.until)
		}
	}
}

func TestRateLimitHeadersPullDown(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-pull", Capacity: 60, Window: caddy.Duration(time.Minute)})
	r, w := request("/x")
	if err := h.ServeHTTP(w, r, upstream(200, "RateLimit-Remaining", "3", "RateLimit-Reset", "57")); err != nil {
		t.Fatal(err)
	}
	if st := h.budget.Stats(); st.Available > 3+1e-9 {
		t.Fatalf("available %v after the platform said 3 remaining", st.Available)
	}
	// More room on the platform's side never raises ours.
	before := h.budget.Stats().Available
	r, w = request("/x")
	if err := h.ServeHTTP(w, r, upstream(200, "RateLimit-Remaining", "59", "RateLimit-Reset", "1")); err != nil {
		t.Fatal(err)
	}
	if st := h.budget.Stats(); st.Available > before {
		t.Fatalf("available rose from %v to %v", before, st.Available)
	}
}

func TestSessionKeyPlaceholder(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-key", Capacity: 60, Window: caddy.Duration(time.Minute), SessionKey: "{http.request.header.X-User}"})
	for _, hdr := range [][]string{{"X-User", "alice"}, {"X-User", "alice"}, {"Besluitbron-Session", "b"}} {
		r, w := request("/x", hdr...)
		if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
	}
	top := h.budget.Heaviest(5)
	if len(top) != 1 || top[0].Used != 3 || len(top[0].Sessions) != 2 ||
		top[0].Sessions[0].Session != "key:alice" || top[0].Sessions[0].Used != 2 || top[0].Sessions[1].Session != "app:b" {
		t.Fatalf("clients %+v; want one address with sessions key:alice (placeholder) and app:b (default key)", top)
	}
}

func TestHangUpWhileWaiting(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-hangup", Capacity: 1, Window: caddy.Duration(time.Second)})
	r, w := request("/x")
	if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, w = request("/x")
	r = r.WithContext(ctx)
	done := make(chan error, 1)
	called := false
	go func() {
		done <- h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
			called = true
			return nil
		}))
	}()
	for h.budget.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond) // waiting for the goroutine to queue
	}
	cancel()
	err := <-done
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != 499 || called {
		t.Fatalf("hang-up: %v, upstream called %v", err, called)
	}
	if st := h.budget.Stats(); st.UnitsSpent != 1 || st.Waiting != 0 || st.Cancelled != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestBudgetSurvivesReloadAndReconfigures(t *testing.T) {
	clk := fakeclock.New(t0)
	h1 := provision(t, clk, &Handler{Platform: "test-reload", Capacity: 10, Window: caddy.Duration(10 * time.Second)})
	for range 4 {
		r, w := request("/x")
		if err := h1.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
	}
	// A new config is provisioned before the old one is cleaned up.
	h2 := provision(t, clk, &Handler{Platform: "test-reload", Capacity: 20, Window: caddy.Duration(10 * time.Second)})
	if err := h1.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if h2.budget != h1.budget {
		t.Fatal("the reload made a new budget")
	}
	if st := h2.budget.Stats(); st.Capacity != 10 {
		t.Fatalf("the new limits applied before the new config started: %+v", st)
	}
	if err := h2.app.Start(); err != nil { // the new config starts
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h2.app.Stop() })
	st := h2.budget.Stats()
	if st.Capacity != 20 || st.UnitsSpent != 4 || st.Available != 6 {
		t.Fatalf("after reload %+v; want capacity 20, the 6 units left kept", st)
	}
	if refs, _ := budgets.References("test-reload"); refs != 1 {
		t.Fatalf("%d references", refs)
	}
	_ = strconv.Itoa
}

// from is a request from addr with a session header (none when sess is "").
func from(addr, sess string) (*http.Request, *httptest.ResponseRecorder) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	r.RemoteAddr = net.JoinHostPort(addr, "40000")
	if sess != "" {
		r.Header.Set(session.Header, sess)
	}
	return caddyhttp.PrepareRequest(r, caddy.NewReplacer(), w, nil), w
}

// TestWhoIsAClient: a client is its address; its sessions divide it. From
// a trusted source, each session is a client of its own.
func TestWhoIsAClient(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-who", Capacity: 1000, Window: caddy.Duration(time.Minute),
		TrustedSources: []string{"10.0.0.0/8", "2001:db8::1"}})
	cases := []struct {
		addr, sess   string
		client, want string
	}{
		{"192.0.2.1", "a", "addr:192.0.2.1", "app:a"},
		{"192.0.2.1", "made-up-1", "addr:192.0.2.1", "app:made-up-1"},
		{"192.0.2.1", "", "addr:192.0.2.1", ""},
		{"10.1.2.3", "a", "app:a", ""},
		{"10.1.2.3", "b", "app:b", ""},
		{"10.1.2.3", "", "addr:10.1.2.3", ""},
		{"2001:db8::1", "c", "app:c", ""},
		{"2001:db8::2", "c", "addr:2001:db8::/64", "app:c"}, // an IPv6 client is its /64
		{"::ffff:10.9.9.9", "d", "app:d", ""},               // an IPv4-mapped address is its IPv4 address
	}
	for _, c := range cases {
		r, _ := from(c.addr, c.sess)
		if got := h.key(r); got.Client != c.client || got.Session != c.want {
			t.Errorf("%s session %q: key %+v; want client %q session %q", c.addr, c.sess, got, c.client, c.want)
		}
	}
	r, _ := from("192.0.2.1", "a")
	r = r.WithContext(session.WithInternal(r.Context(), session.Shared))
	if got := h.key(r); got.Client != fairqueue.Shared || got.Session != "" {
		t.Errorf("shared sub-request: %+v", got)
	}
	r, _ = from("192.0.2.1", "")
	r = r.WithContext(session.WithInternal(r.Context(), "mcp:abc"))
	if got := h.key(r); got.Client != "addr:192.0.2.1" || got.Session != "mcp:abc" {
		t.Errorf("MCP sub-request: %+v", got)
	}

	// Through the handler: ten made-up names from one address are one
	// client; two names from the trusted source are two.
	for i := range 10 {
		r, w := from("192.0.2.1", "n"+strconv.Itoa(i))
		if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"a", "b"} {
		r, w := from("10.1.2.3", s)
		if err := h.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
	}
	if st := h.budget.Stats(); st.Clients != 3 || st.Sessions != 12 {
		t.Fatalf("stats %+v; want 3 clients (one address, two trusted sessions), 12 sessions", st)
	}
	if h.budget.Used("addr:192.0.2.1") != 10 || h.budget.Used("app:a") != 1 {
		t.Fatalf("usage: address %v, trusted session %v", h.budget.Used("addr:192.0.2.1"), h.budget.Used("app:a"))
	}
}
