//go:build figures

package tk_test

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

// Figures of the Tweede Kamer's replica (docs/benchmarks.md, "The
// Tweede Kamer's replica"): the real harvester reads the emulator's
// SyncFeed at the real size in process (TK_FIGURES_DOCUMENTS, default
// 400,000 Documents, with 25,000 re-sent after a data fix and 2,000
// deleted, and the base data's zaken, decisions, votes and the rest).
// Timings are only logged; what is checked is that the index holds what
// the platform does. The searches' figures are localindex's
// (figures_test.go there).
//
//	go test -tags figures -run TestFiguresTK -v -timeout 1h ./platforms/tk/
func TestFiguresTKReplica(t *testing.T) {
	docs := 400_000
	if s := os.Getenv("TK_FIGURES_DOCUMENTS"); s != "" {
		docs, _ = strconv.Atoi(s)
	}
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	emu := emulator.NewEmulator(emulator.Config{Seed: 1, Clock: clk, Feed: emulator.FeedConfig{
		Documents: docs, Resent: 25_000, ResentAfter: time.Hour, Deleted: 2_000, DeletedAfter: 2 * time.Hour}})
	counts := emu.FeedCounts()
	dir := t.TempDir()
	idx := openParliament(t, dir)
	var pages atomic.Int64
	h, err := parliament(t).Harvester(idx, replica.Harvest{Fetch: emulatorFetch(emu, &pages), Clock: clk, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	clk.AwaitTimer()
	took := time.Since(start)
	holdsExactly(t, idx, emu)
	p := h.Progress()
	size, err := replica.DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	peakAnon := figures.ProcKB("RssAnon")
	debug.FreeOSMemory() // what the runtime keeps after the peak is not the replica's
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// The idle-budget rule lets a harvest spend at most half of the
	// platform's budget (platform.go: 5 requests a second).
	atIdle := time.Duration(float64(pages.Load())/2.5) * time.Second
	t.Logf("catch-up: %d Documents (%d live, %d entries with %d re-sent), %d entities in all, in %d pages: %v wall; at the idle budget (2.5 pages/s) %v",
		counts.Documents, counts.Live, counts.Entries, counts.Resent, p.Records, pages.Load(), took.Round(time.Second), atIdle.Round(time.Second))
	t.Logf("index: %.1f MiB on disk (%.0f bytes/entity); RSS after the catch-up %.0f MiB anonymous (peak %.0f MiB in all), after returning freed memory %.0f MiB (anonymous %.0f, files mapped %.0f); Go heap in use %.0f MiB",
		figures.MiB(size), float64(size)/float64(p.Records), float64(peakAnon)/1024, float64(figures.ProcKB("VmHWM"))/1024,
		float64(figures.ProcKB("VmRSS"))/1024, float64(figures.ProcKB("RssAnon"))/1024, float64(figures.ProcKB("RssFile"))/1024, figures.MiB(int64(ms.HeapInuse)))

}
