package globalbudget

import (
	"sort"
	"sync"
	"testing"
	"time"
)

// ledger records admissions (time, units) from every instance and checks
// the platform's bound: in every interval [a, b] between admissions, the
// units admitted stay within capacity plus the refill of b-a (the bucket's
// own guarantee, as fairqueue's stress test checks in one process).
type ledger struct {
	mu   sync.Mutex
	ents []ent
}

type ent struct {
	at    time.Time
	units float64
}

func (l *ledger) add(at time.Time, units float64) {
	l.mu.Lock()
	l.ents = append(l.ents, ent{at, units})
	l.mu.Unlock()
}

func (l *ledger) remove(at time.Time, units float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.ents) - 1; i >= 0; i-- {
		if l.ents[i].at.Equal(at) && l.ents[i].units == units {
			l.ents = append(l.ents[:i], l.ents[i+1:]...)
			return
		}
	}
}

func (l *ledger) total() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := 0.0
	for _, e := range l.ents {
		s += e.units
	}
	return s
}

// over returns the largest excess over capacity + refill in any interval
// (0 when the bound holds), and the most units admitted in any window of
// length W (at most 2 × capacity under the bound).
func (l *ledger) over(capacity float64, window time.Duration) (excess, maxWindow float64) {
	l.mu.Lock()
	ents := append([]ent(nil), l.ents...)
	l.mu.Unlock()
	sort.Slice(ents, func(i, j int) bool { return ents[i].at.Before(ents[j].at) })
	rate := capacity / window.Seconds()
	// S_j - S_{i-1} - rate (t_j - t_i) ≤ capacity for all i ≤ j:
	// keep the least S_{i-1} - rate t_i seen.
	minv := 0.0
	s := 0.0
	t0 := time.Time{}
	if len(ents) > 0 {
		t0 = ents[0].at
	}
	for j, e := range ents {
		tj := e.at.Sub(t0).Seconds()
		// Entries admitted in the same instant count together: group
		// them by adding before comparing.
		v := s - rate*tj
		if j == 0 || v < minv {
			minv = v
		}
		s += e.units
		if ex := s - rate*tj - minv - capacity; ex > excess {
			excess = ex
		}
	}
	i := 0
	sum := 0.0
	for _, e := range ents {
		sum += e.units
		for e.at.Sub(ents[i].at) >= window {
			sum -= ents[i].units
			i++
		}
		maxWindow = max(maxWindow, sum)
	}
	if excess < 1e-6 {
		excess = 0
	}
	return excess, maxWindow
}

func TestLedgerFindsExcess(t *testing.T) {
	var l ledger
	t1 := t0
	l.add(t1, 10)
	l.add(t1.Add(500*time.Millisecond), 10)
	if ex, _ := l.over(10, 10*time.Second); ex < 9 {
		t.Fatalf("excess %v, want about 9.5", ex)
	}
	var ok ledger
	ok.add(t1, 10)
	ok.add(t1.Add(time.Second), 1)
	ok.add(t1.Add(2*time.Second), 1)
	if ex, _ := ok.over(10, 10*time.Second); ex != 0 {
		t.Fatalf("excess %v, want 0", ex)
	}
}
