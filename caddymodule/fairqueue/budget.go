// Package fairqueue keeps one platform's request budget and shares it
// fairly between sessions (design.md §4.2).
//
// A Budget is a bucket of Capacity units that refills continuously over
// Window (OpenBesluitvorming: 60 units, one unit a second). A call costs a
// number of units the caller names. While the bucket holds enough, a call
// goes at once. Otherwise it waits in a queue of its session, and the
// budget decides which session's next call goes when room comes back:
//
//   - Weighted fair queuing over sessions (self-clocked virtual finish
//     tags): a session's weight is 1/(1+used/Capacity), where used is what
//     it spent so far, so a session that used one full budget gets half the
//     share of a new one, after two budgets a third. The calls of one
//     session keep their order.
//   - The starvation bound: a waiting session gets at least one call per
//     Window. The budget runs an earliest-deadline check before every call;
//     if serving the fair choice would make some waiting session miss its
//     deadline (one Window after it began waiting or was last served), the
//     session that has waited longest goes instead. When more sessions wait
//     than calls fit in a Window, that is simply longest-waiting first.
//   - A call that costs more than the whole Capacity is charged Capacity:
//     it goes when the bucket is full and empties it.
//   - A session's usage is forgotten Forget (30 minutes) after its last
//     call; the Shared session's usage is never counted.
//
// The bucket is kept as a GCRA "theoretical arrival time" in integer
// nanoseconds, and every admission, refund, pause and pull-down happens
// under one mutex, so no call is ever admitted uncounted.
package fairqueue

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// Shared is the session key of the shared session (the search page and
// BesluitBron's own maintenance): one session whose usage never counts.
// It equals session.Shared.
const Shared = "shared"

// Defaults of a Config's zero fields.
const (
	DefaultMaxQueue = 1000
	DefaultForget   = 30 * time.Minute
)

// Config sets a budget's limits.
type Config struct {
	// Capacity is the bucket's size in units (> 0).
	Capacity float64
	// Window is the time the empty bucket takes to refill completely (> 0).
	Window time.Duration
	// MaxQueue bounds the calls waiting at once. 0 means DefaultMaxQueue;
	// negative means no bound.
	MaxQueue int
	// MaxWait bounds one call's wait. 0 means max(2×Window, 30s); negative
	// means no bound.
	MaxWait time.Duration
	// Forget is how long after a session's last call its usage is
	// forgotten. 0 means DefaultForget.
	Forget time.Duration
}

// WithDefaults returns c with its zero fields set to the defaults, or an
// error when c is invalid.
func (c Config) WithDefaults() (Config, error) {
	if !(c.Capacity > 0) || math.IsInf(c.Capacity, 0) {
		return c, fmt.Errorf("fairqueue: capacity must be a positive number of units, got %v", c.Capacity)
	}
	if c.Window <= 0 {
		return c, fmt.Errorf("fairqueue: window must be positive, got %v", c.Window)
	}
	if c.MaxQueue == 0 {
		c.MaxQueue = DefaultMaxQueue
	}
	if c.MaxWait == 0 {
		c.MaxWait = max(2*c.Window, 30*time.Second)
	}
	if c.Forget <= 0 {
		c.Forget = DefaultForget
	}
	return c, nil
}

// Admission describes a call the budget let through.
type Admission struct {
	Session string
	// Cost is the number of units charged (the asked cost, at most
	// Capacity).
	Cost    float64
	Arrived time.Time
	At      time.Time
	// Wait is At - Arrived.
	Wait time.Duration
}

// Rejection is the error of a call the budget turned away. It spent
// nothing.
type Rejection struct {
	// Reason is ReasonQueueFull or ReasonWaitTooLong.
	Reason string
	// RetryAfter is the estimated time until a call of this session would
	// go, computed from the backlog.
	RetryAfter time.Duration
}

// Reasons of a Rejection.
const (
	ReasonQueueFull   = "queue full"
	ReasonWaitTooLong = "waited too long"
)

func (e *Rejection) Error() string {
	return fmt.Sprintf("platform budget: %s, retry after %s", e.Reason, e.RetryAfter.Round(time.Millisecond))
}

// ErrBadCost is returned for a negative, infinite or NaN cost.
var ErrBadCost = errors.New("fairqueue: cost must be a finite number of units ≥ 0")

// Budget is one platform's budget and fair queue. Its methods are safe for
// concurrent use.
type Budget struct {
	clock Clock

	mu       sync.Mutex
	cfg      Config
	windowNS int64
	tat      int64 // GCRA: the time the bucket will be full again (Unix ns)

	sessions map[string]*session
	ready    sessHeap   // backlogged sessions by head finish tag
	waiting  *list.List // backlogged sessions by since (oldest first)
	queued   int        // calls waiting
	queuedU  float64    // their units
	headNS   int64      // sum of the head calls' costs (ns) of backlogged sessions
	vtime    float64    // virtual time: finish tag of the last fairly chosen call
	epoch    uint64     // bumped when the queue empties; older tags are void
	seq      uint64

	timer   Timer
	timerAt int64

	pausedUntil int64
	lastSweep   int64

	// ops is the recent history of tat, so a refund can replay it without
	// the refunded call: opBase is the sequence number of ops[0].
	ops    []tatOp
	opBase uint64

	admitted, rejected, cancelled uint64
	unitsSpent                    float64
}

type session struct {
	key        string
	seq        uint64
	used       float64
	last       int64 // last arrival or admission
	queue      []*waiter
	queuedU    float64
	since      int64   // start of the current wait: deadline = since + window
	start      float64 // virtual start tag of the head call
	finish     float64 // virtual finish tag of the head call
	lastFinish float64 // finish tag of the last call served
	epoch      uint64
	idx        int           // index in ready, -1 when not backlogged
	elem       *list.Element // element in waiting
}

func (s *session) weight(capacity float64) float64 {
	if s.key == Shared {
		return 1
	}
	return 1 / (1 + s.used/capacity)
}

type waiter struct {
	s       *session
	cost    float64
	costNS  int64
	arrived int64
	done    func(Admission, error)
	state   int
	adm     Admission
	timer   Timer
	// tatBefore is tat before the admission; op its entry in ops.
	tatBefore int64
	op        uint64
}

const (
	stQueued = iota
	stAdmitted
	stGone
)

// New returns a budget with a full bucket. A nil clock means the wall clock.
func New(cfg Config, clock Clock) (*Budget, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = RealClock{}
	}
	now := clock.Now().UnixNano()
	return &Budget{
		clock:     clock,
		cfg:       cfg,
		windowNS:  int64(cfg.Window),
		tat:       now,
		sessions:  make(map[string]*session),
		waiting:   list.New(),
		lastSweep: now,
	}, nil
}

// Config returns the budget's configuration, defaults filled in.
func (b *Budget) Config() Config {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfg
}

// SetConfig changes the limits in place. The units left in the bucket are
// kept (capped at the new capacity); waiting calls stay in the queue.
func (b *Budget) SetConfig(cfg Config) error {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return err
	}
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	tokens := b.tokensLocked(now)
	b.cfg = cfg
	b.windowNS = int64(cfg.Window)
	debt := cfg.Capacity - math.Min(tokens, cfg.Capacity)
	b.tat = now + ceilNS(debt/cfg.Capacity*float64(b.windowNS))
	b.opBase += uint64(len(b.ops)) // no refunds across a reconfiguration
	b.ops = b.ops[:0]
	b.headNS = 0
	b.queuedU = 0
	for _, s := range b.sessions {
		s.queuedU = 0
		for _, w := range s.queue {
			w.cost = math.Min(w.cost, cfg.Capacity)
			w.costNS = b.costNS(w.cost)
			s.queuedU += w.cost
		}
		b.queuedU += s.queuedU
		if len(s.queue) > 0 {
			b.headNS += s.queue[0].costNS
		}
	}
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
	return nil
}

type completion struct {
	w   *waiter
	adm Admission
	err error
}

func run(out []completion) {
	for _, c := range out {
		c.w.done(c.adm, c.err)
	}
}

// Submit queues a call of cost units for session key and calls done exactly
// once, never while the budget is locked: with the admission, or with a
// *Rejection. done may run before Submit returns (room now, or queue full),
// from a later call into the budget, or from a clock timer, and it may call
// back into the budget. The returned cancel removes the call if it is
// still waiting, reports whether it did (done is then never called), and
// spends nothing.
func (b *Budget) Submit(key string, cost float64, done func(Admission, error)) (cancel func() bool, err error) {
	w, err := b.submit(key, cost, done)
	if err != nil {
		return nil, err
	}
	return func() bool { return b.cancel(w) }, nil
}

func (b *Budget) submit(key string, cost float64, done func(Admission, error)) (*waiter, error) {
	if math.IsNaN(cost) || math.IsInf(cost, 0) || cost < 0 {
		return nil, ErrBadCost
	}
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	b.maybeSweepLocked(now)
	s := b.sessions[key]
	if s == nil {
		b.seq++
		s = &session{key: key, seq: b.seq, idx: -1, last: now}
		b.sessions[key] = s
	} else if len(s.queue) == 0 && now-s.last >= int64(b.cfg.Forget) {
		s.used, s.lastFinish = 0, 0
	}
	cost = math.Min(cost, b.cfg.Capacity)
	w := &waiter{s: s, cost: cost, costNS: b.costNS(cost), arrived: now, done: done}
	if b.cfg.MaxQueue > 0 && b.queued >= b.cfg.MaxQueue {
		b.rejected++
		rej := &Rejection{Reason: ReasonQueueFull, RetryAfter: b.estimateLocked(s, cost, now)}
		w.state = stGone
		out = append(out, completion{w: w, err: rej})
		b.mu.Unlock()
		run(out)
		return w, nil
	}
	s.last = now
	s.queue = append(s.queue, w)
	s.queuedU += cost
	b.queued++
	b.queuedU += cost
	if len(s.queue) == 1 {
		b.becomeBackloggedLocked(s, now)
	}
	if b.cfg.MaxWait > 0 {
		w.timer = b.clock.AfterFunc(b.cfg.MaxWait, func() { b.expire(w) })
	}
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
	return w, nil
}

func (b *Budget) cancel(w *waiter) bool {
	var out []completion
	b.mu.Lock()
	if w.state != stQueued {
		b.mu.Unlock()
		return false
	}
	now := b.clock.Now().UnixNano()
	b.removeLocked(w, now)
	b.cancelled++
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
	return true
}

func (b *Budget) expire(w *waiter) {
	var out []completion
	b.mu.Lock()
	if w.state != stQueued {
		b.mu.Unlock()
		return
	}
	now := b.clock.Now().UnixNano()
	b.removeLocked(w, now)
	b.rejected++
	rej := &Rejection{Reason: ReasonWaitTooLong, RetryAfter: b.estimateLocked(w.s, w.cost, now)}
	out = append(out, completion{w: w, err: rej})
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
}

// Acquire waits until a call of cost units for session key may go, and
// returns its admission. It returns a *Rejection when the queue is full or
// the wait passes MaxWait, and ctx's error when ctx ends first; in both
// cases the call spent nothing (a call admitted in the same instant ctx
// ended is refunded exactly).
func (b *Budget) Acquire(ctx context.Context, key string, cost float64) (Admission, error) {
	if err := ctx.Err(); err != nil {
		return Admission{}, err
	}
	if adm, ok, err := b.admitNow(key, cost); err != nil || ok {
		return adm, err
	}
	type result struct {
		adm Admission
		err error
	}
	ch := make(chan result, 1)
	w, err := b.submit(key, cost, func(a Admission, err error) { ch <- result{a, err} })
	if err != nil {
		return Admission{}, err
	}
	select {
	case r := <-ch:
		return r.adm, r.err
	case <-ctx.Done():
		if b.cancel(w) {
			return Admission{}, ctx.Err()
		}
		r := <-ch
		if r.err != nil {
			return Admission{}, r.err
		}
		if !b.refund(w) {
			// Its history is gone: too late to take it back, so it goes.
			return r.adm, nil
		}
		return Admission{}, ctx.Err()
	}
}
