//go:build figures

package caselaw

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fts5bench"
)

// TestFiguresFTS5 puts the generated corpus and the typical queries
// (genQueries) to this index and to SQLite FTS5 with bm25 ranking, the
// engine nl-rechtspraak-mcp serves its rulings from, side by side in one
// run: the queries alternate between the engines, so a busy machine slows
// both alike, and the figures are a ratio (docs/benchmarks/caselaw.md,
// "side by side with SQLite FTS5"). Sizes and rounds as TestFigures:
//
//	CASELAW_FIGURES_SIZES=1000000 go test -tags figures -run TestFiguresFTS5 -timeout 3h -v ./platforms/rechtspraak/caselaw/
//
// FTS5 gets the words the Dutch analyzer makes of title and summary (the
// same stems the index searches), so both find the same decisions for a
// word query; a phrase is an FTS5 phrase of its stems, which matches the
// adjacent stems where the index matches pairs (mapping.go): the counts of
// the phrase queries may differ a little, and both are printed. Filters
// are columns FTS5 does not index (court, type, day), tested on each
// match, and the date order sorts the matches on day, ties by ECLI, as
// the index does. Each FTS5 answer is the page and the count of matches,
// two statements, because a Result carries both.
func TestFiguresFTS5(t *testing.T) {
	sizes, rounds := figureSizes(t)
	for _, n := range sizes {
		sideBySide(t, n, rounds)
	}
}

func sideBySide(t *testing.T, n, rounds int) {
	ctx := context.Background()
	dir, _ := benchIndex(t, n)
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	settle(t, ix)
	// The first run of each query after opening: it reads the files and
	// decodes the common words' postings (replica/bleveindex/decoded.go)
	// that later runs find decoded.
	var first samples
	first.init(len(genQueries))
	for k, q := range genQueries {
		start := time.Now()
		if _, err := ix.Search(ctx, q); err != nil {
			t.Fatal(err)
		}
		first.add(k, time.Since(start))
	}
	slowest := slices.Index(first.all, slices.Max(first.all))
	t.Logf("%d decisions: first runs after opening %.1f ms in all, the slowest `%s` %.1f ms",
		n, ms(sum(first.all)), describe(genQueries[slowest]), ms(first.all[slowest]))
	warm(t, ix)
	t.Logf("%d decisions: bleve %.1f MiB on disk; RSS with bleve open and warm %s", n, float64(diskSize(t, dir))/(1<<20), rss())

	tb, took := fts5Table(t, ix, filepath.Dir(dir), n)
	defer tb.Close()
	size, err := tb.Size()
	if err != nil {
		t.Fatal(err)
	}
	if took > 0 {
		t.Logf("%d decisions: FTS5 built in %s (%.0f decisions/s, analysis included), %.1f MiB on disk",
			n, took.Round(time.Second), float64(n)/took.Seconds(), float64(size)/(1<<20))
	} else {
		t.Logf("%d decisions: FTS5 table reused, %.1f MiB on disk", n, float64(size)/(1<<20))
	}
	fq := make([]fts5bench.Query, len(genQueries))
	for k, q := range genQueries {
		fq[k] = fts5QueryOf(t, ix, q)
		if _, err := fts5Run(ctx, tb, fq[k]); err != nil { // warm, as warm does for bleve
			t.Fatal(err)
		}
	}

	// Wall-clock and CPU time (the process's: both engines run in it, one
	// query at a time) per query and engine.
	var b, f, bCPU, fCPU samples
	b.init(len(genQueries))
	f.init(len(genQueries))
	bCPU.init(len(genQueries))
	fCPU.init(len(genQueries))
	bTotal, fTotal := make([]uint64, len(genQueries)), make([]int64, len(genQueries))
	for r := 0; r < rounds; r++ {
		for k, q := range genQueries {
			cpu, start := cpuTime(), time.Now()
			res, err := ix.Search(ctx, q)
			b.add(k, time.Since(start))
			bCPU.add(k, cpuTime()-cpu)
			if err != nil {
				t.Fatal(err)
			}
			bTotal[k] = res.Total

			cpu, start = cpuTime(), time.Now()
			count, err := fts5Run(ctx, tb, fq[k])
			f.add(k, time.Since(start))
			fCPU.add(k, cpuTime()-cpu)
			if err != nil {
				t.Fatal(err)
			}
			fTotal[k] = count
		}
	}
	runtime.GC()
	t.Logf("%d decisions: RSS after both engines served %s (FTS5's file is memory-mapped too)", n, rss())
	t.Logf("%d decisions, %d queries each: bleve p50 %.1f ms, p95 %.1f ms (CPU %.1f, %.1f); FTS5 p50 %.1f ms, p95 %.1f ms (CPU %.1f, %.1f); FTS5/bleve p50 %.1f, p95 %.1f (CPU %.1f, %.1f)",
		n, len(b.all), b.p(50), b.p(95), bCPU.p(50), bCPU.p(95), f.p(50), f.p(95), fCPU.p(50), fCPU.p(95),
		f.p(50)/b.p(50), f.p(95)/b.p(95), fCPU.p(50)/bCPU.p(50), fCPU.p(95)/bCPU.p(95))
	t.Logf("| query | matches bleve | matches FTS5 | bleve p50 / p95 ms | bleve CPU p50 / p95 ms | FTS5 p50 / p95 ms | FTS5 CPU p50 / p95 ms |")
	for k, q := range genQueries {
		t.Logf("| `%s` | %d | %d | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |", describe(q), bTotal[k], fTotal[k],
			b.pq(k, 50), b.pq(k, 95), bCPU.pq(k, 50), bCPU.pq(k, 95), f.pq(k, 50), f.pq(k, 95), fCPU.pq(k, 50), fCPU.pq(k, 95))
	}
}

func sum(ds []time.Duration) (total time.Duration) {
	for _, d := range ds {
		total += d
	}
	return total
}

// samples are durations, over all queries and per query, in ms.
type samples struct {
	all []time.Duration
	per [][]time.Duration
}

func (s *samples) init(queries int) { s.per = make([][]time.Duration, queries) }

func (s *samples) add(k int, d time.Duration) {
	s.all, s.per[k] = append(s.all, d), append(s.per[k], d)
}

func (s *samples) p(p int) float64         { return ms(percentile(s.all, p)) }
func (s *samples) pq(k int, p int) float64 { return ms(percentile(s.per[k], p)) }

// fts5Columns: the analyzed words are searched; the rest is stored, to
// filter, sort and show, as the index stores them.
var fts5Columns = []fts5bench.Column{
	{Name: "words", Indexed: true},
	{Name: "ecli"}, {Name: "title"}, {Name: "summary"}, {Name: "court"}, {Name: "day"}, {Name: "type"},
}

var fts5Shown = []string{"ecli", "title", "summary", "court", "day", "type"}

// fts5Table opens the FTS5 table of n generated decisions beside the
// index's directory, building it unless a run before did (took is then 0).
func fts5Table(t *testing.T, ix *Index, base string, n int) (*fts5bench.Table, time.Duration) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(base, fmt.Sprintf("fts5-gen%d-%d.db", genVersion, n))
	done := path + ".built"
	if _, err := os.Stat(done); err == nil {
		tb, err := fts5bench.Open(path, fts5bench.Schema{Table: "decisions", Columns: fts5Columns})
		if err != nil {
			t.Fatal(err)
		}
		return tb, 0
	}
	_ = os.Remove(path) // a build that stopped halfway starts again
	start := time.Now()
	tb, err := fts5bench.Open(path, fts5bench.Schema{Table: "decisions", Columns: fts5Columns})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, 0, pageOfDecisions)
	for i := 0; i < n; i += pageOfDecisions {
		rows = rows[:0]
		for k := i; k < min(i+pageOfDecisions, n); k++ {
			d := genDecision(k).normalized()
			words := stemsOf(ix, d.Title) + " " + stemsOf(ix, d.Summary)
			rows = append(rows, []any{words, d.ECLI, d.Title, d.Summary, strings.ToLower(d.Court), d.Date, strings.ToLower(d.Type)})
		}
		if err := tb.Insert(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if err := os.WriteFile(done, []byte(took.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return tb, took
}

// stemsOf is text as the index's Dutch analyzer leaves it: its stems,
// space-separated.
func stemsOf(ix *Index, text string) string {
	var b strings.Builder
	for _, tok := range ix.analyzers.words.Analyze([]byte(text)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(tok.Term)
	}
	return b.String()
}

// fts5QueryOf is q as an FTS5 query: each word's stems, a phrase's stems
// as an FTS5 phrase, all required; the filters as conditions on the
// stored columns.
func fts5QueryOf(t *testing.T, ix *Index, q Query) fts5bench.Query {
	t.Helper()
	terms, err := splitWords(q.Words)
	if err != nil {
		t.Fatal(err)
	}
	var match []string
	for _, term := range terms {
		stems := strings.Fields(stemsOf(ix, term.text))
		if len(stems) == 0 {
			continue
		}
		quoted := make([]string, len(stems))
		for k, s := range stems {
			quoted[k] = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		if term.phrase || len(stems) > 1 {
			match = append(match, strings.Join(quoted, " + "))
		} else {
			match = append(match, quoted[0])
		}
	}
	fq := fts5bench.Query{Match: strings.Join(match, " AND "), Limit: DefaultLimit, Columns: fts5Shown}
	var where []string
	if q.Court != "" {
		where, fq.Args = append(where, "court = ?"), append(fq.Args, strings.ToLower(q.Court))
	}
	if q.Type != "" {
		where, fq.Args = append(where, "type = ?"), append(fq.Args, strings.ToLower(q.Type))
	}
	if q.DateFrom != "" {
		where, fq.Args = append(where, "day >= ?"), append(fq.Args, q.DateFrom)
	}
	if q.DateTo != "" {
		where, fq.Args = append(where, "day <= ?"), append(fq.Args, q.DateTo)
	}
	fq.Where = strings.Join(where, " AND ")
	if q.Sort == SortDate {
		fq.OrderBy, fq.Desc, fq.ThenBy = "day", true, "ecli"
	}
	return fq
}

// fts5Run answers q as Search does: the page and the count of matches.
func fts5Run(ctx context.Context, tb *fts5bench.Table, q fts5bench.Query) (int64, error) {
	if _, err := tb.Search(ctx, q); err != nil {
		return 0, err
	}
	return tb.Count(ctx, q)
}
