package fairqueue

import (
	"math"
	"time"
)

// The bucket (GCRA in integer nanoseconds): costs, refunds, pauses,
// pull-downs and the Retry-After estimate.

// tatOp is one change of tat: an admission (tat = max(tat, at) + costNS)
// or a floor (tat = max(tat, at)) from a pause or pull-down.
type tatOp struct {
	at       int64
	costNS   int64
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

// logLocked records a change of tat and returns its sequence number.
func (b *Budget) logLocked(op tatOp) uint64 {
	if len(b.ops) >= maxOps {
		n := copy(b.ops, b.ops[maxOps/2:])
		b.ops = b.ops[:n]
		b.opBase += maxOps / 2
	}
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

// refund gives an admitted call's units back (the caller hung up before
// the call was sent). It replays the bucket's history since the call
// without it, so the bucket ends exactly where it would be had the call
// never been admitted; the calls admitted meanwhile stay valid, since they
// met a stricter bucket. It reports whether it could (the history is kept
// for the last few thousand changes); if not, the call stays counted.
func (b *Budget) refund(w *waiter) bool {
	var out []completion
	b.mu.Lock()
	if w.state != stAdmitted || w.op < b.opBase {
		b.mu.Unlock()
		return false
	}
	tat := w.tatBefore
	i := int(w.op - b.opBase)
	b.ops[i].refunded = true
	for _, op := range b.ops[i+1:] {
		switch {
		case op.refunded:
		case op.costNS < 0:
			tat = max(tat, op.at)
		default:
			tat = max(tat, op.at) + op.costNS
		}
	}
	b.tat = tat
	w.state = stGone
	if c := w.s.c; c.key != Shared {
		c.used = math.Max(0, c.used-w.cost)
		w.s.used = math.Max(0, w.s.used-w.cost)
	}
	b.admitted--
	b.unitsSpent -= w.cost
	b.cancelled++
	b.dispatchLocked(b.clock.Now().UnixNano(), &out)
	b.mu.Unlock()
	run(out)
	return true
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
	b.logLocked(tatOp{at: now, costNS: costNS})
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
	return Admission{Client: c.key, Session: s.key, Cost: cost, Arrived: at, At: at}, true, nil
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
