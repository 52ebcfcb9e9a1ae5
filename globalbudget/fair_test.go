package globalbudget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/fairqueue"
)

// A hostile flood through instance 1 (thousands of made-up session names,
// thousands of calls in flight) against one honest session's call through
// instance 2, at OpenBesluitvorming's limit: the honest call goes within
// one refill window (in fact at the next unit), and the honest session
// then gets at least its fair share.
func TestFloodVsHonestAcrossInstances(t *testing.T) {
	C, W := 60.0, time.Minute
	cl := newCluster(t, 2, fairqueue.Config{Capacity: C, Window: W})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var flooded, refused atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 3000; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := cl.bs[0].Acquire(ctx, fairqueue.Key{Client: "addr:6.6.6.6", Session: fmt.Sprintf("made-up-%d", i)}, 1)
			var rej *fairqueue.Rejection
			switch {
			case err == nil:
				flooded.Add(1)
			case errors.As(err, &rej):
				refused.Add(1)
			}
		}(i)
	}
	waitFor(t, "the flood to drain the bucket and fill the queue", func() bool {
		st := cl.bs[0].Stats()
		return flooded.Load() == 60 && st.Waiting+int(refused.Load()) == 3000-60
	})
	cl.settle()
	if st := cl.bs[0].Stats(); st.Sessions > fairqueue.DefaultMaxSessions+1 {
		t.Fatalf("made-up names grew memory: %d sessions remembered", st.Sessions)
	}
	honest := fairqueue.Key{Client: "addr:192.0.2.7", Session: "mcp:honest"}
	ch := async(ctx, cl.bs[1], honest, 1)
	var g got
	for step := 0; ; step++ {
		if r, ok := ready(ch); ok {
			g = r
			break
		}
		if step > 700 {
			t.Fatal("honest call not admitted within one window")
		}
		cl.advance(100*time.Millisecond, 100*time.Millisecond)
	}
	if g.err != nil {
		t.Fatal(g.err)
	}
	if g.adm.Wait > W {
		t.Fatalf("honest call waited %v, more than one window", g.adm.Wait)
	}
	t.Logf("honest call waited %v behind a flood of %d calls in flight", g.adm.Wait, 3000)

	// Its share: the honest session asks again and again, one call at a
	// time, for two windows.
	before := flooded.Load()
	honestUnits := 1
	end := cl.clock.Now().Add(2 * W)
	ch = async(ctx, cl.bs[1], honest, 1)
	for cl.clock.Now().Before(end) {
		cl.advance(100*time.Millisecond, 100*time.Millisecond)
		if r, ok := ready(ch); ok {
			if r.err != nil {
				t.Fatal(r.err)
			}
			honestUnits++
			ch = async(ctx, cl.bs[1], honest, 1)
		}
	}
	flood := flooded.Load() - before
	share := float64(honestUnits) / float64(honestUnits+int(flood))
	t.Logf("over two windows: honest %d units, flood %d units (honest share %.0f%%)", honestUnits, flood, 100*share)
	if share < 0.5 {
		t.Fatalf("honest share %.2f, want at least half (its weight is at least the flood's)", share)
	}
	cancel()
	wg.Wait()
	cl.checkTTLs()
}

// Usage is global: a session heavy on instance 1 is heavy on instance 2,
// so there it gets the smaller share against a new client.
func TestUsageIsGlobal(t *testing.T) {
	C, W := 30.0, 30*time.Second
	cl := newCluster(t, 2, fairqueue.Config{Capacity: C, Window: W})
	ctx := context.Background()
	heavy := fairqueue.Key{Client: "addr:h", Session: "mcp:h"}
	for i := 0; i < 30; i++ {
		if _, err := cl.bs[0].Acquire(ctx, heavy, 1); err != nil {
			t.Fatal(err)
		}
	}
	if u, s := cl.bs[1].Used("addr:h"), cl.bs[1].SessionUsed(heavy); u != 30 || s != 30 {
		t.Fatalf("instance 2 sees usage %v (session %v), want 30", u, s)
	}
	var hs, ns []chan got
	for i := 0; i < 10; i++ {
		hs = append(hs, async(ctx, cl.bs[1], heavy, 1))
		ns = append(ns, async(ctx, cl.bs[1], fairqueue.Key{Client: "addr:n", Session: "mcp:n"}, 1))
	}
	waitFor(t, "20 calls queued", func() bool { return cl.bs[1].Stats().Waiting == 20 })
	cl.advance(12*time.Second, 100*time.Millisecond) // 12 units of refill
	count := func(chs []chan got) (n int) {
		for _, ch := range chs {
			select {
			case g := <-ch:
				if g.err == nil {
					n++
				}
				ch <- g
			default:
			}
		}
		return n
	}
	h, n := count(hs), count(ns)
	t.Logf("after 12 units: heavy %d, new %d", h, n)
	if h+n < 11 || n <= h || n < 7 {
		t.Fatalf("heavy %d, new %d: the new client should get about 2/3", h, n)
	}
	cl.advance(30*time.Second, time.Second)
	cl.checkTTLs()
}
