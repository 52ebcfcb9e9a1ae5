package subcall

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
)

// MaxAnswerBytes bounds one platform answer held in memory.
const MaxAnswerBytes = 32 << 20

// ErrAnswerTooLarge is a Doer's error for an answer over MaxAnswerBytes.
var ErrAnswerTooLarge = errors.New("the platform's answer is larger than the 32 MiB BesluitBron holds for one call")

// ErrAborted is a Doer's error when the platform route aborted its answer
// part-way (the platform broke off, or a handler panicked): what came is
// incomplete and is not returned.
var ErrAborted = errors.New("the platform's answer broke off")

// Doer runs one request against /platforms/<platform>/...: the answer,
// whatever its status, or an error when there was none. It must return
// when ctx ends.
type Doer func(ctx context.Context, platform string, req adapters.Request) (*Answer, error)

// Calls is the one getter (adapters.Getter) of the platform packages'
// requests: Get runs a request through Do and turns its answer into a
// body, an *adapters.RouteError or an *adapters.UnreachedError, and Calls
// keeps the answers it saw, for what the caller says of them (served from
// the cache, queue wait). It is safe for concurrent use.
type Calls struct {
	// Do runs one request (caddymodule/subrequest.DoFromContext in
	// BesluitBron); nil reaches nothing and says so. A Doer may turn a
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
		do = noDoer
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

func noDoer(context.Context, string, adapters.Request) (*Answer, error) {
	return nil, errors.New("no way to send the platform request: Calls.Do is not set")
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
