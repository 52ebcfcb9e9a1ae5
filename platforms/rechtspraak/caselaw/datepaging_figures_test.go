//go:build figures

package caselaw

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFigureDatePaging measures, for docs/benchmarks.md (issue 31), what a
// page of the date order costs at depth 0, 1,000 and 10,000: by offset
// (the only way before issue 31; past MaxDateOffset it is now refused)
// and by cursor (Query.After), side by side in one run, on the
// 1,000,000-decision index of TestFigures (built once, reused;
// CASELAW_FIGURES_SIZES overrides the size, CASELAW_FIGURES_ROUNDS the
// rounds, CASELAW_PAGING_DEPTHS the depths):
//
//	go test -tags figures -run TestFigureDatePaging -timeout 3h -v ./platforms/rechtspraak/caselaw/
func TestFigureDatePaging(t *testing.T) {
	n := 1_000_000
	if env := os.Getenv("CASELAW_FIGURES_SIZES"); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			t.Fatal(err)
		}
	}
	rounds := 20
	if env := os.Getenv("CASELAW_FIGURES_ROUNDS"); env != "" {
		rounds, _ = strconv.Atoi(env)
	}
	dir, _ := benchIndex(t, n)
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if c := count(t, ix); c != uint64(n) {
		t.Fatalf("index holds %d decisions, want %d", c, n)
	}
	settle(t, ix) // merges a resumed build left
	warm(t, ix)

	queries := []Query{
		{Words: "rechtbank uitspraak", Sort: SortDate},                 // about half the index matches
		{Words: "kinderalimentatie", Type: TypeRuling, Sort: SortDate}, // a few percent
		{Court: "Rechtbank Amsterdam"},                                 // no words: a filter in date order
	}
	depths := []int{0, 1_000, 10_000}
	if env := os.Getenv("CASELAW_PAGING_DEPTHS"); env != "" { // a small trial run: "0,100,300"
		depths = nil
		for _, f := range strings.Split(env, ",") {
			d, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			depths = append(depths, d)
		}
	}
	type cell struct{ wall, cpu []time.Duration }
	byOffset := map[[2]int]*cell{}
	byCursor := map[[2]int]*cell{}
	cursors := map[[2]int]string{}
	totals := make([]uint64, len(queries))
	for k, q := range queries {
		for d, depth := range depths {
			key := [2]int{k, d}
			byOffset[key], byCursor[key] = &cell{}, &cell{}
			if depth == 0 {
				continue
			}
			// The cursor of the place after hit depth-1, as the page
			// before would have handed it on (not timed).
			prev := q
			prev.Offset, prev.Limit = depth-1, 1
			if depth-1 > MaxDateOffset {
				prev.Offset, prev.After = 0, deepCursor(t, ix, q, depth-1)
			}
			res, err := ix.Search(context.Background(), prev)
			if err != nil {
				t.Fatal(err)
			}
			if res.Next == "" {
				t.Fatalf("%s has no hit past %d: a deeper page measures nothing", describe(q), depth)
			}
			cursors[key] = res.Next
		}
	}

	timed := func(c *cell, f func() []string) []string {
		cpu := cpuTime()
		start := time.Now()
		ids := f()
		c.wall = append(c.wall, time.Since(start))
		c.cpu = append(c.cpu, cpuTime()-cpu)
		return ids
	}
	for r := 0; r < rounds; r++ {
		for k, q := range queries {
			for d, depth := range depths {
				key := [2]int{k, d}
				offsetIDs := timed(byOffset[key], func() []string {
					// The offset path as before issue 31: past the bound
					// the plan is made by hand.
					p, err := planQuery(q, ix.analyzers)
					if err != nil {
						t.Fatal(err)
					}
					p.offset = depth
					total, hits, _, err := ix.newestFirst(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					totals[k] = total
					ids := make([]string, len(hits))
					for i, h := range hits {
						ids[i] = h.ID
					}
					return ids
				})
				cursorIDs := timed(byCursor[key], func() []string {
					cq := q
					cq.After = cursors[key]
					res, err := ix.Search(context.Background(), cq)
					if err != nil {
						t.Fatal(err)
					}
					return eclis(res)
				})
				if !slices.Equal(offsetIDs, cursorIDs) {
					t.Fatalf("%s at %d: offset page %v, cursor page %v", describe(q), depth, offsetIDs, cursorIDs)
				}
			}
		}
	}
	t.Logf("%d decisions, %d rounds, pages of %d, date order; ms p50 / p95 (CPU p50)", n, rounds, DefaultLimit)
	t.Logf("| query | matches | depth | by offset (before) | by cursor (after) | offset ÷ cursor (p50) |")
	for k, q := range queries {
		for d, depth := range depths {
			key := [2]int{k, d}
			o, c := byOffset[key], byCursor[key]
			t.Logf("| `%s` | %d | %d | %.1f / %.1f (%.1f) | %.1f / %.1f (%.1f) | %.1f× |", describe(q), totals[k], depth,
				ms(percentile(o.wall, 50)), ms(percentile(o.wall, 95)), ms(percentile(o.cpu, 50)),
				ms(percentile(c.wall, 50)), ms(percentile(c.wall, 95)), ms(percentile(c.cpu, 50)),
				ms(percentile(o.wall, 50))/ms(percentile(c.wall, 50)))
		}
	}
}

// deepCursor pages q by cursor, in pages of MaxLimit, to the place after
// hit at (not timed).
func deepCursor(t *testing.T, ix *Index, q Query, at int) string {
	t.Helper()
	q.Limit, q.Offset = MaxLimit, 0
	var next string
	for read := 0; read < at; {
		q.Limit = min(MaxLimit, at-read)
		q.After = next
		res, err := ix.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if res.Next == "" {
			t.Fatalf("%s has fewer than %d hits", describe(q), at)
		}
		read += len(res.Hits)
		next = res.Next
	}
	return next
}
