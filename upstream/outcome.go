package upstream

import (
	"context"
	"sync/atomic"
)

// Outcome is what one request did on the wire, for the handlers around the
// proxy: a budget may give back the units of a call no platform received.
type Outcome struct {
	sent atomic.Int64
}

// Sent is the number of attempts whose request headers reached a
// platform's connection (a stale-connection resend not counted again).
// Zero means no platform received anything of the request.
func (o *Outcome) Sent() int64 { return o.sent.Load() }

type outcomeKey struct{}

// WithOutcome returns a context whose requests through a Proxy record
// their outcome in the returned Outcome.
func WithOutcome(ctx context.Context) (context.Context, *Outcome) {
	o := new(Outcome)
	return context.WithValue(ctx, outcomeKey{}, o), o
}

func outcomeFrom(ctx context.Context) *Outcome {
	o, _ := ctx.Value(outcomeKey{}).(*Outcome)
	return o
}
