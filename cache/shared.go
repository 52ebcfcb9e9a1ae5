package cache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/sharedstore"
)

// This file puts the tier several instances share (Redis, redisshared.go)
// behind the local tiers: hot set → memory → durable file → shared. A
// local hit never reaches it (serve.go's hot path and get's memory and
// disk lookups come first). Without a shared tier (Options.Shared nil, one
// instance alone) nothing here runs and the Store behaves as before.
//
// Every shared call may fail (Redis down or slow): the Store then carries
// on with its local tiers and the platform, as a single instance does. No
// request fails only because the shared tier failed.

// Shared is the tier several instances of one platform's cache share. Keys
// are the Store's (a 32-byte hash); values are encoded entries (entry.go),
// stamped with the version that wrote them. Implementations bound every
// call by a short deadline and return at once while degraded.
type Shared interface {
	// Get returns the encoded entry under key, nil when there is none.
	Get(ctx context.Context, key string) ([]byte, error)
	// Put stores an encoded entry under key for ttl (> 0).
	Put(ctx context.Context, key string, b []byte, ttl time.Duration) error
	// Del removes key's entry (another version's, or a damaged one).
	Del(ctx context.Context, key string) error
	// Purge removes every entry of the platform for every instance and
	// tells the others to clear their local tiers.
	Purge(ctx context.Context) error

	// Lead tries to take key's lease (the right to ask the platform for
	// key while the others wait). It returns the lease's token when taken,
	// and the entry stored under key at that moment (nil: none): when
	// that entry serves, the caller gives the lease back (Finish).
	Lead(ctx context.Context, key string) (token string, entry []byte, err error)
	// Renew extends a held lease; false when it was lost (it lapsed).
	Renew(ctx context.Context, key, token string) (bool, error)
	// Finish ends a led fetch: answer (nil: none, the followers take
	// over) is kept briefly for the instances waiting, the lease is
	// released and the waiting instances are told.
	Finish(ctx context.Context, key, token string, answer []byte) error
	// Poll tells a waiting instance what is there: the stored entry, a
	// brief answer, and whether the lease is still held.
	Poll(ctx context.Context, key string) (entry, answer []byte, leased bool, err error)
	// Follow counts this instance in (+1) or out (-1) of key's waiters,
	// which a leader whose callers all hung up consults before it ends
	// the platform request.
	Follow(ctx context.Context, key string, delta int64) error
	// Followers returns how many instances wait for key.
	Followers(ctx context.Context, key string) (int64, error)

	// Watch calls done(key) when a led fetch of key ended on any
	// instance, and purged() when another instance purged the platform
	// (or a purge was found by a read). Notices are hints: waiters poll
	// too. stop ends the watch.
	Watch(done func(key string), purged func()) (stop func())
	// Healthy is false while the tier is degraded.
	Healthy() bool
	// Timings are the tier's lease and poll periods.
	Timings() SharedTimings
}

// SharedTimings are the periods of cross-instance coalescing.
type SharedTimings struct {
	// Lease is how long a lease lives unless renewed; a crashed leader
	// blocks the others at most this long.
	Lease time.Duration
	// Poll is how often a waiting instance looks at the keys (notices
	// usually wake it sooner).
	Poll time.Duration
}

// sharedState is the Store's shared tier and its figures.
type sharedState struct {
	tier Shared
	stop func() // ends the watch

	waitMu sync.Mutex
	waits  map[string][]chan struct{} // keys this instance waits for

	lookupMu sync.Mutex
	lookups  map[string]*lookup // shared-tier reads under way, by key

	hits, misses, errs, skipped   atomic.Int64
	coalesced, leads, takeovers   atomic.Int64
	keptForRemote, purgesReceived atomic.Int64
}

// SetShared puts a shared tier behind the local tiers (nil: none). A
// config reload may change it; the old one's watch ends.
func (s *Store) SetShared(t Shared) {
	var st *sharedState
	if t != nil {
		st = &sharedState{tier: t, waits: map[string][]chan struct{}{}, lookups: map[string]*lookup{}}
		st.stop = t.Watch(st.wake, s.purgedElsewhere)
	}
	if old := s.shared.Swap(st); old != nil && old.stop != nil {
		old.stop()
	}
}

// SharedTier returns the shared tier in use, or nil.
func (s *Store) SharedTier() Shared {
	if st := s.shared.Load(); st != nil {
		return st.tier
	}
	return nil
}

// failed counts a shared call's trouble: an error, or a skip (the tier
// is degraded and did not try).
func (st *sharedState) failed(err error) {
	switch {
	case err == nil:
	case errors.Is(err, sharedstore.ErrDegraded):
		st.skipped.Add(1)
	default:
		st.errs.Add(1)
	}
}

// sharedGet looks key up in the shared tier after the local tiers missed.
// A found entry is checked as the local tiers check theirs (version,
// damage, last stale window) and promoted to memory; bad ones are removed
// from the shared tier too.
// Identical lookups at the same moment share one read: a burst of misses
// for one key costs Redis one GET, not one per caller.
func (s *Store) sharedGet(ctx context.Context, st *sharedState, key, raw string, now time.Time) (e *Entry, dropped string) {
	st.lookupMu.Lock()
	if l := st.lookups[key]; l != nil {
		st.lookupMu.Unlock()
		select {
		case <-l.done:
			return l.e, l.dropped
		case <-ctx.Done():
			return nil, ""
		}
	}
	l := &lookup{done: make(chan struct{})}
	st.lookups[key] = l
	st.lookupMu.Unlock()
	defer func() {
		st.lookupMu.Lock()
		delete(st.lookups, key)
		st.lookupMu.Unlock()
		l.e, l.dropped = e, dropped
		close(l.done)
	}()
	// The read is not the first caller's alone: its hanging up must not
	// fail the others' lookup (the tier's deadline bounds it).
	return s.sharedRead(context.WithoutCancel(ctx), st, key, raw, now)
}

// lookup is one shared-tier read that identical lookups wait for.
type lookup struct {
	done    chan struct{}
	e       *Entry
	dropped string
}

// sharedRead reads key from the shared tier.
func (s *Store) sharedRead(ctx context.Context, st *sharedState, key, raw string, now time.Time) (e *Entry, dropped string) {
	b, err := st.tier.Get(ctx, key)
	if err != nil {
		st.failed(err)
		return nil, ""
	}
	if b == nil {
		st.misses.Add(1)
		return nil, ""
	}
	e, dropped = s.checkShared(ctx, st, key, b, now)
	if e == nil {
		st.misses.Add(1)
		return nil, dropped
	}
	st.hits.Add(1)
	_ = s.mem.Set(key, b) // memory only: the shared tier is this entry's durable copy
	s.hot.put(raw, key, e)
	return e, ""
}

// checkShared decodes an entry read from the shared tier and drops it
// (there too) when it is damaged, of another version or past its last
// stale window.
func (s *Store) checkShared(ctx context.Context, st *sharedState, key string, b []byte, now time.Time) (*Entry, string) {
	e, err := decodeEntry(b, true)
	switch {
	case err != nil:
		s.logger.Warn("damaged shared cache entry removed", zap.String("platform", s.platform))
		st.failed(st.tier.Del(ctx, key))
		return nil, "damaged"
	case e.Version != s.Version():
		st.failed(st.tier.Del(ctx, key))
		s.versionDrops.Add(1)
		return nil, "other-version"
	case !now.Before(e.KeepUntil):
		return nil, "" // its TTL ends it in the shared tier
	}
	return e, ""
}

// sharedPut writes an encoded entry to the shared tier until its last
// stale window ends (so every shared key has a TTL).
func (s *Store) sharedPut(key string, b []byte, e *Entry) {
	st := s.shared.Load()
	if st == nil {
		return
	}
	ttl := e.KeepUntil.Sub(s.clock())
	if ttl < time.Millisecond {
		return
	}
	// Not the caller's context: a stored answer is worth sharing even
	// when its caller has gone; the tier's deadline bounds the call.
	st.failed(st.tier.Put(context.Background(), key, b, ttl))
}

// purgedElsewhere clears the local tiers after another instance purged
// the platform (a notice, or a purge generation found on a read). It runs
// apart from the notice's goroutine: a durable purge takes a commit.
func (s *Store) purgedElsewhere() {
	s.flightsMu.Lock()
	if s.closeCtx.Err() != nil {
		s.flightsMu.Unlock()
		return
	}
	defer s.flightsMu.Unlock()
	s.goBackground(func() {
		if err := s.purgeLocal(); err != nil {
			s.logger.Warn("clearing local cache tiers after a purge elsewhere", zap.String("platform", s.platform), zap.Error(err))
		}
		// Counted once applied: whoever reads the count and then the
		// cache finds the local tiers cleared.
		if st := s.shared.Load(); st != nil {
			st.purgesReceived.Add(1)
		}
	})
}

// wake tells this instance's waiters for key that a fetch ended somewhere.
func (st *sharedState) wake(key string) {
	st.waitMu.Lock()
	for _, ch := range st.waits[key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	st.waitMu.Unlock()
}

// notices registers a waiter for key's notices.
func (st *sharedState) notices(key string) (ch chan struct{}, stop func()) {
	ch = make(chan struct{}, 1)
	st.waitMu.Lock()
	st.waits[key] = append(st.waits[key], ch)
	st.waitMu.Unlock()
	return ch, func() {
		st.waitMu.Lock()
		defer st.waitMu.Unlock()
		list := st.waits[key]
		for i, c := range list {
			if c == ch {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(st.waits, key)
		} else {
			st.waits[key] = list
		}
	}
}

// SharedStats are the shared tier's figures (absent without one).
type SharedStats struct {
	// Mode is "shared", or "degraded" while Redis does not answer (local
	// tiers and the platform serve then).
	Mode string `json:"mode"`
	// Hits and Misses count lookups in the shared tier (after the local
	// tiers missed).
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
	// Errors counts shared calls that failed; Skipped those not tried
	// because the tier was degraded.
	Errors  int64 `json:"errors"`
	Skipped int64 `json:"skipped"`
	// Coalesced counts misses answered by another instance's platform
	// request; Leads the platform requests made holding the lease;
	// Takeovers the leases taken after another holder's lapsed.
	Coalesced int64 `json:"coalesced"`
	Leads     int64 `json:"leads"`
	Takeovers int64 `json:"takeovers"`
	// KeptForRemote counts platform requests kept going after their own
	// callers hung up because other instances waited for them.
	KeptForRemote int64 `json:"kept_for_remote"`
	// PurgesReceived counts purges of other instances applied here.
	PurgesReceived int64 `json:"purges_received"`
}

func (st *sharedState) stats() *SharedStats {
	mode := "shared"
	if !st.tier.Healthy() {
		mode = "degraded"
	}
	return &SharedStats{
		Mode: mode, Hits: st.hits.Load(), Misses: st.misses.Load(), Errors: st.errs.Load(), Skipped: st.skipped.Load(),
		Coalesced: st.coalesced.Load(), Leads: st.leads.Load(), Takeovers: st.takeovers.Load(),
		KeptForRemote: st.keptForRemote.Load(), PurgesReceived: st.purgesReceived.Load(),
	}
}
