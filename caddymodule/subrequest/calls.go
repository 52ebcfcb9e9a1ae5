package subrequest

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
)

// Doer runs one request against /platforms/<platform>/...: the answer,
// whatever its status, or an error when there was none. It must return
// when ctx ends.
type Doer func(ctx context.Context, platform string, req adapters.Request) (*Answer, error)

// DoFromContext is Do through the Origin WithOrigin put in ctx: what the
// MCP tools, the fan-out and the site's reader ask through.
func DoFromContext(ctx context.Context, platform string, req adapters.Request) (*Answer, error) {
	o, ok := OriginFrom(ctx)
	if !ok {
		return nil, errors.New("no Caddy server to send the platform request to")
	}
	return Do(ctx, o, platform, req)
}

// Calls is the one getter (adapters.Getter) of the platform packages'
// requests: Get runs a request through Do and turns its answer into a
// body, an *adapters.RouteError or an *adapters.UnreachedError, and Calls
// keeps the answers it saw, for what the caller says of them (served from
// the cache, queue wait). The zero value asks through DoFromContext on the
// wall clock. It is safe for concurrent use.
type Calls struct {
	// Do runs one request; nil is DoFromContext. A Doer may turn a
	// non-2xx answer into its *adapters.RouteError itself (the MCP tools
	// keep their health so); Get passes that on as it is.
	Do Doer
	// Clock is now for the Retry-After of a refusal; nil is clock.Wall.
	Clock clock.Clock

	mu      sync.Mutex
	answers []*Answer
	refused *Answer
}

// Get runs req against platform's route: the body of a 2xx answer; else
// the route's refusal as an *adapters.RouteError, or an
// *adapters.UnreachedError when no answer came.
func (c *Calls) Get(ctx context.Context, platform string, req adapters.Request) ([]byte, error) {
	do := c.Do
	if do == nil {
		do = DoFromContext
	}
	a, err := do(ctx, platform, req)
	var re *adapters.RouteError
	switch {
	case errors.As(err, &re):
		return nil, re
	case err != nil:
		return nil, &adapters.UnreachedError{Err: err}
	case a == nil:
		return nil, &adapters.UnreachedError{Err: errors.New("no answer")}
	case !a.OK():
		c.mu.Lock()
		c.refused = a
		c.mu.Unlock()
		return nil, a.Err(platform, clock.Or(c.Clock).Now())
	}
	c.mu.Lock()
	c.answers = append(c.answers, a)
	c.mu.Unlock()
	return a.Body, nil
}

// Answers are the 2xx answers Get returned, in order.
func (c *Calls) Answers() []*Answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.answers)
}

// Refused is the last non-2xx answer Get turned into a RouteError (nil
// when none): its queue wait counts too.
func (c *Calls) Refused() *Answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}
