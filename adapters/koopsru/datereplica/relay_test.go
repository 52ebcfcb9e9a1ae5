package datereplica

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/replica"
)

// A leader and a follower share one harvest: the follower takes the
// leader's pass start and asks only pages the leader has stored, so it
// asks exactly the leader's requests (which the shared cache tier
// answers) and ends with the same records.
func TestFollowerAsksTheLeadersPages(t *testing.T) {
	recs := corpus(800, "2022-01-01")
	board := &replicatest.MemBoard{}
	clk := fakeclock.New(passStart)
	leaderFeed, followerFeed := &fakeSRU{corpus: recs, cap: 100}, &fakeSRU{corpus: recs, cap: 100}
	relay := func(role replica.Role) *replica.Relay {
		return &replica.Relay{Role: func() replica.Role { return role }, Board: board, Clock: clk, Poll: time.Second}
	}
	start := func(f *fakeSRU, role replica.Role) (*Index, *Harvester) {
		idx := openIndex(t, t.TempDir())
		h, err := NewHarvester(idx, testSource(4900), replica.Harvest{Fetch: f.fetch, Clock: clk, Relay: relay(role)})
		if err != nil {
			t.Fatal(err)
		}
		return idx, h
	}
	followerIdx, follower := start(followerFeed, replica.Follower)
	done := make(chan error, 1)
	go func() { done <- follower.Pass(context.Background()) }()
	clk.AwaitTimer() // the follower waits for a pass to follow
	leaderIdx, leader := start(leaderFeed, replica.Leader)
	clk.Advance(time.Minute) // the leader's pass starts a minute on
	if err := leader.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second) // the follower reads the board: the leader's pass, complete
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	same := func(a, b url.Values) bool { return a.Encode() == b.Encode() }
	if !slices.EqualFunc(leaderFeed.requests(), followerFeed.requests(), same) {
		t.Errorf("the follower asked %d pages, the leader %d, not the same", len(followerFeed.requests()), len(leaderFeed.requests()))
	}
	mustHoldExactly(t, leaderIdx, recs)
	mustHoldExactly(t, followerIdx, recs)
	if !follower.Progress().CompleteUpTo.Equal(leader.Progress().CompleteUpTo) {
		t.Error("the follower's pass is not the leader's")
	}
}
