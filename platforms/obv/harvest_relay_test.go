package obv_test

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
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// cacheTier is the shared cache tier in front of the feed: a 2xx answer
// is kept under its request, so the same request from any instance
// reaches the platform once. It records what each instance asked.
type cacheTier struct {
	feed  *testFeed
	mu    sync.Mutex
	kept  map[string][2]any // path → body, header
	asked map[string][]string
}

func (c *cacheTier) fetch(instance string) replica.Fetch {
	return func(ctx context.Context, req adapters.Request) ([]byte, http.Header, error) {
		c.mu.Lock()
		defer c.mu.Unlock() // one at a time: the tier coalesces identical misses
		c.asked[instance] = append(c.asked[instance], req.Path)
		if a, ok := c.kept[req.Path]; ok {
			return a[0].([]byte), a[1].(http.Header), nil
		}
		body, header, err := c.feed.fetch(ctx, req)
		if err == nil {
			c.kept[req.Path] = [2]any{body, header}
		}
		return body, header, err
	}
}

// Two instances, one harvest: the follower takes the leader's round and
// asks exactly the leader's requests, in the leader's order, so the cache
// tier answers every one and the platform sees each page once; both
// indexes end with the same entities.
func TestFollowerAsksWhatTheLeaderAsked(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	tier := &cacheTier{feed: &testFeed{h: emu}, kept: map[string][2]any{}, asked: map[string][]string{}}
	board := &replicatest.MemBoard{}
	scope := replica.ScopeConfig{Sources: []string{"soest", "utrecht"}}
	start := func(dir string, role replica.Role, instance string) (*localindex.Index, replica.Harvester, context.CancelFunc) {
		t.Helper()
		idx := openCouncil(t, dir)
		p := council(t)
		canonical, err := p.Scope(scope)
		if err != nil {
			t.Fatal(err)
		}
		relay := &replica.Relay{Role: func() replica.Role { return role }, Board: board, Clock: clk, Poll: time.Second}
		h, err := p.Harvester(idx, replica.Harvest{Fetch: tier.fetch(instance), Clock: clk, Relay: relay, Scope: canonical, Interval: 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = h.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return idx, h, cancel
	}

	leaderIx, leader, _ := start(t.TempDir(), replica.Leader, "leader")
	clk.AwaitTimer() // the leader's round is done: it waits for the next
	if p := leader.Progress(); !p.CompleteUpTo.Equal(harvestStart) {
		t.Fatalf("the leader's round: %+v", p)
	}
	followerIx, follower, _ := start(t.TempDir(), replica.Follower, "follower")
	clk.AwaitTimers(2) // both wait for their next round: the follower's is done
	if p := follower.Progress(); !p.CompleteUpTo.Equal(harvestStart) {
		t.Fatalf("the follower's round starts at %v, want the leader's %v", p.CompleteUpTo, harvestStart)
	}
	tier.mu.Lock()
	leaderAsked, followerAsked := tier.asked["leader"], tier.asked["follower"]
	tier.mu.Unlock()
	if len(leaderAsked) < 4 || !slices.Equal(leaderAsked, followerAsked) {
		t.Fatalf("the follower asked %d requests, the leader %d; want the same, in order:\n%v\n%v", len(followerAsked), len(leaderAsked), followerAsked, leaderAsked)
	}
	platform := tier.feed.paths()
	if len(platform) != len(leaderAsked) {
		t.Fatalf("the platform was asked %d times for %d distinct pages", len(platform), len(leaderAsked))
	}
	n, _ := leaderIx.Count()
	m, _ := followerIx.Count()
	if n == 0 || n != m {
		t.Fatalf("the leader holds %d entities, the follower %d", n, m)
	}
}
