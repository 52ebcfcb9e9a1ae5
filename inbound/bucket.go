package inbound

import (
	"sync/atomic"
	"time"
)

// result is one layer's verdict on one request.
type result struct {
	unlimited bool
	ok        bool
	every     int64 // the refill time used, so an undo gives back exactly that
	burst     int
	wait      int64 // refused: ns until the request would pass
	debt      int64 // ns until the bucket is full again (after the request if ok)
}

var unlimitedResult = result{unlimited: true, ok: true}

// gcra judges one request of cost 1 at time now against a bucket whose
// theoretical arrival time is tat (the time at which it is full again; a
// tat at or before now is a full bucket). It returns the new tat and the
// verdict; a refused request leaves tat as it was.
func gcra(tat, now int64, l *Limit) (int64, result) {
	every := int64(l.Every)
	tau := every * int64(l.Burst)
	base := max(tat, now)
	if base-now > tau {
		// Only possible after the limit was lowered by a reload: owe at
		// most one full bucket under the new limit.
		base = now + tau
	}
	next := base + every
	r := result{every: every, burst: l.Burst}
	if debt := next - now; debt > tau {
		r.wait = debt - tau
		r.debt = base - now
		return tat, r
	}
	r.ok = true
	r.debt = next - now
	return next, r
}

// remaining is the number of requests the bucket holds after r.
func (r result) remaining() int {
	if r.unlimited {
		return int(^uint(0) >> 1)
	}
	if !r.ok {
		return 0
	}
	n := (r.every*int64(r.burst) - r.debt) / r.every
	return int(max(n, 0))
}

// Bucket is one token bucket without a key (the process layer, and a
// connector layer). It is lock-free: one compare-and-swap per request.
type Bucket struct {
	tat atomic.Int64
	lim atomic.Pointer[Limit]
}

// NewBucket returns a full bucket with limit l.
func NewBucket(l Limit) *Bucket {
	b := new(Bucket)
	b.SetLimit(l)
	return b
}

// SetLimit changes the limit in place; the bucket keeps its fill, so a
// config reload does not hand out a fresh burst.
func (b *Bucket) SetLimit(l Limit) { b.lim.Store(&l) }

// Limit returns the current limit.
func (b *Bucket) Limit() Limit {
	if l := b.lim.Load(); l != nil {
		return *l
	}
	return Limit{}
}

// Allow judges a single request against this bucket alone, counting it if
// it passes. Most callers want Zone.Allow, which judges all layers at once.
func (b *Bucket) Allow(now time.Time) bool { return b.reserve(now.UnixNano()).ok }

// Tokens returns the requests the bucket would let through at now.
func (b *Bucket) Tokens(now time.Time) int {
	r := b.peek(now.UnixNano())
	if r.unlimited {
		return r.remaining()
	}
	if !r.ok {
		return 0
	}
	return r.remaining() + 1
}

func (b *Bucket) reserve(now int64) result {
	l := b.lim.Load()
	if l == nil || l.Unlimited() {
		return unlimitedResult
	}
	for {
		tat := b.tat.Load()
		next, r := gcra(tat, now, l)
		if !r.ok || b.tat.CompareAndSwap(tat, next) {
			return r
		}
	}
}

func (b *Bucket) peek(now int64) result {
	l := b.lim.Load()
	if l == nil || l.Unlimited() {
		return unlimitedResult
	}
	_, r := gcra(b.tat.Load(), now, l)
	return r
}

// undo gives back a reservation of r: the bucket is as if the request had
// never come (requests in between are left counted).
func (b *Bucket) undo(r result) {
	if r.ok && !r.unlimited {
		b.tat.Add(-r.every)
	}
}
