package mcp

import (
	"context"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// LoadStatus is platform key's load status (mcpkit.Env): the one the
// app's keeper last fetched while it is fresh (within two intervals and
// a minute: one refresh may fail); else fetched now, also as the shared
// session, and handed to the keeper.
func (c *connector) LoadStatus(ctx context.Context, key string) (adapters.KeptLoadStatus, bool, *mcpgo.CallToolResult) {
	p, _ := platforms.ProviderOf(key)
	reporter, ok := p.(adapters.LoadReporter)
	if !ok {
		return adapters.KeptLoadStatus{}, false, mcpgo.NewToolResultError("internal error: platform " + key + " publishes no load status")
	}
	k := c.settings().loadStatus[key]
	if k != nil {
		if l, ok := k.Last(); ok && c.now().Sub(l.Fetched) < 2*k.Interval()+time.Minute {
			return l, false, nil
		}
	}
	o, ok := subrequest.OriginFrom(ctx)
	if !ok {
		return adapters.KeptLoadStatus{}, false, mcpgo.NewToolResultError("internal error: no server for the load status")
	}
	o.Key = session.Shared
	ctx = subrequest.WithOrigin(ctx, o)
	ans, fail := c.call(ctx, key, reporter.LoadStatusRequest())
	if fail != nil {
		return adapters.KeptLoadStatus{}, false, fail
	}
	st, err := reporter.ParseLoadStatus(ans.Body)
	if err != nil {
		return adapters.KeptLoadStatus{}, false, mcpkit.ParseFailed(key, err)
	}
	l := adapters.KeptLoadStatus{LoadStatus: st, Fetched: c.now(), Cache: ans.Cache, QueueWaitMS: ans.QueueWaitMS}
	if k != nil {
		k.Store(l)
	}
	return l, true, nil
}
