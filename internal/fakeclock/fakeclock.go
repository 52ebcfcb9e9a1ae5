// Package fakeclock is the tests' clock: time moves only when a test moves
// it, and timers run in the goroutine that moves it, so no test sleeps. It
// satisfies clock's Clock (the package clock), the one every mechanism that waits
// takes, without importing it.
package fakeclock

import (
	"container/heap"
	"sync"
	"time"
)

// Timer is a pending AfterFunc call (the same type as clock.Timer).
type Timer = interface{ Stop() bool }

// Clock is a clock that only moves when told to. Timers run in the
// goroutine that calls Advance or AdvanceTo, in order of their due time,
// with Now() set to that due time while they run. It is safe for
// concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers fakeTimers
	seq    uint64
	// armed is closed and replaced each time a timer is set, for
	// AwaitTimer.
	armed chan struct{}
}

// New returns a Clock that reads start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f for Now()+d. A d of zero or less runs f at the next
// Advance (even Advance(0)).
func (c *Clock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, due: c.now.Add(max(d, 0)), f: f, seq: c.seq, idx: -1}
	heap.Push(&c.timers, t)
	if c.armed != nil {
		close(c.armed)
		c.armed = nil
	}
	return t
}

// AwaitTimer blocks until a timer is pending and returns its due time: a
// test waits for the goroutine under test to wait on the clock, without
// waiting for real time to pass.
func (c *Clock) AwaitTimer() time.Time {
	for {
		c.AwaitTimers(1)
		c.mu.Lock()
		if len(c.timers) > 0 { // none when it was stopped meanwhile
			defer c.mu.Unlock()
			return c.timers[0].due
		}
		c.mu.Unlock()
	}
}

// AwaitTimers blocks until n timers are pending: several goroutines under
// test all wait on the clock.
func (c *Clock) AwaitTimers(n int) {
	for {
		c.mu.Lock()
		if len(c.timers) >= n {
			c.mu.Unlock()
			return
		}
		if c.armed == nil {
			c.armed = make(chan struct{})
		}
		armed := c.armed
		c.mu.Unlock()
		<-armed
	}
}

// Advance moves time forward by d, running every timer that falls due on
// the way.
func (c *Clock) Advance(d time.Duration) {
	c.AdvanceTo(c.Now().Add(d))
}

// AdvanceTo moves time forward to t (never backwards), running every timer
// due by then, including timers those timers set.
func (c *Clock) AdvanceTo(t time.Time) {
	for {
		c.mu.Lock()
		if len(c.timers) == 0 || c.timers[0].due.After(t) {
			if t.After(c.now) {
				c.now = t
			}
			c.mu.Unlock()
			return
		}
		next := heap.Pop(&c.timers).(*fakeTimer)
		if next.due.After(c.now) {
			c.now = next.due
		}
		c.mu.Unlock()
		next.f()
	}
}

// NextTimer returns the due time of the earliest pending timer.
func (c *Clock) NextTimer() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].due, true
}

type fakeTimer struct {
	c   *Clock
	due time.Time
	f   func()
	seq uint64
	idx int
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.idx < 0 {
		return false
	}
	heap.Remove(&t.c.timers, t.idx)
	return true
}

type fakeTimers []*fakeTimer

func (h fakeTimers) Len() int { return len(h) }
func (h fakeTimers) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h fakeTimers) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *fakeTimers) Push(x any) {
	t := x.(*fakeTimer)
	t.idx = len(*h)
	*h = append(*h, t)
}
func (h *fakeTimers) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.idx = -1
	return t
}
