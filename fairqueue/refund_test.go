package fairqueue

import (
	"math"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// Refunds of admitted calls (Budget.Refund): a call that failed on its way
// gives its units back exactly, once.

// admit admits a call of cost for key at once, or fails the test.
func admit(t *testing.T, b *Budget, key string, cost float64) Admission {
	t.Helper()
	a, ok, err := b.admitNow(ck(key), cost)
	if err != nil || !ok {
		t.Fatalf("admitting %v for %s: %v %v", cost, key, ok, err)
	}
	return a
}

func available(b *Budget) float64 { return b.Stats().Available }

func TestRefundRestoresRoom(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	a := admit(t, b, "10.0.0.1/app:a", 60)
	var r rec
	r.submit(t, b, "10.0.0.2", 10) // waits: the bucket is empty
	clk.Advance(5 * time.Second)
	if len(r.adms) != 0 {
		t.Fatal("a call went with the bucket empty")
	}
	if !b.Refund(a) {
		t.Fatal("refund refused")
	}
	// The waiting call goes at once, on the refunded room: 60 - 10 left.
	if len(r.adms) != 1 || r.adms[0].Wait != 5*time.Second {
		t.Fatalf("admissions %+v; want the waiting call admitted by the refund", r.adms)
	}
	if got := available(b); math.Abs(got-50) > 1e-9 {
		t.Fatalf("available %v; want 50 (as if only the 10-unit call went)", got)
	}
	if b.Used("10.0.0.1") != 0 || b.SessionUsed(ck("10.0.0.1/app:a")) != 0 || b.Used("10.0.0.2") != 10 {
		t.Fatalf("usage after the refund: %v, session %v, other %v", b.Used("10.0.0.1"), b.SessionUsed(ck("10.0.0.1/app:a")), b.Used("10.0.0.2"))
	}
	st := b.Stats()
	if st.Admitted != 2 || st.Refunded != 1 || st.UnitsRefunded != 60 || st.UnitsSpent != 10 || st.Cancelled != 0 {
		t.Fatalf("stats %+v", st)
	}

	// Units the refill already gave back are not given twice: a refund
	// never fills the bucket past full.
	b2, clk2 := newBudget(t, obvConfig())
	a2 := admit(t, b2, "10.0.0.1", 30)
	clk2.Advance(20 * time.Second)
	b2.Refund(a2)
	if got := available(b2); got != 60 {
		t.Fatalf("available %v after refunding 30 units 20 s later; want full (60), never more", got)
	}
}

func TestRefundTwiceIsNoOp(t *testing.T) {
	b, _ := newBudget(t, obvConfig())
	a := admit(t, b, "10.0.0.1", 20)
	admit(t, b, "10.0.0.1", 20)
	copied := a
	if !b.Refund(a) {
		t.Fatal("refund refused")
	}
	before := b.Stats()
	if b.Refund(a) || b.Refund(copied) {
		t.Fatal("refunded twice")
	}
	if after := b.Stats(); after != before || b.Used("10.0.0.1") != 20 {
		t.Fatalf("a second refund changed the budget: %+v → %+v, used %v", before, after, b.Used("10.0.0.1"))
	}
	// Admissions this budget never made are refused.
	other, _ := newBudget(t, obvConfig())
	if b.Refund(Admission{}) || b.Refund(admit(t, other, "10.0.0.1", 5)) || b.Refund(Admission{Client: "10.0.0.1", Cost: 20}) {
		t.Fatal("refunded an admission of no call of this budget")
	}
	if got := available(b); got != 40 {
		t.Fatalf("available %v; want 40", got)
	}
}

// A refund never lifts the bucket above a pause or pull-down the platform
// asked for after the call: the platform's own word stands.
func TestRefundNeverBelowFloor(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	a := admit(t, b, "10.0.0.1", 20)
	b.PullDown(5, -1)
	b.Refund(a)
	if got := available(b); math.Abs(got-5) > 1e-9 {
		t.Fatalf("available %v after a pull-down to 5 and a refund; want 5", got)
	}
	a = admit(t, b, "10.0.0.1", 1)
	b.Pause(clk.Now().Add(30 * time.Second))
	b.Refund(a)
	if st := b.Stats(); st.Available != 0 || st.PausedUntil.IsZero() {
		t.Fatalf("a refund lifted a pause: %+v", st)
	}
	var r rec
	r.submit(t, b, "10.0.0.2", 1)
	clk.Advance(30 * time.Second)
	if len(r.adms) != 0 {
		t.Fatal("a call went during the pause after a refund")
	}
}

// Refunds in any order leave the bucket where the standing calls alone
// would have put it: a refund of an earlier call corrects the history the
// refund of a later one replays from.
func TestRefundInAnyOrderIsExact(t *testing.T) {
	b, clk := newBudget(t, obvConfig()) // 1 unit a second
	a := admit(t, b, "10.0.0.1", 30)    // t=0
	clk.Advance(10 * time.Second)
	bb := admit(t, b, "10.0.0.2", 20) // t=10
	clk.Advance(10 * time.Second)
	admit(t, b, "10.0.0.3", 25) // t=20: 5 left
	if got := available(b); math.Abs(got-5) > 1e-9 {
		t.Fatalf("available %v; want 5", got)
	}
	b.Refund(a) // as if only bb (t=10) and c (t=20) went: 60-20+10-25 = 25
	if got := available(b); math.Abs(got-25) > 1e-9 {
		t.Fatalf("available %v after refunding a; want 25", got)
	}
	b.Refund(bb) // as if only c went: 35
	if got := available(b); math.Abs(got-35) > 1e-9 {
		t.Fatalf("available %v after refunding a and b; want 35 (c alone)", got)
	}
}

// A refund takes the call off its client's and session's fair-share usage,
// but never usage that came after the client's was forgotten.
func TestRefundUndoesUsageOnlyOfItsCall(t *testing.T) {
	cfg := obvConfig()
	cfg.Forget = time.Minute
	b, clk := newBudget(t, cfg)
	admit(t, b, "10.0.0.1/app:x", 5)
	a := admit(t, b, "10.0.0.1/app:y", 10)
	if !b.Refund(a) || b.Used("10.0.0.1") != 5 || b.SessionUsed(ck("10.0.0.1/app:y")) != 0 || b.SessionUsed(ck("10.0.0.1/app:x")) != 5 {
		t.Fatalf("usage after refund: client %v, y %v, x %v", b.Used("10.0.0.1"), b.SessionUsed(ck("10.0.0.1/app:y")), b.SessionUsed(ck("10.0.0.1/app:x")))
	}
	old := admit(t, b, "10.0.0.1", 10)
	clk.Advance(2 * time.Minute) // the client's usage is forgotten
	admit(t, b, "10.0.0.1", 3)
	if !b.Refund(old) {
		t.Fatal("refund refused")
	}
	if got := b.Used("10.0.0.1"); got != 3 {
		t.Fatalf("used %v after refunding a forgotten call; want 3 (the new call's)", got)
	}
	// The shared client's usage is never counted, so nothing to undo.
	s := admit(t, b, Shared, 4)
	if !b.Refund(s) || b.Used(Shared) != 0 {
		t.Fatalf("shared used %v", b.Used(Shared))
	}
}

// A call whose history is gone stays counted: after a reconfiguration,
// or past the history kept.
func TestRefundWithoutHistoryKeepsTheCall(t *testing.T) {
	b, _ := newBudget(t, Config{Capacity: 1e9, Window: time.Second, MaxQueue: -1, MaxWait: -1})
	a := admit(t, b, "10.0.0.1", 1)
	for range maxOps {
		admit(t, b, "10.0.0.2", 1)
	}
	if b.Refund(a) {
		t.Fatal("refunded a call past the history kept")
	}
	c := admit(t, b, "10.0.0.1", 1)
	if err := b.SetConfig(Config{Capacity: 100, Window: time.Second, MaxQueue: -1, MaxWait: -1}); err != nil {
		t.Fatal(err)
	}
	if b.Refund(c) {
		t.Fatal("refunded a call across a reconfiguration")
	}
	if st := b.Stats(); st.Refunded != 0 || st.UnitsSpent != maxOps+2 {
		t.Fatalf("stats %+v", st)
	}
}

// Refunds of calls admitted from the queue (Submit, Acquire) work the
// same; with the structures intact.
func TestRefundOfQueuedAdmission(t *testing.T) {
	b, clk := newBudget(t, obvConfig())
	admit(t, b, "10.0.0.1", 60)
	var r rec
	r.submit(t, b, "10.0.0.2/app:a", 30)
	r.submit(t, b, "10.0.0.3", 30)
	clk.Advance(30 * time.Second)
	if len(r.adms) != 1 {
		t.Fatalf("%d admitted after 30 s; want 1", len(r.adms))
	}
	if !b.Refund(r.adms[0]) {
		t.Fatal("refund refused")
	}
	// Its 30 units are back: the next waiting call goes at once.
	if len(r.adms) != 2 || r.adms[1].Client != "10.0.0.3" || r.adms[1].Wait != 30*time.Second {
		t.Fatalf("admissions %+v", r.adms)
	}
	checkInvariants(t, b)
	if b.Used("10.0.0.2") != 0 {
		t.Fatalf("used %v after refund", b.Used("10.0.0.2"))
	}
}

// BenchmarkRefundWorstCase: a refund of the oldest call in a full
// history (the replay walks every later change, under the budget's lock).
func BenchmarkRefundWorstCase(b *testing.B) {
	clk := fakeclock.New(t0)
	bud, err := New(Config{Capacity: 1e12, Window: time.Hour, MaxQueue: -1, MaxWait: -1}, clk)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		a, _, _ := bud.admitNow(Key{Client: "a"}, 1)
		for range maxOps - 1 {
			bud.admitNow(Key{Client: "b"}, 1)
		}
		b.StartTimer()
		if !bud.Refund(a) {
			b.Fatal("refund refused")
		}
	}
}
