package fairqueue

import (
	"math"
	"sort"
	"time"
)

// Snapshots for the admin status and metrics.

// Stats is a snapshot of a budget.
type Stats struct {
	Capacity float64       `json:"capacity"`
	Window   time.Duration `json:"window_ns"`
	// Available is the units in the bucket now (0 while paused).
	Available   float64   `json:"available"`
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// Waiting is the number of calls in the queue, WaitingUnits their
	// cost; WaitingClients and WaitingSessions who they are for.
	Waiting         int     `json:"waiting"`
	WaitingUnits    float64 `json:"waiting_units"`
	WaitingClients  int     `json:"waiting_clients"`
	WaitingSessions int     `json:"waiting_sessions"`
	// Clients and Sessions count the clients and sessions the budget
	// keeps (their usage, until forgotten; bounded by MaxClients and
	// MaxSessions per client).
	Clients  int `json:"clients"`
	Sessions int `json:"sessions"`
	// Admitted counts the calls let through (refunded ones included),
	// Rejected those turned away, Cancelled those whose caller hung up
	// while waiting.
	Admitted  uint64 `json:"admitted"`
	Rejected  uint64 `json:"rejected"`
	Cancelled uint64 `json:"cancelled"`
	// Refunded counts the admitted calls whose units were given back
	// (Refund), UnitsRefunded those units; UnitsSpent is what the
	// admitted calls cost, refunded units taken off.
	Refunded      uint64  `json:"refunded"`
	UnitsRefunded float64 `json:"units_refunded"`
	UnitsSpent    float64 `json:"units_spent"`
	// Mode is set by budgets shared between instances (globalbudget):
	// "global" while Redis decides, "fallback" while this instance keeps
	// its conservative local share. Empty for a budget of one process.
	Mode string `json:"mode,omitempty"`
	// GlobalWaiting is the number of waiting flows (a session's calls on
	// one instance) of all instances, as of this instance's last decision.
	GlobalWaiting int `json:"global_waiting_flows,omitempty"`
}

// Stats returns a snapshot.
func (b *Budget) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now().UnixNano()
	b.forgetIdleLocked(now)
	st := Stats{
		Capacity:        b.cfg.Capacity,
		Window:          b.cfg.Window,
		Available:       math.Max(0, b.tokensLocked(now)),
		Waiting:         b.queued,
		WaitingUnits:    math.Max(0, b.queuedU),
		WaitingClients:  b.ready.Len(),
		WaitingSessions: b.waitSess,
		Clients:         len(b.clients),
		Sessions:        b.nsess,
		Admitted:        b.admitted,
		Rejected:        b.rejected,
		Cancelled:       b.cancelled,
		Refunded:        b.refunded,
		UnitsRefunded:   b.unitsRefunded,
		UnitsSpent:      b.unitsSpent,
	}
	if b.pausedUntil > now {
		st.PausedUntil = time.Unix(0, b.pausedUntil)
	}
	return st
}

// ClientUsage is one client's state, for the admin status.
type ClientUsage struct {
	Client   string    `json:"client"`
	Used     float64   `json:"used"`
	Waiting  int       `json:"waiting"`
	LastCall time.Time `json:"last_call"`
	// Share is the client's weight relative to a new client's (1).
	Share float64 `json:"share"`
	// Sessions are the client's remembered sessions, heaviest first (at
	// most 5; "" is the client's own).
	Sessions []SessionUsage `json:"sessions"`
}

// SessionUsage is one session's state within its client.
type SessionUsage struct {
	Session string  `json:"session"`
	Used    float64 `json:"used"`
	Waiting int     `json:"waiting"`
	// Share is the session's weight within its client relative to a new
	// session's (1).
	Share float64 `json:"share"`
}

// Heaviest returns up to n remembered clients, heaviest usage first.
func (b *Budget) Heaviest(n int) []ClientUsage {
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	b.forgetIdleLocked(now)
	forget := int64(b.cfg.Forget)
	C := b.cfg.Capacity
	all := make([]ClientUsage, 0, len(b.clients))
	for _, c := range b.clients {
		used := c.used
		if c.queued == 0 && now-c.last >= forget {
			used = 0
		}
		cu := ClientUsage{Client: c.key, Used: used, Waiting: c.queued, LastCall: time.Unix(0, c.last), Share: 1 / (1 + used/C)}
		if c.key == Shared {
			cu.Share = 1
		}
		for _, s := range c.sessions {
			if len(s.queue) == 0 && now-s.last >= forget {
				continue
			}
			cu.Sessions = append(cu.Sessions, SessionUsage{Session: s.key, Used: s.used, Waiting: len(s.queue), Share: s.weight(C)})
		}
		all = append(all, cu)
	}
	b.mu.Unlock()
	return HeaviestFirst(all, n)
}

// HeaviestFirst orders clients heaviest usage first (ties by key), keeps
// each one's five heaviest sessions, and returns at most n clients (all
// when n < 0). Every budget's Heaviest reports through it, so the admin
// status reads alike whichever budget a platform has.
func HeaviestFirst(all []ClientUsage, n int) []ClientUsage {
	for i := range all {
		ss := all[i].Sessions
		sort.Slice(ss, func(i, j int) bool {
			if ss[i].Used != ss[j].Used {
				return ss[i].Used > ss[j].Used
			}
			return ss[i].Session < ss[j].Session
		})
		all[i].Sessions = ss[:min(len(ss), 5)]
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Used != all[j].Used {
			return all[i].Used > all[j].Used
		}
		return all[i].Client < all[j].Client
	})
	if n >= 0 && len(all) > n {
		all = all[:n]
	}
	return all
}

// Used returns a client's remembered usage.
func (b *Budget) Used(client string) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.clients[client]
	if c == nil || (c.queued == 0 && b.clock.Now().UnixNano()-c.last >= int64(b.cfg.Forget)) {
		return 0
	}
	return c.used
}

// SessionUsed returns a session's remembered usage within its client.
func (b *Budget) SessionUsed(key Key) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.clients[key.Client]
	if c == nil {
		return 0
	}
	s := c.sessions[key.Session]
	if s == nil || (len(s.queue) == 0 && b.clock.Now().UnixNano()-s.last >= int64(b.cfg.Forget)) {
		return 0
	}
	return s.used
}
