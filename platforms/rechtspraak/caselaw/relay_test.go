package caselaw

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/replica"
)

// cachedFeed is the feed behind the shared cache tier: an answer is kept
// under its canonical request, so the same request from any instance
// reaches the feed once. It counts what each instance asked and how many
// of those the feed had to answer.
type cachedFeed struct {
	feed   *fakeFeed
	mu     sync.Mutex
	pages  map[string]FeedPage
	asked  map[string]int // per instance
	missed map[string]int // per instance
}

func newCachedFeed(f *fakeFeed) *cachedFeed {
	return &cachedFeed{feed: f, pages: map[string]FeedPage{}, asked: map[string]int{}, missed: map[string]int{}}
}

// cacheKey is the request as the platform receives it.
func cacheKey(r PageRequest) string {
	return fmt.Sprintf("%s|%s|%s|%d|%d|%t", r.ModifiedSince.UTC().Format(time.RFC3339Nano),
		r.ModifiedUntil.UTC().Format(time.RFC3339Nano), r.DateFrom, r.From, r.Max, r.Incremental)
}

func (c *cachedFeed) fetcher(instance string) Fetcher {
	return func(ctx context.Context, req PageRequest) (FeedPage, error) {
		if err := ctx.Err(); err != nil {
			return FeedPage{}, err
		}
		key := cacheKey(req)
		c.mu.Lock()
		defer c.mu.Unlock() // one request at a time: the tier coalesces identical misses
		c.asked[instance]++
		if p, ok := c.pages[key]; ok {
			return p, nil
		}
		c.missed[instance]++
		p, err := c.feed.fetch(ctx, req)
		if err == nil {
			c.pages[key] = p
		}
		return p, err
	}
}

func (c *cachedFeed) counts(instance string) (asked, missed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked[instance], c.missed[instance]
}

// relayPair is a leader and a follower harvester on their own indexes,
// sharing one board, one cached feed and one fake clock.
type relayPair struct {
	clock            *notedClock
	board            *replicatest.MemBoard
	feed             *cachedFeed
	leaderIx, follIx *Index
	leader, follower *Harvester
	follRole         atomic.Int32
	// leaderStored receives every checkpoint the leader stores, after it
	// published it; the leader waits until the test takes it, so the two
	// harvesters interleave page by page.
	leaderStored chan replica.Pass
	// stopLeaderAt, when > 0, ends the leader's pass once it has stored
	// that many pages (the instance goes away).
	stopLeaderAt int
	stopLeader   context.CancelFunc
}

func newRelayPair(t *testing.T, feed *fakeFeed) *relayPair {
	p := &relayPair{clock: newNotedClock(passTime), board: &replicatest.MemBoard{}, feed: newCachedFeed(feed),
		leaderStored: make(chan replica.Pass)}
	p.follRole.Store(int32(replica.Follower))
	p.leaderIx, _ = openTest(t)
	p.follIx, _ = openTest(t)
	const poll = 500 * time.Millisecond
	leaderRelay := &replica.Relay{Role: func() replica.Role { return replica.Leader }, Board: p.board, Clock: p.clock, Poll: poll}
	follRelay := &replica.Relay{Role: func() replica.Role { return replica.Role(p.follRole.Load()) }, Board: p.board, Clock: p.clock, Poll: poll}
	var err error
	p.leader, err = NewHarvester(HarvesterConfig{Index: p.leaderIx, Fetch: p.feed.fetcher("leader"), Clock: p.clock, PageSize: 100,
		PassStart: leaderRelay.PassStart, Follow: leaderRelay.Follow,
		Stored: func(ctx context.Context, cp replica.Pass) {
			leaderRelay.Stored(ctx, cp)
			if p.stopLeaderAt > 0 && cp.Pages >= p.stopLeaderAt {
				p.stopLeader()
			}
			select {
			case p.leaderStored <- cp:
			case <-ctx.Done():
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	p.follower, err = NewHarvester(HarvesterConfig{Index: p.follIx, Fetch: p.feed.fetcher("follower"), Clock: p.clock, PageSize: 100,
		PassStart: follRelay.PassStart, Follow: follRelay.Follow, Stored: follRelay.Stored})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pass runs one pass of both: the follower first, so that it waits for the
// leader's pass start, then the leader. Time moves only when the follower
// waits, by what it waits, and only once the leader has stored something
// since the follower's last look (or ended): so the follower looks once
// per leader's page, not in a spin. onLeaderEnd runs when the leader's
// pass ends. It returns how many times the follower waited.
func (p *relayPair) pass(t *testing.T, onLeaderEnd func(error)) (followerWaits int) {
	t.Helper()
	ctx := context.Background()
	leaderCtx, stop := context.WithCancel(ctx)
	defer stop()
	p.stopLeader = stop
	follDone, leaderDone := make(chan error, 1), make(chan error, 1)
	go func() { follDone <- p.follower.Pass(ctx) }()
	first := p.clock.nextWait(t) // waiting for the leader's pass start
	followerWaits++
	go func() { leaderDone <- p.leader.Pass(leaderCtx) }()
	pending, waiting, progressed := first, true, false
	for leaderRuns, follRuns := true, true; leaderRuns || follRuns; {
		if waiting && (progressed || !leaderRuns) {
			waiting, progressed = false, false
			p.clock.Advance(pending)
		}
		select {
		case <-p.leaderStored:
			progressed = true
		case pending = <-p.clock.waits:
			followerWaits++
			waiting = true
		case err := <-leaderDone:
			leaderRuns = false
			onLeaderEnd(err)
		case err := <-follDone:
			follRuns = false
			if err != nil {
				t.Fatalf("the follower's pass: %v", err)
			}
		case <-time.After(10 * time.Second): // a hang guard, never a pace
			t.Fatal("the harvesters hang")
		}
	}
	return followerWaits
}

// wantEachRequestOnce fails unless the feed received no request twice.
func wantEachRequestOnce(t *testing.T, f *fakeFeed) int {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range f.asked() {
		if k := cacheKey(r); seen[k] {
			t.Fatalf("the feed was asked %s twice", k)
		} else {
			seen[k] = true
		}
	}
	return len(seen)
}

// Two instances, one harvest: the follower asks exactly the leader's
// requests, only after the leader stored them, so every page reaches the
// feed once, and both indexes end with the same decisions, over a whole
// pass and an incremental one.
func TestFollowerAsksOnlyWhatTheLeaderStored(t *testing.T) {
	t.Parallel()
	feed := newFakeFeed(feedEntries(1234, feedStart, 500, 250))
	p := newRelayPair(t, feed)
	leaderOK := func(err error) {
		if err != nil {
			t.Errorf("the leader's pass: %v", err)
		}
	}

	waits := p.pass(t, leaderOK)
	wantAllOnce(t, p.leaderIx, feed)
	wantAllOnce(t, p.follIx, feed)
	// CompletedAt is each instance's own clock reading when it finished:
	// the follower finishes on its last look at the board, a poll or two
	// after the leader's last store as the goroutines run, never before.
	a, b := p.leaderIx.Checkpoint(), p.follIx.Checkpoint()
	if b.CompletedAt.Before(a.CompletedAt) {
		t.Fatalf("the follower completed the pass at %v, before the leader (%v)", b.CompletedAt, a.CompletedAt)
	}
	if b.CompletedAt = a.CompletedAt; !sameCheckpoint(a, b) {
		t.Fatalf("after the pass the leader's checkpoint is %+v, the follower's %+v", a, b)
	}
	requests := wantEachRequestOnce(t, feed)
	leaderAsked, _ := p.feed.counts("leader")
	follAsked, follMissed := p.feed.counts("follower")
	if follMissed != 0 || follAsked != leaderAsked || requests != leaderAsked {
		t.Fatalf("the leader asked %d pages, the follower %d (%d reached the feed); the feed answered %d",
			leaderAsked, follAsked, follMissed, requests)
	}
	if waits < 2 {
		t.Fatalf("the follower waited %d times, want it to wait for the leader", waits)
	}
	t.Logf("whole pass: %d pages asked by each of 2 instances, %d reached the feed (%.2f per page; alone, each would ask them itself: 2.00)",
		leaderAsked, requests, float64(requests)/float64(leaderAsked))

	// Changes, then the next pass an hour later.
	firstComplete := p.leaderIx.Checkpoint().LastComplete
	p.clock.Advance(time.Hour)
	for i := 0; i < 150; i++ {
		feed.change(fmt.Sprintf("ECLI:NL:RBDHA:%d:%d", 2000+i%25, 10000+i), p.clock.Now().Add(-time.Duration(i)*time.Second))
	}
	before := len(feed.asked())
	p.pass(t, leaderOK)
	wantAllOnce(t, p.follIx, feed)
	wantAllOnce(t, p.leaderIx, feed)
	if a, b := p.leaderIx.Checkpoint(), p.follIx.Checkpoint(); !a.LastComplete.Equal(b.LastComplete) || !a.LastComplete.After(firstComplete) {
		t.Fatalf("after the second pass the leader's checkpoint is %+v, the follower's %+v", a, b)
	}
	wantEachRequestOnce(t, feed)
	if _, missed := p.feed.counts("follower"); missed != 0 {
		t.Fatalf("the follower's requests reached the feed %d times", missed)
	}
	leaderAsked2, _ := p.feed.counts("leader")
	t.Logf("incremental pass: %d pages asked by each of 2 instances, %d reached the feed",
		leaderAsked2-leaderAsked, len(feed.asked())-before)
}

// When the leader goes away mid-pass, the follower takes the lead and
// carries on from its own checkpoint: still no page reaches the feed
// twice, and the follower's index is complete.
func TestFollowerTakesOverWhenTheLeaderGoes(t *testing.T) {
	t.Parallel()
	feed := newFakeFeed(feedEntries(1000, feedStart, 0, 0))
	p := newRelayPair(t, feed)
	p.stopLeaderAt = 6
	p.pass(t, func(err error) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the leader's pass ended with %v, want it stopped", err)
		}
		p.follRole.Store(int32(replica.Leader)) // its lease expired; the follower took it
	})
	wantAllOnce(t, p.follIx, feed)
	requests := wantEachRequestOnce(t, feed)
	leaderAsked, leaderMissed := p.feed.counts("leader")
	follAsked, follMissed := p.feed.counts("follower")
	if follMissed == 0 {
		t.Fatal("the new leader never asked the feed itself")
	}
	t.Logf("takeover: the old leader asked %d pages (%d reached the feed), the new one %d (%d reached the feed); the feed answered %d requests for %d pages",
		leaderAsked, leaderMissed, follAsked, follMissed, requests, follAsked)
	if pub, _ := p.board.Published(context.Background()); !pub.Complete || !pub.PassStart.Equal(passTime) {
		t.Fatalf("the new leader published %+v, want the pass complete", pub)
	}
}

// A follower whose unfinished pass is not the leader's does not wait for
// pages the leader will never store: it finishes that pass on its own.
func TestFollowerOutOfStepHarvestsAlone(t *testing.T) {
	t.Parallel()
	r := &replica.Relay{Role: func() replica.Role { return replica.Follower }, Board: &replicatest.MemBoard{}, Clock: newNotedClock(passTime), Poll: time.Second}
	_ = r.Board.Publish(context.Background(), replica.Published{PassStart: passTime, Pages: 3})
	if err := r.Follow(context.Background(), replica.Pass{Start: passTime.Add(-time.Hour), Pages: 10}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Follow(ctx, replica.Pass{Start: passTime, Pages: 3}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a follower ahead of the leader went on (%v), want it to wait", err)
	}
}
