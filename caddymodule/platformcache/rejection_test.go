package platformcache

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
)

// testGate holds requests between platform_cache and platform_limit while
// it is shut, so a test can line callers up on one flight before the
// budget sees the first of them.
type testGate struct{}

var gate struct {
	sync.Mutex
	shut    chan struct{} // nil: open
	arrived chan struct{}
}

func (testGate) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.platformcache_test_gate", New: func() caddy.Module { return new(testGate) }}
}

func (testGate) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	gate.Lock()
	shut, arrived := gate.shut, gate.arrived
	gate.Unlock()
	if shut != nil {
		arrived <- struct{}{}
		<-shut
	}
	return next.ServeHTTP(w, r)
}

func init() {
	caddy.RegisterModule(testGate{})
	httpcaddyfile.RegisterHandlerDirective("platformcache_test_gate", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next()
		return new(testGate), nil
	})
}

// budgetSite: obv's and oa's routes as in production (cache, budget,
// proxy), each budget one unit an hour and no patience (max_wait 1ns), so
// the second call is turned away at once; obv refuses with 503, oa with
// 429.
func budgetSite(admin, port int, upstream string) string {
	return fmt.Sprintf(`{
	admin localhost:%d
}
:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_cache obv {
			dir off
			version t
			search {
				path /api/search
			}
		}
		platformcache_test_gate
		platform_limit obv {
			capacity 1
			window 1h
			max_wait 1ns
		}
		reverse_proxy %s
	}
	route /platforms/oa/* {
		uri strip_prefix /platforms/oa
		platform_cache oa {
			dir off
			version t
		}
		platform_limit oa {
			capacity 1
			window 1h
			max_wait 1ns
			reject_status 429
		}
		reverse_proxy %s
	}
}`, admin, port, upstream, upstream)
}

func getAs(t *testing.T, url, sess string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if sess != "" {
		req.Header.Set(session.Header, sess)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// retryAfterHour: the budget's Retry-After for a call a one-unit-an-hour
// bucket cannot take for most of an hour.
func retryAfterHour(t *testing.T, resp *http.Response) {
	t.Helper()
	n, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || n < 60 || n > 7200 {
		t.Fatalf("Retry-After %q; want the budget's estimate (about an hour)", resp.Header.Get("Retry-After"))
	}
}

func budgetRejected(t *testing.T, admin int, platform string) float64 {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://localhost:%d/besluitbron/budget/%s", admin, platform))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	n, _ := st["rejected"].(float64)
	return n
}

// TestInCaddyBudgetRejectionThroughTheCache: an app calling /platforms/...
// directly gets the budget's own status (503, or 429 when configured) and
// its Retry-After through platform_cache, and nothing is stored.
func TestInCaddyBudgetRejectionThroughTheCache(t *testing.T) {
	u := newUpstream(t)
	admin, port := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, budgetSite(admin, port, u.srv.URL))
	for _, tc := range []struct{ platform, path string }{{"obv", "/api/search?query="}, {"oa", "/api/search?q="}} {
		base := fmt.Sprintf("http://127.0.0.1:%d/platforms/%s", port, tc.platform)
		if resp, body := getAs(t, base+tc.path+"first", "a"); resp.StatusCode != 200 {
			t.Fatalf("%s first call: %d %s", tc.platform, resp.StatusCode, body)
		}
		want := map[string]int{"obv": 503, "oa": 429}[tc.platform]
		for range 2 { // and again: the refusal was not stored
			resp, _ := getAs(t, base+tc.path+"second", "a")
			if resp.StatusCode != want || resp.Header.Get("Cache-Status") != "BesluitBron; fwd=miss; detail=over-budget" {
				t.Fatalf("%s over budget: %d %q; want %d with detail=over-budget", tc.platform, resp.StatusCode, resp.Header.Get("Cache-Status"), want)
			}
			retryAfterHour(t, resp)
		}
		if n := budgetRejected(t, admin, tc.platform); n != 2 {
			t.Fatalf("%s budget rejected %v calls, want 2", tc.platform, n)
		}
	}
	if u.total.Load() != 2 {
		t.Fatalf("upstream saw %d calls, want the two admitted", u.total.Load())
	}
}

// TestInCaddyLeadersRejectionNotHandedToAnotherSession: a caller of
// another session waiting on the same flight is not given the leader's
// rejection: it goes through the budget itself (the budget counts two
// rejections, not one) and gets its own answer and Retry-After.
func TestInCaddyLeadersRejectionNotHandedToAnotherSession(t *testing.T) {
	u := newUpstream(t)
	admin, port := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, budgetSite(admin, port, u.srv.URL))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port)
	if resp, _ := getAs(t, base+"/api/search?query=prime", "p"); resp.StatusCode != 200 {
		t.Fatalf("priming call: %d", resp.StatusCode)
	}
	shut, arrived := make(chan struct{}), make(chan struct{}, 4)
	gate.Lock()
	gate.shut, gate.arrived = shut, arrived
	gate.Unlock()
	t.Cleanup(func() { gate.Lock(); gate.shut = nil; gate.Unlock() })

	url := base + "/api/search?query=stikstof"
	type answer struct {
		resp *http.Response
		body string
	}
	leader, follower := make(chan answer, 1), make(chan answer, 1)
	go func() { r, b := getAs(t, url, "a"); leader <- answer{r, b} }()
	<-arrived // the leader's flight is at the gate
	go func() { r, b := getAs(t, url, "b"); follower <- answer{r, b} }()
	store := storeOf("obv")
	for store.Waiting() < 2 { // b joined the flight (polling state, not time)
		runtime.Gosched()
	}
	gate.Lock()
	gate.shut = nil // b's own request, if it makes one, passes
	gate.Unlock()
	close(shut)
	l, f := <-leader, <-follower
	for name, a := range map[string]answer{"leader": l, "follower": f} {
		if a.resp.StatusCode != 503 || !strings.Contains(a.resp.Header.Get("Cache-Status"), "detail=over-budget") {
			t.Fatalf("%s: %d %q", name, a.resp.StatusCode, a.resp.Header.Get("Cache-Status"))
		}
		retryAfterHour(t, a.resp)
	}
	if strings.Contains(f.resp.Header.Get("Cache-Status"), "collapsed") {
		t.Fatalf("the follower was handed the leader's rejection: %q", f.resp.Header.Get("Cache-Status"))
	}
	if n := budgetRejected(t, admin, "obv"); n != 2 {
		t.Fatalf("budget rejected %v calls; want 2 (each session on its own account)", n)
	}
}
