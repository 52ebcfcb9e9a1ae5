package caselaw

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"

	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// Benchmarks of the index (figures in docs/benchmarks/caselaw.md):
//
//	go test -run '^$' -bench . -benchtime 200x ./platforms/rechtspraak/caselaw/
//
// The 100,000-decision index is built once and kept under
// $CASELAW_BENCH_DIR (default: a directory in the system's temp
// directory), named by generator, mapping stamp and size, so later runs
// measure queries without rebuilding. figures_test.go (-tags figures) adds
// 1,000,000 decisions, the index size and the heap.

// pageOfDecisions is how many decisions one Apply stores: one feed page.
const pageOfDecisions = MaxPageSize

// BenchmarkApplyPage stores one feed page (1,000 generated decisions) per
// op into a growing index, as the harvester does: the indexing rate.
func BenchmarkApplyPage(b *testing.B) {
	ix, _, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	pages := make([][]Decision, 8)
	for p := range pages {
		for n := range pageOfDecisions {
			pages[p] = append(pages[p], genDecision(p*pageOfDecisions+n))
		}
	}
	for i := 0; b.Loop(); i++ {
		page := pages[i%len(pages)]
		if i >= len(pages) { // new ECLIs, so the index grows
			page = slices.Clone(page)
			for n := range page {
				page[n].ECLI = fmt.Sprintf("%s-%d", page[n].ECLI, i)
			}
		}
		if err := ix.Apply(page, Checkpoint{NextFrom: (i + 1) * pageOfDecisions}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*pageOfDecisions)/b.Elapsed().Seconds(), "decisions/s")
}

// BenchmarkSearch100k runs the typical queries (genQueries) in turn on
// 100,000 decisions and reports the 50th and 95th percentile.
func BenchmarkSearch100k(b *testing.B) { benchmarkSearch(b, 100_000) }

func benchmarkSearch(b *testing.B, n int) {
	dir, _ := benchIndex(b, n)
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	warm(b, ix)
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := ix.Search(context.Background(), genQueries[i%len(genQueries)]); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.ReportMetric(ms(percentile(took, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(took, 95)), "p95-ms")
}

// benchIndex returns the directory of an index of n generated decisions,
// building it unless a run before did; took is the build time (0 when
// reused). A build that was stopped (no "built" mark) resumes at its
// checkpoint: every batch carries it, so the index holds whole pages.
func benchIndex(tb testing.TB, n int) (dir string, took time.Duration) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds an index of generated decisions")
	}
	base := os.Getenv("CASELAW_BENCH_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), "besluitbron-caselaw-bench")
	}
	dir = filepath.Join(base, fmt.Sprintf("gen%d-%s-%d", genVersion, bleveindex.Stamp(stampFormat, newMapping()), n))
	done := filepath.Join(dir, "built")
	if _, err := os.Stat(done); err == nil {
		return dir, 0
	}
	start := time.Now()
	ix, _, err := Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	resumeAt := ix.Checkpoint().NextFrom
	if resumeAt > 0 {
		tb.Logf("resuming the build of %d decisions at %d", n, resumeAt)
	}
	page := make([]Decision, 0, pageOfDecisions)
	for i := resumeAt; i < n; i += pageOfDecisions {
		page = page[:0]
		for k := i; k < min(i+pageOfDecisions, n); k++ {
			page = append(page, genDecision(k))
		}
		if err := ix.Apply(page, Checkpoint{NextFrom: i + len(page)}); err != nil {
			tb.Fatal(err)
		}
		if i > 0 && i%100_000 == 0 {
			tb.Logf("built %d of %d decisions in %s", i, n, time.Since(start).Round(time.Second))
		}
	}
	settle(tb, ix)
	if err := ix.Close(); err != nil {
		tb.Fatal(err)
	}
	took = time.Since(start)
	if err := os.WriteFile(done, []byte(took.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, took
}

// settle runs bleve's merges until its merge plan has nothing left to do,
// as the background merger does in the minutes after a harvest: measuring
// right after the build would measure the merges too.
func settle(tb testing.TB, ix *Index) {
	tb.Helper()
	adv, err := ix.store.Bleve().Advanced()
	if err != nil {
		tb.Fatal(err)
	}
	opts := mergeplan.DefaultMergePlanOptions
	if err := adv.(*scorch.Scorch).ForceMerge(context.Background(), &opts); err != nil {
		tb.Fatal(err)
	}
}

// warm runs every query once, so the measured runs find the files in the
// page cache, as a serving index does.
func warm(tb testing.TB, ix *Index) {
	tb.Helper()
	for _, q := range genQueries {
		res, err := ix.Search(context.Background(), q)
		if err != nil {
			tb.Fatal(err)
		}
		if res.Total == 0 {
			tb.Errorf("%+v finds nothing in the generated corpus", q)
		}
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// diskSize is the bytes of the files under dir.
func diskSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by a merge meanwhile
			}
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

// describe names a query in the figures.
func describe(q Query) string {
	var parts []string
	if q.Words != "" {
		parts = append(parts, q.Words)
	}
	if q.Court != "" {
		parts = append(parts, "court="+q.Court)
	}
	if q.DateFrom != "" || q.DateTo != "" {
		parts = append(parts, "date="+q.DateFrom+".."+q.DateTo)
	}
	if q.Type != "" {
		parts = append(parts, "type="+q.Type)
	}
	if q.Sort != "" {
		parts = append(parts, "sort="+q.Sort)
	}
	return strings.Join(parts, " ")
}
