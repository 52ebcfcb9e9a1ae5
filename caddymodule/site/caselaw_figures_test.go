//go:build figures

package site_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/replica"
)

// TestFigureCaseLaw measures the case-law harvest through Caddy against
// the emulator's whole feed (docs/benchmarks.md, "Case law by words"):
// its pace alone, its pace and share of Rechtspraak's budget while
// visitors use that budget, and the warm search answered by the index.
// Figures only: run with -tags figures; nothing is asserted on time.
func TestFigureCaseLaw(t *testing.T) {
	// Alone: the whole feed, nobody else asking.
	h := newCaseLawHouse(t, "all")
	start := time.Now()
	h.load(t)
	st := h.await(t, "the first complete pass", func(st replica.Status) bool { return st.CompleteUpTo != "" })
	alone := time.Since(start)
	t.Logf("alone: %d decisions, %d feed pages in %v: %.0f pages a minute, %.0f decisions a second",
		st.Records, h.pages.Load(), alone.Round(time.Second), float64(h.pages.Load())/alone.Minutes(), float64(st.Records)/alone.Seconds())

	// Warm search from the index, Rechtspraak only.
	words := []string{"stikstof", "vergunning", "ontslag", "huurovereenkomst", "belastingaanslag", "asiel", "letselschade",
		"bestemmingsplan", "uitkering", "jeugdzorg", "strafoplegging", "onrechtmatige daad"}
	lat := func(q string) time.Duration {
		u := h.base + "/search?q=" + url.QueryEscape(q) + "&platforms=rechtspraak"
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Accept", "application/json")
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	for _, w := range words {
		lat(w) // court names and the page's first render
	}
	var ds []time.Duration
	for range 20 {
		for _, w := range words {
			ds = append(ds, lat(w))
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	t.Logf("warm search by words, Rechtspraak from the index, %d searches: p50 %v, p95 %v",
		len(ds), ds[len(ds)/2].Round(10*time.Microsecond), ds[len(ds)*95/100].Round(10*time.Microsecond))
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}

	// With visitors: a new index, while one visitor asks the feed for a
	// new list (a cache miss: it spends budget) twice a second.
	h2 := newCaseLawHouse(t, "all")
	h2.load(t)
	var visitors, waitedMS atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			d := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%2000).Format("2006-01-02")
			t0 := time.Now()
			resp, err := http.Get(h2.base + "/platforms/rechtspraak/uitspraken/zoeken?date=" + d + "&max=5")
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				visitors.Add(1)
				waitedMS.Add(time.Since(t0).Milliseconds())
			}
		}
	}()
	start = time.Now()
	window := 60 * time.Second
	for time.Since(start) < window {
		time.Sleep(time.Second) // a measuring window, not a test's wait
	}
	close(stop)
	wg.Wait()
	st = h2.status(t)
	harvest := h2.pages.Load() - visitors.Load()
	fmt.Println()
	t.Logf("with a visitor asking twice a second for %v: harvest %d pages (%.0f a minute), visitor %d requests (mean %d ms); harvest's share of the requests %.0f %%",
		window, harvest, float64(harvest)/window.Minutes(), visitors.Load(), waitedMS.Load()/max(1, visitors.Load()),
		100*float64(harvest)/float64(harvest+visitors.Load()))
	_ = st
}

// TestFigureFanOutWithIndex measures the warm fan-out (GET /search as
// JSON, every platform from its cache) with Rechtspraak answered by the
// case-law index beside the same questions without Rechtspraak, in one
// run of the offline house (the default Caddyfile, the index on over the
// decisions since 2025). Figures only: run with -tags figures.
func TestFigureFanOutWithIndex(t *testing.T) {
	h := startOfflineHouseEnv(t, []string{"BESLUITBRON_CASELAW=on", "BESLUITBRON_CASELAW_SINCE=2025"}, func(s string) string {
		s = strings.Replace(s, "connector 120/m 60", "connector 100000/s 100000", 1)
		s = strings.Replace(s, "address 10/m 20", "address 100000/s 100000", 1)
		return strings.Replace(s, "address 120/m 60", "address 100000/s 100000", 1)
	})
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var st struct{ CaseLaw *replica.Status }
		_ = json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st)
		if st.CaseLaw != nil && st.CaseLaw.CompleteUpTo != "" {
			t.Logf("index complete: %d decisions", st.CaseLaw.Records)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index did not complete: %+v", st.CaseLaw)
		}
		time.Sleep(time.Second) // a poll of the house's state
	}
	words := []string{"stikstof", "vergunning", "bestemmingsplan", "jeugdzorg", "woningbouw", "begroting",
		"participatiewet", "omgevingsvisie", "energietransitie", "verkeersveiligheid", "uitkering", "ontslag"}
	without := "&platforms=obv&platforms=tk&platforms=opentk&platforms=ob"
	with := without + "&platforms=rechtspraak"
	measure := func(extra string) (p50, p95 time.Duration, rsState string) {
		var ds []time.Duration
		for _, w := range words {
			get(t, h.base+"/search?q="+url.QueryEscape(w)+extra, http.Header{"Accept": {"application/json"}}) // warm it
		}
		for range 5 {
			for _, w := range words {
				t0 := time.Now()
				body := get(t, h.base+"/search?q="+url.QueryEscape(w)+extra, http.Header{"Accept": {"application/json"}})
				ds = append(ds, time.Since(t0))
				var res fanout.Result
				_ = json.Unmarshal([]byte(body), &res)
				for _, o := range res.Outcomes {
					if o.Platform == "rechtspraak" {
						rsState = o.State
					}
				}
			}
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2], ds[len(ds)*95/100], rsState
	}
	// Side by side, twice each, alternating.
	for round := 1; round <= 2; round++ {
		a50, a95, _ := measure(without)
		b50, b95, state := measure(with)
		t.Logf("round %d: warm fan-out without Rechtspraak p50 %v p95 %v; with Rechtspraak from the index (%s) p50 %v p95 %v",
			round, a50.Round(10*time.Microsecond), a95.Round(10*time.Microsecond), state, b50.Round(10*time.Microsecond), b95.Round(10*time.Microsecond))
	}
}
