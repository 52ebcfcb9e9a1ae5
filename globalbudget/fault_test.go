package globalbudget

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/redistest"
)

// Redis is cut off mid-flood: every instance falls back to its local
// share, which starts empty, so the total stays within the platform's
// bound across the switch; calls keep being answered; when Redis is back
// the instances rejoin by themselves, charge what they spent, and the
// bound still holds.
func TestRedisCutMidFlood(t *testing.T) {
	const n = 3
	C, W := 12.0, time.Second
	proxy := redistest.NewProxy(t)
	cl := newCluster(t, n, fairqueue.Config{Capacity: C, Window: W}, proxy.URL(), proxy.URL(), proxy.URL())
	var led ledger
	var admitted, failed atomic.Int64
	var lastErr atomic.Value
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	costs := []float64{1, 0.5, 2, 3}
	for i := 0; i < n; i++ {
		for g := 0; g < 6; g++ {
			wg.Add(1)
			go func(b *Budget, seed uint64) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, 3))
				for ctx.Err() == nil {
					key := fairqueue.Key{Client: fmt.Sprintf("addr:%d", r.IntN(5)), Session: fmt.Sprintf("s%d", r.IntN(3))}
					a, err := b.Acquire(ctx, key, costs[r.IntN(len(costs))])
					var rej *fairqueue.Rejection
					switch {
					case err == nil:
						led.add(a.At, a.Cost)
						admitted.Add(1)
					case errors.Is(err, context.Canceled) || errors.As(err, &rej):
					default:
						failed.Add(1)
						lastErr.Store(err)
					}
				}
			}(cl.bs[i], uint64(i*10+g))
		}
	}
	runUntil := func(what string, more int64) {
		target := admitted.Load() + more
		for step := 0; admitted.Load() < target; step++ {
			if step > 4000 {
				t.Fatalf("%s: only %d admissions", what, admitted.Load())
			}
			cl.advance(20*time.Millisecond, 20*time.Millisecond)
		}
	}
	runUntil("before the cut", 60)
	proxy.Cut()
	cutAt := cl.clock.Now()
	runUntil("during the cut", 60)
	for _, b := range cl.bs {
		if f := b.Figures(); f.Mode != "fallback" || f.LocalAdmitted == 0 {
			t.Fatalf("during the cut: %+v", f)
		}
		if st := b.Stats(); st.Mode != "fallback" {
			t.Fatalf("stats mode %q", st.Mode)
		}
	}
	// The instances' local shares together: about C per window, never
	// more than their refill since the cut.
	proxy.Restore()
	restoredAt := cl.clock.Now()
	waitFor(t, "every instance to rejoin", func() bool {
		cl.clock.Advance(time.Millisecond)
		for _, b := range cl.bs {
			if b.Mode() != "global" {
				return false
			}
		}
		return true
	})
	runUntil("after the rejoin", 60)
	cancel()
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Fatalf("%d calls failed (last: %v): none may fail because Redis did", f, lastErr.Load())
	}
	ex, win := led.over(C, W)
	if ex > 0 {
		t.Fatalf("over the bound by %.3f units (max %.2f in one window)", ex, win)
	}
	for _, b := range cl.bs {
		f := b.Figures()
		if f.Degradations != 1 || f.Rejoins != 1 {
			t.Fatalf("figures %+v", f)
		}
	}
	el := cl.clock.Now().Sub(t0)
	t.Logf("cut at +%v for %v (fake), %d admissions, %.1f units, use %.1f%%, max %.2f in one window, excess %v",
		cutAt.Sub(t0), restoredAt.Sub(cutAt), admitted.Load(), led.total(), 100*led.total()/(C+C*el.Seconds()/W.Seconds()), win, ex)
	cl.checkTTLs()
}
