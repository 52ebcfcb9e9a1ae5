package caselaw

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

var (
	feedStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	// passTime is after every entry of feedEntries below 10,000 entries.
	passTime = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
)

func newTestHarvester(t *testing.T, ix *Index, f *fakeFeed, clock clock.Clock, pageSize int) *Harvester {
	t.Helper()
	h, err := NewHarvester(HarvesterConfig{Index: ix, Fetch: f.fetch, Clock: clock, PageSize: pageSize})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A whole pass stores every decision once, asks with the pass's start as
// upper bound and ascending pages, and records the pass as complete.
func TestPassStoresEveryDecisionOnce(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	feed := newFakeFeed(feedEntries(1234, feedStart, 0, 0))
	h := newTestHarvester(t, ix, feed, fakeclock.New(passTime), 100)
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantAllOnce(t, ix, feed)

	asked := feed.asked()
	if first := asked[0]; !first.ModifiedSince.IsZero() || first.From != 0 || first.Max != 100 || !first.ModifiedUntil.Equal(passTime) {
		t.Fatalf("first request %+v, want the whole feed up to the pass's start", first)
	}
	for n := 1; n < len(asked); n++ {
		if !asked[n].ModifiedUntil.Equal(passTime) || asked[n].ModifiedSince.Before(asked[n-1].ModifiedSince) {
			t.Fatalf("request %d %+v after %+v: the bound moved back", n, asked[n], asked[n-1])
		}
	}
	// 13 pages of new entries; the rewind asks the last second again.
	if len(asked) > 14 {
		t.Fatalf("%d requests for 1,234 entries in pages of 100", len(asked))
	}
	cp := ix.Checkpoint()
	if cp.running() || !cp.LastComplete.Equal(passTime) {
		t.Fatalf("checkpoint %+v, want complete up to %v", cp, passTime)
	}
	p := h.Progress()
	if p.Running || p.Records != 1234 || !p.CompleteUpTo.Equal(passTime) || p.PagesLeft != 0 || p.Stopped != nil {
		t.Fatalf("progress %+v", p)
	}
}

// The next pass asks only what changed since the last complete one (less
// the overlap) and takes in changes, new decisions and withdrawals.
func TestNextPassTakesInOnlyTheChanges(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	entries := feedEntries(500, feedStart, 0, 0)
	feed := newFakeFeed(entries)
	clock := fakeclock.New(passTime)
	h := newTestHarvester(t, ix, feed, clock, 100)
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}

	clock.Advance(time.Hour)
	changedAt := clock.Now().Add(-time.Minute)
	for _, d := range entries[100:105] {
		feed.change(d.ECLI, changedAt)
	}
	fresh := ruling(1, "Nieuwe uitspraak.")
	fresh.Modified = changedAt
	feed.put(fresh)
	feed.put(Decision{ECLI: entries[7].ECLI, Deleted: true, Modified: changedAt})
	feed.mu.Lock()
	feed.requests = nil
	feed.mu.Unlock()

	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	asked := feed.asked()
	if len(asked) != 1 || !asked[0].ModifiedSince.Equal(passTime.Add(-passOverlap)) || !asked[0].ModifiedUntil.Equal(clock.Now()) {
		t.Fatalf("second pass asked %+v, want one page of what changed since %v", asked, passTime.Add(-passOverlap))
	}
	feed.mu.Lock()
	delete(feed.entries, entries[7].ECLI)
	feed.mu.Unlock()
	wantAllOnce(t, ix, feed)
	if got := ix.Checkpoint().LastComplete; !got.Equal(clock.Now()) {
		t.Fatalf("complete up to %v, want %v", got, clock.Now())
	}
}

// A failing feed is asked again after waits that double from RetryMin,
// each through the gate; the error shows in Progress until a page
// succeeds.
func TestFetchErrorsBackOffAndRetry(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	feed := newFakeFeed(feedEntries(120, feedStart, 0, 0))
	var gateCalls atomic.Int32
	feed.before = func(_ context.Context, n int, _ PageRequest) (*FeedPage, error) {
		if n <= 3 {
			return nil, errors.New("503 Service Unavailable")
		}
		return nil, nil
	}
	clock := newNotedClock(passTime)
	h, err := NewHarvester(HarvesterConfig{
		Index: ix, Fetch: feed.fetch, Clock: clock, PageSize: 50,
		Gate:     func(context.Context) error { gateCalls.Add(1); return nil },
		RetryMin: 10 * time.Second, RetryMax: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Pass(context.Background()) }()
	for _, want := range []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second} {
		if got := clock.nextWait(t); got != want {
			t.Fatalf("waited %v, want %v", got, want)
		}
		if p := h.Progress(); p.LastError == nil || !strings.Contains(p.LastError.Error(), "503") || p.FailuresInRow == 0 {
			t.Fatalf("progress while failing %+v", p)
		}
		clock.Advance(want)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantAllOnce(t, ix, feed)
	if got, want := gateCalls.Load(), int32(len(feed.asked())); got != want {
		t.Fatalf("gate called %d times for %d requests", got, want)
	}
	if p := h.Progress(); p.FailuresInRow != 0 || p.LastError == nil || !p.LastErrorAt.Equal(passTime.Add(30*time.Second)) {
		t.Fatalf("progress after recovery %+v", p)
	}
}

// Answers that cannot be pages (too many entries, a total below what was
// read, a fetcher that panics) are refused and asked again; entries that
// are not decisions are left out and counted.
func TestGarbageFromTheFeed(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	feed := newFakeFeed(feedEntries(200, feedStart, 0, 0))
	huge := FeedPage{Total: 10, Decisions: feedEntries(5000, feedStart, 0, 0)}
	feed.before = func(_ context.Context, n int, req PageRequest) (*FeedPage, error) {
		switch n {
		case 1:
			return &huge, nil
		case 2:
			return &FeedPage{Total: 0, Decisions: feedEntries(50, feedStart, 0, 0)}, nil
		case 3:
			panic("parser met a tag it did not expect")
		case 4:
			page := FeedPage{Total: 200, Decisions: feedEntries(50, feedStart, 0, 0)}
			page.Decisions[3].ECLI = ""
			page.Decisions[4].ECLI = "ECLI:NL: RBDHA:2020:1"
			page.Decisions[5].Date = "gisteren"
			page.Decisions[6].Summary = strings.Repeat("lang ", 100_000)
			return &page, nil
		}
		return nil, nil
	}
	clock := newNotedClock(passTime)
	h := newTestHarvester(t, ix, feed, clock, 50)
	done := make(chan error, 1)
	go func() { done <- h.Pass(context.Background()) }()
	for range 3 {
		clock.Advance(clock.nextWait(t))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p := h.Progress()
	if p.Rejected != 3 || p.LastRejected == nil || !strings.Contains(p.LastError.Error(), "panicked") {
		t.Fatalf("progress %+v", p)
	}
	if n := count(t, ix); n != 197 {
		t.Fatalf("%d decisions, want the 200 less the 3 that were not decisions", n)
	}
	res, err := ix.Search(context.Background(), Query{Words: "lang"})
	if err != nil || res.Total != 1 || len(res.Hits[0].Snippet) > snippetRunes*2 {
		t.Fatalf("the oversized summary: %+v %v", res, err)
	}
}

// A write that fails stops the harvester with the index's error, shown in
// Progress.
func TestIndexFailureStopsTheHarvester(t *testing.T) {
	t.Parallel()
	ix, dir := openTest(t)
	feed := newFakeFeed(feedEntries(200, feedStart, 0, 0))
	store := filepath.Join(dir, bleveindex.DirName, "store")
	feed.before = func(_ context.Context, n int, _ PageRequest) (*FeedPage, error) {
		if n == 2 {
			if err := os.Rename(store, store+".away"); err != nil {
				t.Error(err)
			}
		}
		return nil, nil
	}
	h := newTestHarvester(t, ix, feed, fakeclock.New(passTime), 50)
	err := h.Run(context.Background())
	wantUnavailable(t, err, ErrWriteFailed)
	if p := h.Progress(); p.Stopped != err || p.Running {
		t.Fatalf("progress %+v, want stopped with %v", p, err)
	}
}

// Run waits the interval after a complete pass, then asks what changed;
// it ends with its context.
func TestRunWaitsTheIntervalBetweenPasses(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	feed := newFakeFeed(feedEntries(80, feedStart, 0, 0))
	clock := newNotedClock(passTime)
	h, err := NewHarvester(HarvesterConfig{Index: ix, Fetch: feed.fetch, Clock: clock, PageSize: 50, Interval: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()

	if d := clock.nextWait(t); d != 30*time.Minute {
		t.Fatalf("waited %v after the pass, want the interval", d)
	}
	if p := h.Progress(); p.Running || !p.NextPass.Equal(passTime.Add(30*time.Minute)) || p.Records != 80 {
		t.Fatalf("progress between passes %+v", p)
	}
	clock.Advance(30 * time.Minute)
	if d := clock.nextWait(t); d != 30*time.Minute {
		t.Fatalf("waited %v after the second pass", d)
	}
	asked := feed.asked()
	if last := asked[len(asked)-1]; !last.ModifiedSince.Equal(passTime.Add(-passOverlap)) {
		t.Fatalf("second pass asked %+v", last)
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run ended with %v", err)
	}
}

// After a restart between passes, Run waits only what is left of the
// interval.
func TestRunAfterRestartWaitsTheRestOfTheInterval(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	mustApply(t, ix, Checkpoint{LastComplete: passTime.Add(-time.Hour), CompletedAt: passTime.Add(-10 * time.Minute)})
	clock := newNotedClock(passTime)
	h, err := NewHarvester(HarvesterConfig{Index: ix, Fetch: newFakeFeed(nil).fetch, Clock: clock, Interval: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	if d := clock.nextWait(t); d != 20*time.Minute {
		t.Fatalf("waited %v, want the 20 minutes left", d)
	}
	stop()
	<-done
}

// The scope goes to the feed as DateFrom, and decisions dated before it
// are not stored even when the feed sends them. An index harvested in
// another scope starts over with a whole pass.
func TestScope(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	entries := feedEntries(250, feedStart, 0, 0) // dated 2000-2024
	feed := newFakeFeed(entries)
	feed.ignoreDateFrom = true
	mustApply(t, ix, Checkpoint{LastComplete: passTime, CompletedAt: passTime}) // a whole-feed scope
	clock := fakeclock.New(passTime.Add(time.Hour))
	h, err := NewHarvester(HarvesterConfig{Index: ix, Fetch: feed.fetch, Clock: clock, PageSize: 100, Since: "2020"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := feed.asked()[0]
	if first.DateFrom != "2020-01-01" || !first.ModifiedSince.IsZero() {
		t.Fatalf("first request %+v, want a whole pass from 2020-01-01", first)
	}
	var want uint64
	for _, d := range entries {
		if d.Date >= "2020-01-01" {
			want++
		}
	}
	if n := count(t, ix); n != want {
		t.Fatalf("%d decisions stored, want the %d dated from 2020", n, want)
	}
	if cp := ix.Checkpoint(); cp.Scope != "2020-01-01" || !cp.LastComplete.Equal(passTime.Add(time.Hour)) {
		t.Fatalf("checkpoint %+v", cp)
	}
}

// Progress counts the pass's pages, estimates the pages left from the
// feed's total and the time left from the measured pace, and is safe to
// read while the pass runs.
func TestProgressEstimatesPagesAndTimeLeft(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	feed := newFakeFeed(feedEntries(800, feedStart, 0, 0))
	clock := fakeclock.New(passTime)
	var h *Harvester
	var seen []Progress
	feed.before = func(_ context.Context, n int, _ PageRequest) (*FeedPage, error) {
		seen = append(seen, h.Progress())
		clock.Advance(3 * time.Second) // each page takes three seconds
		return nil, nil
	}
	h = newTestHarvester(t, ix, feed, clock, 100)
	stopReading := make(chan struct{})
	readerDone := make(chan struct{})
	go func() { // a status page reading all along
		defer close(readerDone)
		for {
			select {
			case <-stopReading:
				return
			default:
				_ = h.Progress()
			}
		}
	}()
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(stopReading)
	<-readerDone

	if p := seen[0]; !p.Running || p.PagesDone != 0 || p.PagesLeft != -1 || p.TimeLeft != 0 {
		t.Fatalf("before the first page: %+v", p)
	}
	// Before the 5th request: 4 pages read, so 400 entries are left, and
	// the one the rewind asks again: 4 or 5 pages.
	if p := seen[4]; p.PagesDone != 4 || p.PagesLeft != 4 && p.PagesLeft != 5 || p.TimeLeft != time.Duration(p.PagesLeft)*3*time.Second {
		t.Fatalf("before the 5th page: %+v", p)
	}
}

func TestNewHarvesterChecksItsConfig(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	fetch := newFakeFeed(nil).fetch
	for name, cfg := range map[string]HarvesterConfig{
		"no index":       {Fetch: fetch},
		"no fetcher":     {Index: ix},
		"page too large": {Index: ix, Fetch: fetch, PageSize: MaxPageSize + 1},
		"bad scope":      {Index: ix, Fetch: fetch, Since: "vorig jaar"},
		"bad date scope": {Index: ix, Fetch: fetch, Since: "2020-13-01"},
	} {
		if _, err := NewHarvester(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for since, want := range map[string]string{"": "", "2015": "2015-01-01", " 2015-06-01 ": "2015-06-01"} {
		h, err := NewHarvester(HarvesterConfig{Index: ix, Fetch: fetch, Since: since})
		if err != nil || h.scope != want {
			t.Errorf("scope %q: %q %v, want %q", since, h.scope, err, want)
		}
	}
}
