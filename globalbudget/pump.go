package globalbudget

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// The pump: one goroutine per budget runs every decision of this
// instance, one script call at a time, when something changed locally
// (a call arrived or left), when a notice says one of our flows is next,
// at the time the script said our best flow will be ready, and every Poll
// while we have waiting calls (heartbeat; a lost notice).

// poke asks the pump for a decision round.
func (b *Budget) poke() {
	b.mu.Lock()
	b.busy = true
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

func (b *Budget) pump() {
	defer b.wg.Done()
	for {
		select {
		case <-b.closed:
			return
		case <-b.kick:
		}
		b.round()
		b.mu.Lock()
		if len(b.kick) == 0 {
			b.busy = false
		}
		b.mu.Unlock()
	}
}

// round runs decisions until none admits anything for this instance.
func (b *Budget) round() {
	for i := 0; ; i++ {
		if i == 64 { // let the other goroutines in; continue next round
			b.poke()
			return
		}
		b.mu.Lock()
		if b.fb != nil {
			b.mu.Unlock()
			return
		}
		ups := b.q.collectLocked()
		if len(ups) == 0 && len(b.q.flows) == 0 {
			b.stopTimerLocked()
			b.mu.Unlock()
			return
		}
		now := b.nowUS()
		b.mu.Unlock()

		res, err := b.decide(now, ups)
		if err != nil {
			b.mu.Lock()
			b.degradeLocked(err)
			b.mu.Unlock()
			return
		}
		again := b.apply(res, now)
		if !again {
			return
		}
	}
}

// decision is the script's answer.
type decision struct {
	admitted      string // flow id, "" when nothing was admitted
	cost          float64
	seq           int64
	gen           string
	used, sused   float64
	bestInst      string
	bestID        string
	readyAt       int64
	tat           int64
	globalWaiting int
	mine          int // flows of this instance that Redis holds
}

func (b *Budget) decide(now int64, ups []update) (decision, error) {
	b.mu.Lock()
	C, W, forget := b.cfg.Capacity, b.windowUS(), b.forgetUS()
	b.mu.Unlock()
	hb := now + 3*b.poll.Microseconds()
	args := []any{now, b.me, hb, C, W, forget, b.uprefix, b.channel, maxOps, b.ttlExtraUS()}
	var dels []string
	n := 0
	for _, u := range ups {
		if !u.del {
			n++
		}
	}
	args = append(args, n)
	for _, u := range ups {
		if u.del {
			dels = append(dels, u.id)
			continue
		}
		args = append(args, u.id, u.client, u.sess, u.cost, u.next)
	}
	args = append(args, len(dels))
	for _, id := range dels {
		args = append(args, id)
	}
	var vals []string
	start := time.Now()
	err := b.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		vals, err = decideScript.Run(ctx, c, b.keys, args...).StringSlice()
		return err
	})
	took := time.Since(start)
	if err != nil {
		if !sharedstore.Trouble(err) {
			// A script error is a bug, not an outage; still, no call may
			// fail because of it: the local share serves.
			b.logger.Error("global budget: decision script failed", zap.String("platform", b.platform), zap.Error(err))
		}
		return decision{}, err
	}
	var d decision
	d.admitted = vals[0]
	d.cost, _ = strconv.ParseFloat(vals[1], 64)
	d.seq, _ = strconv.ParseInt(vals[2], 10, 64)
	d.gen = vals[3]
	d.used, _ = strconv.ParseFloat(vals[4], 64)
	d.sused, _ = strconv.ParseFloat(vals[5], 64)
	d.bestInst = vals[6]
	d.bestID = vals[7]
	d.readyAt, _ = strconv.ParseInt(vals[8], 10, 64)
	d.tat, _ = strconv.ParseInt(vals[9], 10, 64)
	d.globalWaiting, _ = strconv.Atoi(vals[10])
	d.mine, _ = strconv.Atoi(vals[11])
	b.mu.Lock()
	b.decisions++
	b.decisionTime += took
	b.mu.Unlock()
	return d, nil
}

// apply hands an admission to its call and arms the next attempt. It
// reports whether to decide again at once.
func (b *Budget) apply(d decision, now int64) bool {
	if ce := b.logger.Check(zap.DebugLevel, "global budget: decision"); ce != nil {
		ce.Write(zap.String("platform", b.platform), zap.String("admitted", d.admitted), zap.String("best", d.bestID),
			zap.Int64("ready_in_us", d.readyAt-now), zap.Int64("tat_in_us", d.tat-now), zap.Int("waiting_flows", d.globalWaiting))
	}
	b.mu.Lock()
	b.lastTat = d.tat
	b.globalWaiting = d.globalWaiting
	var out []completion
	var refund *fairqueue.Admission
	again := false
	if d.admitted != "" {
		again = true
		f := b.q.byID[d.admitted]
		ref := &ref{b: b, gen: d.gen, seq: d.seq, atUS: now}
		if f == nil || len(f.q) == 0 || math.Abs(f.q[0].cost-d.cost) > 1e-9 {
			// The call it was granted for left meanwhile (a hang-up): the
			// units go back, exactly.
			client, sess := fairqueue.Shared, "" // unknown: no usage to take off
			if f != nil {
				client, sess = f.client, f.session
				b.q.markDirty(f)
			}
			refund = &fairqueue.Admission{Client: client, Session: sess, Cost: d.cost, Ref: ref}
		} else {
			w := b.q.popLocked(f)
			at := time.UnixMicro(now)
			arrived := time.UnixMicro(w.arrived)
			adm := fairqueue.Admission{Client: f.client, Session: f.session, Cost: d.cost,
				Arrived: arrived, At: at, Wait: at.Sub(arrived), Ref: ref}
			b.admitted++
			b.unitsSpent += d.cost
			if f.client != fairqueue.Shared {
				b.q.useLocked(f.client, f.session, d.used, d.sused, now)
			}
			out = append(out, completion{w, result{adm: adm}})
		}
	}
	// Redis dropped some of our flows (our heartbeat lapsed while we
	// waited, as another instance saw it): register them all again.
	registered := 0
	for _, f := range b.q.flows {
		if f.registered {
			registered++
		}
	}
	if registered != d.mine && len(b.q.dirty) == 0 {
		for _, f := range b.q.flows {
			f.registered = false
			b.q.markDirty(f)
		}
		again = true
	}
	// Ask again when our best flow is ready, and within one Poll anyway
	// while we have waiting calls (the heartbeat; a lost notice).
	switch {
	case d.bestInst == b.me && d.readyAt <= now:
		again = true
	case len(b.q.flows) > 0:
		at := now + b.poll.Microseconds()
		if d.bestInst == b.me {
			at = min(at, d.readyAt)
		}
		b.setTimerLocked(at)
	default:
		b.stopTimerLocked()
	}
	b.mu.Unlock()
	deliver(out)
	if refund != nil {
		b.refundAdm(*refund)
	}
	return again
}

// notice is a hint from another instance's decision: "<instance>
// <readyAt µs>" names the instance whose flow is next.
func (b *Budget) notice(payload string) {
	inst, at, ok := strings.Cut(payload, " ")
	if !ok || inst != b.me {
		return
	}
	t, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return
	}
	if t <= b.nowUS() {
		b.poke()
		return
	}
	b.mu.Lock()
	b.setTimerLocked(t)
	b.mu.Unlock()
}

// setTimerLocked arms the next attempt at at (µs), keeping an earlier one.
func (b *Budget) setTimerLocked(at int64) {
	if b.timer != nil && b.timerAt <= at && b.timerAt > b.nowUS() {
		return
	}
	b.stopTimerLocked()
	b.timerAt = at
	d := time.Duration(at-b.nowUS()) * time.Microsecond
	b.timer = b.clock.AfterFunc(max(d, 0), func() {
		b.mu.Lock()
		b.timer, b.timerAt = nil, 0
		b.mu.Unlock()
		b.poke()
	})
}

func (b *Budget) stopTimerLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer, b.timerAt = nil, 0
	}
}
