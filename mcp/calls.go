package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/subcall"
)

// calls runs the sub-requests a platform package makes for one tool call
// (its get is the package's getter: subcall.Calls through the
// connector's ask) and keeps their answers, for from_cache and
// queue_wait_ms.
type calls struct {
	sub      subcall.Calls
	ctx      context.Context
	platform string
	answers  []*subcall.Answer // sub's 2xx answers, in order
}

func (c *connector) calls(ctx context.Context, platform string) *calls {
	return &calls{sub: subcall.Calls{Do: c.ask}, ctx: ctx, platform: platform}
}

// get runs r: the body of a 2xx answer, else an *adapters.UnreachedError
// or the route's *adapters.RouteError.
func (k *calls) get(r adapters.Request) ([]byte, error) { return k.getFrom(k.ctx, k.platform, r) }

// getFrom is get for a platform package that asks platform (a surface's
// getter); the answers are kept with the others.
func (k *calls) getFrom(ctx context.Context, platform string, r adapters.Request) ([]byte, error) {
	body, err := k.sub.Get(ctx, platform, r)
	k.answers = k.sub.Answers()
	return body, err
}

// failed is the isError result for an error of a platform package call
// made through k: a failed call says what the route answered, and
// anything else is an answer that did not parse.
func (k *calls) failed(err error) *mcpgo.CallToolResult {
	if adapters.CallFailed(err) {
		return mcpgo.NewToolResultError(failureText(k.platform, err))
	}
	return mcpkit.ParseFailed(k.platform, err)
}
