//go:build figures

package obv_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// TestFiguresOBVUnitsPerThousandSearches counts OpenBesluitvorming's
// budget units that 1,000 distinct word searches of council documents
// spend, through the platform's surface (the fan-out's, /search's and
// search_all's way in), without the replica and with it, caught up over
// every source the emulator holds (docs/benchmarks.md,
// "OpenBesluitvorming's replica"). Only logs.
//
//	go test -tags figures -run TestFiguresOBVUnitsPerThousandSearches -v ./platforms/obv/
//
// The mix, drawn with a fixed seed: seven in ten searches name a policy
// topic (corpus.Topics, the subjects the emulator's titles are made of),
// alone or with a kind of document (motie, raadsvoorstel, verordening);
// three in ten a word of the documents' running text (corpus.Words),
// which the export's payloads seldom hold. Six in ten name an
// organisation (a source the emulator imports), three in ten a first
// day among the 600 before the newest the replica holds (the large
// export creates its entities in the first nine tenths of its log, so
// its newest meetings are from months before the log ends; real data
// runs to today); ten hits each. Repeats are dropped until 1,000 are
// distinct. OBV_UNITS_FIXED_DAYS=1 draws the first days from 2025 and
// 2026 instead, as the figures before 2026-12-05 did.
//
// With OBV_UNITS_RECORDS=n the replica is harvested from the emulator's
// large export of n records instead (emulator.LargeExport: 124 sources,
// so some 8,000 records each at a million, nearer OBV's 24,000 than the
// small corpus's 143); the platform's searches still answer from the
// small corpus, which changes what they cost nothing.
func TestFiguresOBVUnitsPerThousandSearches(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	cfg := emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true}
	if n := envInt("OBV_UNITS_RECORDS", 0); n > 0 {
		cfg.LargeExport = &emulator.LargeExport{Records: n}
	}
	emu := emulator.New(cfg)
	idx := openCouncil(t, t.TempDir())
	t0 := time.Now()
	r := startHarvest(t, idx, &testFeed{h: emu}, clk, replica.ScopeConfig{}, nil)
	r.settle()
	p := r.h.Progress()
	t.Logf("replica: %d records, caught up in %v", p.Records, time.Since(t0).Round(time.Millisecond))
	council := council(t).(replica.Offerer).Offer(held{idx, r.h}, clk).(obv.CouncilIndex)

	sources := make([]string, 0, len(p.Sources))
	for _, s := range p.Sources {
		if s.Records > 0 {
			sources = append(sources, s.Source)
		}
	}
	t.Logf("%d sources hold records; the searches naming one name one of these", len(sources))
	newest, err := idx.Search(context.Background(), localindex.Query{Order: localindex.OrderNewest, Limit: 1})
	if err != nil || len(newest.Hits) == 0 {
		t.Fatalf("the newest entity held: %+v %v", newest, err)
	}
	last, err := time.Parse(time.DateOnly, newest.Hits[0].Date)
	if err != nil {
		t.Fatal(err)
	}
	firstDays := last.AddDate(0, 0, -600)
	if os.Getenv("OBV_UNITS_FIXED_DAYS") != "" {
		firstDays = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	t.Logf("the newest entity held is of %s; the first days asked are drawn from the 600 from %s", last.Format(time.DateOnly), firstDays.Format(time.DateOnly))
	rnd := corpus.Rand(35, "units")
	kinds := []string{"motie", "raadsvoorstel", "verordening"}
	seen := map[adapters.Question]bool{}
	var mix []adapters.Question
	kindOf := map[adapters.Question]string{}
	for len(mix) < 1000 {
		q := adapters.Question{Limit: 10}
		kind := ""
		switch n := rnd.IntN(10); {
		case n < 4:
			q.Words, kind = corpus.Topics[rnd.IntN(len(corpus.Topics))], "a topic"
		case n < 7:
			q.Words, kind = corpus.Topics[rnd.IntN(len(corpus.Topics))]+" "+kinds[rnd.IntN(len(kinds))], "a topic and a kind"
		default:
			q.Words, kind = corpus.Words(rnd, 1), "a word of running text"
		}
		if rnd.IntN(10) < 6 {
			q.Organisation = sources[rnd.IntN(len(sources))]
		}
		if rnd.IntN(10) < 3 {
			q.From = firstDays.AddDate(0, 0, rnd.IntN(600)).Format("2006-01-02")
		}
		if !seen[q] {
			seen[q] = true
			mix = append(mix, q)
			kindOf[q] = kind
		}
	}

	var units, searches int
	env := adapters.Env{Now: clk.Now(), Get: func(_ context.Context, _ string, req adapters.Request) ([]byte, error) {
		if u, err := url.Parse(req.Path); err == nil && u.Path == "/api/search" {
			limit, _ := strconv.Atoi(u.Query().Get("limit"))
			units += obv.Cost(limit)
			searches++
		}
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
		return rec.Body.Bytes(), nil
	}}
	run := func(s adapters.Surface) (int, int, map[string]int) {
		units, searches = 0, 0
		why := map[string]int{}
		for _, q := range mix {
			before := units
			page, err := s.Search(context.Background(), env, q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			why[kindOf[q]+": searches"]++
			why[kindOf[q]+": units"] += units - before
			if strings.HasPrefix(page.Provenance, "asked OpenBesluitvorming: ") {
				why[page.Provenance]++
			} else if page.Provenance != "" {
				why["answered by the replica"]++
			}
		}
		return units, searches, why
	}
	beforeUnits, beforeSearches, byKind := run(obv.Surface())
	afterUnits, afterSearches, why := run(obv.SurfaceWith(council))
	t.Logf("1,000 distinct word searches: without the replica %d platform searches, %d units; with it %d searches, %d units (%.1f %% fewer units)",
		beforeSearches, beforeUnits, afterSearches, afterUnits, 100*(1-float64(afterUnits)/float64(beforeUnits)))
	for _, k := range []string{"a topic", "a topic and a kind", "a word of running text"} {
		t.Logf("  %s: %d searches, %d units without the replica, %d with it", k, byKind[k+": searches"], byKind[k+": units"], why[k+": units"])
	}
	for k, n := range why {
		if !strings.Contains(k, ": ") || strings.HasPrefix(k, "asked") {
			t.Logf("  %4d %s", n, k)
		}
	}
}
