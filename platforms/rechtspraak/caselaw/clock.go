package caselaw

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/clock"
)

// wait returns once d has passed on clock, or with ctx's error.
func wait(ctx context.Context, clk clock.Clock, d time.Duration) error {
	done := make(chan struct{})
	t := clk.AfterFunc(d, func() { close(done) })
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
