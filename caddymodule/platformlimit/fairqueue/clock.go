package fairqueue

import "time"

// Clock is the budget's source of time. Tests and simulations pass a fake
// clock (internal/fakeclock) and move time forward themselves; nothing in
// this package sleeps.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine (or, for a fake clock, in the
	// goroutine that advances the clock) once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call: Stop prevents the call if it has
// not run yet, and reports whether it did so. It is an alias of the plain
// interface, so a clock of another package (the tests' fake clock in
// internal/fakeclock) satisfies Clock without importing this one.
type Timer = interface{ Stop() bool }

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
