//go:build figures

package localindex

import (
	"context"
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
)

// Figures of the parliament index's word search (docs/benchmarks.md,
// "The Tweede Kamer's replica"): the emulator's Documents at the real
// size (TK_FIGURES_DOCUMENTS, default 400,000) written page by page as
// the harvester writes them, then the same searches newest first read by
// windows of days and by one full sort, side by side; each search's
// hits are held to be the same both ways.
//
//	go test -tags figures -run TestFiguresTKSearch -v -timeout 1h ./platforms/tk/localindex/
func TestFiguresTKSearch(t *testing.T) {
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
