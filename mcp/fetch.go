package mcp

import (
	"context"
	"errors"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/subcall"
)

// adapterSettings are the connector's settings as the platforms'
// surfaces take them (adapters/registry), the same the reader and the
// fan-out use: a Tweede Kamer document's text stays opentk_fetch's.
func (s *settings) adapterSettings() registry.Settings {
	return registry.Settings{Values: s.values, Replicas: s.replicas, LinkBases: s.linkBases}
}

// fetchDocument reads document id of platform through its surface, as the
// site's reader does, and keeps the answers for from_cache and
// queue_wait_ms. A reference the platform package refuses is an invalid
// argument; a document the platform lacks says so with notFound.
func (c *connector) fetchDocument(ctx context.Context, platform, id, kind, notFound string) (adapters.Document, []*subcall.Answer, *mcpgo.CallToolResult) {
	k := c.calls(ctx, platform)
	env := adapters.Env{Get: k.getFrom, Memo: &c.lists, Now: c.now()}
	d, err := c.settings().surfaces[platform].Fetch(ctx, env, id, kind)
	var bad *adapters.InvalidError
	switch {
	case errors.As(err, &bad):
		return d, nil, mcpkit.Invalid(bad.Err)
	case errors.Is(err, adapters.ErrNoDocument):
		return d, nil, mcpgo.NewToolResultError(notFound)
	case err != nil:
		return d, nil, k.failed(err)
	}
	return d, k.answers, nil
}
