package fairqueue

import (
	"math"
	"sort"
	"time"
)

// Snapshots for the admin status and metrics, and forgetting idle sessions.

// maybeSweepLocked forgets idle sessions, at most once a minute.
func (b *Budget) maybeSweepLocked(now int64) {
	if now-b.lastSweep < int64(time.Minute) {
		return
	}
	b.lastSweep = now
	forget := int64(b.cfg.Forget)
	for k, s := range b.sessions {
		if len(s.queue) == 0 && now-s.last >= forget {
			delete(b.sessions, k)
		}
	}
}

// Stats is a snapshot of a budget.
type Stats struct {
	Capacity float64       `json:"capacity"`
	Window   time.Duration `json:"window_ns"`
	// Available is the units in the bucket now (0 while paused).
	Available   float64   `json:"available"`
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// Waiting is the number of calls in the queue, WaitingUnits their cost.
	Waiting         int     `json:"waiting"`
	WaitingUnits    float64 `json:"waiting_units"`
	WaitingSessions int     `json:"waiting_sessions"`
	// Sessions counts the sessions whose usage is still remembered.
	Sessions   int     `json:"sessions"`
	Admitted   uint64  `json:"admitted"`
	Rejected   uint64  `json:"rejected"`
	Cancelled  uint64  `json:"cancelled"`
	UnitsSpent float64 `json:"units_spent"`
}

// Stats returns a snapshot.
func (b *Budget) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now().UnixNano()
	st := Stats{
		Capacity:        b.cfg.Capacity,
		Window:          b.cfg.Window,
		Available:       math.Max(0, b.tokensLocked(now)),
		Waiting:         b.queued,
		WaitingUnits:    math.Max(0, b.queuedU),
		WaitingSessions: b.ready.Len(),
		Admitted:        b.admitted,
		Rejected:        b.rejected,
		Cancelled:       b.cancelled,
		UnitsSpent:      b.unitsSpent,
	}
	if b.pausedUntil > now {
		st.PausedUntil = time.Unix(0, b.pausedUntil)
	}
	forget := int64(b.cfg.Forget)
	for _, s := range b.sessions {
		if len(s.queue) > 0 || now-s.last < forget {
			st.Sessions++
		}
	}
	return st
}

// SessionUsage is one session's state, for the admin status.
type SessionUsage struct {
	Session  string    `json:"session"`
	Used     float64   `json:"used"`
	Waiting  int       `json:"waiting"`
	LastCall time.Time `json:"last_call"`
	// Share is the session's weight relative to a new session's (1).
	Share float64 `json:"share"`
}

// Heaviest returns up to n remembered sessions, heaviest usage first.
func (b *Budget) Heaviest(n int) []SessionUsage {
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	forget := int64(b.cfg.Forget)
	all := make([]SessionUsage, 0, len(b.sessions))
	for _, s := range b.sessions {
		if len(s.queue) == 0 && now-s.last >= forget {
			continue
		}
		all = append(all, SessionUsage{
			Session: s.key, Used: s.used, Waiting: len(s.queue),
			LastCall: time.Unix(0, s.last), Share: s.weight(b.cfg.Capacity),
		})
	}
	b.mu.Unlock()
	sort.Slice(all, func(i, j int) bool {
		if all[i].Used != all[j].Used {
			return all[i].Used > all[j].Used
		}
		return all[i].Session < all[j].Session
	})
	if n >= 0 && len(all) > n {
		all = all[:n]
	}
	return all
}

// Used returns a session's remembered usage.
func (b *Budget) Used(key string) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sessions[key]
	if s == nil || (len(s.queue) == 0 && b.clock.Now().UnixNano()-s.last >= int64(b.cfg.Forget)) {
		return 0
	}
	return s.used
}
