package fairqueue

import (
	"context"
	"strconv"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// benchWaiting measures the scheduler's cost per call with `sessions`
// sessions waiting: each iteration advances the fake clock by one unit's
// refill, which admits exactly one call, whose session queues a new one.
func benchWaiting(b *testing.B, sessions int, cfg Config) {
	clk := fakeclock.New(t0)
	bud, err := New(cfg, clk)
	if err != nil {
		b.Fatal(err)
	}
	// Empty the bucket first.
	if _, err := bud.Submit(Key{Client: "drain"}, cfg.Capacity, func(Admission, error) {}); err != nil {
		b.Fatal(err)
	}
	keys := make([]string, sessions)
	var submit func(k string)
	submit = func(k string) {
		_, _ = bud.Submit(Key{Client: k}, 1, func(a Admission, err error) { submit(k) })
	}
	for i := range keys {
		keys[i] = "app:" + strconv.Itoa(i)
		// Different usage, so the fair order is not the arrival order.
		setUsed(bud, keys[i], float64(i%97))
		submit(keys[i])
		submit(keys[i])
	}
	unit := cfg.Window / time.Duration(cfg.Capacity)
	before := bud.Stats().Admitted
	b.ResetTimer()
	for range b.N {
		clk.Advance(unit)
	}
	b.StopTimer()
	if got := bud.Stats().Admitted - before; got != uint64(b.N) {
		b.Fatalf("admitted %d calls in %d refills", got, b.N)
	}
	if w := bud.Stats().WaitingSessions; w != sessions {
		b.Fatalf("%d sessions waiting, want %d", w, sessions)
	}
}

// BenchmarkScheduler1000Overloaded: 1,000 sessions wait on OpenBesluitvorming's
// 60 units a minute, far more than fit in a window: every choice is
// "longest waiting first" after the deadline check.
func BenchmarkScheduler1000Overloaded(b *testing.B) {
	benchWaiting(b, 1000, Config{Capacity: 60, Window: time.Minute, MaxQueue: -1, MaxWait: -1})
}

// BenchmarkScheduler1000Fair: 1,000 sessions wait on a budget whose window is
// long enough that every deadline holds: every choice is the fair
// (virtual-time) one, after a deadline check that stops early.
func BenchmarkScheduler1000Fair(b *testing.B) {
	benchWaiting(b, 1000, Config{Capacity: 1_000_000, Window: 1_000_000 * time.Second, MaxQueue: -1, MaxWait: -1})
}

// BenchmarkAcquireRoom is the path of a call that finds room: no waiting.
func BenchmarkAcquireRoom(b *testing.B) {
	clk := fakeclock.New(t0)
	bud, _ := New(Config{Capacity: 1e12, Window: time.Hour, MaxQueue: -1, MaxWait: -1}, clk)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := bud.Acquire(ctx, Key{Client: "app:" + strconv.Itoa(i%64)}, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAcquireRoomParallel is the same from all cores at once.
func BenchmarkAcquireRoomParallel(b *testing.B) {
	bud, _ := New(Config{Capacity: 1e12, Window: time.Hour, MaxQueue: -1, MaxWait: -1}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if _, err := bud.Acquire(ctx, Key{Client: "app:" + strconv.Itoa(i%64)}, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBaselineXTimeRate is the side-by-side anchor: x/time/rate's
// Wait on a limiter with room (a single bucket, no sessions, no fairness).
func BenchmarkBaselineXTimeRate(b *testing.B) {
	lim := rate.NewLimiter(rate.Limit(1e12), 1e9)
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		if err := lim.WaitN(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
}
