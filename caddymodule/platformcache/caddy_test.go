package platformcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
)

// countingUpstream answers every path with a body naming it, and counts.
type countingUpstream struct {
	mu    sync.Mutex
	calls map[string]int
	total atomic.Int64
	srv   *httptest.Server
}

func newUpstream(t *testing.T) *countingUpstream {
	u := &countingUpstream{calls: map[string]int{}}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.calls[r.URL.Path]++
		u.mu.Unlock()
		u.total.Add(1)
		if r.URL.Path == "/api/status" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(platforms.HeaderQueueWait, "7")
		body := `{"path":"` + r.URL.Path + `","query":"` + r.URL.RawQuery + `"}`
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *countingUpstream) count(path string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls[path]
}

func testConfig(adminPort, port int, upstream, version string) string {
	return fmt.Sprintf(`{
	admin localhost:%d
}
:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_cache obv {
			version %s
			memory 16MiB
			list {
				path /api/sources /api/stats /api/status
			}
			search {
				path /api/search
				ttl 5m
			}
			document {
				path /api/entities/*
			}
			other off
		}
		reverse_proxy %s
	}
	route /platforms/tk/* {
		uri strip_prefix /platforms/tk
		platform_cache tk {
			list {
				path_regexp ^/OData/v4/2\.0/(Fractie|Commissie)
			}
		}
		reverse_proxy %s
	}
}`, adminPort, port, version, upstream, upstream)
}

func fetch(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	return fetchWith(t, http.DefaultClient, method, url)
}

// fetchAfterReload is fetch for the first request after a reload.
func fetchAfterReload(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	return fetchWith(t, &http.Client{Transport: testcaddy.AcrossReloads}, method, url)
}

func fetchWith(t *testing.T, c *http.Client, method, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestInCaddyKindsStatusAdminMetricsReload(t *testing.T) {
	u := newUpstream(t)
	admin, port := testproc.FreePort(t), testproc.FreePort(t)
	dataDir := t.TempDir()
	testcaddy.LoadInDataDir(t, testConfig(admin, port, u.srv.URL, "1.0.0"), dataDir)
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port)
	metricsURL := fmt.Sprintf("http://localhost:%d/metrics", admin)
	// The request counters live as long as the process (-count=N runs
	// this test N times in one): what this run added is what counts.
	hit := `caddy_platform_cache_requests_total{kind="list",platform="obv",result="hit"}`
	bypass := `caddy_platform_cache_requests_total{kind="other",platform="obv",result="bypass"}`
	_, metrics := fetch(t, "GET", metricsURL)
	hits0, bypasses0 := metricValue(metrics, hit), metricValue(metrics, bypass)

	resp, body := fetch(t, "GET", base+"/api/sources?b=2&a=1")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; fwd=miss; fwd-status=200; stored; ttl=") {
		t.Fatalf("miss: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Status"), body)
	}
	if resp.Header.Get(platforms.HeaderQueueWait) != "7" {
		t.Fatal("the caller that went upstream should see its queue wait")
	}
	resp, body2 := fetch(t, "GET", base+"/api/sources?a=1&b=2")
	if body2 != body || !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit; ttl=6047") || resp.Header.Get("Age") == "" {
		t.Fatalf("list hit: %q age %q", resp.Header.Get("Cache-Status"), resp.Header.Get("Age"))
	}
	if resp.Header.Get(platforms.HeaderQueueWait) != "" || resp.ContentLength != int64(len(body)) {
		t.Fatalf("hit headers: %v", resp.Header)
	}
	fetch(t, "GET", base+"/api/search?query=stikstof")
	resp, _ = fetch(t, "GET", base+"/api/search?query=stikstof")
	if !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit; ttl=29") {
		t.Fatalf("search ttl: %q", resp.Header.Get("Cache-Status"))
	}
	fetch(t, "GET", base+"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A1")
	resp, _ = fetch(t, "GET", base+"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A1")
	if !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit; ttl=18143") {
		t.Fatalf("document ttl: %q", resp.Header.Get("Cache-Status"))
	}
	resp, _ = fetch(t, "GET", base+"/api/export/changes")
	if resp.Header.Get("Cache-Status") != "BesluitBron; fwd=bypass; detail=uncached-kind" {
		t.Fatalf("other off: %q", resp.Header.Get("Cache-Status"))
	}
	resp, _ = fetch(t, "GET", base+"/api/status")
	if resp.StatusCode != 503 || resp.Header.Get("Cache-Status") != "BesluitBron; fwd=miss; fwd-status=503; detail=status" {
		t.Fatalf("error: %d %q", resp.StatusCode, resp.Header.Get("Cache-Status"))
	}
	tkList := fmt.Sprintf("http://127.0.0.1:%d/platforms/tk/OData/v4/2.0/Fractie?$top=5", port)
	fetch(t, "GET", tkList)
	fetch(t, "GET", tkList)
	if u.count("/api/sources") != 1 || u.count("/api/search") != 1 || u.count("/OData/v4/2.0/Fractie") != 1 {
		t.Fatalf("upstream calls %v", u.calls)
	}

	// Admin figures, per platform.
	adminURL := fmt.Sprintf("http://localhost:%d/besluitbron/cache/", admin)
	resp, figures := fetch(t, "GET", adminURL+"obv")
	if resp.StatusCode != 200 || !strings.Contains(figures, `"hits":3`) || !strings.Contains(figures, `"misses":4`) || !strings.Contains(figures, `"disk_entries":3`) {
		t.Fatalf("figures: %d %s", resp.StatusCode, figures)
	}
	if _, all := fetch(t, "GET", adminURL); !strings.Contains(all, `"platform":"obv"`) || !strings.Contains(all, `"platform":"tk"`) {
		t.Fatalf("all figures: %s", all)
	}
	if resp, _ := fetch(t, "GET", adminURL+"nope"); resp.StatusCode != 404 {
		t.Fatalf("unknown platform: %d", resp.StatusCode)
	}
	if resp, _ := fetch(t, "GET", adminURL+"ob"); resp.StatusCode != 404 {
		t.Fatalf("unconfigured platform: %d", resp.StatusCode)
	}
	// The admin routes are not on the public site.
	if _, pub := fetch(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/besluitbron/cache/obv", port)); strings.Contains(pub, "hits") {
		t.Fatal("admin figures served on the public site")
	}

	// Metrics through Caddy's registry.
	_, metrics = fetch(t, "GET", metricsURL)
	if d := metricValue(metrics, hit) - hits0; d != 1 {
		t.Errorf("%s rose by %v, want 1", hit, d)
	}
	if d := metricValue(metrics, bypass) - bypasses0; d != 1 {
		t.Errorf("%s rose by %v, want 1", bypass, d)
	}
	if want := `caddy_platform_cache_entries{platform="obv",tier="disk"} 3`; !strings.Contains(metrics, want) {
		t.Fatalf("metrics lack %s", want)
	}

	// A reload keeps the same store objects and what they hold.
	before := storeOf("obv")
	reloaded := strings.Replace(testConfig(admin, port, u.srv.URL, "1.0.0"), "memory 16MiB", "memory 32MiB", 1)
	testcaddy.Reload(t, reloaded) // and its admin endpoint's old socket closed: the purge below asks it
	if storeOf("obv") != before {
		t.Fatal("reload replaced the store")
	}
	if refs, _ := pool.References("obv"); refs != 1 {
		t.Fatalf("store references after reload: %d", refs)
	}
	resp, _ = fetchAfterReload(t, "GET", base+"/api/sources?a=1&b=2")
	if !strings.Contains(resp.Header.Get("Cache-Status"), "hit") || u.count("/api/sources") != 1 {
		t.Fatalf("after reload: %q", resp.Header.Get("Cache-Status"))
	}
	// A reload with another version override: the entry drops when asked.
	testcaddy.Reload(t, testConfig(admin, port, u.srv.URL, "2.0.0"))
	if storeOf("obv") != before {
		t.Fatal("version reload replaced the store")
	}
	resp, _ = fetchAfterReload(t, "GET", base+"/api/sources?a=1&b=2")
	if resp.Header.Get("Cache-Status") != "BesluitBron; fwd=miss; fwd-status=200; stored; ttl=604800; detail=other-version" || u.count("/api/sources") != 2 {
		t.Fatalf("after version change: %q", resp.Header.Get("Cache-Status"))
	}

	// Purge one platform on the admin endpoint; tk keeps its entries.
	resp, out := fetch(t, "DELETE", adminURL+"obv")
	if resp.StatusCode != 200 || !strings.Contains(out, `"purged":"obv"`) {
		t.Fatalf("purge: %d %s", resp.StatusCode, out)
	}
	fetch(t, "GET", base+"/api/sources?a=1&b=2")
	if u.count("/api/sources") != 3 {
		t.Fatal("purged entry served")
	}
	resp, _ = fetch(t, "GET", tkList)
	if !strings.Contains(resp.Header.Get("Cache-Status"), "hit") {
		t.Fatalf("purging obv touched tk: %q", resp.Header.Get("Cache-Status"))
	}
	if resp, _ := fetch(t, "POST", adminURL+"tk/purge"); resp.StatusCode != 200 {
		t.Fatalf("POST purge: %d", resp.StatusCode)
	}
	if resp, _ := fetch(t, "PUT", adminURL+"tk"); resp.StatusCode != 405 {
		t.Fatalf("PUT: %d", resp.StatusCode)
	}
}

// metricValue is the value of one series in a Prometheus text exposition
// (0 when it is absent: a counter not yet counted).
func metricValue(exposition, series string) float64 {
	for line := range strings.SplitSeq(exposition, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}

// awaitBackground waits until the store runs no background work (a
// refresh a stale answer started): the moment its figures say so, not a
// time.
func awaitBackground(t *testing.T, s *cache.Store) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().Background > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the store's background work did not end within 10 s")
		}
		runtime.Gosched()
	}
}
