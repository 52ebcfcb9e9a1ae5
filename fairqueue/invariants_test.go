package fairqueue

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// checkInvariants walks a budget's structures and fails the test if they
// disagree: every queued call is counted once, in its session, its
// client's arrival list and the totals; the ready heap, the waiting list
// and the heavy heap hold exactly the clients with calls queued; headNS is
// the sum of their head calls; idle clients are in the idle list.
func checkInvariants(t testing.TB, b *Budget) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	queued, backlogged, waitSess, nsess := 0, 0, 0, 0
	var headNS int64
	queuedU := 0.0
	for key, c := range b.clients {
		if c.key != key {
			t.Fatalf("client %q filed under %q", c.key, key)
		}
		n, u, named := 0, 0.0, 0
		for name, s := range c.sessions {
			if s.c != c || s.key != name {
				t.Fatalf("session %q of %q misfiled", name, key)
			}
			if name != "" {
				named++
			}
			n += len(s.queue)
			for _, w := range s.queue {
				if w.s != s || w.state != stQueued {
					t.Fatalf("a call in session %q of %q is not queued there", name, key)
				}
				u += w.cost
			}
			if (len(s.queue) > 0) != (s.idx >= 0) || (len(s.queue) > 0) != (s.elem != nil) {
				t.Fatalf("session %q of %q: %d queued but idx %d", name, key, len(s.queue), s.idx)
			}
			if len(s.queue) > 0 {
				waitSess++
			}
		}
		nsess += len(c.sessions)
		if named != c.named || named > b.cfg.MaxSessions {
			t.Fatalf("client %q: %d named sessions, counted %d, bound %d", key, named, c.named, b.cfg.MaxSessions)
		}
		links := 0
		for w := c.oldest; w != nil; w = w.next {
			links++
			if w.s.c != c {
				t.Fatalf("client %q links another client's call", key)
			}
		}
		if n != c.queued || links != n || math.Abs(u-c.queuedU) > 1e-6 {
			t.Fatalf("client %q: %d calls in sessions, %d linked, counted %d (units %v vs %v)", key, n, links, c.queued, u, c.queuedU)
		}
		if n > 0 {
			backlogged++
			if c.idx < 0 || c.elem == nil || c.heavyAt < 0 || c.idle != nil || c.head == nil || c.head.s.c != c || c.ready.Len() == 0 {
				t.Fatalf("backlogged client %q misplaced", key)
			}
			headNS += c.head.costNS
			if c.head != c.head.s.queue[0] {
				t.Fatalf("client %q's head is not its session's first call", key)
			}
		} else if c.idx >= 0 || c.elem != nil || c.heavyAt >= 0 || c.idle == nil || c.head != nil {
			t.Fatalf("idle client %q misplaced", key)
		}
		queued += n
		queuedU += u
	}
	if queued != b.queued || backlogged != b.ready.Len() || backlogged != b.waiting.Len() || backlogged != b.heavy.Len() ||
		headNS != b.headNS || waitSess != b.waitSess || nsess != b.nsess || len(b.clients)-backlogged != b.idle.Len() ||
		math.Abs(queuedU-b.queuedU) > 1e-6 {
		t.Fatalf("totals: queued %d/%d, backlogged %d ready %d waiting %d heavy %d, headNS %d/%d, waiting sessions %d/%d, sessions %d/%d, idle %d/%d",
			queued, b.queued, backlogged, b.ready.Len(), b.waiting.Len(), b.heavy.Len(), headNS, b.headNS, waitSess, b.waitSess, nsess, b.nsess, len(b.clients)-backlogged, b.idle.Len())
	}
	// Clients with calls waiting are never forgotten, and those that went
	// idle are trimmed at the next call into the budget: MaxClients can be
	// passed by at most MaxQueue.
	if b.cfg.MaxQueue > 0 && len(b.clients) > b.cfg.MaxClients+b.cfg.MaxQueue {
		t.Fatalf("%d clients remembered, bound %d + %d", len(b.clients), b.cfg.MaxClients, b.cfg.MaxQueue)
	}
}

// TestInvariantsUnderRandomOps drives one budget with random calls of a
// few addresses (honest names, made-up names, the shared client), random
// hang-ups, expiries, pauses and reconfigurations, under small bounds, and
// checks the structures after every step.
func TestInvariantsUnderRandomOps(t *testing.T) {
	for seed := range uint64(4) {
		t.Run("seed "+strconv.FormatUint(seed, 10), func(t *testing.T) { randomOps(t, seed) })
	}
}

func randomOps(t *testing.T, seed uint64) {
	cfg := Config{Capacity: 10, Window: 10 * time.Second, MaxQueue: 25, MaxWait: 20 * time.Second, MaxSessions: 3, MaxClients: 5, Forget: time.Minute}
	b, clk := newBudget(t, cfg)
	rng := rand.New(rand.NewPCG(seed, 6))
	var cancels []func() bool
	outcomes := 0
	for step := range 10_000 {
		switch n := rng.IntN(100); {
		case n < 60:
			client := "addr:" + strconv.Itoa(rng.IntN(8))
			if rng.IntN(10) == 0 {
				client = Shared
			}
			sess := ""
			switch rng.IntN(3) {
			case 1:
				sess = "app:" + strconv.Itoa(rng.IntN(4))
			case 2:
				sess = "app:made-up-" + strconv.Itoa(step)
			}
			cost := []float64{1, 1, 0.125, 2, 5, 15}[rng.IntN(6)]
			cancel, err := b.Submit(Key{Client: client, Session: sess}, cost, func(Admission, error) { outcomes++ })
			if err != nil {
				t.Fatal(err)
			}
			cancels = append(cancels, cancel)
		case n < 75 && len(cancels) > 0:
			i := rng.IntN(len(cancels))
			if cancels[i]() {
				outcomes++
			}
			cancels = append(cancels[:i], cancels[i+1:]...)
		case n < 97:
			clk.Advance(time.Duration(rng.IntN(3000)) * time.Millisecond)
		case n < 98:
			b.Pause(clk.Now().Add(time.Duration(rng.IntN(5)) * time.Second))
		case n < 99:
			c := cfg
			c.Capacity = float64(5 + rng.IntN(10))
			if err := b.SetConfig(c); err != nil {
				t.Fatal(err)
			}
		default:
			clk.Advance(2 * time.Minute) // everything idle is forgotten
		}
		checkInvariants(t, b)
	}
	clk.Advance(time.Hour)
	checkInvariants(t, b)
	if st := b.Stats(); st.Waiting != 0 || uint64(outcomes) != st.Admitted+st.Rejected+st.Cancelled {
		t.Fatalf("after the run: %+v, %d outcomes", st, outcomes)
	}
}
