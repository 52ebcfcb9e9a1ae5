package clientlimit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// newConfig returns a fresh caddy.Context, as one loaded config; cancel
// unloads it.
func newConfig(t *testing.T) (caddy.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	return ctx, cancel
}

// provision provisions h in ctx as Caddy does, on the wall clock.
func provision(t *testing.T, ctx caddy.Context, h *Handler) *Handler {
	t.Helper()
	return provisionOn(t, ctx, nil, h)
}

// provisionOn is provision with clk set on h first (nil: the wall clock),
// as a test sets its clock on the handler it builds.
func provisionOn(t *testing.T, ctx caddy.Context, clk clock.Clock, h *Handler) *Handler {
	t.Helper()
	h.clock = clk
	if err := h.Provision(ctx); err != nil {
		t.Fatalf("provision: %v", err)
	}
	t.Cleanup(func() { _ = h.Cleanup() })
	h.logger = zap.NewNop() // rejections log at debug level; keep test output readable
	return h
}

func lc(rate string, burst int) *LimitConfig { return &LimitConfig{Rate: rate, Burst: burst} }

var off = &LimitConfig{Rate: "off"}

var okNext = caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
	w.WriteHeader(http.StatusOK)
	return nil
})

func serve(h *Handler, r *http.Request) (*httptest.ResponseRecorder, error) {
	w := httptest.NewRecorder()
	err := h.ServeHTTP(w, r, okNext)
	return w, err
}

func req(addr string, hdr ...string) *http.Request {
	r := httptest.NewRequest("POST", "/mcp/raad", nil)
	r.RemoteAddr = addr + ":4000"
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

func TestHeadersAndRefusal(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-headers", Process: off, Connector: off, Session: off, Address: lc("1/s", 3)})
	rejected0 := counterValue(rejectedTotal.WithLabelValues("t-headers", "address"))
	allowed0 := counterValue(requestsTotal.WithLabelValues("t-headers", "allowed"))

	for i := range 3 {
		w, err := serve(h, req("192.0.2.1"))
		if err != nil || w.Code != 200 {
			t.Fatalf("request %d: %d %v", i, w.Code, err)
		}
		if got := w.Header().Get("RateLimit-Remaining"); got != []string{"2", "1", "0"}[i] {
			t.Errorf("request %d: RateLimit-Remaining %q", i, got)
		}
		if w.Header().Get("RateLimit-Limit") != "3" || w.Header().Get("RateLimit-Reset") != []string{"1", "2", "3"}[i] {
			t.Errorf("request %d: headers %v", i, w.Header())
		}
	}
	clock.AdvanceTo(t0.Add(300 * time.Millisecond))
	w, err := serve(h, req("192.0.2.1"))
	if err != nil || w.Code != http.StatusTooManyRequests {
		t.Fatalf("4th: %d %v, want 429 written by the handler", w.Code, err)
	}
	if w.Header().Get("Retry-After") != "1" || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("4th headers: %v", w.Header())
	}
	var body rejection
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	if body.Error != "rate_limited" || body.Layer != "address" || body.Zone != "t-headers" || body.RetryAfter != 1 ||
		!strings.Contains(body.Message, "client address") {
		t.Fatalf("body %+v", body)
	}
	if w.Header().Get("RateLimit-Remaining") != "0" || w.Header().Get("RateLimit-Reset") != "3" {
		t.Fatalf("4th RateLimit headers: %v", w.Header())
	}
	// Retry-After is true: waiting it out is enough.
	clock.AdvanceTo(t0.Add(time.Second))
	if w, _ := serve(h, req("192.0.2.1")); w.Code != 200 {
		t.Fatalf("after Retry-After: %d", w.Code)
	}
	if got := counterValue(rejectedTotal.WithLabelValues("t-headers", "address")) - rejected0; got != 1 {
		t.Errorf("rejected_total{address} = %v, want 1", got)
	}
	if got := counterValue(requestsTotal.WithLabelValues("t-headers", "allowed")) - allowed0; got != 4 {
		t.Errorf("requests_total{allowed} = %v, want 4", got)
	}
}

func TestRetryAfterFromState(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-retry", Process: off, Connector: off, Session: off, Address: lc("6/m", 1)})
	serve(h, req("192.0.2.2"))
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{{0, "10"}, {time.Second, "9"}, {8500 * time.Millisecond, "2"}, {9999 * time.Millisecond, "1"}} {
		clock.AdvanceTo(t0.Add(tc.at))
		w, _ := serve(h, req("192.0.2.2"))
		if w.Code != 429 || w.Header().Get("Retry-After") != tc.want {
			t.Errorf("at %s: %d, Retry-After %q; want 429 with %s", tc.at, w.Code, w.Header().Get("Retry-After"), tc.want)
		}
	}
}

func TestErrorRoutesGetACaddyError(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-errors", Process: off, Connector: off, Session: lc("1/m", 1)})
	h.sessions.Add("t-errors-session", "test")
	defer h.sessions.Remove("t-errors-session", "test")

	srv := &caddyhttp.Server{Errors: &caddyhttp.HTTPErrorConfig{Routes: caddyhttp.RouteList{{}}}}
	repl := caddy.NewReplacer()
	r := req("192.0.2.3", "Mcp-Session-Id", "t-errors-session")
	r = r.WithContext(context.WithValue(context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv), caddy.ReplacerCtxKey, repl))
	serve(h, r)
	w, err := serve(h, r)
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("got %v, want a caddyhttp 429 error", err)
	}
	if w.Body.Len() != 0 || w.Header().Get("Retry-After") != "60" || w.Header().Get("RateLimit-Limit") != "1" {
		t.Fatalf("written %q, headers %v; want no body, Retry-After 60, RateLimit-Limit 1", w.Body, w.Header())
	}
	for k, want := range map[string]string{
		"http.client_limit.layer": "session", "http.client_limit.zone": "t-errors", "http.client_limit.retry_after": "60",
	} {
		if got, _ := repl.GetString(k); got != want {
			t.Errorf("{%s} = %q, want %q", k, got, want)
		}
	}
	body, _ := repl.GetString("http.client_limit.body")
	if !strings.HasPrefix(body, `{"error":"rate_limited","layer":"session","zone":"t-errors","retry_after":60,`) {
		t.Errorf("{http.client_limit.body} = %s", body)
	}
}

func TestSessionsAndMadeUpIds(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-sessions", Process: off, Connector: off, Session: lc("1/m", 2), Address: lc("1/m", 3)})
	h.sessions.Add("t-real-1", "test")
	h.sessions.Add("t-real-2", "test")
	defer h.sessions.Remove("t-real-1", "test")
	defer h.sessions.Remove("t-real-2", "test")

	count := func(addr string, ids ...string) (passed int) {
		for _, id := range ids {
			if w, _ := serve(h, req(addr, "Mcp-Session-Id", id)); w.Code == 200 {
				passed++
			}
		}
		return passed
	}
	// Ten made-up ids from one address share that address's 3.
	made := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	if n := count("198.51.100.1", made...); n != 3 {
		t.Fatalf("made-up ids passed %d, want the address's 3", n)
	}
	// Real sessions count against their address too: it is spent.
	if n := count("198.51.100.1", "t-real-1", "t-real-2"); n != 0 {
		t.Fatalf("sessions of a spent address passed %d, want 0", n)
	}
	// From another address, each real session has its own 2, and the two
	// together stay within that address's 3.
	if n := count("198.51.100.3", "t-real-1", "t-real-1", "t-real-1"); n != 2 {
		t.Fatalf("session 1 passed %d, want 2", n)
	}
	if n := count("198.51.100.3", "t-real-2", "t-real-2", "t-real-2"); n != 1 {
		t.Fatalf("session 2 passed %d, want the 1 its address has left", n)
	}
	// The self-declared Besluitbron-Session header opens no room either.
	passed := 0
	for _, v := range made {
		if w, _ := serve(h, req("198.51.100.2", session.Header, v)); w.Code == 200 {
			passed++
		}
	}
	if passed != 3 {
		t.Fatalf("Besluitbron-Session values passed %d, want the address's 3", passed)
	}
}

func TestIPv6GroupedByPrefix(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-ipv6", Process: off, Connector: off, Session: off, Address: lc("1/m", 2)})
	v6 := func(addr string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "[" + addr + "]:4000"
		return r
	}
	passed := 0
	for i := range 10 { // ten addresses of one /64
		if w, _ := serve(h, v6(fmt.Sprintf("2001:db8:1:2::%x", i+1))); w.Code == 200 {
			passed++
		}
	}
	if passed != 2 {
		t.Fatalf("%d of 10 addresses in one /64 passed, want the prefix's 2", passed)
	}
	if w, _ := serve(h, v6("2001:db8:1:3::1")); w.Code != 200 {
		t.Fatalf("another /64: %d", w.Code)
	}
	h128 := provisionOn(t, ctx, clock, &Handler{Zone: "t-ipv6-128", Process: off, Connector: off, Session: off, Address: lc("1/m", 1), IPv6Prefix: 128})
	for i := range 5 {
		if w, _ := serve(h128, v6(fmt.Sprintf("2001:db8:1:2::%x", i+1))); w.Code != 200 {
			t.Fatalf("ipv6_prefix 128, address %d: %d", i, w.Code)
		}
	}
	for in, want := range map[string]string{
		"addr:192.0.2.1": "addr:192.0.2.1", "addr:2001:db8::1": "addr:2001:db8::/64",
		"addr:::ffff:192.0.2.1": "addr:192.0.2.1", "mcp:abc": "mcp:abc", "addr:fe80::1%eth0": "addr:fe80::/64",
		"addr:not-an-ip": "addr:not-an-ip",
	} {
		if got := h.groupIPv6(in); got != want {
			t.Errorf("groupIPv6(%q) = %q, want %q", in, got, want)
		}
	}
	if got := h128.groupIPv6("addr:2001:db8::1%eth0"); got != "addr:2001:db8::1" {
		t.Errorf("ipv6_prefix 128: %q, want the address itself", got)
	}

	// An IPv4-mapped IPv6 address is its IPv4 address: the two share one
	// bucket (2 requests a minute), whichever form the proxy reports.
	passed = 0
	for _, addr := range []string{"198.51.100.4", "::ffff:198.51.100.4", "::ffff:198.51.100.4"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = net.JoinHostPort(addr, "4000")
		if w, _ := serve(h, r); w.Code == 200 {
			passed++
		}
	}
	if passed != 2 {
		t.Fatalf("%d of 3 requests from one IPv4 address in both forms passed, want its 2", passed)
	}
}

func TestInternalPassesUncounted(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-internal", Process: off, Connector: lc("1/m", 1), Session: off, Address: lc("1/m", 1)})
	for range 100 {
		r := req("192.0.2.9")
		r = r.WithContext(session.WithInternal(r.Context(), "mcp:x"))
		w, err := serve(h, r)
		if err != nil || w.Code != 200 || w.Header().Get("RateLimit-Limit") != "" {
			t.Fatalf("internal sub-request: %d %v %v", w.Code, err, w.Header())
		}
	}
	if w, _ := serve(h, req("192.0.2.9")); w.Code != 200 {
		t.Fatalf("the first counted request was refused (%d): internal ones were counted", w.Code)
	}
}

func TestConnectorsAreSeparate(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	a := provisionOn(t, ctx, clock, &Handler{Zone: "t-conn-a", Process: off, Connector: lc("1/m", 2)})
	b := provisionOn(t, ctx, clock, &Handler{Zone: "t-conn-b", Process: off, Connector: lc("1/m", 2)})
	for i := range 5 {
		serve(a, req("192.0.2."+string(rune('a'+i)))) // different addresses, one connector
	}
	w, _ := serve(a, req("192.0.2.100"))
	if w.Code != 429 || !strings.Contains(w.Body.String(), `"layer":"connector"`) {
		t.Fatalf("connector a: %d %s, want 429 naming the connector", w.Code, w.Body)
	}
	if w, _ := serve(b, req("192.0.2.100")); w.Code != 200 {
		t.Fatalf("connector b: %d, want its own room", w.Code)
	}
}

func TestProcessSharedAcrossZones(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	a := provisionOn(t, ctx, clock, &Handler{Zone: "t-proc-a", Process: lc("1/m", 2)})
	b := provisionOn(t, ctx, clock, &Handler{Zone: "t-proc-b"})
	defer func() {
		// Leave the process bucket unlimited for the other tests.
		ctx2, _ := newConfig(t)
		provisionOn(t, ctx2, clock, &Handler{Zone: "t-proc-a", Process: off})
		if a2, err := app.Load(ctx2); err != nil || a2.Start() != nil {
			t.Error("starting the resetting config")
		}
	}()
	serve(a, req("192.0.2.1"))
	serve(b, req("192.0.2.2"))
	w, _ := serve(b, req("192.0.2.3"))
	if w.Code != 429 || !strings.Contains(w.Body.String(), `"layer":"process"`) {
		t.Fatalf("third request: %d %s, want 429 from the process layer", w.Code, w.Body)
	}
}

func TestSettingsPerConfig(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	provisionOn(t, ctx, clock, &Handler{Zone: "t-conf", Process: off})

	t.Run("same zone, other settings", func(t *testing.T) {
		h := &Handler{Zone: "t-conf", Process: off, Session: lc("1/s", 1)}
		err := h.Provision(ctx)
		defer h.Cleanup()
		if err == nil || !strings.Contains(err.Error(), "zone t-conf") {
			t.Fatalf("error %v, want a zone conflict", err)
		}
	})
	t.Run("two process values", func(t *testing.T) {
		h := &Handler{Zone: "t-conf", Process: lc("5/s", 5)}
		err := h.Provision(ctx)
		defer h.Cleanup()
		if err == nil || !strings.Contains(err.Error(), "process limit: set to 5/s 5 here but to off") {
			t.Fatalf("error %v, want a process conflict", err)
		}
	})
	t.Run("a failed or unused config changes nothing", func(t *testing.T) {
		ctx2, cancel := newConfig(t)
		h2 := provisionOn(t, ctx2, clock, &Handler{Zone: "t-conf", Process: off, Session: off, Address: lc("1/m", 1)})
		cancel()
		old := provisionOn(t, ctx, clock, &Handler{Zone: "t-conf", Process: off})
		for i := range 5 {
			if w, _ := serve(old, req("192.0.2.50")); w.Code != 200 {
				t.Fatalf("request %d under the running config: %d (the staged config leaked)", i, w.Code)
			}
		}
		_ = h2
	})
	t.Run("new config takes effect when it starts", func(t *testing.T) {
		ctx3, _ := newConfig(t)
		h3 := provisionOn(t, ctx3, clock, &Handler{Zone: "t-conf", Process: off, Session: off, Address: lc("1/m", 1)})
		for i := range 3 {
			if w, _ := serve(h3, req("192.0.2.51")); w.Code != 200 {
				t.Fatalf("request %d before the new config started: %d (staged settings leaked)", i, w.Code)
			}
		}
		a3, err := app.Load(ctx3)
		if err != nil {
			t.Fatal(err)
		}
		if err := a3.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a3.Stop() })
		if w, _ := serve(h3, req("192.0.2.52")); w.Code != 200 {
			t.Fatalf("first: %d", w.Code)
		}
		if w, _ := serve(h3, req("192.0.2.52")); w.Code != 429 {
			t.Fatalf("second: %d, want the new limit in force", w.Code)
		}
	})
}

func TestProvisionErrors(t *testing.T) {
	ctx, _ := newConfig(t)
	for name, h := range map[string]*Handler{
		"bad zone":      {Zone: "a/b"},
		"bad rate":      {Session: lc("fast", 3)},
		"missing burst": {Address: lc("20/s", 0)},
		"off burst":     {Connector: &LimitConfig{Rate: "off", Burst: 3}},
		"negative keys": {MaxKeys: -1},
		"ipv6 prefix":   {IPv6Prefix: 129},
		"bad trusted":   {TrustedSources: []string{"proxy.example"}},
		// A session's requests count against its address too.
		"address rate below session":      {Session: lc("20/s", 60), Address: lc("10/s", 150)},
		"address burst below session":     {Session: lc("20/s", 60), Address: lc("50/s", 30)},
		"raised session, default address": {Session: lc("100/s", 300)},
	} {
		err := h.Provision(ctx)
		_ = h.Cleanup()
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// trusted_sources and process_limit of the besluitbron app apply to every
// client_limit that sets none of its own.
func TestGlobalSettingsFromTheApp(t *testing.T) {
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	besluitbron {
		trusted_sources 192.0.2.0/24
		process_limit 7/s 9
	}
}
:%d {
	respond ok
}`, testproc.FreePort(t)))
	ctx, cancel := caddy.NewContext(caddy.ActiveContext())
	defer cancel()
	global := provision(t, ctx, &Handler{Zone: "t-global"})
	if len(global.trusted) != 1 || global.trusted[0].String() != "192.0.2.0/24" {
		t.Errorf("trusted from the app: %v", global.trusted)
	}
	if got := global.processLimit.String(); got != "7/s 9" {
		t.Errorf("process limit from the app: %s", got)
	}
	own := provision(t, ctx, &Handler{Zone: "t-global-own", TrustedSources: []string{"198.51.100.7"}, Process: lc("7/s", 9)})
	if len(own.trusted) != 1 || own.trusted[0].String() != "198.51.100.7/32" {
		t.Errorf("the handler's own trusted_sources: %v", own.trusted)
	}
}

// A zone's shared buckets run on Redis's clock, but on a test's own clock
// when the handler has one: Redis's cannot be moved.
func TestZoneRunsSharedBucketsOnAClockOfItsOwn(t *testing.T) {
	ctx, _ := newConfig(t)
	wall := provision(t, ctx, &Handler{Zone: "t-clock-wall", Process: off})
	clock := fakeclock.New(t0)
	fake := provisionOn(t, ctx, clock, &Handler{Zone: "t-clock-fake", Process: off})
	if wall.zone.callerClock || !fake.zone.callerClock {
		t.Fatalf("caller's clock: on the wall clock %v, on a fake one %v; want false, true", wall.zone.callerClock, fake.zone.callerClock)
	}
}
