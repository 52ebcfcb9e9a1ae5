//go:build figures

package ob_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/platforms/ob/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

// TestFiguresReplicaAtScale is the publications' replica at the size of
// the platform, which holds millions: its first pass of the whole feed
// in process (no budget, a fake clock; pages cut at 1,000), then word
// searches as the replica asks them, newest first as the platform
// answers, with and without one year of dates, each policy topic of the
// publications' titles (corpus.Topics) and each year as a word, side by
// side in one run (go test -tags figures -run TestFiguresReplicaAtScale
// -v ./platforms/ob/).
//
//	OB_FIGURES_SCALE  the emulator's Scale (default emulator.RealisticScale,
//	                  20: about 300,000 publications; 200: about 3 million)
//	OB_FIGURES_DIR    where the index goes (default the test's folder)
//	OB_FIGURES_INDEX  an index folder an earlier pass left (the sized
//	                  moonshot's publications, say): its questions are
//	                  asked without a pass of their own
func TestFiguresReplicaAtScale(t *testing.T) {
	if dir := os.Getenv("OB_FIGURES_INDEX"); dir != "" {
		idx, _, err := publications(t).Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = idx.Close() })
		ix := idx.(*datereplica.Index)
		held, _ := ix.Count()
		size, err := replica.DirSize(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d publications held; %.0f MiB on disk", dir, held, figures.MiB(size))
		askReplica(t, ix)
		return
	}
	scale := emulator.RealisticScale
	if v := os.Getenv("OB_FIGURES_SCALE"); v != "" {
		var err error
		if scale, err = strconv.Atoi(v); err != nil || scale < 1 {
			t.Fatalf("OB_FIGURES_SCALE %q: a whole number of at least 1", v)
		}
	}
	dir := os.Getenv("OB_FIGURES_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, fmt.Sprintf("ob-scale-%d", scale))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	clk := fakeclock.New(harvestStart)
	e := emulator.New(emulator.Config{Seed: 1, Clock: clk, MaxRecords: 1000, Scale: scale})
	p := publications(t)
	scope, err := p.Scope(replica.ScopeConfig{Since: "all"})
	if err != nil {
		t.Fatal(err)
	}
	idx, _, err := p.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	var pages atomic.Int64
	hv, err := p.Harvester(idx, replica.Harvest{Clock: clk, Scope: scope,
		Fetch: emulatorFetch(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pages.Add(1); e.ServeHTTP(w, r) }))})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := hv.(*datereplica.Harvester).Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(began)
	ix := idx.(*datereplica.Index)
	held, _ := ix.Count()
	size, err := replica.DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scale %d: %d publications held after %d pages in %v (%.0f a second, in process); %.0f MiB on disk; RSS %.0f MiB (peak %.0f, the emulator's corpus included); %d days not read whole",
		scale, held, pages.Load(), wall.Round(time.Second), float64(held)/wall.Seconds(), figures.MiB(size),
		float64(figures.ProcKB("VmRSS"))/1024, float64(figures.ProcKB("VmHWM"))/1024, len(hv.Progress().Unread))
	askReplica(t, ix)
}

// askReplica asks ix the figure's questions, round after round, and logs
// each kind's percentiles.
func askReplica(t *testing.T, ix *datereplica.Index) {

	// The questions: each topic, and each year of 2006 to 2026 as a word.
	var words []string
	words = append(words, corpus.Topics...)
	for y := 2006; y <= 2026; y++ {
		words = append(words, strconv.Itoa(y))
	}
	r := corpus.Rand(36, "ob figures years")
	years := make([]int, len(words))
	for i := range years {
		years[i] = 2024 + r.IntN(3)
	}
	ctx := context.Background()
	kinds := []string{"newest first", "newest first, one year", "best match"}
	for round := range 2 {
		for _, kind := range kinds {
			var took []time.Duration
			var total uint64
			for i, w := range words {
				q := datereplica.Query{Words: w, Limit: 10, Order: datereplica.OrderNewest}
				switch kind {
				case "newest first, one year":
					q.From, q.To = fmt.Sprintf("%d-01-01", years[i]), fmt.Sprintf("%d-12-31", years[i])
				case "best match":
					q.Order = ""
				}
				start := time.Now()
				res, err := ix.Search(ctx, q)
				took = append(took, time.Since(start))
				if err != nil {
					t.Fatal(err)
				}
				total += res.Total
			}
			if round == 0 {
				continue // warms the index's pages
			}
			p50, p95 := figures.Percentiles(took)
			t.Logf("%-24s %d questions: p50 %v, p95 %v; %d matches on average", kind, len(words), p50.Round(10*time.Microsecond),
				p95.Round(10*time.Microsecond), total/uint64(len(words)))
		}
	}
}
