package platformcache

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestInCaddyStaleWhileRevalidateAndStaleIfError runs the background
// refresh through Caddy's real chain (reverse_proxy) after the triggering
// request has ended, and serves the last good copy when the platform is
// unreachable. The store is put in the pool first with a test clock; the
// handler then takes that same store, as after a reload.
func TestInCaddyStaleWhileRevalidateAndStaleIfError(t *testing.T) {
	clk := &testClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	_, _, err := pool.LoadOrNew(platformsRechtspraak, func() (caddy.Destructor, error) {
		s, err := cache.Open(cache.Options{Platform: platformsRechtspraak, Version: "t", Dir: dir, Clock: clk.Now, SweepEvery: -1, Observe: observe(platformsRechtspraak)})
		return pooled{s}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Delete(platformsRechtspraak) })
	store := storeOf(platformsRechtspraak)

	u := newUpstream(t)
	deadPort := testproc.FreePort(t)
	port := testproc.FreePort(t)
	cfg := func(upstream string) string {
		return fmt.Sprintf(`{
	admin off
}
:%d {
	route /platforms/rechtspraak/* {
		uri strip_prefix /platforms/rechtspraak
		platform_cache rechtspraak {
			version t
			list {
				path /Waardelijst/*
				ttl 7d # the generic list lifetime, not rechtspraak's 30d
			}
		}
		reverse_proxy %s
	}
}`, port, upstream)
	}
	testcaddy.Load(t, cfg(u.srv.URL))
	if storeOf(platformsRechtspraak) != store {
		t.Fatal("handler did not take the pooled store")
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/platforms/rechtspraak/Waardelijst/Instanties", port)
	fetch(t, "GET", url)
	clk.Advance(7*24*time.Hour + time.Minute)
	resp, _ := fetch(t, "GET", url) // the request ends here; its refresh goes on
	if resp.Header.Get("Cache-Status") != "BesluitBron; hit; ttl=-60; detail=stale-while-revalidate" {
		t.Fatalf("SWR: %q", resp.Header.Get("Cache-Status"))
	}
	awaitBackground(t, store)
	if u.count("/Waardelijst/Instanties") != 2 {
		t.Fatalf("background refresh did not reach the platform: %d", u.count("/Waardelijst/Instanties"))
	}
	resp, _ = fetch(t, "GET", url)
	if !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit; ttl=604") {
		t.Fatalf("after refresh: %q", resp.Header.Get("Cache-Status"))
	}

	// The platform goes away; past the SWR window the last good copy is
	// still served.
	if err := caddy.Load(testcaddy.Adapt(t, cfg(fmt.Sprintf("127.0.0.1:%d", deadPort))), true); err != nil {
		t.Fatal(err)
	}
	clk.Advance(9 * 24 * time.Hour)
	resp, body := fetch(t, "GET", url)
	if resp.StatusCode != 200 || !strings.Contains(body, "Waardelijst") ||
		resp.Header.Get("Cache-Status") != "BesluitBron; fwd=stale; fwd-status=502; ttl=-172800; detail=stale-if-error" {
		t.Fatalf("SIE: %d %q %q", resp.StatusCode, resp.Header.Get("Cache-Status"), body)
	}
	if st := store.Stats(); st.Stale != 2 || st.Refreshes != 1 {
		t.Fatalf("figures %+v", st)
	}
	if counter(platformsRechtspraak, cache.KindList, "stale") < 2 {
		t.Fatal("stale answers not in the metrics")
	}
}

const platformsRechtspraak = "rechtspraak"
