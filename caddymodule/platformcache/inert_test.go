package platformcache

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// TestCacheAnswersAreInert: whatever sits behind the cache (here Caddy's
// own reverse_proxy, which passes every header on), every answer the cache
// gives for a platform route, a miss, a hit, a stale copy and a bypass, is
// inert on our origin: nosniff, a sandbox CSP next to the platform's own,
// and no Set-Cookie. The platform page reflects its query into HTML.
func TestCacheAnswersAreInert(t *testing.T) {
	clk := &testClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	_, _, err := pool.LoadOrNew(platformsRechtspraak, func() (caddy.Destructor, error) {
		s, err := cache.Open(cache.Options{Platform: platformsRechtspraak, Version: "t", Dir: t.TempDir(), Clock: clk.Now, SweepEvery: -1, Observe: observe(platformsRechtspraak)})
		return pooled{s}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Delete(platformsRechtspraak) })
	store := storeOf(platformsRechtspraak)

	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Security-Policy", "default-src 'self'")
		if r.URL.Path == "/uitspraken/cookie" {
			w.Header().Set("Set-Cookie", "tracking=1; Path=/")
		}
		fmt.Fprintf(w, "<p>%s</p>", r.URL.Query().Get("q"))
	}))
	t.Cleanup(up.Close)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
}
:%d {
	route /platforms/rechtspraak/* {
		uri strip_prefix /platforms/rechtspraak
		platform_cache rechtspraak {
			version t
			search {
				path /uitspraken/*
				ttl 10m
				stale_while_revalidate 1h
			}
		}
		reverse_proxy %s
	}
}`, port, up.URL))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/rechtspraak", port)
	check := func(what string, resp *http.Response, wantStatus string) {
		t.Helper()
		if cs := resp.Header.Get("Cache-Status"); !strings.Contains(cs, wantStatus) {
			t.Fatalf("%s: Cache-Status %q, want %s", what, cs, wantStatus)
		}
		h := resp.Header
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", what, h.Get("X-Content-Type-Options"))
		}
		if csp := h.Values("Content-Security-Policy"); len(csp) != 2 || csp[0] != "default-src 'self'" || csp[1] != "sandbox" {
			t.Errorf("%s: Content-Security-Policy %q, want the platform's and sandbox", what, csp)
		}
		if v := h.Values("Set-Cookie"); len(v) > 0 {
			t.Errorf("%s: Set-Cookie %q reached the caller", what, v)
		}
	}
	const q = "?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E"
	resp, _ := fetch(t, "GET", base+"/uitspraken/cookie"+q)
	check("miss with a cookie", resp, "fwd=miss")
	resp, _ = fetch(t, "GET", base+"/uitspraken/zoeken"+q)
	check("miss", resp, "fwd=miss")
	resp, body := fetch(t, "GET", base+"/uitspraken/zoeken"+q)
	check("hit", resp, "hit")
	if !strings.Contains(body, "<script>") {
		t.Fatalf("body %q: the platform's page is served, made inert by headers", body)
	}
	clk.Advance(11 * time.Minute)
	resp, _ = fetch(t, "GET", base+"/uitspraken/zoeken"+q)
	check("stale", resp, "stale-while-revalidate")
	awaitBackground(t, store)
	req, _ := http.NewRequest("GET", base+"/uitspraken/zoeken"+q, nil)
	req.Header.Set("Range", "bytes=0-3")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	check("bypass", resp, "fwd=bypass")
}
