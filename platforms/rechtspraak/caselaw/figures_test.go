//go:build figures

package caselaw

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFigures measures, for docs/benchmarks/caselaw.md, at 100,000 and
// 1,000,000 generated decisions (CASELAW_FIGURES_SIZES overrides, e.g.
// "100000"): build time and indexing rate, size on disk, heap and RSS
// while serving, and query latency p50/p95 over rounds of the typical
// queries, overall and per query. It runs only with -tags figures:
//
//	go test -tags figures -run TestFigures -timeout 3h -v ./platforms/rechtspraak/caselaw/
func TestFigures(t *testing.T) {
	sizes, rounds := figureSizes(t)
	for _, n := range sizes {
		figuresAt(t, n, rounds)
	}
}

// figureSizes are the corpus sizes to measure (CASELAW_FIGURES_SIZES,
// default 100,000 and 1,000,000) and the rounds of the typical queries
// (CASELAW_FIGURES_ROUNDS, default 30).
func figureSizes(t *testing.T) (sizes []int, rounds int) {
	sizes = []int{100_000, 1_000_000}
	if env := os.Getenv("CASELAW_FIGURES_SIZES"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	rounds = 30
	if env := os.Getenv("CASELAW_FIGURES_ROUNDS"); env != "" {
		rounds, _ = strconv.Atoi(env)
	}
	return sizes, rounds
}

func figuresAt(t *testing.T, n, rounds int) {
	dir, took := benchIndex(t, n)
	if took > 0 {
		t.Logf("%d decisions: built in %s, %.0f decisions/s (pages of %d, one Apply each)",
			n, took.Round(time.Second), float64(n)/took.Seconds(), pageOfDecisions)
	} else {
		raw, _ := os.ReadFile(dir + "/built")
		t.Logf("%d decisions: index reused from %s (built in %s)", n, dir, raw)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if c := count(t, ix); c != uint64(n) {
		t.Fatalf("index holds %d decisions, want %d", c, n)
	}
	settleStart := time.Now()
	settle(t, ix)
	t.Logf("%d decisions: merges left after the build done in %s", n, time.Since(settleStart).Round(time.Millisecond))
	openedAt := time.Now()
	warm(t, ix)
	t.Logf("%d decisions: first round of queries (cold segments) in %s", n, time.Since(openedAt).Round(time.Millisecond))

	all := make([]time.Duration, 0, rounds*len(genQueries))
	allCPU := make([]time.Duration, 0, rounds*len(genQueries))
	per := make([][]time.Duration, len(genQueries))
	perCPU := make([][]time.Duration, len(genQueries))
	totals := make([]uint64, len(genQueries))
	for r := 0; r < rounds; r++ {
		for k, q := range genQueries {
			cpu := cpuTime()
			start := time.Now()
			res, err := ix.Search(context.Background(), q)
			d := time.Since(start)
			c := cpuTime() - cpu
			if err != nil {
				t.Fatal(err)
			}
			all, allCPU = append(all, d), append(allCPU, c)
			per[k], perCPU[k] = append(per[k], d), append(perCPU[k], c)
			totals[k] = res.Total
		}
	}
	runtime.ReadMemStats(&after)
	size := diskSize(t, dir)
	t.Logf("%d decisions: %.1f MiB on disk, %.1f MiB per 100,000 decisions",
		n, float64(size)/(1<<20), float64(size)/(1<<20)/(float64(n)/100_000))
	t.Logf("%d decisions: query latency over %d queries: p50 %.1f ms, p95 %.1f ms, max %.1f ms; CPU per query p50 %.1f ms, p95 %.1f ms",
		n, len(all), ms(percentile(all, 50)), ms(percentile(all, 95)), ms(percentile(all, 100)),
		ms(percentile(allCPU, 50)), ms(percentile(allCPU, 95)))
	t.Logf("%d decisions: heap in use %.1f MiB after opening and serving (%.1f MiB before opening); RSS %s",
		n, float64(after.HeapInuse)/(1<<20), float64(before.HeapInuse)/(1<<20), rss())
	t.Logf("| query | matches | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms |")
	for k, q := range genQueries {
		t.Logf("| `%s` | %d | %.1f | %.1f | %.1f | %.1f |", describe(q), totals[k],
			ms(percentile(per[k], 50)), ms(percentile(per[k], 95)), ms(percentile(perCPU[k], 50)), ms(percentile(perCPU[k], 95)))
	}
}

// cpuTime is the CPU time the process has used (user and system, all
// threads): on a machine shared with other work it shows what a query
// costs when wall-clock time also holds the waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rss is the process's resident set from /proc (memory-mapped index files
// in the page cache count in it).
func rss() string {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
		}
	}
	return "unknown"
}
