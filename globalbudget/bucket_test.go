package globalbudget

import (
	"context"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/fairqueue"
)

// A call dearer than the capacity is charged the capacity and goes when
// the global bucket is full.
func TestOversize(t *testing.T) {
	cl := newCluster(t, 2, fairqueue.Config{Capacity: 10, Window: 10 * time.Second})
	ctx := context.Background()
	if _, err := cl.bs[0].Acquire(ctx, fairqueue.Key{Client: "a"}, 1); err != nil {
		t.Fatal(err)
	}
	ch := async(ctx, cl.bs[1], fairqueue.Key{Client: "b"}, 100)
	waitFor(t, "queued", func() bool { return cl.bs[1].Stats().Waiting == 1 })
	cl.advance(900*time.Millisecond, 100*time.Millisecond)
	if _, ok := ready(ch); ok {
		t.Fatal("oversize call went before the bucket was full")
	}
	cl.advance(200*time.Millisecond, 100*time.Millisecond)
	g := <-ch
	if g.err != nil || g.adm.Cost != 10 || g.adm.At.Sub(t0) != time.Second {
		t.Fatalf("oversize: %+v %v, want cost 10 at +1s", g.adm, g.err)
	}
	// The clock is at +1.1s: the bucket was emptied at +1s.
	if av := cl.bs[0].Stats().Available; av > 0.1+1e-9 {
		t.Fatalf("available %v 100ms after the oversize call, want 0.1", av)
	}
}

// A refund gives the units back to the global bucket exactly, once, and
// only through the budget that admitted the call; a call waiting on
// another instance then goes.
func TestRefund(t *testing.T) {
	cl := newCluster(t, 2, fairqueue.Config{Capacity: 10, Window: 10 * time.Second})
	ctx := context.Background()
	var adms []fairqueue.Admission
	for i := 0; i < 10; i++ {
		a, err := cl.bs[0].Acquire(ctx, fairqueue.Key{Client: "a", Session: "s"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		adms = append(adms, a)
	}
	ch := async(ctx, cl.bs[1], fairqueue.Key{Client: "b"}, 1)
	waitFor(t, "queued", func() bool { return cl.bs[1].Stats().Waiting == 1 })
	if cl.bs[1].Refund(adms[3]) {
		t.Fatal("another instance's budget refunded the call")
	}
	if !cl.bs[0].Refund(adms[3]) {
		t.Fatal("refund refused")
	}
	if cl.bs[0].Refund(adms[3]) {
		t.Fatal("second refund accepted")
	}
	if u := cl.bs[1].Used("a"); u != 9 {
		t.Fatalf("usage after refund %v, want 9", u)
	}
	cl.advance(200*time.Millisecond, 100*time.Millisecond) // a poll, far less than a unit's refill
	g := <-ch
	if g.err != nil || g.adm.At.Sub(t0) > 200*time.Millisecond {
		t.Fatalf("waiting call after a refund: %+v %v", g.adm, g.err)
	}
	if st := cl.bs[0].Stats(); st.Refunded != 1 || st.UnitsSpent != 9 {
		t.Fatalf("stats %+v", st)
	}
	cl.checkTTLs()
}

// A platform's 429 with Retry-After pauses the global bucket (empty at
// the end of the pause); RateLimit-* pulls it down; both on every
// instance.
func TestPauseAndPullDown(t *testing.T) {
	cl := newCluster(t, 2, fairqueue.Config{Capacity: 10, Window: 10 * time.Second})
	ctx := context.Background()
	cl.bs[0].PullDown(2, -1)
	if av := cl.bs[1].Stats().Available; av != 2 {
		t.Fatalf("available on instance 2 after a pull-down to 2: %v", av)
	}
	cl.bs[0].PullDown(5, -1) // never raises
	if av := cl.bs[1].Stats().Available; av != 2 {
		t.Fatalf("a pull-down raised the bucket: %v", av)
	}
	until := cl.clock.Now().Add(5 * time.Second)
	cl.bs[0].Pause(until)
	st := cl.bs[1].Stats()
	if st.Available != 0 || !st.PausedUntil.Equal(until) {
		t.Fatalf("instance 2 during the pause: available %v, paused until %v", st.Available, st.PausedUntil)
	}
	ch := async(ctx, cl.bs[1], fairqueue.Key{Client: "b"}, 1)
	cl.advance(5900*time.Millisecond, 100*time.Millisecond)
	if _, ok := ready(ch); ok {
		t.Fatal("admitted during the pause or before one unit refilled after it")
	}
	cl.advance(300*time.Millisecond, 100*time.Millisecond)
	g := <-ch
	if g.err != nil || g.adm.At.Before(until.Add(time.Second)) {
		t.Fatalf("after the pause: %+v %v", g.adm, g.err)
	}
	cl.checkTTLs()
}

// A caller that hangs up while waiting leaves the queue, spends nothing,
// and its flow leaves Redis.
func TestHangUp(t *testing.T) {
	cl := newCluster(t, 1, fairqueue.Config{Capacity: 1, Window: 10 * time.Second})
	if _, err := cl.bs[0].Acquire(context.Background(), fairqueue.Key{Client: "a"}, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := async(ctx, cl.bs[0], fairqueue.Key{Client: "b"}, 1)
	waitFor(t, "queued", func() bool { return cl.bs[0].Stats().Waiting == 1 })
	cl.settle()
	cancel()
	if g := <-ch; g.err != context.Canceled {
		t.Fatalf("hang-up: %v", g.err)
	}
	cl.settle()
	if st := cl.bs[0].Stats(); st.Cancelled != 1 || st.UnitsSpent != 1 || st.Waiting != 0 {
		t.Fatalf("stats %+v", st)
	}
	waitFor(t, "the flow to leave Redis", func() bool {
		return cl.bs[0].store.Client().HLen(context.Background(), cl.bs[0].keys[2]).Val() == 0
	})
}

// A dead instance's waiting flows stop counting once its heartbeat
// lapses: they do not block the others.
func TestDeadInstanceFlowsLapse(t *testing.T) {
	cl := newCluster(t, 2, fairqueue.Config{Capacity: 1, Window: 100 * time.Millisecond})
	ctx := context.Background()
	if _, err := cl.bs[0].Acquire(ctx, fairqueue.Key{Client: "x"}, 1); err != nil {
		t.Fatal(err)
	}
	// Instance 1's call is first in line, then instance 1 dies: its
	// flow stays in Redis (Close leaves Redis as a crash would).
	dead := async(ctx, cl.bs[0], fairqueue.Key{Client: "a"}, 1)
	waitFor(t, "queued", func() bool { return cl.bs[0].Stats().Waiting == 1 })
	cl.settle()
	cl.clock.Advance(10 * time.Millisecond)
	cl.settle()
	lastBeat := cl.clock.Now()
	_ = cl.bs[0].Close()
	<-dead
	if n := cl.bs[1].store.Client().HLen(ctx, cl.bs[0].keys[2]).Val(); n != 1 {
		t.Fatalf("%d flows in Redis, want the dead instance's one", n)
	}
	cl.bs = cl.bs[1:]
	ch := async(ctx, cl.bs[0], fairqueue.Key{Client: "b"}, 1)
	var g got
	for step := 0; ; step++ {
		if r, ok := ready(ch); ok {
			g = r
			break
		}
		if step > 100 {
			t.Fatal("the live instance's call is blocked by a dead instance's flow")
		}
		cl.advance(50*time.Millisecond, 50*time.Millisecond)
	}
	hbExpiry := lastBeat.Add(3 * 200 * time.Millisecond)
	if g.err != nil || g.adm.At.After(hbExpiry.Add(200*time.Millisecond+50*time.Millisecond)) {
		t.Fatalf("live call: %+v %v; heartbeat expired at %v", g.adm, g.err, hbExpiry.Sub(t0))
	}
	t.Logf("live call admitted at +%v (the dead instance's heartbeat lapsed at +%v)", g.adm.At.Sub(t0), hbExpiry.Sub(t0))
}
