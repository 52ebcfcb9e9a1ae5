//go:build figures

package site_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestFigureFirstRender measures the page's first render: the time until
// GET /search (the no-JavaScript path, the whole answer rendered by the
// server) has been read in full, for a question no one asked before
// (cold: every platform is asked through its route, cache miss, budget,
// emulator) and for the same question again (warm: every platform's
// answer from the cache), against the offline house in a child process.
// Figures only: run with -tags figures; nothing is asserted on
// time (docs/benchmarks.md, "Search page: first render").
func TestFigureFirstRender(t *testing.T) {
	// The strict per-address limit would refuse a measuring loop from
	// one address: raise it for this run only.
	base := offlineHouse(t, func(s string) string {
		s = strings.Replace(s, "connector 120/m 60", "connector 100000/s 100000", 1)
		return strings.Replace(s, "address 10/m 20", "address 100000/s 100000", 1)
	})
	words := []string{"woningbouw", "klimaatadaptatie", "energietransitie", "jeugdzorg", "participatiewet", "omgevingsvisie",
		"bestemmingsplan", "begroting", "jaarrekening", "stikstof", "verkeersveiligheid", "Wmo"}
	get := func(u string) (time.Duration, int) {
		start := time.Now()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start), resp.StatusCode
	}
	// The page without a question asks no platform: the floor.
	var home []time.Duration
	for range 20 {
		d, _ := get(base + "/")
		home = append(home, d)
	}
	var cold, warm []time.Duration
	for _, w := range words {
		u := base + "/search?" + url.Values{"q": {w}}.Encode()
		d, status := get(u)
		if status != http.StatusOK {
			t.Fatalf("cold %s: HTTP %d", w, status)
		}
		cold = append(cold, d)
		for range 3 {
			d, _ := get(u)
			warm = append(warm, d)
		}
	}
	p := func(ds []time.Duration, q float64) time.Duration {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[int(q*float64(len(s)-1)+0.5)]
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	t.Logf("GET / (no platform call): n=%d p50 %s p95 %s", len(home), ms(p(home, 0.5)), ms(p(home, 0.95)))
	t.Logf("GET /search cold: n=%d p50 %s p95 %s", len(cold), ms(p(cold, 0.5)), ms(p(cold, 0.95)))
	t.Logf("GET /search warm: n=%d p50 %s p95 %s", len(warm), ms(p(warm, 0.5)), ms(p(warm, 0.95)))
	t.Logf("cold/warm at p50: %.1fx", float64(p(cold, 0.5))/float64(p(warm, 0.5)))
}

// TestFigureSameSearchManyAddresses measures the budget 100 page searches
// of the same question spend when they come at once from 100 addresses
// (each its own loopback address, as 100 browsers would): the requests
// each platform's emulator answered, the calls each budget admitted and
// the outcomes the searchers saw, through GET /search as HTML and as JSON,
// against the offline house in a child process, each run in a fresh
// house. Once with the default Caddyfile's limits (site_search: 10 a
// minute and 20 at once per address, 120 a minute and 60 at once for
// everyone), once with the zone-wide limit raised so that all 100 reach
// the engine. Figures only: run with -tags figures
// (docs/benchmarks.md, "Search page: 100 visitors, one question").
func TestFigureSameSearchManyAddresses(t *testing.T) {
	raise := func(s string) string { return strings.Replace(s, "connector 120/m 60", "connector 100000/s 100000", 1) }
	for _, run := range []struct {
		name   string
		asJSON bool
		edits  []func(string) string
	}{
		{"html, default limits", false, nil},
		{"json, default limits", true, nil},
		{"html, zone-wide limit raised", false, []func(string) string{raise}},
		{"json, zone-wide limit raised", true, []func(string) string{raise}},
	} {
		t.Run(run.name, func(t *testing.T) {
			h := startOfflineHouse(t, run.edits...)
			f := pageFlood(t, h, 100, "omgevingsvisie", run.asJSON)
			t.Logf("100 searches at once from 100 addresses, %s:\n%s", run.name, f.report())
			// And once more, after the first wave: every answer is now in
			// the cache (the default limits refuse most of this wave: the
			// zone's bucket is still empty).
			f = pageFlood(t, h, 100, "omgevingsvisie", run.asJSON)
			t.Logf("the same 100 again, right after:\n%s", f.report())
		})
	}
}
