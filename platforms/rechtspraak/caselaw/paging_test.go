package caselaw

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// How a pass pages through a changing feed (paging.go), and how it resumes.

// Entries already read that change while the pass runs leave the window;
// with plain offset paging the entries after them would shift onto pages
// already read and be skipped for good. Here none is lost, and the next
// pass brings the changed versions.
func TestChangesDuringAPassLoseNothing(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	entries := feedEntries(600, feedStart, 0, 0)
	feed := newFakeFeed(entries)
	clock := fakeclock.New(passTime)
	feed.before = func(_ context.Context, n int, _ PageRequest) (*FeedPage, error) {
		if n == 4 { // 150 entries read in pages of 50
			for _, d := range entries[10:30] { // read already
				feed.change(d.ECLI, passTime.Add(time.Minute))
			}
			for _, d := range entries[400:405] { // not read yet
				feed.change(d.ECLI, passTime.Add(time.Minute))
			}
		}
		return nil, nil
	}
	h := newTestHarvester(t, ix, feed, clock, 50)
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The five changed before they were read belong to the next pass;
	// every other entry must be in.
	if n := count(t, ix); n != 595 {
		t.Fatalf("after the pass the index holds %d decisions, want 595: changes during the pass made it skip some", n)
	}
	for _, d := range entries[:400] {
		if doc, err := ix.store.Bleve().Document(d.ECLI); err != nil || doc == nil {
			t.Fatalf("%s was skipped: %v", d.ECLI, err)
		}
	}
	clock.Advance(2 * time.Minute)
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantAllOnce(t, ix, feed)
}

// A feed that reads its modified bound exclusively, with a bulk update
// larger than a page (130 entries with one modified time, pages of 50),
// is still read whole, and the pass ends.
func TestExclusiveBoundAndBulkTiesAreReadWhole(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		ix, _ := openTest(t)
		feed := newFakeFeed(feedEntries(400, feedStart, 120, 130))
		feed.exclusiveSince = exclusive
		h := newTestHarvester(t, ix, feed, fakeclock.New(passTime), 50)
		if err := h.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		wantAllOnce(t, ix, feed)
		if n := len(feed.asked()); n > 14 {
			t.Fatalf("exclusive %v: %d requests for 400 entries in pages of 50", exclusive, n)
		}
	}
}

// A restart halfway resumes at the checkpoint, not at the start, and in
// the end every decision is in the index exactly once.
func TestRestartHalfwayResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	feed := newFakeFeed(feedEntries(600, feedStart, 200, 80))
	clock := fakeclock.New(passTime)
	ctx, stop := context.WithCancel(context.Background())
	feed.before = func(_ context.Context, n int, _ PageRequest) (*FeedPage, error) {
		if n == 8 {
			stop() // the process is told to stop while page 8 is on its way
			return nil, context.Canceled
		}
		return nil, nil
	}
	h := newTestHarvester(t, ix, feed, clock, 50)
	if err := h.Pass(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("pass ended with %v, want context.Canceled", err)
	}
	stoppedAt := ix.Checkpoint()
	if !stoppedAt.running() || stoppedAt.Pages != 7 {
		t.Fatalf("checkpoint %+v, want the pass after its 7th page", stoppedAt)
	}
	if n := count(t, ix); n < 250 || n > 350 { // fewer when the bulk update repeats a page
		t.Fatalf("%d decisions after 7 pages of 50", n)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ix, _, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	resumed := newFakeFeed(nil)
	resumed.entries = feed.entries
	clock.Advance(time.Hour) // the restart takes a while
	h = newTestHarvester(t, ix, resumed, clock, 50)
	if p := h.Progress(); p.Running || !p.PassStart.Equal(passTime) || p.PagesDone != 7 || p.PagesLeft < 5 {
		t.Fatalf("progress before resuming %+v, want the unfinished pass", p)
	}
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if first := resumed.asked()[0]; first != stoppedAt.request(50) {
		t.Fatalf("resumed with %+v, want %+v", first, stoppedAt.request(50))
	}
	wantAllOnce(t, ix, feed)
	if got := ix.Checkpoint().LastComplete; !got.Equal(passTime) {
		t.Fatalf("complete up to %v, want the interrupted pass's start %v", got, passTime)
	}
}

// Cancelling while a page is being fetched stores nothing of it: the
// checkpoint is that of the page before, and agrees with the index.
func TestCancelMidPageKeepsTheCheckpointConsistent(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	feed := newFakeFeed(feedEntries(500, feedStart, 0, 0))
	ctx, stop := context.WithCancel(context.Background())
	feed.before = func(ctx context.Context, n int, _ PageRequest) (*FeedPage, error) {
		if n == 5 {
			stop()
			<-ctx.Done() // the answer was still arriving
			return &FeedPage{Total: 500, Decisions: feedEntries(50, feedStart, 0, 0)}, ctx.Err()
		}
		return nil, nil
	}
	h := newTestHarvester(t, ix, feed, fakeclock.New(passTime), 50)
	if err := h.Pass(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("pass ended with %v", err)
	}
	cp := ix.Checkpoint()
	if cp.Pages != 4 {
		t.Fatalf("checkpoint after %d pages, want 4", cp.Pages)
	}
	if n := count(t, ix); n > 200 {
		t.Fatalf("%d decisions after 4 pages of 50: part of the cancelled page was stored", n)
	}
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantAllOnce(t, ix, feed)
}
