package caselaw

import (
	"context"
	"time"
)

// Clock is the harvester's source of time. Tests pass a fake clock
// (internal/fakeclock) and move time themselves; nothing here sleeps.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call. An alias of the plain interface, so a
// clock of another package satisfies Clock without importing this one.
type Timer = interface{ Stop() bool }

// WallClock is the real clock.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (WallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// wait returns once d has passed on clock, or with ctx's error.
func wait(ctx context.Context, clock Clock, d time.Duration) error {
	done := make(chan struct{})
	t := clock.AfterFunc(d, func() { close(done) })
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
