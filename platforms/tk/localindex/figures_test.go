//go:build figures

package localindex

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
	"github.com/blevesearch/bleve/v2/search/query"
)

// figuresIndex is the emulator's SyncFeed Documents at the real size
// (TK_FIGURES_DOCUMENTS, default 400,000), written page by page as the
// harvester writes them.
func figuresIndex(t *testing.T) *Index {
	t.Helper()
	docs := 400_000
	if s := os.Getenv("TK_FIGURES_DOCUMENTS"); s != "" {
		docs, _ = strconv.Atoi(s)
	}
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	emu := emulator.NewEmulator(emulator.Config{Seed: 1, Clock: clk, Feed: emulator.FeedConfig{Documents: docs}})
	ix := open(t)
	for token := int64(0); ; {
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, feed.Request("Document", token).Path, nil))
		p, err := feed.ParsePage(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entities) == 0 {
			break
		}
		if _, err := ix.Apply(p.Entities, nil, nil); err != nil {
			t.Fatal(err)
		}
		token = p.Next
	}
	return ix
}

// Figures of the parliament index's word search (docs/benchmarks.md,
// "The Tweede Kamer's replica"): the emulator's Documents at the real
// size (TK_FIGURES_DOCUMENTS, default 400,000) written page by page as
// the harvester writes them, then the same searches newest first read by
// windows of days and by one full sort, side by side; each search's
// hits are held to be the same both ways.
//
//	go test -tags figures -run TestFiguresTKSearch -v -timeout 1h ./platforms/tk/localindex/
func TestFiguresTKSearch(t *testing.T) {
	ix := figuresIndex(t)
	n, _ := ix.CountCategory("document")
	words := []string{"stikstof", "woningbouw", "asiel", "klimaat", "zorg", "defensie", "onderwijs", "energie",
		"pensioen", "belasting", "wolf", "jeugdzorg", "motie", "brief", "netcongestie gemeenten"}
	queries := []Query{}
	for _, w := range words {
		queries = append(queries, Query{Words: w, Limit: 10})
	}
	queries = append(queries, Query{Soort: "Motie", Limit: 10}, Query{Words: "brief", Limit: 10, Offset: 500})
	run := func(threshold uint64) (p50, p95 time.Duration, pages [][]string) {
		saved := fewMatches
		fewMatches = threshold
		defer func() { fewMatches = saved }()
		var ds []time.Duration
		for round := range 21 {
			for _, q := range queries {
				t0 := time.Now()
				res, err := ix.SearchDocuments(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if round > 0 {
					ds = append(ds, time.Since(t0))
					continue
				}
				var ids []string
				for _, h := range res.Hits {
					ids = append(ids, h.ID)
				}
				pages = append(pages, ids)
			}
		}
		p50, p95 = figures.Percentiles(ds)
		return p50, p95, pages
	}
	wp50, wp95, windowed := run(fewMatches)
	fp50, fp95, full := run(1 << 62)
	for k := range queries {
		if len(windowed[k]) != len(full[k]) {
			t.Fatalf("%+v: %d hits by windows, %d by the full sort", queries[k], len(windowed[k]), len(full[k]))
		}
		for j := range full[k] {
			if windowed[k][j] != full[k][j] {
				t.Fatalf("%+v: hit %d is %s by windows, %s by the full sort", queries[k], j, windowed[k][j], full[k][j])
			}
		}
	}
	t.Logf("%d documents; %d searches newest first, each 20 times: by windows of days p50 %v, p95 %v; by one full sort p50 %v, p95 %v (p95 ratio %.1fx)",
		n, len(queries), wp50.Round(10*time.Microsecond), wp95.Round(10*time.Microsecond), fp50.Round(10*time.Microsecond), fp95.Round(10*time.Microsecond), float64(fp95)/float64(wp95))
}

// TestFiguresTKYears times the questions of one year and of a year as a
// word, newest first as the fan-out and tk_search ask the replica
// (platforms/tk/surface.go): each word of TestFiguresTKSearch for one
// year of 2024 to 2026, and each year of 2006 to 2026 as a word, alone
// and for its own year. SearchDocuments as it is now beside the request
// the index made before its days were numbers (searchBefore: the range
// and the windows over the day's keyword terms, the windows counted back
// from today), question by question in one run; both must give the same
// page.
//
//	go test -tags figures -run TestFiguresTKYears -v -timeout 1h ./platforms/tk/localindex/
func TestFiguresTKYears(t *testing.T) {
	ix := figuresIndex(t)
	n, _ := ix.CountCategory("document")
	var queries []Query
	for i, w := range []string{"stikstof", "woningbouw", "asiel", "klimaat", "zorg", "defensie", "onderwijs", "energie",
		"pensioen", "belasting", "wolf", "jeugdzorg", "motie", "brief", "netcongestie gemeenten"} {
		y := 2024 + i%3
		queries = append(queries, Query{Words: w, From: fmt.Sprintf("%d-01-01", y), To: fmt.Sprintf("%d-12-31", y), Limit: 10})
	}
	for y := 2006; y <= 2026; y++ {
		queries = append(queries, Query{Words: strconv.Itoa(y), Limit: 10},
			Query{Words: strconv.Itoa(y), From: fmt.Sprintf("%d-01-01", y), To: fmt.Sprintf("%d-12-31", y), Limit: 10})
	}
	var before, now []time.Duration
	var matches uint64
	for round := range 6 {
		for _, q := range queries {
			t0 := time.Now()
			res, err := ix.SearchDocuments(context.Background(), q)
			took := time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			t0 = time.Now()
			old, err := ix.searchBefore(context.Background(), q)
			tookBefore := time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			if round == 0 {
				matches += res.Total
				if res.Total != old.Total || len(res.Hits) != len(old.Hits) {
					t.Fatalf("%+v: %d matches, %d hits; before %d, %d", q, res.Total, len(res.Hits), old.Total, len(old.Hits))
				}
				for k := range res.Hits {
					if res.Hits[k].ID != old.Hits[k].ID {
						t.Fatalf("%+v: hit %d is %s, before %s", q, k, res.Hits[k].ID, old.Hits[k].ID)
					}
				}
				continue // warms the index's pages
			}
			now, before = append(now, took), append(before, tookBefore)
		}
	}
	bp50, bp95 := figures.Percentiles(before)
	np50, np95 := figures.Percentiles(now)
	t.Logf("%d documents; %d questions (%d matches on average), each 5 times: before p50 %v, p95 %v; now p50 %v, p95 %v (p95 ratio %.1fx)",
		n, len(queries), matches/uint64(len(queries)), bp50.Round(10*time.Microsecond), bp95.Round(10*time.Microsecond),
		np50.Round(10*time.Microsecond), np95.Round(10*time.Microsecond), float64(bp95)/float64(np95))
}

// searchBefore is SearchDocuments newest first as it was before the days
// were numbers: the days asked and the windows as ranges of the day's
// keyword terms, the windows counted back from today.
func (i *Index) searchBefore(ctx context.Context, q Query) (Result, error) {
	must := []query.Query{categoryIs("document"), bleveindex.EveryWord(fieldText, q.Words)}
	if q.From != "" || q.To != "" {
		incl := true
		r := query.NewTermRangeInclusiveQuery(q.From, q.To, &incl, &incl)
		r.SetField(fieldDay)
		must = append(must, r)
	}
	p, err := i.store.SearchNewest(ctx, query.NewConjunctionQuery(must), bleveindex.NewestFirst{DayField: fieldDay, Sort: sortNewest,
		Fields: []string{fieldEntity}, FewMatches: fewMatches, WindowDays: windowDays}, q.Limit, q.Offset, "")
	if err != nil {
		return Result{}, err
	}
	out := Result{Total: p.Total}
	for _, h := range p.Hits {
		e, err := entityOf(h.ID, h.Fields)
		if err != nil {
			return Result{}, err
		}
		out.Hits = append(out.Hits, e)
	}
	return out, nil
}
