// Package globalbudget keeps one platform's budget in Redis, shared by
// every BesluitBron instance on one shared store (issue 13 points 4, 5
// and 7): all instances together never exceed the platform's limit in
// any window, and the fair queue's rules (fairqueue's package doc) hold
// between all their waiting calls, not only within one process.
//
// It has the method set the platform_limit adapter needs (Acquire, Refund,
// Pause, PullDown, Stats, Heaviest, Used, Config, SetConfig) with
// fairqueue's types, so the adapter uses either.
//
// How a call goes:
//
//   - A call waits in this instance's local queue: one flow per (client,
//     session), its calls in order. Bounds as in fairqueue: MaxQueue calls
//     (a full queue refuses the heaviest client's newest call), MaxWait,
//     MaxSessions named sessions per client, MaxClients clients; a caller
//     that hangs up leaves and spends nothing.
//   - The instance registers each flow's head (its cost, the next call's
//     cost) in Redis. One Lua script (decide.lua) per decision registers
//     the changes, drops the flows of instances whose heartbeat lapsed,
//     picks the best waiting flow of all instances by the two-level rule
//     (client by virtual finish tag with weight 1/(1+used/C) from global
//     usage, then session; the starvation deadline check across
//     instances) and, when that flow is this instance's and the bucket has
//     room, admits it: bucket, usage and tags change in the same atomic
//     step. So no decision is made on a stale view, and the bucket is
//     exact.
//   - The script publishes the next best flow's instance and when it will
//     be ready; that instance asks again then. Pub/sub is a hint: every
//     instance with waiting flows also asks every Poll, which refreshes
//     its heartbeat.
//
// When Redis fails (sharedstore degraded), calls go to a local
// fairqueue.Budget of capacity ÷ Instances that starts empty; when the
// store rejoins, the global bucket is charged what this instance spent
// locally in the last window and floored at empty (plus a margin for the
// instances that rejoin a moment later), then calls go global again.
package globalbudget

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// Defaults of Options' zero fields.
const (
	DefaultPoll = time.Second
	// maxOps bounds the bucket's history kept in Redis for exact refunds.
	maxOps = 1024
	// maxBatch bounds the flow changes sent in one decision.
	maxBatch = 256
)

//go:embed decide.lua
var decideSrc string

//go:embed refund.lua
var refundSrc string

//go:embed floor.lua
var floorSrc string

var (
	decideScript = redis.NewScript(decideSrc)
	refundScript = redis.NewScript(refundSrc)
	floorScript  = redis.NewScript(floorSrc)
)

// Options configure a Budget.
type Options struct {
	// Platform is the platform key: every key of its budget shares the
	// hash tag {prefix:budget:<platform>}.
	Platform string
	// Store is the shared store (required).
	Store *sharedstore.Store
	// Config is the budget's limits, as fairqueue's (Capacity and Window
	// the platform's whole limit, not a share).
	Config fairqueue.Config
	// Clock gives the time passed to every script (nil: the wall clock).
	// Instances' clocks should agree to within a few milliseconds (NTP);
	// see docs/fair-queue.md.
	Clock clock.Clock
	// Poll is how often an instance with waiting calls asks Redis even
	// without a notice, and refreshes its heartbeat (default 1s). A
	// flow's heartbeat lapses after 3 × Poll.
	Poll time.Duration
	// RejoinSkew is how far apart instances may rejoin after Redis comes
	// back (default: the store's probe interval plus its timeout): the
	// first to rejoin leaves room in the global bucket for the others'
	// local share meanwhile.
	RejoinSkew time.Duration
	// Logger receives mode changes (nop when nil).
	Logger *zap.Logger
}

// Budget is one platform's budget shared through Redis. Its methods are
// safe for concurrent use.
type Budget struct {
	store    *sharedstore.Store
	platform string
	clock    clock.Clock
	logger   *zap.Logger
	poll     time.Duration
	skew     time.Duration
	me       string

	keys    []string // bucket, ops, flows, clients, instances
	uprefix string   // usage keys: uprefix + client
	channel string

	mu  sync.Mutex
	cfg fairqueue.Config
	q   queue

	// Degraded mode.
	fb *fallback

	// The pump: one goroutine runs every decision of this instance.
	kick    chan struct{}
	busy    bool // a decision loop is running or a kick is pending
	timer   clock.Timer
	timerAt int64 // µs; 0: none
	closed  chan struct{}
	wg      sync.WaitGroup
	unsub   func()
	unjoin  func()

	// Figures (this instance).
	admitted, rejected, cancelled, refunded uint64
	unitsSpent, unitsRefunded               float64
	lastTat                                 int64 // µs, as of the last script answer
	globalWaiting                           int
	pausedUntil                             int64 // µs
	decisions                               uint64
	decisionTime                            time.Duration
	degradations, rejoins                   uint64
	localAdmitted                           uint64 // admissions by the local share
	localUnits                              float64
}

// New returns the platform's global budget on store. Close it when done.
func New(o Options) (*Budget, error) {
	if o.Store == nil {
		return nil, errors.New("globalbudget: a shared store is required")
	}
	if o.Platform == "" {
		return nil, errors.New("globalbudget: platform key missing")
	}
	cfg, err := o.Config.WithDefaults()
	if err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = clock.Wall{}
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.RejoinSkew <= 0 {
		o.RejoinSkew = sharedstore.DefaultProbeEvery + o.Store.Timeout()
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	group := "budget:" + o.Platform
	b := &Budget{
		store:    o.Store,
		platform: o.Platform,
		clock:    o.Clock,
		logger:   o.Logger,
		poll:     o.Poll,
		skew:     o.RejoinSkew,
		me:       o.Store.Instance(),
		keys: []string{
			o.Store.Tagged(group, "bucket"),
			o.Store.Tagged(group, "ops"),
			o.Store.Tagged(group, "flows"),
			o.Store.Tagged(group, "clients"),
			o.Store.Tagged(group, "instances"),
		},
		uprefix: o.Store.Tagged(group, "u") + ":",
		channel: o.Store.Channel("budget", o.Platform),
		cfg:     cfg,
		kick:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
	}
	b.q.init()
	b.unsub = o.Store.Subscribe(b.channel, b.notice)
	b.unjoin = o.Store.OnRejoin(b.rejoin)
	b.wg.Add(1)
	go b.pump()
	return b, nil
}

// Close stops the budget's goroutine, timers and subscription. Calls still
// waiting are turned away (spending nothing).
func (b *Budget) Close() error {
	select {
	case <-b.closed:
		return nil
	default:
	}
	close(b.closed)
	b.unsub()
	b.unjoin()
	b.wg.Wait()
	b.mu.Lock()
	b.stopTimerLocked()
	out := b.q.drainLocked(errClosed)
	b.mu.Unlock()
	deliver(out)
	return nil
}

var errClosed = errors.New("globalbudget: budget closed")

// Config returns the budget's configuration, defaults filled in.
func (b *Budget) Config() fairqueue.Config {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfg
}

// SetConfig changes the limits. Every decision passes the capacity and
// window to Redis, so the new limits apply from this instance's next
// decision (instances of one config should agree; during a rolling reload
// each decides by its own). The local share is reconfigured in place.
func (b *Budget) SetConfig(cfg fairqueue.Config) error {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.cfg = cfg
	fb := b.fb
	for _, w := range b.q.all() {
		w.cost = math.Min(w.cost, cfg.Capacity)
		b.q.markDirty(w.f)
	}
	b.q.recountLocked()
	b.mu.Unlock()
	if fb != nil {
		if err := fb.budget.SetConfig(b.shareConfig(cfg)); err != nil {
			return err
		}
	}
	b.poke()
	return nil
}

// shareConfig is this instance's conservative local share of cfg.
func (b *Budget) shareConfig(cfg fairqueue.Config) fairqueue.Config {
	c := cfg
	c.Capacity = cfg.Capacity / float64(max(1, b.store.Instances()))
	return c
}

// Mode returns "global" or "fallback".
func (b *Budget) Mode() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fb != nil {
		return "fallback"
	}
	return "global"
}

// ref is a global admission's record, for Refund.
type ref struct {
	b       *Budget
	gen     string
	seq     int64
	atUS    int64
	fb      *fallback // an admission of the local share
	inner   fairqueue.Admission
	spentAt int // index in fb.spent
}

// Acquire waits until a call of cost units for key may go, and returns
// its admission. It returns a *fairqueue.Rejection when the local queue is
// full (and this call's client holds the most queued work) or the wait
// passes MaxWait, and ctx's error when ctx ends first; in these cases the
// call spent nothing. No call fails because Redis failed: it waits in the
// local share instead.
func (b *Budget) Acquire(ctx context.Context, key fairqueue.Key, cost float64) (fairqueue.Admission, error) {
	if math.IsNaN(cost) || math.IsInf(cost, 0) || cost < 0 {
		return fairqueue.Admission{}, fairqueue.ErrBadCost
	}
	for {
		if err := ctx.Err(); err != nil {
			return fairqueue.Admission{}, err
		}
		select {
		case <-b.closed:
			return fairqueue.Admission{}, errClosed
		default:
		}
		b.mu.Lock()
		if b.fb == nil && !b.store.Healthy() {
			b.degradeLocked(sharedstore.ErrDegraded)
		}
		if fb := b.fb; fb != nil {
			b.mu.Unlock()
			adm, err, moved := b.acquireLocal(ctx, fb, key, cost)
			if moved {
				continue
			}
			return adm, err
		}
		w, out := b.enqueueLocked(key, cost)
		b.mu.Unlock()
		deliver(out)
		b.poke()
		select {
		case r := <-w.ch:
			if r.moved {
				continue
			}
			return r.adm, r.err
		case <-ctx.Done():
			b.mu.Lock()
			if w.state == stQueued {
				b.q.removeLocked(w)
				b.cancelled++
				b.mu.Unlock()
				b.poke()
				return fairqueue.Admission{}, ctx.Err()
			}
			b.mu.Unlock()
			r := <-w.ch
			if r.moved {
				return fairqueue.Admission{}, ctx.Err()
			}
			if r.err != nil {
				return fairqueue.Admission{}, r.err
			}
			if !b.refundAdm(r.adm) {
				return r.adm, nil // too late to take back: it goes
			}
			b.mu.Lock()
			b.admitted--
			b.cancelled++
			b.unitsSpent -= r.adm.Cost
			b.mu.Unlock()
			return fairqueue.Admission{}, ctx.Err()
		}
	}
}

// Refund gives an admitted call's units back to the bucket it was
// admitted by (the global bucket, exactly, by replaying its logged
// history without the call; or the local share), and its usage off its
// client and session. It reports false for an admission of another budget,
// a second refund, a call whose history is gone, and when Redis does not
// answer: such a call stays counted.
func (b *Budget) Refund(a fairqueue.Admission) bool {
	if !b.refundAdm(a) {
		return false
	}
	b.mu.Lock()
	b.refunded++
	b.unitsRefunded += a.Cost
	b.unitsSpent -= a.Cost
	b.mu.Unlock()
	return true
}

func (b *Budget) refundAdm(a fairqueue.Admission) bool {
	r, ok := a.Ref.(*ref)
	if !ok || r == nil || r.b != b {
		return false
	}
	if r.fb != nil {
		if !r.fb.budget.Refund(r.inner) {
			return false
		}
		b.mu.Lock()
		r.fb.unspend(r.spentAt)
		b.mu.Unlock()
		return true
	}
	now := b.nowUS()
	shared := "1"
	if a.Client == fairqueue.Shared {
		shared = "0"
	}
	var n int64
	err := b.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		n, err = refundScript.Run(ctx, c, []string{b.keys[0], b.keys[1], b.uprefix + a.Client},
			now, r.gen, r.seq, a.Cost, r.atUS, b.forgetUS(), a.Session, shared).Int64()
		return err
	})
	if err != nil {
		b.logger.Warn("global budget: refund not applied (the call stays counted)", zap.String("platform", b.platform), zap.Error(err))
		return false
	}
	if n == 1 {
		b.mu.Lock()
		b.q.unuseLocked(a.Client, a.Session, a.Cost)
		b.mu.Unlock()
		b.poke()
	}
	return n == 1
}

// Pause stops admissions until until (a platform's 429 with Retry-After):
// the global bucket is empty at until and refills from there.
func (b *Budget) Pause(until time.Time) {
	u := until.UnixMicro()
	b.mu.Lock()
	b.pausedUntil = max(b.pausedUntil, u)
	W := b.windowUS()
	b.mu.Unlock()
	if u <= b.nowUS() {
		return
	}
	b.floor(u+W, u, func(fb *fallback) { fb.budget.Pause(until) })
}

// PullDown lowers the global bucket to the platform's own view: remaining
// units left now (negative: unknown) and resetIn, the time until the
// platform's bucket is full (negative: unknown; capped at one window). It
// never raises the bucket.
func (b *Budget) PullDown(remaining float64, resetIn time.Duration) {
	now := b.nowUS()
	b.mu.Lock()
	C, W := b.cfg.Capacity, b.windowUS()
	b.mu.Unlock()
	floor := int64(math.MinInt64)
	if remaining >= 0 && !math.IsNaN(remaining) {
		debt := math.Max(0, C-remaining)
		floor = now + int64(math.Ceil(debt/C*float64(W)))
	}
	if resetIn > 0 {
		floor = max(floor, now+min(resetIn.Microseconds(), W))
	}
	if floor == math.MinInt64 {
		return
	}
	b.floor(floor, 0, func(fb *fallback) { fb.budget.PullDown(remaining, resetIn) })
}

// floor raises the global bucket's tat to at least floorUS; while degraded
// (or when Redis fails now) local applies it to the local share.
func (b *Budget) floor(floorUS, pausedUS int64, local func(*fallback)) {
	b.mu.Lock()
	fb := b.fb
	b.mu.Unlock()
	if fb == nil {
		err := b.runFloor(floorUS, pausedUS, 0, "")
		if err == nil {
			b.poke()
			return
		}
		b.mu.Lock()
		b.degradeLocked(err)
		fb = b.fb
		b.mu.Unlock()
	}
	if fb != nil {
		local(fb)
	}
}

func (b *Budget) runFloor(floorUS, pausedUS, chargeUS int64, dropFlowsOf string) error {
	now := b.nowUS()
	W := b.windowUS()
	return b.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		tat, err := floorScript.Run(ctx, c, b.keys[:3], now, floorUS, pausedUS, chargeUS, W,
			b.ttlExtraUS(), maxOps, dropFlowsOf).Text()
		if err == nil {
			var t int64
			if _, e := fmt.Sscan(tat, &t); e == nil {
				b.mu.Lock()
				b.lastTat = t
				b.mu.Unlock()
			}
		}
		return err
	})
}

func (b *Budget) nowUS() int64 { return b.clock.Now().UnixMicro() }

// windowUS returns the window in µs (b.mu held or not: cfg changes are
// rare and a torn read is impossible for one int64 on 64-bit).
func (b *Budget) windowUS() int64 { return b.cfg.Window.Microseconds() }

func (b *Budget) forgetUS() int64 { return b.cfg.Forget.Microseconds() }

// ttlExtraUS is added to every key's lifetime beyond the bucket's own
// need: heartbeats must outlive a few polls.
func (b *Budget) ttlExtraUS() int64 { return (10 * b.poll).Microseconds() }

// costUS converts units to the refill time they stand for, rounded up
// (as the script does).
func (b *Budget) costUS(units float64) int64 {
	W := b.windowUS()
	if units >= b.cfg.Capacity {
		return W
	}
	return int64(math.Ceil(units / b.cfg.Capacity * float64(W)))
}
