// Package fairqueue keeps one platform's request budget and shares it
// fairly between clients, and within a client between its sessions
// (docs/rules.md, "Who a client is" "Who a client is", §4.2).
//
// A Budget is a bucket of Capacity units that refills continuously over
// Window (OpenBesluitvorming: 60 units, one unit a second). A call costs a
// number of units the caller names and is made for a Key: a client (an
// address, or a session from a trusted source: the caller decides) and a
// session within it. While the bucket holds enough, a call goes at once.
// Otherwise it waits, and the budget decides whose call goes next when
// room comes back, in two levels:
//
//   - Between clients, weighted fair queuing (self-clocked virtual finish
//     tags): a client's weight is 1/(1+used/Capacity), where used is what
//     the client spent so far, so a client that used one full budget gets
//     half the share of a new one, after two budgets a third.
//   - The starvation bound between clients: a waiting client gets at least
//     one call per Window. The budget runs an earliest-deadline check
//     before every call; if serving the fair choice would make some waiting
//     client miss its deadline (one Window after it began waiting or was
//     last served), the client that has waited longest goes instead. When
//     more clients wait than calls fit in a Window, that is simply
//     longest-waiting first.
//   - Within a client, the same rule again between its sessions: the
//     client's calls go to its sessions by weighted fair queuing on the
//     sessions' own usage, except that a session that has waited a whole
//     Window goes first (longest waiting first). The calls of one session
//     keep their order. So sessions divide their client's share; however
//     many names a client makes up, its share does not grow.
//   - A call that costs more than the whole Capacity is charged Capacity:
//     it goes when the bucket is full and empties it.
//   - Usage is forgotten Forget (30 minutes) after the last call, per
//     client and per session; the Shared client's usage is never counted.
//   - A call that failed on its way (no platform counted it) can be
//     refunded: its units go back to the bucket exactly, as if it had
//     never been admitted, and its usage off its client and session.
//
// What a budget remembers is bounded whatever callers send: at most
// MaxSessions named sessions per client (calls of further names go to the
// client's own session), at most MaxClients clients (past it the client
// idle longest is forgotten early), and MaxQueue calls waiting. A full
// queue still takes a newcomer: the refusal falls on the client holding
// the most queued work (its newest call), never on a client with nothing
// queued.
//
// The bucket is kept as a GCRA "theoretical arrival time" in integer
// nanoseconds, and every admission, refund, pause and pull-down happens
// under one mutex, so no call is ever admitted uncounted.
package fairqueue

import (
	"container/heap"
	"container/list"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
)

// Shared is the client key of the shared session (the search page and
// BesluitBron's own maintenance): one client whose usage never counts.
// It equals session.Shared.
const Shared = "shared"

// Defaults of a Config's zero fields.
const (
	DefaultMaxQueue    = 1000
	DefaultForget      = 30 * time.Minute
	DefaultMaxSessions = 32
	DefaultMaxClients  = 10_000
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
	// Forget is how long after a client's or session's last call its
	// usage is forgotten. 0 means DefaultForget.
	Forget time.Duration
	// MaxSessions bounds the named sessions remembered per client; a call
	// of a further name goes to the client's own session (Key.Session "").
	// 0 means DefaultMaxSessions.
	MaxSessions int
	// MaxClients bounds the clients remembered: past it, the client idle
	// longest is forgotten early. Clients with calls waiting are never
	// forgotten. 0 means DefaultMaxClients.
	MaxClients int
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
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.MaxClients <= 0 {
		c.MaxClients = DefaultMaxClients
	}
	return c, nil
}

// Key names whom a call is for. Client is who the fair shares and the
// starvation bound are between; Session tells the client's sessions apart
// ("" is the client's own session: calls that name none, and names past
// MaxSessions).
type Key struct {
	Client  string
	Session string
}

// String returns "client" or "client/session".
func (k Key) String() string {
	if k.Session == "" {
		return k.Client
	}
	return k.Client + "/" + k.Session
}

// Admission describes a call the budget let through. Budget.Refund gives
// its units back when the call failed on its way (copies of it share one
// refund).
type Admission struct {
	Client string
	// Session is the session the call was counted on ("" for the client's
	// own, also when its name was past MaxSessions).
	Session string
	// Cost is the number of units charged (the asked cost, at most
	// Capacity).
	Cost    float64
	Arrived time.Time
	At      time.Time
	// Wait is At - Arrived.
	Wait time.Duration
	// Ref is another budget implementation's own record of the call (the
	// global budget's refund token); nil for this package's budgets.
	Ref any

	// For Refund: the budget, the session charged, and the admission's
	// entry in the budget's history.
	b  *Budget
	s  *sess
	op uint64
}

// Rejection is the error of a call the budget turned away. It spent
// nothing.
type Rejection struct {
	// Reason is ReasonQueueFull or ReasonWaitTooLong.
	Reason string
	// RetryAfter is the estimated time until a call of this client would
	// go, computed from its own backlog.
	RetryAfter time.Duration
}

// Reasons of a Rejection.
const (
	ReasonQueueFull   = "queue full"
	ReasonWaitTooLong = "waited too long"
)

// BudgetRefusal marks e as a budget's refusal for the layers above that
// must know one without importing this package (the cache writes
// Cache-Status detail=over-budget on it).
func (e *Rejection) BudgetRefusal() {}

func (e *Rejection) Error() string {
	return fmt.Sprintf("platform budget: %s, retry after %s", e.Reason, e.RetryAfter.Round(time.Millisecond))
}

// ErrBadCost is returned for a negative, infinite or NaN cost.
var ErrBadCost = errors.New("fairqueue: cost must be a finite number of units ≥ 0")

// Budget is one platform's budget and fair queue. Its methods are safe for
// concurrent use.
type Budget struct {
	clock clock.Clock

	mu       sync.Mutex
	cfg      Config
	windowNS int64
	tat      int64 // GCRA: the time the bucket will be full again (Unix ns)

	clients  map[string]*client
	idle     list.List        // clients with nothing queued, by last call (oldest first)
	nsess    int              // sessions remembered, all clients
	ready    tagHeap[*client] // backlogged clients by head finish tag
	waiting  list.List        // backlogged clients by since (oldest first)
	heavy    heavyHeap        // backlogged clients, most queued work first
	queued   int              // calls waiting
	queuedU  float64          // their units
	waitSess int              // backlogged sessions, all clients
	headNS   int64            // sum of the head calls' costs (ns) of backlogged clients
	vtime    float64          // virtual time: finish tag of the last fairly chosen call
	epoch    uint64           // bumped when the queue empties; older tags are void
	seq      uint64

	timer   clock.Timer
	timerAt int64

	pausedUntil int64

	// ops is the recent history of tat, so a refund can replay it without
	// the refunded call: opBase is the sequence number of ops[0].
	ops    []tatOp
	opBase uint64

	admitted, rejected, cancelled, refunded uint64
	unitsSpent, unitsRefunded               float64
}

type waiter struct {
	s       *sess
	cost    float64
	costNS  int64
	arrived int64
	done    func(Admission, error)
	state   int
	adm     Admission
	timer   clock.Timer
	// prev and next link the client's waiting calls in arrival order, so
	// the newest is at hand when a full queue must refuse one.
	prev, next *waiter
}

const (
	stQueued = iota
	stAdmitted
	stGone
)

// New returns a budget with a full bucket. A nil clock means the wall clock.
func New(cfg Config, clk clock.Clock) (*Budget, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	clk = clock.Or(clk)
	now := clk.Now().UnixNano()
	return &Budget{
		clock:    clk,
		cfg:      cfg,
		windowNS: int64(cfg.Window),
		tat:      now,
		clients:  make(map[string]*client),
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
	for _, c := range b.clients {
		c.queuedU = 0
		for _, s := range c.sessions {
			for _, w := range s.queue {
				w.cost = math.Min(w.cost, cfg.Capacity)
				w.costNS = b.costNS(w.cost)
				c.queuedU += w.cost
			}
		}
		b.queuedU += c.queuedU
		if c.head != nil {
			b.headNS += c.head.costNS
		}
	}
	heap.Init(&b.heavy)
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

// Submit queues a call of cost units for key and calls done exactly once,
// never while the budget is locked: with the admission, or with a
// *Rejection. done may run before Submit returns (room now, or queue full),
// from a later call into the budget, or from a clock timer, and it may call
// back into the budget. The returned cancel removes the call if it is
// still waiting, reports whether it did (done is then never called), and
// spends nothing.
func (b *Budget) Submit(key Key, cost float64, done func(Admission, error)) (cancel func() bool, err error) {
	w, err := b.submit(key, cost, done)
	if err != nil {
		return nil, err
	}
	return func() bool { return b.cancel(w) }, nil
}

func (b *Budget) submit(key Key, cost float64, done func(Admission, error)) (*waiter, error) {
	if math.IsNaN(cost) || math.IsInf(cost, 0) || cost < 0 {
		return nil, ErrBadCost
	}
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	c, s := b.lookupLocked(key, now)
	cost = math.Min(cost, b.cfg.Capacity)
	w := &waiter{s: s, cost: cost, costNS: b.costNS(cost), arrived: now, done: done}
	c.last, s.last = now, now
	if c.idle != nil {
		b.idle.MoveToBack(c.idle)
	}
	if b.cfg.MaxQueue > 0 && b.queued >= b.cfg.MaxQueue {
		// The queue is full. The refusal falls on the client holding the
		// most queued work: this call if that is its own client, else that
		// client's newest call, and this one takes its place.
		h := b.heavy[0]
		if c.queued > 0 && !heavier(h, c) {
			b.rejected++
			rej := &Rejection{Reason: ReasonQueueFull, RetryAfter: b.estimateLocked(c, cost, now)}
			w.state = stGone
			out = append(out, completion{w: w, err: rej})
			b.mu.Unlock()
			run(out)
			return w, nil
		}
		victim := h.newest
		b.removeLocked(victim, now)
		b.rejected++
		rej := &Rejection{Reason: ReasonQueueFull, RetryAfter: b.estimateLocked(h, victim.cost, now)}
		out = append(out, completion{w: victim, err: rej})
	}
	b.enqueueLocked(w, now)
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
	rej := &Rejection{Reason: ReasonWaitTooLong, RetryAfter: b.estimateLocked(w.s.c, w.cost, now)}
	out = append(out, completion{w: w, err: rej})
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
}

// Acquire waits until a call of cost units for key may go, and returns its
// admission. It returns a *Rejection when the queue is full (and this
// call's client holds the most queued work, or a newer caller took its
// place) or the wait passes MaxWait, and ctx's error when ctx ends first;
// in all these cases the call spent nothing (a call admitted in the same
// instant ctx ended is refunded exactly).
func (b *Budget) Acquire(ctx context.Context, key Key, cost float64) (Admission, error) {
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
