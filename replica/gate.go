package replica

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/clock"
)

// Visitors and assistants go first: a harvester asks the platform's feed
// for a page only when nobody waits in the platform's budget queue and
// at least half of the budget's capacity is unspent. A visitor who comes
// just after a page went finds the other half ready; one who comes while
// the harvester waits is served before it, since the harvester asks
// again only after the queue is empty. Pages go one at a time (the
// harvester waits for each), so a harvest never holds more than one
// request in flight. docs/caselaw.md states the rule; gate_test.go holds
// it.

// VisitorsFirstPoll is how often a waiting harvester looks at the budget
// (and a follower at the leader's board).
const VisitorsFirstPoll = 500 * time.Millisecond

// BudgetRoom is what the rule reads of a platform's budget.
type BudgetRoom struct {
	Waiting             int
	Available, Capacity float64
}

// LeavesRoom says whether a page may go now.
func (b BudgetRoom) LeavesRoom() bool { return b.Waiting == 0 && b.Available >= b.Capacity/2 }

// VisitorsFirst is a harvester's gate: it returns when budget leaves
// room, looking every poll on clk, or when ctx ends. Where no budget
// is kept for the platform (a route without platform_limit), a page goes
// at most every poll: the harvest is never unbounded.
func VisitorsFirst(budget func() (BudgetRoom, bool), clk clock.Clock, poll time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			room, kept := budget()
			if kept && room.LeavesRoom() {
				return nil
			}
			tick := make(chan struct{})
			t := clk.AfterFunc(poll, func() { close(tick) })
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-tick:
			}
			if !kept {
				return nil
			}
		}
	}
}
