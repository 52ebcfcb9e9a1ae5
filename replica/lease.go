package replica

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
	"github.com/besluitbron/besluitbron/sharedstore"
)

// A replica on several instances (docs/scaling.md): one instance
// harvests at a time, under a lease in Redis; the others follow it page
// by page (Relay), so their requests are its requests and the shared
// cache tier answers them. Every instance keeps its own index. While
// Redis does not answer, every instance harvests alone, as without
// Redis. A lease and its board are keyed by the replica's name and its
// scope: instances that harvest another scope share nothing.

// The lease: held for LeaseTTL, renewed every LeaseRenew, so a leader
// that goes away without releasing it (a crash) is replaced within the
// TTL, and one renewal may fail without losing it.
const (
	LeaseTTL   = 30 * time.Second
	LeaseRenew = 10 * time.Second
	// BoardTTL keeps the leader's published progress beyond the longest
	// interval between passes people set (hours), and lets it go when no
	// instance harvests the scope any more.
	BoardTTL = 48 * time.Hour
)

// Lease is one instance's claim on leading the harvest of a replica's
// scope.
type Lease struct {
	store func() *sharedstore.Store // the store in force (a reload may change it); nil: none
	owner string                    // this keeper's id, stable over reloads
	name  string                    // the replica's name (Spec.Name)
	scope string                    // "all" or the scope
	clock clock.Clock

	mu        sync.Mutex
	heldUntil time.Time // by our clock, a little before Redis lets it go
}

// NewLease is a lease on the harvest of replica name's scope ("" the
// whole feed) in the store that store returns when asked (nil: none), on
// clk (nil: the wall clock).
func NewLease(store func() *sharedstore.Store, name, scope string, clk clock.Clock) *Lease {
	var b [8]byte
	_, _ = rand.Read(b[:])
	if scope == "" {
		scope = "all"
	}
	return &Lease{store: store, owner: hex.EncodeToString(b[:]), name: name, scope: scope, clock: clock.Or(clk)}
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

func (l *Lease) key(s *sharedstore.Store) string { return s.Key(l.name, l.scope, "lease") }

// Hold takes or renews the lease and says whether we hold it now.
func (l *Lease) Hold(ctx context.Context) bool {
	s := l.store()
	if s == nil {
		return false
	}
	asked := l.clock.Now()
	var got int64
	err := s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		got, err = holdScript.Run(ctx, c, []string{l.key(s)}, l.owner, LeaseTTL.Milliseconds()).Int64()
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
	l.heldUntil = asked.Add(LeaseTTL)
	return true
}

// Release gives the lease up, so another instance leads at once.
func (l *Lease) Release(ctx context.Context) {
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

// Role is this instance's part now: Alone without a store that answers,
// Leader while the lease is ours, Follower otherwise.
func (l *Lease) Role() Role {
	s := l.store()
	if s == nil || !s.Healthy() {
		return Alone
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.clock.Now().Before(l.heldUntil) {
		return Leader
	}
	return Follower
}

// Keep holds the lease (trying to take it while another holds it) every
// LeaseRenew on the lease's clock until ctx ends, then releases it.
func (l *Lease) Keep(ctx context.Context) {
	for {
		l.Hold(ctx)
		if clock.Sleep(ctx, l.clock, LeaseRenew) != nil {
			rctx, cancel := context.WithTimeout(context.Background(), time.Second)
			l.Release(rctx)
			cancel()
			return
		}
	}
}

// Board is the lease's board: the leader's published progress in Redis,
// one key per replica and scope.
func (l *Lease) Board() Board { return leaseBoard{lease: l} }

// leaseBoard holds "<pass start, Unix ns> <pages stored> <complete 0|1>".
type leaseBoard struct{ lease *Lease }

func (b leaseBoard) key(s *sharedstore.Store) string {
	return s.Key(b.lease.name, b.lease.scope, "published")
}

func (b leaseBoard) Publish(ctx context.Context, p Published) error {
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
		return c.Set(ctx, b.key(s), v, BoardTTL).Err()
	})
}

func (b leaseBoard) Published(ctx context.Context) (Published, error) {
	s := b.lease.store()
	if s == nil {
		return Published{}, sharedstore.ErrDegraded
	}
	var v string
	err := s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		v, err = c.Get(ctx, b.key(s)).Result()
		return err
	})
	if err == redis.Nil {
		return Published{}, nil
	}
	if err != nil {
		return Published{}, err
	}
	f := strings.Fields(v)
	if len(f) != 3 {
		return Published{}, fmt.Errorf("the published progress %q of replica %s is not ours", v, b.lease.name)
	}
	ns, err1 := strconv.ParseInt(f[0], 10, 64)
	pages, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return Published{}, fmt.Errorf("the published progress %q of replica %s is not ours", v, b.lease.name)
	}
	return Published{PassStart: time.Unix(0, ns).UTC(), Pages: pages, Complete: f[2] == "1"}, nil
}

// Share makes a harvest of replica name's scope share its pages with the
// other instances on the store that store returns (the one in force: a
// reload may change it): it keeps a lease until ctx ends, and returns
// the relay whose hooks the harvester calls (Harvest.Relay). Without a
// store (now or later) the relay's role is Alone and the harvester runs
// as on its own. A waiting follower looks at the board every poll.
func Share(ctx context.Context, store func() *sharedstore.Store, name, scope string, clk clock.Clock, poll time.Duration) *Relay {
	lease := NewLease(store, name, scope, clk)
	go lease.Keep(ctx)
	return &Relay{Role: lease.Role, Board: lease.Board(), Clock: clock.Or(clk), Poll: poll}
}
