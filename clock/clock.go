// Package clock is BesluitBron's one source of time for the mechanisms
// that wait or schedule (the fair queue and the global budget, the
// case-law harvest and its relay, the fan-out's deadlines): they take a
// Clock, the product passes Wall, and tests pass internal/fakeclock's
// Clock and move time themselves, so no test depends on how fast the
// machine is.
package clock

import (
	"context"
	"time"
)

// Clock tells the time and calls a function once a duration has passed.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine (or, for a fake clock, in
	// the goroutine that advances the clock) once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call: Stop prevents the call if it has
// not run yet, and reports whether it did so. An alias of the plain
// interface, so internal/fakeclock's clock satisfies Clock without
// importing this package, and *time.Timer is one.
type Timer = interface{ Stop() bool }

// Wall is the real clock.
type Wall struct{}

// Now returns time.Now().
func (Wall) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (Wall) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Or is c, or Wall when c is nil (an option left unset).
func Or(c Clock) Clock {
	if c == nil {
		return Wall{}
	}
	return c
}

// Sleep returns once d has passed on c (nil: Wall), or with ctx's error
// if ctx ends first.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	done := make(chan struct{})
	t := Or(c).AfterFunc(d, func() { close(done) })
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
