package platformcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// TestInCaddyStaleWhileRevalidateOfAPOSTSearch: the background refresh of
// an Elasticsearch _search (a POST keyed by its body) reaches the platform
// through Caddy's reverse_proxy with that body, on the detached request
// platform_cache builds (issue 10: it went out empty).
func TestInCaddyStaleWhileRevalidateOfAPOSTSearch(t *testing.T) {
	clk := &testClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	const platform = "ori"
	_, _, err := pool.LoadOrNew(platform, func() (caddy.Destructor, error) {
		s, err := cache.Open(cache.Options{Platform: platform, Version: "t", Clock: clk.Now, SweepEvery: -1, Observe: observe(platform)})
		return pooled{s}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Delete(platform) })
	store := storeOf(platform)

	var mu sync.Mutex
	var seen []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"hits":{"total":{"value":1}}}`)
	}))
	defer up.Close()
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
}
:%d {
	route /platforms/ori/* {
		uri strip_prefix /platforms/ori
		platform_cache ori {
			version t
			dir off
			search {
				path /*/_search
				ttl 10m
				stale_while_revalidate 1h
			}
		}
		reverse_proxy %s
	}
}`, port, up.URL))
	const q = `{"query":{"match":{"text":"stikstof"}}}`
	url := fmt.Sprintf("http://127.0.0.1:%d/platforms/ori/ori_*/_search", port)
	post := func() *http.Response {
		resp, err := http.Post(url, "application/json", strings.NewReader(q))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	post()
	clk.Advance(11 * time.Minute)
	if resp := post(); !strings.Contains(resp.Header.Get("Cache-Status"), "stale-while-revalidate") {
		t.Fatalf("not served stale: %q", resp.Header.Get("Cache-Status"))
	}
	awaitBackground(t, store)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[1] != "POST "+q {
		t.Fatalf("platform saw %q; the refresh must POST %q", seen, q)
	}
}
