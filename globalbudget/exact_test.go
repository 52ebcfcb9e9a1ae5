package globalbudget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/fairqueue"
)

// Several instances, many goroutines each, random costs, clients,
// sessions, refunds and a pause: the admissions of all instances together
// never exceed the platform's bound in any interval.
func TestExactUnderConcurrency(t *testing.T) {
	const n, perInstance, target = 3, 8, 250
	C, W := 10.0, time.Second
	cl := newCluster(t, n, fairqueue.Config{Capacity: C, Window: W})
	var led ledger
	var admitted atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	costs := []float64{1, 0.125, 2, 5, 15}
	for i := 0; i < n; i++ {
		for g := 0; g < perInstance; g++ {
			wg.Add(1)
			go func(b *Budget, seed uint64) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, 7))
				for ctx.Err() == nil {
					key := fairqueue.Key{Client: fmt.Sprintf("addr:%d", r.IntN(6)), Session: fmt.Sprintf("s%d", r.IntN(4))}
					a, err := b.Acquire(ctx, key, costs[r.IntN(len(costs))])
					if err != nil {
						continue
					}
					led.add(a.At, a.Cost)
					if r.IntN(10) == 0 && b.Refund(a) {
						led.remove(a.At, a.Cost)
					}
					admitted.Add(1)
				}
			}(cl.bs[i], uint64(i*100+g))
		}
	}
	for step := 0; admitted.Load() < target; step++ {
		if step == 40 {
			cl.bs[1].Pause(cl.clock.Now().Add(700 * time.Millisecond))
		}
		if step == 80 {
			cl.bs[2].PullDown(1, -1)
		}
		if step > 20000 {
			cl.dump(t)
			t.Fatalf("only %d admissions", admitted.Load())
		}
		cl.advance(50*time.Millisecond, 50*time.Millisecond)
	}
	cancel()
	wg.Wait()
	ex, win := led.over(C, W)
	if ex > 0 {
		t.Fatalf("over the bound by %.3f units (max %.2f in one window)", ex, win)
	}
	for _, b := range cl.bs {
		if b.Mode() != "global" {
			t.Fatalf("instance fell back: %+v", b.Figures())
		}
	}
	el := cl.clock.Now().Sub(t0)
	t.Logf("elapsed %v, use %.1f%%", el, 100*led.total()/(C+C*el.Seconds()/W.Seconds()))
	t.Logf("%d admissions, %.2f units, max %.2f units in one window, excess %v", admitted.Load(), led.total(), win, ex)
}
