package fairqueue

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// Honest and hostile clients side by side (issue 10): made-up session
// names divide an address's share and never multiply it, a full queue
// still takes a newcomer, and what the budget remembers stays bounded.

// flood keeps n calls of client in flight, each under a new session name;
// a refused call is sent again after retry (a client that hammers).
type flood struct {
	b       *Budget
	clk     *fakeclock.Clock
	client  string
	retry   time.Duration
	next    int
	units   float64
	refused int
	stopped bool
}

func (f *flood) send() {
	if f.stopped {
		return
	}
	f.next++
	key := Key{Client: f.client, Session: "app:made-up-" + strconv.Itoa(f.next)}
	_, _ = f.b.Submit(key, 1, func(a Admission, err error) {
		if err != nil {
			f.refused++
			f.clk.AfterFunc(f.retry, f.send)
			return
		}
		f.units += a.Cost
		f.send()
	})
}

func TestMadeUpNamesFloodVsNewcomer(t *testing.T) {
	cfg := obvConfig()
	cfg.MaxQueue = 1000
	b, clk := newBudget(t, cfg)
	f := &flood{b: b, clk: clk, client: "addr:203.0.113.66", retry: 500 * time.Millisecond}
	for range 1200 {
		f.send()
	}
	clk.Advance(30 * time.Second)
	if st := b.Stats(); st.Waiting != 1000 || st.Clients != 1 || st.Sessions > DefaultMaxSessions+1 {
		t.Fatalf("after 30 s of flood: %+v; want the queue full of one client, sessions bounded", st)
	}
	checkInvariants(t, b)
	var r rec
	r.submit(t, b, "addr:198.51.100.7/app:honest", 1)
	clk.Advance(cfg.Window)
	f.stopped = true
	if len(r.errs) != 0 || len(r.adms) != 1 {
		t.Fatalf("the honest call: errors %v, admissions %d; want it queued and admitted", r.errs, len(r.adms))
	}
	if w := r.adms[0].Wait; w > time.Second {
		t.Fatalf("the honest call waited %v behind a flood of made-up names; want one unit's refill at most", w)
	}
	t.Logf("flood: %d refusals, %.0f units; honest call waited %v", f.refused, f.units, r.adms[0].Wait)
}

// runNamesVsHonest keeps two addresses busy for measure: A sends each call
// under a new session name (or one name, honest), B under one session. It
// returns the units each got.
func runNamesVsHonest(t *testing.T, madeUp bool, measure time.Duration) (a, bu float64, gapA, gapB time.Duration) {
	b, clk := newBudget(t, obvConfig())
	start := clk.Now()
	last := map[string]time.Time{"A": start, "B": start}
	gaps := map[string]time.Duration{}
	units := map[string]float64{}
	n := 0
	var submit func(who string)
	submit = func(who string) {
		sess := "app:one"
		if madeUp && who == "A" {
			n++
			sess = "app:made-up-" + strconv.Itoa(n)
		}
		_, _ = b.Submit(Key{Client: "addr:" + who, Session: sess}, 1, func(adm Admission, err error) {
			if err != nil {
				t.Errorf("%s refused: %v", who, err)
				return
			}
			units[who] += adm.Cost
			gaps[who] = max(gaps[who], adm.At.Sub(last[who]))
			last[who] = adm.At
			if adm.At.Before(start.Add(measure)) {
				submit(who)
			}
		})
	}
	for range 20 {
		submit("A")
		submit("B")
	}
	clk.Advance(measure)
	return units["A"], units["B"], gaps["A"], gaps["B"]
}

func TestTwoBusyAddressesShareByRuleWhateverTheNames(t *testing.T) {
	hA, hB, _, _ := runNamesVsHonest(t, false, 20*time.Minute)
	mA, mB, gA, gB := runNamesVsHonest(t, true, 20*time.Minute)
	t.Logf("honest A %.0f, B %.0f; A with a new name per call %.0f, B %.0f (longest gaps %v, %v)", hA, hB, mA, mB, gA, gB)
	// The names change nothing: each address gets what it gets when both
	// are honest (the rule's shares, TestShareMatchesAnalytic).
	if math.Abs(mA-hA) > 2 || math.Abs(mB-hB) > 2 {
		t.Fatalf("made-up names: A %.0f, B %.0f units; honest A %.0f, B %.0f; want the same shares", mA, mB, hA, hB)
	}
	if gA > time.Minute || gB > time.Minute {
		t.Fatalf("gaps %v, %v: starvation bound broken", gA, gB)
	}
}

func TestManySessionsDivideOneAddress(t *testing.T) {
	// A has ten honest sessions, B one: both addresses get half.
	b, clk := newBudget(t, obvConfig())
	var r rec
	for i := range 300 {
		r.submit(t, b, "addr:A/app:s"+strconv.Itoa(i%10), 1)
		if i < 100 {
			r.submit(t, b, "addr:B/app:only", 1)
		}
	}
	r.adms = nil
	clk.Advance(100 * time.Second)
	na, _ := r.count("addr:A")
	nb, _ := r.count("addr:B")
	if math.Abs(float64(na-nb)) > 2 {
		t.Fatalf("A (10 sessions) got %d calls, B (1 session) %d; want equal", na, nb)
	}
	// Within A, the ten equal sessions share A's calls equally.
	lo, hi := math.MaxInt, 0
	for i := range 10 {
		n, _ := r.count("addr:A/app:s" + strconv.Itoa(i))
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi-lo > 1 {
		t.Fatalf("A's sessions got between %d and %d calls; want equal", lo, hi)
	}
}

func TestSessionsWithinAddressShareByRule(t *testing.T) {
	// Within one address, a session that used one budget gets half the
	// share of a new one, as between clients.
	b, clk := newBudget(t, Config{Capacity: 6000, Window: 100 * time.Minute, MaxQueue: -1, MaxWait: -1})
	var r rec
	for range 6000 {
		r.submit(t, b, "addr:A/app:old", 1)
	}
	if b.SessionUsed(ck("addr:A/app:old")) != 6000 || b.Used("addr:A") != 6000 {
		t.Fatal("usage not counted on the session and its client")
	}
	for range 300 {
		r.submit(t, b, "addr:A/app:old", 1)
		r.submit(t, b, "addr:A/app:new", 1)
	}
	r.adms = nil
	clk.Advance(30 * time.Second)
	nOld, _ := r.count("addr:A/app:old")
	nNew, _ := r.count("addr:A/app:new")
	if nOld+nNew != 30 || nNew < 2*nOld-1 || nNew > 2*nOld+1 {
		t.Fatalf("within the address: new %d, old %d calls; want 2:1 of 30", nNew, nOld)
	}
}

func TestSessionStarvationBoundWithinAddress(t *testing.T) {
	// A session that used a hundred budgets still gets a call once it has
	// waited a window, though its address's other session is far lighter.
	b, clk := newBudget(t, obvConfig())
	setUsed(b, "addr:A/app:heavy", 6000)
	var r rec
	for range 60 {
		r.submit(t, b, "addr:A/app:drain", 1)
	}
	r.adms = nil
	for range 5 {
		r.submit(t, b, "addr:A/app:heavy", 1)
	}
	for range 600 {
		r.submit(t, b, "addr:A/app:light", 1)
	}
	clk.Advance(6 * time.Minute)
	last := t0
	n := 0
	for _, a := range r.adms {
		if a.Session != "app:heavy" {
			continue
		}
		if gap := a.At.Sub(last); gap > time.Minute+time.Second {
			t.Fatalf("the heavy session waited %v between calls", gap)
		}
		last = a.At
		n++
	}
	if n != 5 {
		t.Fatalf("the heavy session got %d of 5 calls in 6 minutes", n)
	}
}

func TestQueueFullRefusalFallsOnHeaviest(t *testing.T) {
	cfg := obvConfig()
	cfg.MaxQueue = 10
	b, _ := newBudget(t, cfg)
	var r rec
	for range 60 {
		r.submit(t, b, "addr:drain", 1)
	}
	// A holds 7 queued calls, B 3: the queue is full.
	refusedA := map[int]bool{}
	for i := range 7 {
		_, err := b.Submit(ck("addr:A/app:x"), 1, func(_ Admission, err error) {
			if err != nil {
				refusedA[i] = true
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		r.submit(t, b, "addr:B", 1)
	}
	// A newcomer with nothing queued takes a place; A's newest call goes.
	r.submit(t, b, "addr:C", 1)
	if len(r.errs) != 0 || len(refusedA) != 1 || !refusedA[6] {
		t.Fatalf("refused A %v, others %v; want A's newest call refused, C queued", refusedA, r.errs)
	}
	// B (3 queued) asks again: A (6) is still the heaviest.
	r.submit(t, b, "addr:B", 1)
	if len(r.errs) != 0 || len(refusedA) != 2 || !refusedA[5] {
		t.Fatalf("refused A %v, others %v; want A's next newest refused", refusedA, r.errs)
	}
	// A asks again: A holds the most, so its own new call is refused, with
	// a Retry-After from A's own backlog (5 queued, served at A's share).
	var rej *Rejection
	_, _ = b.Submit(ck("addr:A/app:y"), 1, func(_ Admission, err error) {
		if !errors.As(err, &rej) {
			t.Errorf("A's call over the bound: %v", err)
		}
	})
	if rej == nil || rej.RetryAfter < 5*time.Second {
		t.Fatalf("A's own call: %+v; want refused with Retry-After ≥ 5s", rej)
	}
	checkInvariants(t, b)
	if st := b.Stats(); st.Waiting != 10 || st.Rejected != 3 || st.WaitingClients != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestQueueFullNeverRefusesEmptyClient(t *testing.T) {
	// A thousand addresses with one call each fill the queue; every
	// newcomer still gets a place, and every refusal falls on a client
	// that had a call queued.
	cfg := obvConfig()
	cfg.MaxQueue = 1000
	b, _ := newBudget(t, cfg)
	for range 60 {
		_, _ = b.Submit(ck("addr:drain"), 1, func(Admission, error) {})
	}
	refused := 0
	queued := map[string]int{}
	submit := func(client string) {
		queued[client]++
		_, _ = b.Submit(ck(client), 1, func(a Admission, err error) {
			if queued[client] == 0 {
				t.Errorf("%s refused with nothing queued", client)
			}
			queued[client]--
			if err != nil {
				refused++
			}
		})
	}
	for i := range 1000 {
		submit("addr:flood-" + strconv.Itoa(i))
	}
	for i := range 200 {
		c := "addr:new-" + strconv.Itoa(i)
		submit(c)
		if queued[c] != 1 {
			t.Fatalf("newcomer %s refused with a full queue", c)
		}
	}
	checkInvariants(t, b)
	if st := b.Stats(); refused != 200 || st.Waiting != 1000 {
		t.Fatalf("%d refusals for 200 newcomers, %d waiting", refused, st.Waiting)
	}
}

func TestMadeUpNamesBounded(t *testing.T) {
	// One address makes up a name per call: the budget keeps at most
	// MaxSessions of them; the rest count on the address's own session.
	cfg := Config{Capacity: 1e12, Window: time.Hour, MaxQueue: -1, MaxWait: -1}
	b, clk := newBudget(t, cfg)
	const n = 100_000
	for i := range n {
		if _, err := b.Acquire(t.Context(), Key{Client: "addr:A", Session: "app:x" + strconv.Itoa(i)}, 1); err != nil {
			t.Fatal(err)
		}
	}
	checkInvariants(t, b)
	st := b.Stats()
	if st.Clients != 1 || st.Sessions != DefaultMaxSessions+1 {
		t.Fatalf("after %d made-up names: %d clients, %d sessions; want 1 and %d", n, st.Clients, st.Sessions, DefaultMaxSessions+1)
	}
	if own := b.SessionUsed(Key{Client: "addr:A"}); own != n-DefaultMaxSessions || b.Used("addr:A") != n {
		t.Fatalf("the address's own session used %v, the address %v", own, b.Used("addr:A"))
	}
	// The address keeps calling under its own session; thirty minutes
	// after their last call the names are forgotten and new ones get room.
	clk.Advance(DefaultForget - time.Minute)
	if _, err := b.Acquire(t.Context(), Key{Client: "addr:A"}, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	if _, err := b.Acquire(t.Context(), Key{Client: "addr:A", Session: "app:later"}, 1); err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st.Sessions != 2 || b.SessionUsed(ck("addr:A/app:later")) != 1 || b.Used("addr:A") != n+2 {
		t.Fatalf("after 30 minutes: %+v, address used %v", st, b.Used("addr:A"))
	}
	// From a trusted source every name is a client: MaxClients bounds them.
	b2, _ := newBudget(t, Config{Capacity: 1e12, Window: time.Hour, MaxQueue: -1, MaxWait: -1, MaxClients: 1000})
	for i := range 20_000 {
		if _, err := b2.Acquire(t.Context(), Key{Client: "app:x" + strconv.Itoa(i)}, 1); err != nil {
			t.Fatal(err)
		}
	}
	checkInvariants(t, b2)
	if st := b2.Stats(); st.Clients != 1000 || st.Sessions != 1000 {
		t.Fatalf("trusted names: %d clients, %d sessions; want 1000", st.Clients, st.Sessions)
	}
}

// BenchmarkMadeUpNamesHeap reports the heap a budget holds after b.N calls
// from one address, each under a new session name (heap-bytes-address,
// bounded by MaxSessions), and the heap of another budget after b.N calls
// from a trusted source, each name a client (heap-bytes-trusted, bounded
// by MaxClients). Run it with -benchtime=1000000x for the figure of
// docs/benchmarks.md.
func BenchmarkMadeUpNamesHeap(b *testing.B) {
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	cfg := Config{Capacity: 1e15, Window: time.Hour, MaxQueue: -1, MaxWait: -1}
	b.ReportAllocs()
	base := heap()
	bud, _ := New(cfg, fakeclock.New(t0))
	for i := range b.N {
		_, _, _ = bud.admitNow(Key{Client: "addr:203.0.113.66", Session: "app:made-up-" + strconv.Itoa(i)}, 1)
	}
	addr := heap() - base
	st := bud.Stats()
	runtime.KeepAlive(bud)
	bud = nil
	base = heap()
	trusted, _ := New(cfg, fakeclock.New(t0))
	for i := range b.N {
		_, _, _ = trusted.admitNow(Key{Client: "app:made-up-" + strconv.Itoa(i)}, 1)
	}
	tr := heap() - base
	st2 := trusted.Stats()
	runtime.KeepAlive(trusted)
	b.ReportMetric(float64(addr), "heap-bytes-address")
	b.ReportMetric(float64(st.Sessions), "sessions")
	b.ReportMetric(float64(tr), "heap-bytes-trusted")
	b.ReportMetric(float64(st2.Clients), "trusted-clients")
}
