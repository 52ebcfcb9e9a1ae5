package platformcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/sharedstore"
)

func sharedConfig(adminPort, port int, prefix, upstream string) string {
	return fmt.Sprintf(`{
	admin localhost:%d
	besluitbron {
		store %s
		store_prefix %s
	}
}
:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_cache obv {
			version 1.0.0
			dir off
			list {
				path /api/sources /api/stats
			}
			other off
		}
		reverse_proxy %s
	}
}`, adminPort, redistest.URL(), prefix, port, upstream)
}

// get sends a GET with the headers the cache key holds fixed, so another
// instance's request for the same path has the same key.
func getShared(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// Caddy with a shared store is one instance; a cache.Store on the same
// Redis prefix is another. What one fetched, the other serves; the admin
// figures and metrics show the shared tier; a purge on Caddy's admin
// endpoint reaches the other instance.
func TestInCaddySharedTierWithAnotherInstance(t *testing.T) {
	prefix := redistest.Prefix(t)
	u := newUpstream(t)
	admin, port := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.LoadInDataDir(t, sharedConfig(admin, port, prefix, u.srv.URL), t.TempDir())
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port)

	other, err := cache.Open(cache.Options{Platform: "obv", Version: "1.0.0", SweepEvery: -1,
		Shared: cache.NewRedisShared(redistest.Open(t, sharedstore.Options{Prefix: prefix}), "obv", cache.RedisSharedOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherGet := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Accept", "application/json")
		r.Header.Set("Accept-Encoding", "identity")
		rec := httptest.NewRecorder()
		next := cache.NextFunc(func(w http.ResponseWriter, r *http.Request) error {
			resp, body := getShared(t, u.srv.URL+r.URL.RequestURI())
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			w.WriteHeader(resp.StatusCode)
			_, _ = io.WriteString(w, body)
			return nil
		})
		pol := cache.Policy{Kind: cache.KindList, TTL: time.Hour, MaxBody: 1 << 20}
		if err := other.Serve(rec, r, pol, next, nil); err != nil {
			t.Fatal(err)
		}
		return rec
	}

	// Caddy fetches; the other instance hits with no upstream request.
	if resp, _ := getShared(t, base+"/api/sources"); !strings.Contains(resp.Header.Get("Cache-Status"), "stored") {
		t.Fatalf("caddy miss: %q", resp.Header.Get("Cache-Status"))
	}
	if rec := otherGet("/api/sources"); !strings.Contains(rec.Header().Get("Cache-Status"), "hit") || u.count("/api/sources") != 1 {
		t.Fatalf("other instance: %q, upstream %d", rec.Header().Get("Cache-Status"), u.count("/api/sources"))
	}
	// The other way round.
	otherGet("/api/stats")
	if resp, _ := getShared(t, base+"/api/stats"); !strings.Contains(resp.Header.Get("Cache-Status"), "hit") || u.count("/api/stats") != 1 {
		t.Fatalf("caddy: %q, upstream %d", resp.Header.Get("Cache-Status"), u.count("/api/stats"))
	}

	adminURL := fmt.Sprintf("http://localhost:%d/besluitbron/cache/obv", admin)
	if _, figures := fetch(t, "GET", adminURL); !strings.Contains(figures, `"shared":{"mode":"shared","hits":1,"misses":1,"errors":0`) {
		t.Fatalf("admin figures: %s", figures)
	}
	_, metrics := fetch(t, "GET", fmt.Sprintf("http://localhost:%d/metrics", admin))
	for _, want := range []string{
		`caddy_platform_cache_shared_total{platform="obv",result="hit"} 1`,
		`caddy_platform_cache_shared_total{platform="obv",result="lead"} 1`,
		`caddy_platform_cache_shared_degraded{platform="obv"} 0`,
	} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("metrics lack %s", want)
		}
	}

	// A purge on Caddy's admin endpoint clears the other instance too.
	if resp, out := fetch(t, "DELETE", adminURL); resp.StatusCode != 200 {
		t.Fatalf("purge: %d %s", resp.StatusCode, out)
	}
	for i := 0; other.Stats().Shared.PurgesReceived != 1; i++ {
		if i > 10_000 {
			t.Fatal("the other instance never heard of the purge")
		}
		time.Sleep(time.Millisecond) // a bounded poll for the notice
	}
	otherGet("/api/sources")
	if u.count("/api/sources") != 2 {
		t.Fatalf("purged entry served: upstream %d", u.count("/api/sources"))
	}
}
