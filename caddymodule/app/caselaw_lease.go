package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// Case law on several instances (docs/scaling.md): one instance harvests
// at a time, under a lease in Redis; the others follow it page by page
// (caselaw.Relay), so their requests are its requests and the shared cache
// tier answers them. Every instance keeps its own index. While Redis does
// not answer, every instance harvests alone, as without Redis.

// The lease: held for caseLawLeaseTTL, renewed every caseLawLeaseRenew,
// so a leader that goes away without releasing it (a crash) is replaced
// within the TTL, and one renewal may fail without losing it.
const (
	caseLawLeaseTTL   = 30 * time.Second
	caseLawLeaseRenew = 10 * time.Second
	// caseLawBoardTTL keeps the leader's published progress beyond the
	// longest interval between passes people set (hours), and lets it go
	// when no instance harvests the scope any more.
	caseLawBoardTTL = 48 * time.Hour
)

// caseLawLease is one instance's claim on leading the harvest of a scope.
type caseLawLease struct {
	store func() *sharedstore.Store // the store in force (a reload may change it); nil: none
	owner string                    // this keeper's id, stable over reloads
	scope string                    // "all" or the scope's date
	clock clock.Clock

	mu        sync.Mutex
	heldUntil time.Time // by our clock, a little before Redis lets it go
}

func newCaseLawLease(store func() *sharedstore.Store, scope string, clk clock.Clock) *caseLawLease {
	var b [8]byte
	_, _ = rand.Read(b[:])
	if scope == "" {
		scope = "all"
	}
	return &caseLawLease{store: store, owner: hex.EncodeToString(b[:]), scope: scope, clock: clock.Or(clk)}
}

// holdScript takes the lease when nobody holds it (SET NX PX) or renews
// it when we do, in one step, so a lease that expired between the two
// cannot be renewed over another holder.
var holdScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return 1
end
if not v then
	redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
	return 1
end
return 0`)

// releaseScript deletes the lease only when we hold it.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

func (l *caseLawLease) key(s *sharedstore.Store) string { return s.Key("caselaw", l.scope, "lease") }

// hold takes or renews the lease and says whether we hold it now.
func (l *caseLawLease) hold(ctx context.Context) bool {
	s := l.store()
	if s == nil {
		return false
	}
	asked := l.clock.Now()
	var got int64
	err := s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		got, err = holdScript.Run(ctx, c, []string{l.key(s)}, l.owner, caseLawLeaseTTL.Milliseconds()).Int64()
		return err
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil || got != 1 {
		l.heldUntil = time.Time{}
		return false
	}
	// Counted from before the call: we stop leading before Redis could
	// hand the lease to another.
	l.heldUntil = asked.Add(caseLawLeaseTTL)
	return true
}

// release gives the lease up, so another instance leads at once.
func (l *caseLawLease) release(ctx context.Context) {
	l.mu.Lock()
	l.heldUntil = time.Time{}
	l.mu.Unlock()
	s := l.store()
	if s == nil {
		return
	}
	_ = s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		return releaseScript.Run(ctx, c, []string{l.key(s)}, l.owner).Err()
	})
}

// role is this instance's part now: Alone without a store that answers,
// Leader while the lease is ours, Follower otherwise.
func (l *caseLawLease) role() caselaw.Role {
	s := l.store()
	if s == nil || !s.Healthy() {
		return caselaw.Alone
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.clock.Now().Before(l.heldUntil) {
		return caselaw.Leader
	}
	return caselaw.Follower
}

// keep holds the lease (trying to take it while another holds it) every
// caseLawLeaseRenew on the lease's clock until ctx ends, then releases
// it.
func (l *caseLawLease) keep(ctx context.Context) {
	for {
		l.hold(ctx)
		if clock.Sleep(ctx, l.clock, caseLawLeaseRenew) != nil {
			rctx, cancel := context.WithTimeout(context.Background(), time.Second)
			l.release(rctx)
			cancel()
			return
		}
	}
}

// caseLawBoard is the leader's published progress in Redis, one key per
// scope: "<pass start, Unix ns> <pages stored> <complete 0|1>".
type caseLawBoard struct{ lease *caseLawLease }

func (b caseLawBoard) key(s *sharedstore.Store) string {
	return s.Key("caselaw", b.lease.scope, "published")
}

func (b caseLawBoard) Publish(ctx context.Context, p caselaw.Published) error {
	s := b.lease.store()
	if s == nil {
		return sharedstore.ErrDegraded
	}
	complete := 0
	if p.Complete {
		complete = 1
	}
	v := fmt.Sprintf("%d %d %d", p.PassStart.UnixNano(), p.Pages, complete)
	return s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		return c.Set(ctx, b.key(s), v, caseLawBoardTTL).Err()
	})
}

func (b caseLawBoard) Published(ctx context.Context) (caselaw.Published, error) {
	s := b.lease.store()
	if s == nil {
		return caselaw.Published{}, sharedstore.ErrDegraded
	}
	var v string
	err := s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		v, err = c.Get(ctx, b.key(s)).Result()
		return err
	})
	if err == redis.Nil {
		return caselaw.Published{}, nil
	}
	if err != nil {
		return caselaw.Published{}, err
	}
	f := strings.Fields(v)
	if len(f) != 3 {
		return caselaw.Published{}, fmt.Errorf("the published case-law progress %q is not ours", v)
	}
	ns, err1 := strconv.ParseInt(f[0], 10, 64)
	pages, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return caselaw.Published{}, fmt.Errorf("the published case-law progress %q is not ours", v)
	}
	return caselaw.Published{PassStart: time.Unix(0, ns).UTC(), Pages: pages, Complete: f[2] == "1"}, nil
}

// shareCaseLaw makes the harvester of hc share its harvest with the other
// instances on the store in force: it keeps a lease until ctx ends and
// puts a caselaw.Relay's hooks in hc. Without a store (now or later) the
// relay's role is Alone and the harvester runs as on its own.
func (a *App) shareCaseLaw(ctx context.Context, hc *caselaw.HarvesterConfig) {
	created := a.shared
	store := func() *sharedstore.Store {
		if s := runningStore(); s != nil {
			return s
		}
		return created // before this config is in force
	}
	scope, _ := caselaw.ParseScope(hc.Since) // checked at Provision
	lease := newCaseLawLease(store, scope, a.clock)
	relay := &caselaw.Relay{Role: lease.role, Board: caseLawBoard{lease: lease},
		Clock: a.clock, Poll: visitorsFirstPoll}
	hc.PassStart, hc.Follow, hc.Stored = relay.PassStart, relay.Follow, relay.Stored
	go lease.keep(ctx)
}
