package tk_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/replica"
)

// cacheTier is the shared cache tier in front of the feed: a 2xx answer
// is kept under its request, so the same request from any instance
// reaches the platform once. It records what each instance asked.
type cacheTier struct {
	feed  *logFeed
	mu    sync.Mutex
	kept  map[string][]byte
	asked map[string][]string
}

func (c *cacheTier) fetch(instance string) replica.Fetch {
	return func(ctx context.Context, req adapters.Request) ([]byte, http.Header, error) {
		c.mu.Lock()
		defer c.mu.Unlock() // one at a time: the tier coalesces identical misses
		c.asked[instance] = append(c.asked[instance], req.Path)
		if b, ok := c.kept[req.Path]; ok {
			return b, http.Header{}, nil
		}
		body, header, err := c.feed.fetch(ctx, req)
		if err == nil {
			c.kept[req.Path] = body
		}
		return body, header, err
	}
}

// Two instances, one harvest: the follower takes the leader's round and
// asks exactly the leader's requests, in the leader's order, so the
// cache tier answers every one and the platform sees each page once;
// both indexes end with the same entities.
func TestFollowerAsksWhatTheLeaderAsked(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	f := &logFeed{pageSize: 3}
	for n := 1; n <= 10; n++ {
		f.add(document(n, "Brief over asiel", "2026-09-01"))
	}
	f.add(logEntry{category: "zaak", guid: guidOf(100), fields: map[string]string{"titel": "Asielwet"}})
	tier := &cacheTier{feed: f, kept: map[string][]byte{}, asked: map[string][]string{}}
	board := &replicatest.MemBoard{}
	start := func(role replica.Role, instance string) replica.Harvester {
		t.Helper()
		idx := openParliament(t, t.TempDir())
		p := parliament(t)
		scope, err := p.Scope(replica.ScopeConfig{Sources: []string{"document", "zaak"}})
		if err != nil {
			t.Fatal(err)
		}
		relay := &replica.Relay{Role: func() replica.Role { return role }, Board: board, Clock: clk, Poll: time.Second}
		h, err := p.Harvester(idx, replica.Harvest{Fetch: tier.fetch(instance), Clock: clk, Relay: relay, Scope: scope, Interval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = h.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return h
	}

	leader := start(replica.Leader, "leader")
	clk.AwaitTimer() // the leader's round is done: it waits for the next
	if p := leader.Progress(); !p.CompleteUpTo.Equal(harvestStart) {
		t.Fatalf("the leader's round: %+v", p)
	}
	follower := start(replica.Follower, "follower")
	clk.AwaitTimers(2) // both wait for their next round: the follower's is done
	if p := follower.Progress(); !p.CompleteUpTo.Equal(harvestStart) {
		t.Fatalf("the follower's round starts at %v, want the leader's %v", p.CompleteUpTo, harvestStart)
	}
	tier.mu.Lock()
	leaderAsked, followerAsked := tier.asked["leader"], tier.asked["follower"]
	tier.mu.Unlock()
	if len(leaderAsked) < 5 || !slices.Equal(leaderAsked, followerAsked) {
		t.Fatalf("the follower asked %d requests, the leader %d; want the same, in order:\n%v\n%v", len(followerAsked), len(leaderAsked), followerAsked, leaderAsked)
	}
	if platform := f.paths(); len(platform) != len(leaderAsked) {
		t.Fatalf("the platform was asked %d times for %d distinct pages", len(platform), len(leaderAsked))
	}
	if n, m := leader.Progress().Records, follower.Progress().Records; n != 11 || n != m {
		t.Fatalf("the leader holds %d entities, the follower %d", n, m)
	}
}
