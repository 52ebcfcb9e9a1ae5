package fairqueue

import (
	"math"
	"time"
)

// The bucket (GCRA in integer nanoseconds): costs, refunds, pauses,
// pull-downs and the Retry-After estimate.

// tatOp is one change of tat: an admission (tat = max(tat, at) + costNS)
// or a floor (tat = max(tat, at), costNS < 0) from a pause or pull-down.
// before is tat just before it, kept exact when an earlier change is
// refunded, so refunds in any order each replay from the right start.
type tatOp struct {
	at       int64
	costNS   int64
	before   int64
	refunded bool
}

// maxOps bounds the history kept for refunds.
const maxOps = 4096

// costNS converts units to the refill time they stand for, rounded up.
func (b *Budget) costNS(units float64) int64 {
	if units >= b.cfg.Capacity {
		return b.windowNS
	}
	return ceilNS(units / b.cfg.Capacity * float64(b.windowNS))
}

func ceilNS(f float64) int64 {
	if f <= 0 {
		return 0
	}
	return int64(math.Ceil(f))
}

// tokensLocked returns the units in the bucket at now; negative while the
// budget is paused beyond a full window.
func (b *Budget) tokensLocked(now int64) float64 {
	debt := max(b.tat, now) - now
	return b.cfg.Capacity * float64(b.windowNS-debt) / float64(b.windowNS)
}

// readyAtLocked returns when a call of costNS can go.
func (b *Budget) readyAtLocked(costNS, now int64) int64 {
	return max(now, b.tat+costNS-b.windowNS)
}

// logLocked records a change of tat, before tat changes, and returns its
// sequence number.
func (b *Budget) logLocked(op tatOp) uint64 {
	if len(b.ops) >= maxOps {
		n := copy(b.ops, b.ops[maxOps/2:])
		b.ops = b.ops[:n]
		b.opBase += maxOps / 2
	}
	op.before = b.tat
	b.ops = append(b.ops, op)
	return b.opBase + uint64(len(b.ops)) - 1
}

// floorLocked raises tat to at least t (a pause or pull-down).
func (b *Budget) floorLocked(t int64) {
	if t > b.tat {
		b.logLocked(tatOp{at: t, costNS: -1})
		b.tat = t
	}
}

// refundLocked gives back the units of the admission logged as op, of
// cost units for session s, admitted at at. It replays the bucket's
// history since the call without it, so the bucket ends exactly where it
// would be had the call never been admitted: never fuller than full (a
// replay starts from tat before the call and tat only counts from now),
// never below a pause or pull-down that came after it (their floors are
// replayed too), and the calls admitted meanwhile stay valid, since they
// met a stricter bucket. So the admissions that stand still keep the
// bucket's bound: no window admits more than the capacity plus its
// refill. The refunded op is marked, so a second refund of it does
// nothing. It reports false when the call is not in the history (kept for
// the last few thousand changes, and never across a SetConfig) or was
// refunded already; the call then stays counted.
//
// The client's and session's usage (their fair share) is undone too,
// unless it may have been forgotten since (Forget passed after the call),
// when there is nothing of this call left to undo.
func (b *Budget) refundLocked(op uint64, s *sess, cost float64, at, now int64) bool {
	if op < b.opBase || op-b.opBase >= uint64(len(b.ops)) {
		return false
	}
	i := int(op - b.opBase)
	if b.ops[i].refunded || b.ops[i].costNS < 0 {
		return false
	}
	b.ops[i].refunded = true
	tat := b.ops[i].before
	for k := i + 1; k < len(b.ops); k++ {
		o := &b.ops[k]
		o.before = tat
		switch {
		case o.refunded:
		case o.costNS < 0:
			tat = max(tat, o.at)
		default:
			tat = max(tat, o.at) + o.costNS
		}
	}
	b.tat = tat
	if c := s.c; c.key != Shared && now-at < int64(b.cfg.Forget) {
		c.used = math.Max(0, c.used-cost)
		s.used = math.Max(0, s.used-cost)
	}
	b.unitsSpent -= cost
	return true
}

// refund takes back a call admitted in the instant its caller hung up
// (Acquire): it counts as cancelled, never admitted.
func (b *Budget) refund(w *waiter) bool {
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	if w.state != stAdmitted || !b.refundLocked(w.adm.op, w.s, w.cost, w.adm.At.UnixNano(), now) {
		b.mu.Unlock()
		return false
	}
	w.state = stGone
	b.admitted--
	b.cancelled++
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
	return true
}

// Refund gives the units of an admitted call back to the bucket, and
// takes its usage off its client and session, for a call that failed on
// its way to the platform (platform_limit refunds a call that got no
// answer: the platform most likely never counted it). The bucket ends
// exactly where it would be had the call never been admitted, never
// fuller than full and never below a later pause or pull-down; calls
// waiting for room may go at once. The call stays in Stats.Admitted and
// is counted in Stats.Refunded; its units leave Stats.UnitsSpent.
//
// Refund reports whether it gave the units back: false for an admission
// of another budget or the zero Admission, a second refund of the same
// call (copies included), and a call whose history is gone (a few
// thousand later admissions, pauses and pull-downs, or a SetConfig since):
// such a call stays counted.
func (b *Budget) Refund(a Admission) bool {
	if a.b != b || a.s == nil {
		return false
	}
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	ok := b.refundLocked(a.op, a.s, a.Cost, a.At.UnixNano(), now)
	if ok {
		b.refunded++
		b.unitsRefunded += a.Cost
		b.dispatchLocked(now, &out)
	}
	b.mu.Unlock()
	run(out)
	return ok
}

// admitNow admits a call at once when nobody waits and the bucket has
// room: the common case, without a waiter, channel or timer.
func (b *Budget) admitNow(key Key, cost float64) (Admission, bool, error) {
	if math.IsNaN(cost) || math.IsInf(cost, 0) || cost < 0 {
		return Admission{}, false, ErrBadCost
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ready.Len() > 0 {
		return Admission{}, false, nil
	}
	now := b.clock.Now().UnixNano()
	cost = math.Min(cost, b.cfg.Capacity)
	costNS := b.costNS(cost)
	if b.readyAtLocked(costNS, now) > now {
		return Admission{}, false, nil
	}
	c, s := b.lookupLocked(key, now)
	op := b.logLocked(tatOp{at: now, costNS: costNS})
	b.tat = max(b.tat, now) + costNS
	if c.key != Shared {
		c.used += cost
		s.used += cost
	}
	c.last, s.last = now, now
	b.idle.MoveToBack(c.idle) // nobody waits: c is idle
	b.admitted++
	b.unitsSpent += cost
	at := time.Unix(0, now)
	return Admission{Client: c.key, Session: s.key, Cost: cost, Arrived: at, At: at, b: b, s: s, op: op}, true, nil
}

// Pause stops admissions until until (an upstream 429 with Retry-After):
// the bucket is empty at until and refills from there.
func (b *Budget) Pause(until time.Time) {
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	u := until.UnixNano()
	if u > now {
		b.floorLocked(u + b.windowNS)
		b.pausedUntil = max(b.pausedUntil, u)
	}
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
}

// PullDown lowers the bucket to the platform's own view: remaining units
// left now (negative: unknown) and resetIn, the time until the platform's
// bucket is full (negative: unknown; more than a window counts as one
// window, so a platform quota of another period cannot stall the budget
// beyond emptying it). It never raises the bucket.
func (b *Budget) PullDown(remaining float64, resetIn time.Duration) {
	var out []completion
	b.mu.Lock()
	now := b.clock.Now().UnixNano()
	if remaining >= 0 && !math.IsNaN(remaining) {
		debt := math.Max(0, b.cfg.Capacity-remaining)
		b.floorLocked(now + ceilNS(debt/b.cfg.Capacity*float64(b.windowNS)))
	}
	if resetIn > 0 {
		b.floorLocked(now + min(int64(resetIn), b.windowNS))
	}
	b.dispatchLocked(now, &out)
	b.mu.Unlock()
	run(out)
}

// estimateLocked estimates how long a call of cost units of client c
// would wait: the client's backlog plus this call, served at the client's
// fair share of the refill, no later than the whole backlog's drain time,
// plus any pause.
func (b *Budget) estimateLocked(c *client, cost float64, now int64) time.Duration {
	C := b.cfg.Capacity
	sumW := 0.0
	for _, r := range b.ready {
		sumW += r.weight(C)
	}
	wc := c.weight(C)
	if c.idx < 0 {
		sumW += wc
	}
	own := c.queuedU + cost
	need := math.Min(own*sumW/wc, b.queuedU+cost) - b.tokensLocked(now)
	ns := math.Max(0, need) / C * float64(b.windowNS)
	// The starvation bound caps it: one call per window.
	ns = math.Min(ns, float64(c.queued+1)*float64(b.windowNS))
	return time.Duration(ns)
}
