//go:build figures

package site_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	obvemulator "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// TestFigureCouncilVisitorWait measures a visitor's wait for
// OpenBesluitvorming beside the council replica's harvest and without
// it, in one run (docs/benchmarks.md, "OpenBesluitvorming's replica"):
// the emulator with its rate limit on the wall clock, the platform's
// budget of 60 units a minute, and one visitor asking a new search (a
// cache miss: 1 unit) every two seconds, half the budget, for three
// minutes (COUNCIL_FIGURES_WINDOW).
// The harvest keeps every source, so it runs the whole minute. Figures
// only: run with -tags figures; nothing is asserted on time.
//
//	go test -tags figures -run TestFigureCouncilVisitorWait -v ./caddymodule/site/
func TestFigureCouncilVisitorWait(t *testing.T) {
	const every = 2 * time.Second
	window := 3 * time.Minute // past the first minute, when the budget's full bucket is spent
	if d, err := time.ParseDuration(os.Getenv("COUNCIL_FIGURES_WINDOW")); err == nil {
		window = d
	}
	for _, harvest := range []bool{false, true} {
		on := "off"
		if harvest {
			on = ""
		}
		h := loadCouncilHouseWith(t, obvemulator.Config{Seed: 1}, on, "since all")
		var waits []time.Duration
		var mu sync.Mutex
		var wg sync.WaitGroup
		tick := time.NewTicker(every)
		start := time.Now()
		for i := 0; time.Since(start) < window; i++ {
			<-tick.C // a visitor's pace, not a test's wait
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				t0 := time.Now()
				resp, err := http.Get(fmt.Sprintf("%s/platforms/obv/api/search?q=begroting%%20%d&limit=24", h.base, i))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				waits = append(waits, time.Since(t0))
				mu.Unlock()
			}(i)
		}
		tick.Stop()
		wg.Wait()
		sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
		var sum time.Duration
		for _, w := range waits {
			sum += w
		}
		t.Logf("harvest %-5v: visitor %d searches, wait p50 %v, p95 %v, max %v, mean %v; export pages served %d (%.0f a minute)",
			harvest, len(waits), waits[len(waits)/2].Round(time.Millisecond), waits[len(waits)*95/100].Round(time.Millisecond),
			waits[len(waits)-1].Round(time.Millisecond), (sum / time.Duration(len(waits))).Round(time.Millisecond),
			h.exports.Load(), float64(h.exports.Load())/window.Minutes())
		if err := caddy.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}
