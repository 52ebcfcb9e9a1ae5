//go:build figures

package globalbudget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// The figures of docs/benchmarks.md "Global budget (issue 13)", on the
// real Redis and the wall clock. They take minutes, so they run only with
// -tags figures:
//
//	go test -tags figures -run Figures -v -timeout 30m ./globalbudget/

func figures(t *testing.T) {
}

func realCluster(t *testing.T, n int, cfg fairqueue.Config) []*Budget {
	prefix := redistest.Prefix(t)
	var bs []*Budget
	for i := 0; i < n; i++ {
		s := redistest.Open(t, sharedstore.Options{Prefix: prefix, Instances: n})
		logger := zap.NewNop()
		if os.Getenv("GB_DEBUG") != "" && i == 1 {
			logger = zaptest.NewLogger(t)
		}
		b, err := New(Options{Platform: "obv", Store: s, Config: cfg, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close() })
		bs = append(bs, b)
	}
	return bs
}

// Session A floods through instance 1, session B asks one search (1 unit)
// through instance 2, at OpenBesluitvorming's real limit (60 units a
// minute).
func TestFiguresCrossInstanceWait(t *testing.T) {
	figures(t)
	bs := realCluster(t, 2, fairqueue.Config{Capacity: 60, Window: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_, _ = bs[0].Acquire(ctx, fairqueue.Key{Client: "addr:a", Session: "mcp:a"}, 1)
			}
		}()
	}
	for bs[0].Stats().Available > 0.5 {
		time.Sleep(10 * time.Millisecond)
	}
	// A real flood has gone on for a while: A has used more than one
	// budget (with A barely past one budget, B's one call may tie with
	// A's next and wait one more unit: the fair queue's own rule).
	if os.Getenv("GB_WARM") != "" {
		time.Sleep(time.Minute)
	}
	var waits []time.Duration
	for i := 0; i < 20; i++ {
		time.Sleep(time.Duration(rand.IntN(1000)) * time.Millisecond)
		start := time.Now()
		_, err := bs[1].Acquire(ctx, fairqueue.Key{Client: fmt.Sprintf("addr:b%d", i), Session: "mcp:b"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, time.Since(start))
		if os.Getenv("GB_DEBUG") != "" {
			t.Logf("wait %v used A %v", time.Since(start), bs[1].Used("addr:a"))
		}
	}
	cancel()
	wg.Wait()
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	t.Logf("cross-instance wait, 20 calls of B while A floods (200 in flight): median %v, p95 %v, max %v",
		waits[10].Round(time.Millisecond), waits[18].Round(time.Millisecond), waits[19].Round(time.Millisecond))
}

// 3 instances × 50 sessions flood, calls spread at random, on the wall
// clock with OpenBesluitvorming's capacity and a window scaled 10× down
// (60 units per 6 s): units over the bound in any interval, and budget
// use.
func TestFiguresFloodThreeInstances(t *testing.T) {
	figures(t)
	C, W := 60.0, 6*time.Second
	dur := 2 * time.Minute
	bs := realCluster(t, 3, fairqueue.Config{Capacity: C, Window: W})
	var led ledger
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	costs := []float64{1, 1, 1, 0.125, 2, 5}
	for s := 0; s < 150; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(s), 1))
			for ctx.Err() == nil {
				b := bs[r.IntN(3)]
				a, err := b.Acquire(ctx, fairqueue.Key{Client: fmt.Sprintf("addr:%d", s%10), Session: fmt.Sprintf("mcp:%d", s)}, costs[r.IntN(len(costs))])
				if err == nil {
					led.add(a.At, a.Cost)
				}
			}
		}(s)
	}
	wg.Wait()
	el := time.Since(start)
	ex, win := led.over(C, W)
	t.Logf("flood 3×50 sessions for %v: %.1f units admitted, possible %.1f, use %.1f%%, excess %.3f units, max %.2f units in one window",
		el.Round(time.Second), led.total(), C+C*el.Seconds()/W.Seconds(), 100*led.total()/(C+C*el.Seconds()/W.Seconds()), ex, win)
	var dec uint64
	var dt time.Duration
	for _, b := range bs {
		f := b.Figures()
		dec += f.Decisions
		dt += f.DecisionTime
	}
	t.Logf("decisions %d, mean round trip %v", dec, (dt / time.Duration(max(1, dec))).Round(time.Microsecond))
}

// The cost of one decision (one EVALSHA round trip) with k waiting flows
// of other clients registered.
func TestFiguresDecisionCost(t *testing.T) {
	figures(t)
	for _, k := range []int{0, 10, 100, 1000} {
		bs := realCluster(t, 2, fairqueue.Config{Capacity: 1e9, Window: time.Hour, MaxQueue: -1})
		// Instance 2's k flows wait behind a paused bucket... of their
		// own: register them directly.
		var ups []update
		for i := 0; i < k; i++ {
			ups = append(ups, update{id: fmt.Sprintf("%s:%d", bs[1].me, i), client: fmt.Sprintf("addr:%d", i%500), sess: fmt.Sprint(i), cost: 1, next: -1})
		}
		now := time.Now().UnixMicro()
		bs[1].Pause(time.Now().Add(time.Hour))
		for i := 0; i < len(ups); i += maxBatch {
			if _, err := bs[1].decide(now, ups[i:min(len(ups), i+maxBatch)]); err != nil {
				t.Fatal(err)
			}
		}
		const calls = 300
		start := time.Now()
		for i := 0; i < calls; i++ {
			if _, err := bs[1].decide(time.Now().UnixMicro(), nil); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("decision with %4d waiting flows: %v per script call (round trip)", k, (time.Since(start) / calls).Round(time.Microsecond))
	}
}
