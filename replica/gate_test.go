package replica

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// The harvest's rule: a page goes only while nobody waits in
// the platform's budget queue and at least half its capacity is unspent.
// A visitor who waits holds the harvest back, however long; once the
// queue is empty and the bucket half full, the page goes. Without a
// budget, pages go at most one a poll.
func TestHarvestGoesOnlyWhenVisitorsLeaveRoom(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	room, kept := BudgetRoom{Waiting: 2, Available: 5, Capacity: 5}, true
	budget := func() (BudgetRoom, bool) {
		mu.Lock()
		defer mu.Unlock()
		return room, kept
	}
	set := func(r BudgetRoom, k bool) {
		mu.Lock()
		room, kept = r, k
		mu.Unlock()
	}
	gate := VisitorsFirst(budget, clock, time.Second)
	run := func() chan error {
		done := make(chan error, 1)
		go func() { done <- gate(context.Background()) }()
		return done
	}
	passed := func(done chan error) bool {
		// The gate either returned, or waits on its poll timer.
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				return true
			default:
			}
			if _, pending := clock.NextTimer(); pending {
				return false
			}
			runtime.Gosched()
		}
	}

	done := run()
	for i := 0; i < 10; i++ {
		if passed(done) {
			t.Fatalf("a page went while %d visitors waited", room.Waiting)
		}
		clock.Advance(time.Second)
	}
	set(BudgetRoom{Waiting: 0, Available: 2, Capacity: 5}, true)
	clock.Advance(time.Second)
	if passed(done) {
		t.Fatal("a page went with less than half the budget unspent")
	}
	set(BudgetRoom{Waiting: 0, Available: 2.5, Capacity: 5}, true)
	clock.Advance(time.Second)
	if !passed(done) {
		t.Fatal("no page with the queue empty and half the budget unspent")
	}

	// Room at once: no wait at all.
	if !passed(run()) {
		t.Fatal("the gate waited although the budget left room")
	}

	// No budget kept: one page a poll, never unbounded.
	set(BudgetRoom{}, false)
	done = run()
	if passed(done) {
		t.Fatal("without a budget a page went without waiting")
	}
	clock.Advance(time.Second)
	if !passed(done) {
		t.Fatal("without a budget the page did not go after a poll")
	}

	// A harvester that stops while it waits is not held.
	set(BudgetRoom{Waiting: 1, Capacity: 5}, true)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- gate(ctx) }()
	cancel()
	if err := <-stopped; err == nil {
		t.Fatal("a cancelled wait returned nil")
	}
}
