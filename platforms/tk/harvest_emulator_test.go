package tk_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// emulatorFetch is the emulator as the harvester's fetch sees it through
// the route; pages counts the pages asked.
func emulatorFetch(emu http.Handler, pages *atomic.Int64) replica.Fetch {
	return replicatest.Fetch("tk", emu, func(adapters.Request) { pages.Add(1) })
}

// holdsExactly checks that idx holds every live document of the
// emulator's feed and none of its deleted ones.
func holdsExactly(t *testing.T, idx *localindex.Index, emu *emulator.Emulator) {
	t.Helper()
	var live, gone []string
	emu.FeedDocuments(func(id string, deleted bool) bool {
		if deleted {
			gone = append(gone, id)
		} else {
			live = append(live, id)
		}
		return true
	})
	if n, err := idx.CountCategory("document"); err != nil || n != uint64(len(live)) {
		t.Fatalf("the replica holds %d documents (%v), the platform %d", n, err, len(live))
	}
	got, err := idx.Get(context.Background(), live)
	if err != nil || len(got) != len(live) {
		t.Fatalf("%d of %d live documents held (%v)", len(got), len(live), err)
	}
	if got, _ := idx.Get(context.Background(), gone); len(got) != 0 {
		t.Fatalf("%d deleted documents still held", len(got))
	}
}

// The feed as the Kamer serves it, re-sends after a data fix and
// deletions included: the replica ends with exactly the platform's live
// documents, each once; when new ones appear, the next round reads only
// the pages after the skiptoken stored.
func TestHarvestHoldsTheKamersDocuments(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	emu := emulator.NewEmulator(emulator.Config{Seed: 3, Clock: clk, Documents: 300, Feed: emulator.FeedConfig{
		Documents: 2000, Resent: 400, ResentAfter: time.Hour, Deleted: 25, DeletedAfter: 2 * time.Hour, New: 30}})
	counts := emu.FeedCounts()
	if counts.Resent != 400 || counts.Deleted != 25 {
		t.Fatalf("the emulator's feed: %+v", counts)
	}
	var pages atomic.Int64
	idx := openParliament(t, t.TempDir())
	scope, _ := parliament(t).Scope(replica.ScopeConfig{Sources: []string{"document"}})
	h, err := parliament(t).Harvester(idx, replica.Harvest{Fetch: emulatorFetch(emu, &pages), Clock: clk, Scope: scope, Interval: 6 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()

	clk.AwaitTimer()
	holdsExactly(t, idx, emu)
	wantPages := (counts.Entries+emulator.FeedPageSize-1)/emulator.FeedPageSize + 1 // and the end page
	if pages.Load() != int64(wantPages) {
		t.Fatalf("%d pages asked for %d entries, want %d", pages.Load(), counts.Entries, wantPages)
	}

	// A day on, new documents: the next rounds read only what came.
	pages.Store(0)
	clk.Advance(6 * time.Hour)
	clk.AwaitTimer()
	clk.Advance(6 * time.Hour)
	clk.AwaitTimer()
	clk.Advance(6 * time.Hour)
	clk.AwaitTimer()
	clk.Advance(6 * time.Hour)
	clk.AwaitTimer()
	if emu.FeedCounts().Documents == counts.Documents {
		t.Fatal("no new documents a day on")
	}
	holdsExactly(t, idx, emu)
	if pages.Load() > 8 {
		t.Fatalf("four rounds asked %d pages, want only the new ones and each round's end page", pages.Load())
	}
	if p := h.Progress(); p.LastError != nil || !p.CompleteUpTo.Equal(clk.Now()) {
		t.Fatalf("%+v", p)
	}
}
