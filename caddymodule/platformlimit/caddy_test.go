package platformlimit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
	obvemu "github.com/besluitbron/besluitbron/platforms/obv/emulator"

	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
)

var client = &http.Client{Timeout: 30 * time.Second}

func get(t *testing.T, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func adminStatus(t *testing.T, admin int, platform string) Status {
	t.Helper()
	resp, body := get(t, fmt.Sprintf("http://localhost:%d/besluitbron/budget/%s", admin, platform))
	if resp.StatusCode != 200 {
		t.Fatalf("admin status %d: %s", resp.StatusCode, body)
	}
	var st Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("admin JSON: %v\n%s", err, body)
	}
	return st
}

// TestThroughCaddyAgainstOBVEmulator runs the platform route chain in
// Caddy against the OpenBesluitvorming emulator: weighted costs, the queue
// wait header, the admin status, the metrics, and the platform's own word
// (its RateLimit headers and a 429) acting on the budget.
func TestThroughCaddyAgainstOBVEmulator(t *testing.T) {
	clk := fakeclock.New(t0)
	// The emulator's bucket runs on the same fake clock as ours: on real
	// time it refilled a unit whenever the machine was slow between the
	// drain below and the request that must meet the drained bucket.
	emulator := httptest.NewServer(obvemu.New(obvemu.Config{Clock: clk}))
	t.Cleanup(emulator.Close)
	emu := strings.TrimPrefix(emulator.URL, "http://127.0.0.1:")
	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	budgetsOn(t, clk, "obv")
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
	metrics
}
http://127.0.0.1:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_limit obv
		reverse_proxy 127.0.0.1:%s
	}
}`, admin, port, emu))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port)

	// Ten searches of limit=100 (5 units each) from two sessions: 50 units.
	for i := range 10 {
		resp, body := get(t, base+"/api/search?query=begroting&limit=100", "Besluitbron-Session", []string{"a", "b"}[i%2])
		if resp.StatusCode != 200 {
			t.Fatalf("search %d: %d %s", i, resp.StatusCode, body)
		}
		if got := resp.Header.Get(platforms.HeaderQueueWait); got != "0" {
			t.Fatalf("search %d: %s %q with room in the budget", i, platforms.HeaderQueueWait, got)
		}
	}
	st := adminStatus(t, admin, "obv")
	// One address, two sessions: one client whose two sessions used 25 each.
	if st.UnitsSpent != 50 || st.Capacity != 60 || st.Available > 10+1e-9 || len(st.Heaviest) != 1 ||
		st.Heaviest[0].Used != 50 || len(st.Heaviest[0].Sessions) != 2 ||
		st.Heaviest[0].Sessions[0].Used != 25 || st.Heaviest[0].Sessions[1].Used != 25 {
		t.Fatalf("admin status after 50 units: %+v", st)
	}

	// Our bucket never shows more room than the platform said it has.
	resp, _ := get(t, base+"/api/sources", "Besluitbron-Session", "a")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var said float64
	fmt.Sscan(resp.Header.Get("RateLimit-Remaining"), &said)
	if st := adminStatus(t, admin, "obv"); st.Available > said+1e-9 {
		t.Fatalf("available %v after the platform said %v remaining", st.Available, said)
	}

	// Someone else on our address drains the platform behind our back: the
	// platform's 429 pauses our budget for its Retry-After.
	for i := 0; i < 100; i++ {
		if resp, _ := get(t, emulator.URL+"/api/sources"); resp.StatusCode == 429 {
			break
		}
	}
	b := adminStatus(t, admin, "obv")
	if b.Available < 1 {
		clk.Advance(time.Duration((1 - b.Available) * float64(time.Second)))
	}
	resp, _ = get(t, base+"/api/sources", "Besluitbron-Session", "b")
	if resp.StatusCode != 429 {
		t.Fatalf("status %d; the emulator was drained, want its 429 passed on", resp.StatusCode)
	}
	if st := adminStatus(t, admin, "obv"); st.PausedUntil.IsZero() || !st.PausedUntil.After(clk.Now()) || st.Available != 0 {
		t.Fatalf("the platform answered 429 but the budget is not paused: %+v", st)
	}

	// Metrics: per platform, no session keys.
	_, metrics := get(t, fmt.Sprintf("http://localhost:%d/metrics", admin))
	for _, want := range []string{
		`caddy_platform_limit_units_spent_total{platform="obv"}`,
		`caddy_platform_limit_queue_length{platform="obv"} 0`,
		`caddy_platform_limit_wait_seconds_bucket{platform="obv",le="0.001"}`,
		`caddy_platform_limit_calls_total{outcome="admitted",platform="obv"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, leak := range []string{"app:a", "app:b", `session=`} {
		if strings.Contains(metrics, leak) {
			t.Errorf("metrics contain a session key: %s", leak)
		}
	}
	// The admin list shows every budget; an unknown one is a 404.
	resp, body := get(t, fmt.Sprintf("http://localhost:%d/besluitbron/budget/", admin))
	if resp.StatusCode != 200 || !strings.Contains(body, `"platform": "obv"`) {
		t.Fatalf("admin list: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, fmt.Sprintf("http://localhost:%d/besluitbron/budget/ori", admin)); resp.StatusCode != 404 {
		t.Fatalf("unknown platform: %d", resp.StatusCode)
	}
}

// TestStalledPlatformNeverDelaysAnother: obv's upstream hangs and its
// budget has calls queued; rechtspraak's calls still go at once.
func TestStalledPlatformNeverDelaysAnother(t *testing.T) {
	clk := fakeclock.New(t0)
	release := make(chan struct{})
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stalled.Close()
	defer close(release)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer fast.Close()
	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	budgetsOn(t, clk, "obv", "rechtspraak")
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
}
http://127.0.0.1:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_limit obv {
			capacity 2
			window 1m
		}
		reverse_proxy %s
	}
	route /platforms/rechtspraak/* {
		uri strip_prefix /platforms/rechtspraak
		platform_limit rechtspraak
		reverse_proxy %s
	}
}`, admin, port, strings.TrimPrefix(stalled.URL, "http://"), strings.TrimPrefix(fast.URL, "http://")))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/", port)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range 5 { // 2 hang at the platform, 3 wait for budget
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"obv/api/sources", nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	for adminStatus(t, admin, "obv").Waiting != 3 {
		time.Sleep(5 * time.Millisecond) // polling Caddy's state while the requests arrive
	}
	for i := range 5 {
		resp, body := get(t, base+"rechtspraak/uitspraken/zoeken")
		if resp.StatusCode != 200 || body != "ok" || resp.Header.Get(platforms.HeaderQueueWait) != "0" {
			t.Fatalf("rechtspraak call %d while obv is stalled: %d %q wait %q", i, resp.StatusCode, body, resp.Header.Get(platforms.HeaderQueueWait))
		}
	}
	if st := adminStatus(t, admin, "obv"); st.Waiting != 3 {
		t.Fatalf("obv queue %d", st.Waiting)
	}
	cancel()
	wg.Wait()
	// The callers that hung up left the queue and spent nothing (the
	// server sees the closed connections a moment later).
	for adminStatus(t, admin, "obv").Waiting != 0 {
		time.Sleep(5 * time.Millisecond) // polling Caddy's state
	}
	if st := adminStatus(t, admin, "obv"); st.Waiting != 0 || st.UnitsSpent != 2 || st.Cancelled != 3 {
		t.Fatalf("after the hang-ups: %+v", st)
	}
}

// TestRejectedThroughCaddy: past max_queue the client gets the reject
// status with a Retry-After computed from the backlog.
func TestRejectedThroughCaddy(t *testing.T) {
	clk := fakeclock.New(t0)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer fast.Close()
	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	budgetsOn(t, clk, "oa")
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
}
http://127.0.0.1:%d {
	route /platforms/oa/* {
		uri strip_prefix /platforms/oa
		platform_limit oa {
			capacity 2
			window 10s
			max_queue 2
			reject_status 429
		}
		reverse_proxy %s
	}
}`, admin, port, strings.TrimPrefix(fast.URL, "http://")))
	url := fmt.Sprintf("http://127.0.0.1:%d/platforms/oa/x", port)
	get(t, url)
	get(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range 2 {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	for adminStatus(t, admin, "oa").Waiting != 2 {
		time.Sleep(5 * time.Millisecond) // polling Caddy's state while the requests arrive
	}
	resp, _ := get(t, url)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "15" {
		t.Fatalf("over the queue bound: %d, Retry-After %q; want 429 and 15 (3 calls at 5s each)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestBudgetSurvivesCaddyReload: a config reload keeps the budget (its
// spent units and usage) and applies the new limits in place.
func TestBudgetSurvivesCaddyReload(t *testing.T) {
	clk := fakeclock.New(t0)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer fast.Close()
	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	cfg := func(capacity int) string {
		return fmt.Sprintf(`{
	admin localhost:%d
}
http://127.0.0.1:%d {
	route /platforms/ob/* {
		uri strip_prefix /platforms/ob
		platform_limit ob {
			capacity %d
			window 1m
		}
		reverse_proxy %s
	}
}`, admin, port, capacity, strings.TrimPrefix(fast.URL, "http://"))
	}
	release := budgetsOn(t, clk, "ob")
	testcaddy.Load(t, cfg(10))
	release() // the config holds the budget now: the reload must keep it
	for range 4 {
		if resp, _ := get(t, fmt.Sprintf("http://127.0.0.1:%d/platforms/ob/sru", port), "Besluitbron-Session", "x"); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	testcaddy.Reload(t, cfg(20)) // returns once the old admin endpoint is closed too
	st := adminStatus(t, admin, "ob")
	if st.Capacity != 20 || st.UnitsSpent != 4 || st.Available != 6 || len(st.Heaviest) != 1 || st.Heaviest[0].Used != 4 {
		t.Fatalf("after the reload: %+v; want capacity 20, 4 units spent, 6 left, app:x's usage kept", st)
	}
}
