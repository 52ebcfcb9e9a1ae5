package fairqueue

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// obvConfig is OpenBesluitvorming's limit: 60 units, refilled in a minute.
func obvConfig() Config {
	return Config{Capacity: 60, Window: time.Minute, MaxQueue: -1, MaxWait: -1}
}

func newBudget(t testing.TB, cfg Config) (*Budget, *fakeclock.Clock) {
	t.Helper()
	clk := fakeclock.New(t0)
	b, err := New(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	return b, clk
}

// rec collects the outcomes of Submit calls.
type rec struct {
	adms []Admission
	errs []error
}

func (r *rec) submit(t testing.TB, b *Budget, key string, cost float64) func() bool {
	t.Helper()
	cancel, err := b.Submit(ck(key), cost, func(a Admission, err error) {
		if err != nil {
			r.errs = append(r.errs, err)
			return
		}
		r.adms = append(r.adms, a)
	})
	if err != nil {
		t.Fatal(err)
	}
	return cancel
}

// ck reads a test's key: "client" or "client/session".
func ck(s string) Key {
	c, sess, _ := strings.Cut(s, "/")
	return Key{Client: c, Session: sess}
}

// of names an admission's key as ck reads it: "client/session" when key
// names a session, else the client.
func of(a Admission, key string) string {
	if strings.Contains(key, "/") {
		return Key{a.Client, a.Session}.String()
	}
	return a.Client
}

// setUsed gives a client (and its session) a usage history, as if it had
// spent used units just now.
func setUsed(b *Budget, key string, used float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, s := b.lookupLocked(ck(key), b.clock.Now().UnixNano())
	c.used, s.used = used, used
}

func (r *rec) count(key string) (n int, units float64) {
	for _, a := range r.adms {
		if of(a, key) == key {
			n++
			units += a.Cost
		}
	}
	return n, units
}

func TestRoomMeansNoWait(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	for range 60 {
		r.submit(t, b, "app:a", 1)
	}
	if len(r.adms) != 60 {
		t.Fatalf("admitted %d of 60 calls with a full bucket", len(r.adms))
	}
	for _, a := range r.adms {
		if a.Wait != 0 {
			t.Fatalf("call waited %v with room in the bucket", a.Wait)
		}
	}
	r.submit(t, b, "app:a", 1)
	if len(r.adms) != 60 {
		t.Fatal("61st call went with an empty bucket")
	}
	clk.Advance(999 * time.Millisecond)
	if len(r.adms) != 60 {
		t.Fatal("61st call went before one unit refilled")
	}
	clk.Advance(time.Millisecond)
	if len(r.adms) != 61 || r.adms[60].Wait != time.Second {
		t.Fatalf("61st call: admitted %d, wait %v; want a wait of exactly 1s", len(r.adms), r.adms[len(r.adms)-1].Wait)
	}
}

func TestSingleSessionGetsEverything(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	for range 300 {
		r.submit(t, b, "app:a", 1)
	}
	clk.Advance(240 * time.Second)
	// 60 at once, then one a second: the budget never idles while one
	// session waits.
	if got := len(r.adms); got != 300 {
		t.Fatalf("admitted %d calls in 240s; want 60 + 240 = 300", got)
	}
}

func TestOrderWithinSession(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	costs := []float64{5, 0.125, 1, 70, 2, 0.125, 5, 1}
	for range 20 {
		for _, c := range costs {
			r.submit(t, b, "app:a", c)
			r.submit(t, b, "app:b", c)
		}
	}
	clk.Advance(2 * time.Hour)
	var seqA []float64
	for _, a := range r.adms {
		if a.Client == "app:a" {
			seqA = append(seqA, a.Cost)
		}
	}
	if len(seqA) != 20*len(costs) {
		t.Fatalf("admitted %d calls of a", len(seqA))
	}
	for i, c := range seqA {
		want := math.Min(costs[i%len(costs)], 60)
		if c != want {
			t.Fatalf("call %d of session a cost %v, want %v: order not kept", i, c, want)
		}
	}
	for i := 1; i < len(r.adms); i++ {
		if r.adms[i].At.Before(r.adms[i-1].At) {
			t.Fatal("admissions out of time order")
		}
	}
}

func TestEqualUsageEqualShare(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	clk.Advance(0)
	for range 100 {
		r.submit(t, b, "app:a", 1)
		r.submit(t, b, "app:b", 1)
		r.submit(t, b, "app:c", 1)
	}
	clk.Advance(90 * time.Second)
	na, _ := r.count("app:a")
	nb, _ := r.count("app:b")
	nc, _ := r.count("app:c")
	if max(na, nb, nc)-min(na, nb, nc) > 1 {
		t.Fatalf("equal sessions got %d, %d, %d calls", na, nb, nc)
	}
}

func TestNewSessionOvertakesHeavyUser(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	for range 200 {
		r.submit(t, b, "app:heavy", 1)
	}
	clk.Advance(100 * time.Second)
	r.submit(t, b, "app:new", 1)
	clk.Advance(time.Second)
	n, _ := r.count("app:new")
	if n != 1 {
		t.Fatal("a new session's call did not go at the next refill, behind a heavy session's queue")
	}
}

func TestHalfShareAfterOneBudget(t *testing.T) {
	// A session that used C units gets half of what a new session gets:
	// while both wait, the new one gets two calls for every one.
	b, clk := newBudget(t, Config{Capacity: 6000, Window: 100 * time.Minute, MaxQueue: -1, MaxWait: -1})
	var r rec
	for range 6000 {
		r.submit(t, b, "app:old", 1)
	}
	if got := b.Used("app:old"); got != 6000 {
		t.Fatalf("used %v, want 6000", got)
	}
	for range 300 {
		r.submit(t, b, "app:old", 1)
		r.submit(t, b, "app:new", 1)
	}
	clk.Advance(30 * time.Second) // 30 units refill, a small fraction of C
	nOld, _ := r.count("app:old")
	nNew, _ := r.count("app:new")
	nOld -= 6000
	if nNew != 2*nOld && nNew != 2*nOld+1 && nNew != 2*nOld-1 {
		t.Fatalf("new session got %d calls, old (used C) %d; want 2:1", nNew, nOld)
	}
}

func TestStarvationBound(t *testing.T) {
	// The heavy session used 100 budgets: its fair share is 1/101 of a new
	// session's, far less than one call a minute.
	b2, clk2 := newBudget(t, obvConfig())
	var r2 rec
	for range 6000 {
		r2.submit(t, b2, "app:heavy", 1)
	}
	clk2.Advance(6000 * time.Second)
	if b2.Used("app:heavy") != 6000 {
		t.Fatalf("heavy used %v", b2.Used("app:heavy"))
	}
	r2.adms = nil
	for range 30 {
		r2.submit(t, b2, "app:heavy", 1)
	}
	for range 2000 {
		r2.submit(t, b2, "app:light", 1)
	}
	clk2.Advance(30 * time.Minute)
	last := t0.Add(6000 * time.Second)
	n := 0
	for _, a := range r2.adms {
		if a.Client != "app:heavy" {
			continue
		}
		if gap := a.At.Sub(last); gap > time.Minute {
			t.Fatalf("heavy session waited %v between calls; the bound is one call per minute", gap)
		}
		last = a.At
		n++
	}
	if n < 29 {
		t.Fatalf("heavy session got %d calls in 30 minutes; want at least 29", n)
	}
	if nl, _ := r2.count("app:light"); nl < 1700 {
		t.Fatalf("light session got only %d calls", nl)
	}
}

func TestLongestWaitingFirstWhenOverloaded(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	// Empty the bucket, then give 150 sessions different usage (so the
	// fair order differs from the arrival order).
	for i := range 150 {
		key := "app:s" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		setUsed(b, key, float64((150-i)*10))
	}
	for range 60 {
		r.submit(t, b, "app:drain", 1)
	}
	r.adms = nil
	var order []string
	for i := range 150 {
		key := "app:s" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		order = append(order, key)
		r.submit(t, b, key, 1)
		clk.Advance(time.Millisecond)
	}
	clk.Advance(200 * time.Second)
	if len(r.adms) != 150 {
		t.Fatalf("admitted %d of 150", len(r.adms))
	}
	for i, a := range r.adms {
		if a.Client != order[i] {
			t.Fatalf("call %d went to %s, want %s (longest waiting first when they do not all fit)", i, a.Client, order[i])
		}
	}
}

func TestDearerThanCapacity(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	r.submit(t, b, "app:a", 1)
	r.submit(t, b, "app:a", 500)
	if len(r.adms) != 1 {
		t.Fatal("a call dearer than the budget went without a full bucket")
	}
	clk.Advance(999 * time.Millisecond)
	if len(r.adms) != 1 {
		t.Fatal("went before the bucket was full")
	}
	clk.Advance(time.Millisecond)
	if len(r.adms) != 2 || r.adms[1].Cost != 60 {
		t.Fatalf("dear call: %+v; want it admitted at a full bucket, charged 60", r.adms)
	}
	if st := b.Stats(); st.Available != 0 || b.Used("app:a") != 61 {
		t.Fatalf("after the dear call: available %v used %v", st.Available, b.Used("app:a"))
	}
}

func TestUsageForgottenAfter30Minutes(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	for range 60 {
		r.submit(t, b, "app:a", 1)
	}
	clk.Advance(30*time.Minute - time.Nanosecond)
	if b.Used("app:a") != 60 {
		t.Fatal("usage forgotten too early")
	}
	clk.Advance(time.Nanosecond)
	if b.Used("app:a") != 0 {
		t.Fatal("usage not forgotten 30 minutes after the last call")
	}
	r.submit(t, b, "app:a", 1)
	if b.Used("app:a") != 1 {
		t.Fatalf("used %v after a fresh start", b.Used("app:a"))
	}
	if st := b.Stats(); st.Sessions != 1 {
		t.Fatalf("sessions %d", st.Sessions)
	}
}

func TestSharedSessionNotCounted(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	for range 700 {
		r.submit(t, b, Shared, 1)
	}
	clk.Advance(540 * time.Second)
	if b.Used(Shared) != 0 {
		t.Fatalf("shared session's usage counted: %v", b.Used(Shared))
	}
	for range 100 {
		r.submit(t, b, "app:new", 1)
	}
	r.adms = nil
	clk.Advance(40 * time.Second)
	ns, _ := r.count(Shared)
	nn, _ := r.count("app:new")
	// The shared session weighs as a new session, however much it used.
	if ns < 18 || ns > 22 || nn < 18 || nn > 22 {
		t.Fatalf("shared %d, new %d calls in 40s; want about 20 each", ns, nn)
	}
}

func TestQueueFullRetryAfterFromBacklog(t *testing.T) {
	cfg := obvConfig()
	cfg.MaxQueue = 10
	b, clk := newBudget(t, cfg)
	var r rec
	for range 60 + 10 {
		r.submit(t, b, "app:a", 1)
	}
	r.submit(t, b, "app:a", 1)
	var rej *Rejection
	if len(r.errs) != 1 || !errors.As(r.errs[0], &rej) || rej.Reason != ReasonQueueFull {
		t.Fatalf("errors %v; want one queue-full rejection", r.errs)
	}
	first := rej.RetryAfter
	if first < 10*time.Second || first > 12*time.Second {
		t.Fatalf("retry after %v with 10 units queued at 1 unit/s; want about 11s", first)
	}
	clk.Advance(5 * time.Second)
	r.submit(t, b, "app:a", 1)
	r.submit(t, b, "app:a", 1)
	r.submit(t, b, "app:a", 1)
	r.submit(t, b, "app:a", 1)
	r.submit(t, b, "app:a", 1)
	r.submit(t, b, "app:a", 5)
	if len(r.errs) != 2 || !errors.As(r.errs[1], &rej) {
		t.Fatalf("errors %v", r.errs)
	}
	if rej.RetryAfter == first || rej.RetryAfter < 14*time.Second {
		t.Fatalf("retry after %v; want it computed from the larger backlog (10 units + 5)", rej.RetryAfter)
	}
	// A newcomer is queued all the same: the refusal falls on a, the
	// client holding the queued work, with a Retry-After from a's backlog.
	r.submit(t, b, "app:b", 1)
	if len(r.errs) != 3 || !errors.As(r.errs[2], &rej) || rej.Reason != ReasonQueueFull || rej.RetryAfter < 9*time.Second {
		t.Fatalf("errors %v; want a's newest call refused with a's backlog as Retry-After", r.errs)
	}
	if st := b.Stats(); st.Rejected != 3 || st.Admitted != 65 || st.Waiting != 10 || st.WaitingClients != 2 {
		t.Fatalf("stats %+v", st)
	}
	clk.Advance(2 * time.Second)
	if n, _ := r.count("app:b"); n != 1 {
		t.Fatal("the newcomer's call did not go within two units' refill")
	}
}

func TestMaxWaitRejectsAndSpendsNothing(t *testing.T) {
	cfg := obvConfig()
	cfg.MaxWait = 10 * time.Second
	b, clk := newBudget(t, cfg)
	var r rec
	r.submit(t, b, "app:a", 60)
	r.submit(t, b, "app:a", 30) // needs 30s of refill
	clk.Advance(10 * time.Second)
	var rej *Rejection
	if len(r.errs) != 1 || !errors.As(r.errs[0], &rej) || rej.Reason != ReasonWaitTooLong {
		t.Fatalf("errors %v; want a wait-too-long rejection", r.errs)
	}
	if rej.RetryAfter < 19*time.Second || rej.RetryAfter > 21*time.Second {
		t.Fatalf("retry after %v; want 20s (30 units at 1/s, 10 in the bucket)", rej.RetryAfter)
	}
	if st := b.Stats(); math.Abs(st.Available-10) > 1e-9 || st.UnitsSpent != 60 || st.Waiting != 0 {
		t.Fatalf("after the rejection: %+v", st)
	}
}

func TestHangUpLeavesQueueAndSpendsNothing(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	r.submit(t, b, "app:a", 60)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := b.Acquire(ctx, ck("app:b"), 5)
		errc <- err
	}()
	for b.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond) // waiting for the goroutine to queue, not for time to pass
	}
	r.submit(t, b, "app:c", 5)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire after hang-up: %v", err)
	}
	clk.Advance(5 * time.Second)
	if len(r.adms) != 2 || r.adms[1].Client != "app:c" || r.adms[1].Wait != 5*time.Second {
		t.Fatalf("admissions %+v; want c admitted after 5s as if b never queued", r.adms)
	}
	if st := b.Stats(); st.UnitsSpent != 65 || st.Cancelled != 1 || b.Used("app:b") != 0 {
		t.Fatalf("stats %+v, b used %v", st, b.Used("app:b"))
	}
}

func TestRefundOnlyWhenExact(t *testing.T) {
	b, _ := newBudget(t, obvConfig())
	w, err := b.submit(ck("app:a"), 10, func(Admission, error) {})
	if err != nil {
		t.Fatal(err)
	}
	if !b.refund(w) {
		t.Fatal("refund of the last admission refused")
	}
	if st := b.Stats(); st.Available != 60 || st.UnitsSpent != 0 {
		t.Fatalf("after refund %+v", st)
	}
	// With admissions after it, the refund replays them: the bucket ends
	// where it would be without the refunded call.
	clk := b.clock.(*fakeclock.Clock)
	w1, _ := b.submit(ck("app:a"), 30, func(Admission, error) {})
	clk.Advance(20 * time.Second) // 50 units
	b.submit(ck("app:a"), 40, func(Admission, error) {})
	// Without w1: 60 - 40 = 20 units left.
	if !b.refund(w1) {
		t.Fatal("refund refused")
	}
	if st := b.Stats(); math.Abs(st.Available-20) > 1e-6 {
		t.Fatalf("available %v after replaying without the refunded call; want 20", st.Available)
	}
	if b.refund(w1) {
		t.Fatal("refunded twice")
	}
}

func TestPauseForUpstream429(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	b.Pause(clk.Now().Add(30 * time.Second))
	r.submit(t, b, "app:a", 1)
	if st := b.Stats(); st.PausedUntil.IsZero() || st.Available != 0 {
		t.Fatalf("paused stats %+v", st)
	}
	clk.Advance(30 * time.Second)
	if len(r.adms) != 0 {
		t.Fatal("call went during the pause")
	}
	clk.Advance(time.Second)
	if len(r.adms) != 1 || r.adms[0].Wait != 31*time.Second {
		t.Fatalf("admissions %+v; want one after the pause plus one unit's refill", r.adms)
	}
	b.Pause(clk.Now().Add(-time.Second)) // in the past: no effect
	if b.Stats().PausedUntil.After(clk.Now()) {
		t.Fatal("pause in the past took effect")
	}
}

func TestPullDown(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	b.PullDown(10, -1)
	if st := b.Stats(); math.Abs(st.Available-10) > 1e-9 {
		t.Fatalf("available %v after pull-down to 10", st.Available)
	}
	b.PullDown(50, -1)
	if st := b.Stats(); math.Abs(st.Available-10) > 1e-9 {
		t.Fatalf("available %v: a pull-down raised the bucket", st.Available)
	}
	b.PullDown(-1, 55*time.Second) // full in 55s: 5 units left
	if st := b.Stats(); math.Abs(st.Available-5) > 1e-9 {
		t.Fatalf("available %v after reset 55s", st.Available)
	}
	b.PullDown(-1, time.Hour) // a quota of another period: at most empty
	if st := b.Stats(); st.Available != 0 || b.readyAtLocked(b.costNS(1), clk.Now().UnixNano()) != clk.Now().Add(time.Second).UnixNano() {
		t.Fatalf("reset beyond the window: %+v", st)
	}
	clk.Advance(5 * time.Second)
	var r rec
	r.submit(t, b, "app:a", 6)
	clk.Advance(999 * time.Millisecond)
	if len(r.adms) != 0 {
		t.Fatal("went before the pulled-down bucket had room")
	}
	clk.Advance(time.Millisecond)
	if len(r.adms) != 1 {
		t.Fatal("did not go once the pulled-down bucket had room")
	}
}

func TestSetConfigInPlace(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	var r rec
	for range 50 {
		r.submit(t, b, "app:a", 1)
	}
	if err := b.SetConfig(Config{Capacity: 120, Window: time.Minute, MaxQueue: -1, MaxWait: -1}); err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); math.Abs(st.Available-10) > 1e-9 || st.Capacity != 120 {
		t.Fatalf("after reconfig %+v; want the 10 units left kept", st)
	}
	for range 12 {
		r.submit(t, b, "app:a", 1)
	}
	clk.Advance(time.Second) // 2 units/s now
	if len(r.adms) != 62 {
		t.Fatalf("admitted %d; want 50 + 10 + 2", len(r.adms))
	}
	if err := b.SetConfig(Config{Capacity: 0, Window: time.Minute}); err == nil {
		t.Fatal("capacity 0 accepted")
	}
}

func TestBadInput(t *testing.T) {
	for _, cfg := range []Config{
		{Capacity: 0, Window: time.Minute},
		{Capacity: -1, Window: time.Minute},
		{Capacity: math.NaN(), Window: time.Minute},
		{Capacity: math.Inf(1), Window: time.Minute},
		{Capacity: 60, Window: 0},
	} {
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	b, _ := newBudget(t, obvConfig())
	for _, c := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := b.Submit(ck("app:a"), c, func(Admission, error) {}); !errors.Is(err, ErrBadCost) {
			t.Errorf("cost %v: %v", c, err)
		}
	}
	if _, err := b.Acquire(context.Background(), ck("app:a"), -2); !errors.Is(err, ErrBadCost) {
		t.Errorf("Acquire with a negative cost: %v", err)
	}
}

func TestIndependentBudgets(t *testing.T) {
	clk := fakeclock.New(t0)
	obv, _ := New(obvConfig(), clk)
	rs, _ := New(Config{Capacity: 5, Window: time.Second}, clk)
	obv.Pause(t0.Add(time.Hour))
	var r rec
	for range 500 {
		r.submit(t, obv, "app:a", 1)
	}
	got, err := rs.Acquire(context.Background(), ck("app:a"), 1)
	if err != nil || got.Wait != 0 {
		t.Fatalf("a stalled budget delayed another: %+v %v", got, err)
	}
}

func TestHeaviest(t *testing.T) {
	b, _ := newBudget(t, obvConfig())
	var r rec
	for i, k := range []string{"app:a", "app:b", "app:c"} {
		for range (i + 1) * 3 {
			r.submit(t, b, k, 1)
		}
	}
	top := b.Heaviest(2)
	if len(top) != 2 || top[0].Client != "app:c" || top[0].Used != 9 || top[1].Client != "app:b" {
		t.Fatalf("heaviest %+v", top)
	}
	if math.Abs(top[0].Share-1/(1+9.0/60)) > 1e-12 {
		t.Fatalf("share %v", top[0].Share)
	}
}
