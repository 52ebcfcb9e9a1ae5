package globalbudget

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/fairqueue"
)

// Degraded mode: while Redis does not answer, this instance keeps a
// conservative local share of the platform's limit, capacity ÷ Instances,
// in a fairqueue.Budget that starts EMPTY. Starting empty is what keeps
// the total exact across the switch: in any window that straddles it, the
// instances' local shares add at most their refill (capacity per window in
// all), on top of what the global bucket let through before, which the
// global bucket already bounded by capacity plus its refill.
//
// On rejoin the global bucket is charged what this instance spent locally
// in the last window, and floored at empty plus RejoinSkew × (n-1)/n of
// refill: the other instances may still be spending their local shares
// until their own store notices that Redis is back (at most RejoinSkew
// later), and the floor leaves room for exactly that. Local admissions
// that finish after the charge was computed are given back to the local
// share and go global instead, so none escapes the charge.

type fallback struct {
	budget  *fairqueue.Budget
	done    chan struct{} // closed on rejoin: local waiters go global
	charged bool          // the rejoin computed its charge
	since   time.Time
	spent   []spend // local admissions of the last window
	base    int     // index of spent[0] among all of them
	timer   clock.Timer
}

type spend struct {
	at    int64 // µs
	units float64
	gone  bool // refunded
}

// add records a local admission and returns its index for unspend.
func (fb *fallback) add(at, windowUS int64, units float64) int {
	drop := 0
	for drop < len(fb.spent) && fb.spent[drop].at <= at-windowUS {
		drop++
	}
	if drop > 0 {
		fb.spent = append(fb.spent[:0], fb.spent[drop:]...)
		fb.base += drop
	}
	fb.spent = append(fb.spent, spend{at: at, units: units})
	return fb.base + len(fb.spent) - 1
}

func (fb *fallback) unspend(i int) {
	if j := i - fb.base; j >= 0 && j < len(fb.spent) {
		fb.spent[j].gone = true
	}
}

// spentSince returns the units admitted locally after t (µs).
func (fb *fallback) spentSince(t int64) float64 {
	sum := 0.0
	for _, s := range fb.spent {
		if s.at > t && !s.gone {
			sum += s.units
		}
	}
	return sum
}

// degradeLocked switches to the local share (once): calls waiting for
// Redis move to it.
func (b *Budget) degradeLocked(cause error) {
	if b.fb != nil {
		return
	}
	select {
	case <-b.closed:
		return
	default:
	}
	share := b.shareConfig(b.cfg)
	lb, err := fairqueue.New(share, b.clock)
	if err != nil { // cannot happen: cfg was validated
		b.logger.Error("global budget: local share not created", zap.Error(err))
		return
	}
	lb.PullDown(0, -1) // start empty
	fb := &fallback{budget: lb, done: make(chan struct{}), since: b.clock.Now()}
	b.fb = fb
	b.degradations++
	b.stopTimerLocked()
	// Waiting calls move to the local share (each result channel has room
	// for its one result, so this never blocks under the lock).
	deliver(b.q.drainLocked(nil))
	b.armSelfProbeLocked(fb)
	b.logger.Warn("global budget: Redis unavailable, using this instance's local share (starting empty)",
		zap.String("platform", b.platform), zap.Float64("share_capacity", share.Capacity), zap.Error(cause))
}

// armSelfProbeLocked retries the rejoin every Poll: the store's rejoin
// hook covers an outage, this covers a decision that failed while the
// store stayed healthy (a script error).
func (b *Budget) armSelfProbeLocked(fb *fallback) {
	fb.timer = b.clock.AfterFunc(b.poll, func() {
		b.mu.Lock()
		if b.fb != fb {
			b.mu.Unlock()
			return
		}
		healthy := b.store.Healthy()
		if !healthy {
			b.armSelfProbeLocked(fb)
		}
		b.mu.Unlock()
		if healthy {
			go b.rejoin()
		}
	})
}

// rejoin charges the global bucket and goes global again (the store's
// OnRejoin hook; also the self-probe).
func (b *Budget) rejoin() {
	b.mu.Lock()
	fb := b.fb
	if fb == nil || fb.charged {
		b.mu.Unlock()
		return
	}
	fb.charged = true
	now := b.nowUS()
	W := b.windowUS()
	units := fb.spentSince(now - W)
	charge := b.costUS(units)
	n := int64(max(1, b.store.Instances()))
	floor := now + W + b.skew.Microseconds()*(n-1)/n
	b.mu.Unlock()

	err := b.runFloor(floor, 0, charge, b.me)

	b.mu.Lock()
	if err != nil || b.fb != fb {
		fb.charged = false
		if b.fb == fb {
			b.armSelfProbeLocked(fb)
		}
		b.mu.Unlock()
		b.logger.Warn("global budget: rejoin failed, staying on the local share", zap.String("platform", b.platform), zap.Error(err))
		return
	}
	b.fb = nil
	if fb.timer != nil {
		fb.timer.Stop()
	}
	b.rejoins++
	close(fb.done)
	b.mu.Unlock()
	b.logger.Info("global budget: Redis back, global again",
		zap.String("platform", b.platform), zap.Float64("charged_units", units))
	b.poke()
}

// acquireLocal waits in the local share. moved reports that the budget
// went global meanwhile and the call should go there instead (having
// spent nothing).
func (b *Budget) acquireLocal(ctx context.Context, fb *fallback, key fairqueue.Key, cost float64) (fairqueue.Admission, error, bool) {
	ctx2, cancel := context.WithCancel(ctx)
	stop := make(chan struct{})
	go func() {
		select {
		case <-fb.done:
			cancel()
		case <-stop:
		}
	}()
	inner, err := fb.budget.Acquire(ctx2, key, cost)
	close(stop)
	cancel()
	if err != nil {
		if ctx.Err() == nil && closed(fb.done) {
			return fairqueue.Admission{}, nil, true
		}
		b.mu.Lock()
		if ctx.Err() != nil {
			b.cancelled++
		} else {
			b.rejected++
		}
		b.mu.Unlock()
		return fairqueue.Admission{}, err, false
	}
	b.mu.Lock()
	if fb.charged {
		// The rejoin's charge is computed: this admission would escape it.
		b.mu.Unlock()
		if fb.budget.Refund(inner) {
			return fairqueue.Admission{}, nil, true
		}
		b.mu.Lock()
	}
	idx := fb.add(inner.At.UnixMicro(), b.windowUS(), inner.Cost)
	b.admitted++
	b.unitsSpent += inner.Cost
	b.localAdmitted++
	b.localUnits += inner.Cost
	b.mu.Unlock()
	adm := inner
	adm.Ref = &ref{b: b, fb: fb, inner: inner, spentAt: idx}
	return adm, nil, false
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
