package fairqueue

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestStressNoCallUncounted hammers one budget from many goroutines (with
// hang-ups, rejections, pauses, pull-downs and refunds of admitted calls
// a little later) while another goroutine drives the fake clock, then
// checks the token-bucket invariant over the admissions that stand (not
// refunded): for any two admissions i ≤ j, the units admitted between
// them never exceed the capacity plus the refill in between. It also checks
// that the budget's own count equals the calls that went, and the refunds.
func TestStressNoCallUncounted(t *testing.T) {
	const (
		workers   = 40
		perWorker = 150
	)
	// Small bounds, so full queues, folded session names and forgotten
	// clients all happen under the race detector.
	cfg := Config{Capacity: 60, Window: time.Minute, MaxQueue: 100, MaxWait: 3 * time.Minute, MaxSessions: 4, MaxClients: 4}
	b, clk := newBudget(t, cfg)
	var (
		mu       sync.Mutex
		adms     []Admission // admitted and standing
		refunded []Admission
		all      int // admitted, refunded ones included
	)
	var running atomic.Int32
	running.Store(workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer running.Add(-1)
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			costs := []float64{1, 1, 1, 0.125, 2, 5, 90}
			// Five addresses shared by several workers, three sessions
			// each; every fourth worker makes up a new session name per
			// call; every tenth is the shared client.
			key := "addr:" + strconv.Itoa(g%5)
			if g%10 == 0 {
				key = Shared
			}
			for i := range perWorker {
				sessKey := "app:" + strconv.Itoa(g%3)
				if g%4 == 1 {
					sessKey = "made-up-" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
				}
				ctx, cancel := context.WithCancel(context.Background())
				if rng.IntN(8) == 0 {
					go cancel() // hang up at some point while waiting
				}
				a, err := b.Acquire(ctx, Key{Client: key, Session: sessKey}, costs[rng.IntN(len(costs))])
				cancel()
				var rej *Rejection
				switch {
				case err == nil && rng.IntN(6) == 0:
					// The call fails on its way: refunded a little later,
					// while the others go on and the clock moves.
					for range rng.IntN(4) {
						time.Sleep(0)
					}
					ok := b.Refund(a)
					if b.Refund(a) {
						t.Errorf("refunded %+v twice", a)
					}
					mu.Lock()
					all++
					if ok {
						refunded = append(refunded, a)
					} else {
						adms = append(adms, a) // its history was gone: it stands
					}
					mu.Unlock()
				case err == nil:
					mu.Lock()
					all++
					adms = append(adms, a)
					mu.Unlock()
				case errors.Is(err, context.Canceled), errors.As(err, &rej):
				default:
					t.Errorf("Acquire: %v", err)
					return
				}
			}
		}()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for running.Load() > 0 {
		switch rng.IntN(200) {
		case 0:
			b.Pause(clk.Now().Add(time.Duration(rng.IntN(5000)) * time.Millisecond))
		case 1:
			b.PullDown(float64(rng.IntN(60)), -1)
		case 2:
			b.PullDown(-1, time.Duration(rng.IntN(60))*time.Second)
		}
		clk.Advance(time.Duration(rng.IntN(800)) * time.Millisecond)
		for range 3 {
			time.Sleep(0) // let the workers run; fake time does not move meanwhile
		}
	}
	wg.Wait()
	checkInvariants(t, b)
	if st := b.Stats(); st.Waiting != 0 || st.WaitingClients != 0 || st.WaitingSessions != 0 {
		t.Fatalf("queue places leaked: %+v", st)
	}

	sort.Slice(adms, func(i, j int) bool { return adms[i].At.Before(adms[j].At) })
	st := b.Stats()
	var sum, back float64
	for _, a := range adms {
		sum += a.Cost
	}
	for _, a := range refunded {
		back += a.Cost
	}
	if st.Admitted != uint64(all) || !near(st.UnitsSpent, sum) {
		t.Fatalf("budget counted %d calls, %.3f units; callers got %d calls, %.3f units standing", st.Admitted, st.UnitsSpent, all, sum)
	}
	if st.Refunded != uint64(len(refunded)) || !near(st.UnitsRefunded, back) || len(refunded) == 0 {
		t.Fatalf("budget counted %d refunds, %.3f units; callers got %d, %.3f units back", st.Refunded, st.UnitsRefunded, len(refunded), back)
	}
	if all < workers*perWorker/3 {
		t.Fatalf("only %d of %d calls went", all, workers*perWorker)
	}
	worst := worstOverflow(adms, cfg.Capacity, cfg.Window)
	if worst > 1e-6 {
		t.Fatalf("%.6f units admitted over capacity + refill in some interval", worst)
	}
	t.Logf("%d calls, %.1f units, %d rejected, %d cancelled, %d refunded; closest approach to the bound: %.6f units", len(adms), sum, st.Rejected, st.Cancelled, len(refunded), worst)
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
