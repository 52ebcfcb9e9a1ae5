package mcp

import (
	"slices"

	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/mcpkit"
)

var _ mcpkit.ToolOfferer = (*connector)(nil)

// OffersTool tells whether the connector lists the tool name now: the
// same list as tools/list (toolsFor over its current platforms), so a
// prompt's plan names a connector tool only where it is offered.
func (c *connector) OffersTool(name string) bool {
	s := c.settings()
	if s == nil {
		return false
	}
	return slices.ContainsFunc(c.toolsFor(s.platforms), func(t server.ServerTool) bool { return t.Tool.Name == name })
}
