package fairqueue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// The simulations below run on the fake clock, so they take milliseconds
// and give the same figures every run. docs/benchmarks/fair-queue.md
// reports their output (go test -run 'Seed|Share' -v).

// seedResult is the outcome of the seed's measurement.
type seedResult struct {
	bWaits   []time.Duration
	aCalls   int
	overflow float64 // worst units over the bucket in any interval (≤ 0 is within)
}

// runSeedMeasurement is the seed's measurement: with OpenBesluitvorming's
// limit, session A keeps `queued` searches of costA units waiting; session
// B asks one search of costB units at `moments` random moments.
func runSeedMeasurement(seed uint64, queued, moments int, costA, costB float64) seedResult {
	return runSeedMeasurementKeys(seed, queued, moments, costA, costB, "mcp:B")
}

// runSeedMeasurementKeys is runSeedMeasurement with B's session key; with
// B's key equal to A's, every call waits in one FIFO queue (the baseline of
// a design without fair placement).
func runSeedMeasurementKeys(seed uint64, queued, moments int, costA, costB float64, bKey string) seedResult {
	clk := fakeclock.New(t0)
	b, err := New(Config{Capacity: 60, Window: time.Minute, MaxQueue: -1, MaxWait: -1}, clk)
	if err != nil {
		panic(err)
	}
	var res seedResult
	var all []Admission
	var submitA func()
	submitA = func() {
		_, _ = b.Submit(Key{Client: "mcp:A"}, costA, func(a Admission, err error) {
			if err != nil {
				panic(err)
			}
			all = append(all, a)
			res.aCalls++
			submitA() // keep A's queue full
		})
	}
	for range queued {
		submitA()
	}
	// B's moments are random, one in each minute (in its first 50 s), so
	// B's searches never overlap: B is one session asking one search at a
	// time, and its wait is the wait for room alone.
	warm := 5 * time.Minute
	span := time.Duration(moments) * time.Minute
	rng := rand.New(rand.NewPCG(seed, 42))
	for k := range moments {
		at := warm + time.Duration(k)*time.Minute + time.Duration(rng.Int64N(int64(50*time.Second)))
		clk.AfterFunc(at, func() {
			_, _ = b.Submit(Key{Client: bKey}, costB, func(a Admission, err error) {
				if err != nil {
					panic(err)
				}
				all = append(all, a)
				res.bWaits = append(res.bWaits, a.Wait)
			})
		})
	}
	clk.Advance(warm + span + time.Minute)
	res.overflow = worstOverflow(all, 60, time.Minute)
	return res
}

// worstOverflow returns the largest excess of admitted units over
// capacity + refill in any interval between two admissions (≤ 0: the
// bucket held everywhere). For i ≤ j the excess is
// (S_j − r·t_j) − (S_{i−1} − r·t_i) − C with S the running sum, so one pass
// with a running minimum finds the worst interval.
func worstOverflow(adms []Admission, capacity float64, window time.Duration) float64 {
	sort.SliceStable(adms, func(i, j int) bool { return adms[i].At.Before(adms[j].At) })
	if len(adms) == 0 {
		return math.Inf(-1)
	}
	rate := capacity / window.Seconds()
	t0 := adms[0].At
	worst, minStart, sum := math.Inf(-1), math.Inf(1), 0.0
	for _, a := range adms {
		t := a.At.Sub(t0).Seconds() * rate
		minStart = math.Min(minStart, sum-t) // interval starting here
		sum += a.Cost
		worst = math.Max(worst, sum-t-minStart-capacity)
	}
	return worst
}

func TestSeedMeasurementFIFOBaseline(t *testing.T) {
	// The same measurement with one queue for everyone: B's search waits
	// behind A's 200.
	r := runSeedMeasurementKeys(1, 200, 20, 1, 1, "mcp:A")
	var worst time.Duration
	for _, w := range r.bWaits {
		worst = max(worst, w)
	}
	t.Logf("one FIFO queue: B's longest wait %v", worst)
	if worst < 150*time.Second {
		t.Fatalf("FIFO baseline: B waited only %v", worst)
	}
}

func TestSeedMeasurement(t *testing.T) {
	cases := []struct {
		name         string
		costA, costB float64
		target       time.Duration
	}{
		// limit=24 searches (1 unit): the target of the issue.
		{"A and B search with limit 24", 1, 1, 1100 * time.Millisecond},
		// A asks limit=100 (5 units a search): B still waits one unit's refill at most.
		{"A searches with limit 100", 5, 1, 1100 * time.Millisecond},
		// B's own search costs 5 units: the floor is 5 units' refill.
		{"B searches with limit 100", 1, 5, 5100 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var worst, sum time.Duration
			n := 0
			aCalls := 0
			const runs = 50
			for seed := range uint64(runs) {
				r := runSeedMeasurement(seed, 200, 20, c.costA, c.costB)
				if len(r.bWaits) != 20 {
					t.Fatalf("seed %d: B got %d of 20 searches", seed, len(r.bWaits))
				}
				if r.overflow > 1e-9 {
					t.Fatalf("seed %d: %.3f units over the budget", seed, r.overflow)
				}
				for _, w := range r.bWaits {
					worst = max(worst, w)
					sum += w
					n++
				}
				aCalls += r.aCalls
			}
			t.Logf("B's longest wait over %d runs × 20 moments: %v (mean %v); A got %.1f calls per run; units over budget: 0",
				runs, worst, sum/time.Duration(n), float64(aCalls)/runs)
			if worst > c.target {
				t.Fatalf("B waited up to %v; target %v", worst, c.target)
			}
		})
	}
}

// simSession is one session of a share scenario.
type simSession struct {
	key     string
	history int     // units used before the measurement, one-unit calls
	cost    float64 // cost of each call during the measurement
}

type shareResult struct {
	units    map[string]float64
	expected map[string]float64 // oracle, scaled to the same total
	maxGap   map[string]time.Duration
	overflow float64
}

// runShareScenario lets each session use its history, then keeps every
// session's queue full for `measure` and compares each session's units
// with the oracle: the fluid (GPS) allocation with weights 1/(1+used/C)
// that change as usage grows, raised to one call per window for any
// session whose fair share is less (water-filling), like the analytic
// fairAlloc of Kubernetes' queueset tests.
func runShareScenario(sessions []simSession, measure time.Duration) shareResult {
	const capacity = 60.0
	window := time.Minute
	clk := fakeclock.New(t0)
	b, err := New(Config{Capacity: capacity, Window: window, MaxQueue: -1, MaxWait: -1}, clk)
	if err != nil {
		panic(err)
	}
	// Phase 1: histories, all sessions at once.
	pending := 0
	for _, s := range sessions {
		for range s.history {
			pending++
			_, _ = b.Submit(Key{Client: s.key}, 1, func(Admission, error) { pending-- })
		}
	}
	for pending > 0 {
		clk.Advance(time.Second)
	}
	used := map[string]float64{}
	for _, s := range sessions {
		used[s.key] = b.Used(s.key)
	}
	if debugShare {
		fmt.Println("used after histories", used, clk.Now().Sub(t0))
	}
	// Phase 2: every session keeps 20 calls queued.
	res := shareResult{units: map[string]float64{}, expected: map[string]float64{}, maxGap: map[string]time.Duration{}}
	start := clk.Now()
	end := start.Add(measure)
	last := map[string]time.Time{}
	var all []Admission
	var submit func(s simSession)
	submit = func(s simSession) {
		_, _ = b.Submit(Key{Client: s.key}, s.cost, func(a Admission, err error) {
			if err != nil || a.At.After(end) {
				return
			}
			all = append(all, a)
			res.units[s.key] += a.Cost
			from := last[s.key]
			if from.IsZero() {
				from = start
			}
			res.maxGap[s.key] = max(res.maxGap[s.key], a.At.Sub(from))
			last[s.key] = a.At
			submit(s)
		})
	}
	for _, s := range sessions {
		last[s.key] = time.Time{}
		for range 20 {
			submit(s)
		}
	}
	clk.AdvanceTo(end)
	res.overflow = worstOverflow(all, capacity, window)

	// The oracle, integrated in steps of 10ms.
	u := map[string]float64{}
	for k, v := range used {
		u[k] = v
	}
	fluid := map[string]float64{}
	rate := capacity / window.Seconds()
	dt := 0.01
	for t := 0.0; t < measure.Seconds(); t += dt {
		rates := waterFill(sessions, u, capacity, rate, window.Seconds())
		for _, s := range sessions {
			d := rates[s.key] * dt
			u[s.key] += d
			fluid[s.key] += d
		}
	}
	var mt, ft float64
	for _, s := range sessions {
		mt += res.units[s.key]
		ft += fluid[s.key]
	}
	for _, s := range sessions {
		res.expected[s.key] = fluid[s.key] / ft * mt
	}
	return res
}

// waterFill gives each session rate·w/Σw, but at least one call per window;
// what the raised sessions take is taken from the others by weight.
func waterFill(sessions []simSession, used map[string]float64, capacity, rate, window float64) map[string]float64 {
	out := map[string]float64{}
	fixed := map[string]bool{}
	for {
		rem := rate
		sumW := 0.0
		for _, s := range sessions {
			if fixed[s.key] {
				rem -= s.cost / window
			} else {
				sumW += 1 / (1 + used[s.key]/capacity)
			}
		}
		changed := false
		for _, s := range sessions {
			if fixed[s.key] {
				out[s.key] = s.cost / window
				continue
			}
			r := rem * (1 / (1 + used[s.key]/capacity)) / sumW
			if r < s.cost/window {
				fixed[s.key] = true
				changed = true
			}
			out[s.key] = r
		}
		if !changed {
			return out
		}
	}
}

var debugShare = false

func TestShareMatchesAnalytic(t *testing.T) {
	scenarios := []struct {
		name     string
		sessions []simSession
	}{
		{"3 sessions, histories 0/60/180", []simSession{
			{"s-new", 0, 1}, {"s-60", 60, 1}, {"s-180", 180, 1},
		}},
		{"5 sessions, histories 0/30/120/240/480", []simSession{
			{"s-new", 0, 1}, {"s-30", 30, 1}, {"s-120", 120, 1}, {"s-240", 240, 1}, {"s-480", 480, 1},
		}},
		{"4 sessions, mixed costs 1/2/5", []simSession{
			{"s-new-c5", 0, 5}, {"s-60-c1", 60, 1}, {"s-120-c2", 120, 2}, {"s-240-c1", 240, 1},
		}},
		// The new session's share shrinks as it uses: the bound binds for
		// the heavy sessions in the first minutes, then their fair share
		// passes it.
		{"1 new + 4 that used 100 budgets (bound binds at first)", []simSession{
			{"s-new", 0, 1}, {"h1", 6000, 1}, {"h2", 6000, 1}, {"h3", 6000, 1}, {"h4", 6000, 1},
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := runShareScenario(sc.sessions, 20*time.Minute)
			if r.overflow > 1e-9 {
				t.Fatalf("%.3f units over the budget", r.overflow)
			}
			var mt float64
			for _, s := range sc.sessions {
				mt += r.units[s.key]
			}
			for _, s := range sc.sessions {
				m, e := r.units[s.key], r.expected[s.key]
				dev := (m - e) / e
				t.Logf("%-10s measured %6.1f units (share %5.2f%%), analytic %6.1f (%5.2f%%), deviation %+5.2f%%, longest gap %v",
					s.key, m, 100*m/mt, e, 100*e/mt, 100*dev, r.maxGap[s.key])
				if math.Abs(dev) > 0.05 {
					t.Errorf("%s: measured share off the analytic share by %.1f%%", s.key, 100*dev)
				}
				if r.maxGap[s.key] > time.Minute {
					t.Errorf("%s waited %v between calls: starvation bound broken", s.key, r.maxGap[s.key])
				}
			}
		})
	}
}

func ExampleBudget_seed() {
	r := runSeedMeasurement(1, 200, 20, 1, 1)
	var worst time.Duration
	for _, w := range r.bWaits {
		worst = max(worst, w)
	}
	fmt.Println(worst <= 1100*time.Millisecond, r.overflow <= 0)
	// Output: true true
}

func TestWorstOverflowMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		var adms []Admission
		at := t0
		for range 200 {
			at = at.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)
			adms = append(adms, Admission{At: at, Cost: []float64{1, 5, 0.125, 60}[rng.IntN(4)]})
		}
		brute := math.Inf(-1)
		for i := range adms {
			units := 0.0
			for j := i; j < len(adms); j++ {
				units += adms[j].Cost
				brute = max(brute, units-60-adms[j].At.Sub(adms[i].At).Seconds())
			}
		}
		if got := worstOverflow(adms, 60, time.Minute); math.Abs(got-brute) > 1e-6 {
			t.Fatalf("worstOverflow %v, brute force %v", got, brute)
		}
	}
}
