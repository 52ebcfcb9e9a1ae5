// Package rolling turns cumulative counters (a cache's hits and lookups,
// a budget's wait histogram), which count since the process started, into
// figures over a recent span such as the last hour: it keeps readings of
// them, at most one per step, and subtracts the oldest reading inside the
// span from the newest. Memory is bounded: span/step readings per key.
package rolling

import (
	"sync"
	"time"
)

// Reading is one reading of a key's cumulative counters.
type Reading struct {
	At time.Time
	// Hits and Lookups are a cache's counts so far.
	Hits, Lookups int64
	// Wait is a wait histogram so far: the count of calls at or under
	// each bound (cumulative, as Prometheus keeps them); Bounds are the
	// bounds in seconds, ascending; Count counts every call, also those
	// above the last bound.
	Bounds []float64
	Wait   []uint64
	Count  uint64
}

// Delta is what happened between two readings.
type Delta struct {
	// Span is how long the delta covers (0: one reading only).
	Span          time.Duration
	Hits, Lookups int64
	Bounds        []float64
	Wait          []uint64
	Count         uint64
}

// Window keeps readings per key.
type Window struct {
	span, step time.Duration

	mu       sync.Mutex
	readings map[string][]Reading
}

// New returns a window over span that keeps a reading at most every step.
func New(span, step time.Duration) *Window {
	if step <= 0 || step > span {
		step = span
	}
	return &Window{span: span, step: step, readings: map[string][]Reading{}}
}

// Add records r for key: dropped when the newest kept reading is less
// than a step older, and readings older than the span go.
func (w *Window) Add(key string, r Reading) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rs := w.readings[key]
	if n := len(rs); n > 0 && r.At.Sub(rs[n-1].At) < w.step {
		return
	}
	rs = append(rs, r)
	cut := 0
	for cut < len(rs)-1 && r.At.Sub(rs[cut].At) > w.span {
		cut++
	}
	w.readings[key] = append(rs[:0:0], rs[cut:]...)
}

// Since returns what happened between the oldest kept reading of key
// inside the span before now.At and now (a fresh reading, not kept). A
// counter that went down (its store was made anew) counts from zero.
func (w *Window) Since(key string, now Reading) Delta {
	w.mu.Lock()
	var base *Reading
	for i := range w.readings[key] {
		r := w.readings[key][i]
		if now.At.Sub(r.At) <= w.span && !r.At.After(now.At) {
			base = &r
			break
		}
	}
	w.mu.Unlock()
	d := Delta{Bounds: now.Bounds, Hits: now.Hits, Lookups: now.Lookups, Count: now.Count, Wait: append([]uint64(nil), now.Wait...)}
	if base == nil {
		return Delta{Bounds: now.Bounds, Wait: make([]uint64, len(now.Wait))}
	}
	d.Span = now.At.Sub(base.At)
	if base.Lookups <= now.Lookups && base.Hits <= now.Hits {
		d.Hits -= base.Hits
		d.Lookups -= base.Lookups
	}
	if base.Count <= now.Count && len(base.Wait) == len(now.Wait) {
		d.Count -= base.Count
		for i := range d.Wait {
			if base.Wait[i] <= d.Wait[i] {
				d.Wait[i] -= base.Wait[i]
			}
		}
	}
	return d
}

// HitRatio is Hits/Lookups, or -1 without a lookup.
func (d Delta) HitRatio() float64 {
	if d.Lookups <= 0 {
		return -1
	}
	return float64(d.Hits) / float64(d.Lookups)
}

// Quantile estimates the q-quantile (0..1) of the waits in seconds, by
// linear interpolation inside the bucket that holds it (as Prometheus'
// histogram_quantile does); -1 without a call. A quantile above the last
// bound is the last bound.
func (d Delta) Quantile(q float64) float64 {
	if d.Count == 0 || len(d.Bounds) == 0 || len(d.Wait) != len(d.Bounds) {
		return -1
	}
	rank := q * float64(d.Count)
	lower, below := 0.0, uint64(0)
	for i, bound := range d.Bounds {
		cum := d.Wait[i]
		if float64(cum) >= rank && cum > below {
			return lower + (bound-lower)*(rank-float64(below))/float64(cum-below)
		}
		lower, below = bound, cum
	}
	return d.Bounds[len(d.Bounds)-1]
}
