//go:build figures

package caselaw

import (
	"context"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// TestFiguresLevers measures each lever of the heavy queries of genQueries
// on its own, before and after, on the index of TestFigures
// (docs/benchmarks/caselaw.md, "side by side with SQLite FTS5"): the
// count by bleve (Score "none") and by the segments' bitmaps; in BM25
// order the top 10 by bleve and by the fast path (fastpath.go), without
// and with common words' postings decoded (replica/bleveindex/decoded.go:
// the first run after the part without decodes them again); in date
// order the windows of years and of days (datewindows.go), both with the
// count by bitmaps (before, the windows of years came with bleve's count:
// the count lines give that part):
//
//	CASELAW_FIGURES_SIZES=1000000 go test -tags figures -run TestFiguresLevers -timeout 1h -v ./platforms/rechtspraak/caselaw/
func TestFiguresLevers(t *testing.T) {
	sizes, rounds := figureSizes(t)
	heavy := []Query{
		{Words: "vergunning"},
		{Words: "ontslag"},
		{Words: `"ontslag op staande voet"`},
		{Words: "beroep ongegrond"},
		{Words: "rechtbank uitspraak", Sort: SortDate},
		{Words: "kinderalimentatie", Type: TypeRuling, Sort: SortDate},
	}
	ctx := context.Background()
	for _, n := range sizes {
		dir, _ := benchIndex(t, n)
		ix, _, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		settle(t, ix)
		warm(t, ix)
		t.Logf("| query | part | p50 ms | p95 ms |")
		for _, q := range heavy {
			p, err := planQuery(q, ix.analyzers)
			if err != nil {
				t.Fatal(err)
			}
			type part struct {
				name string
				run  func() error
			}
			parts := []part{
				{"Search (every lever)", func() error { _, err := ix.Search(ctx, q); return err }},
				{"count by bleve, Score none", func() error {
					req := bleve.NewSearchRequestOptions(p.boolean(), 0, 0, false)
					req.Score = "none"
					_, err := ix.store.Search(ctx, req)
					return err
				}},
				{"count by the segments' bitmaps", func() error { _, _, err := ix.store.CountFromBitmaps(ctx, p.boolean()); return err }},
			}
			if p.byDate {
				parts = append(parts,
					part{"date order, windows of years", func() error {
						ix.days.off.Store(true)
						defer ix.days.off.Store(false)
						_, _, _, err := ix.newestFirst(ctx, p)
						return err
					}},
					part{"date order, windows of days", func() error { _, _, _, err := ix.newestFirst(ctx, p); return err }})
			} else {
				parts = append(parts,
					part{"BM25 top 10 by bleve", func() error { _, _, err := ix.plainBestFirst(ctx, p); return err }},
					part{"BM25 top 10 by the fast path, no postings decoded", func() error {
						budget := bleveindex.DecodedBudget()
						bleveindex.SetDecodedBudget(0)
						defer bleveindex.SetDecodedBudget(budget)
						_, _, err := ix.fastBestFirst(ctx, p)
						return err
					}},
					part{"BM25 top 10 by the fast path", func() error { _, _, err := ix.fastBestFirst(ctx, p); return err }})
			}
			for _, part := range parts {
				var took []time.Duration
				for r := 0; r < rounds; r++ {
					start := time.Now()
					if err := part.run(); err != nil {
						t.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
				t.Logf("| `%s` | %s | %.1f | %.1f |", describe(q), part.name, ms(percentile(took, 50)), ms(percentile(took, 95)))
			}
		}
		_ = ix.Close()
	}
}
