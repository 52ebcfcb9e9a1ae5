package rolling

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestHitRatioOverTheSpan(t *testing.T) {
	w := New(time.Hour, time.Minute)
	// Before the hour: 100 lookups, all misses.
	w.Add("obv", Reading{At: t0, Hits: 0, Lookups: 100})
	w.Add("obv", Reading{At: t0.Add(30 * time.Minute), Hits: 10, Lookups: 120})
	// A reading within a step of the last one is dropped.
	w.Add("obv", Reading{At: t0.Add(30*time.Minute + time.Second), Hits: 11, Lookups: 121})
	now := Reading{At: t0.Add(90 * time.Minute), Hits: 40, Lookups: 160}
	d := w.Since("obv", now)
	if d.Hits != 30 || d.Lookups != 40 || d.Span != time.Hour {
		t.Fatalf("delta %+v, want 30 hits of 40 lookups over 1h", d)
	}
	if r := d.HitRatio(); r != 0.75 {
		t.Errorf("ratio %v", r)
	}
	if got := len(w.readings["obv"]); got != 2 {
		t.Errorf("kept %d readings", got)
	}
	if r := w.Since("none", now).HitRatio(); r != -1 {
		t.Errorf("no reading: ratio %v, want -1", r)
	}
}

// Readings are bounded to span/step per key.
func TestBounded(t *testing.T) {
	w := New(time.Hour, time.Minute)
	for i := range 1000 {
		w.Add("k", Reading{At: t0.Add(time.Duration(i) * time.Minute), Lookups: int64(i)})
	}
	if n := len(w.readings["k"]); n > 61 {
		t.Errorf("kept %d readings", n)
	}
}

// A store made anew (counters back at zero) counts from zero.
func TestCounterReset(t *testing.T) {
	w := New(time.Hour, time.Minute)
	w.Add("k", Reading{At: t0, Hits: 50, Lookups: 100})
	d := w.Since("k", Reading{At: t0.Add(time.Minute), Hits: 1, Lookups: 2})
	if d.Hits != 1 || d.Lookups != 2 {
		t.Errorf("after a reset: %+v", d)
	}
}

func TestQuantile(t *testing.T) {
	bounds := []float64{0.001, 0.01, 0.1, 1}
	w := New(time.Hour, time.Minute)
	w.Add("obv", Reading{At: t0, Bounds: bounds, Wait: []uint64{5, 5, 5, 5}, Count: 5})
	// Since then: 90 calls at <=1 ms, 10 between 0.1 s and 1 s.
	d := w.Since("obv", Reading{At: t0.Add(time.Minute), Bounds: bounds, Wait: []uint64{95, 95, 95, 105}, Count: 105})
	if d.Count != 100 {
		t.Fatalf("count %d", d.Count)
	}
	if p50 := d.Quantile(0.5); math.Abs(p50-0.001*50/90) > 1e-9 {
		t.Errorf("p50 %v", p50)
	}
	if p95 := d.Quantile(0.95); math.Abs(p95-(0.1+0.9*5/10)) > 1e-9 {
		t.Errorf("p95 %v", p95)
	}
	// Above the last bound: the last bound.
	d = Delta{Bounds: bounds, Wait: []uint64{0, 0, 0, 0}, Count: 3}
	if q := d.Quantile(0.5); q != 1 {
		t.Errorf("overflow quantile %v", q)
	}
	if q := (Delta{Bounds: bounds, Wait: make([]uint64, 4)}).Quantile(0.5); q != -1 {
		t.Errorf("no calls: %v", q)
	}
}
