package mcp

import (
	"context"
	"sort"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const platformsDesc = `List the platforms this connector answers from, their tools, whether BesluitBron keeps a request budget for them, and their health as seen by recent calls (ok, failing, over_budget with retry_after_seconds, or unknown when not called yet).
Cost: free; it asks no platform.`

// platformsIn: besluitbron_platforms takes no arguments.
type platformsIn struct{}

type platformsOut struct {
	mcpkit.Meta
	Connector string        `json:"connector" jsonschema_description:"This connector's name."`
	Platforms []platformRow `json:"platforms" jsonschema_description:"The platforms this connector offers, in its order."`
}

type platformRow struct {
	Key       string         `json:"key" jsonschema_description:"Platform key, the prefix of its tools."`
	Name      string         `json:"name"`
	OwnBudget bool           `json:"own_budget" jsonschema_description:"BesluitBron keeps a request budget for this platform."`
	Tools     []string       `json:"tools"`
	Health    platformHealth `json:"health"`
}

func (c *connector) platformsTool(_ context.Context, _ platformsIn) (*platformsOut, *mcpgo.CallToolResult) {
	out := &platformsOut{Meta: mcpkit.Meta{Platform: "besluitbron"}, Connector: c.name, Platforms: []platformRow{}}
	for _, key := range c.settings().platforms {
		p, _ := platforms.Get(key)
		h := c.health.get(key)
		if h.RetryAfterS > 0 && time.Since(h.LastCallAt) > time.Duration(h.RetryAfterS)*time.Second {
			h.RetryAfterS = 0
		}
		tools := toolNamesOf(key)
		sort.Strings(tools)
		out.Platforms = append(out.Platforms, platformRow{Key: key, Name: p.Name, OwnBudget: p.Budget != nil, Tools: tools, Health: h})
	}
	return out, nil
}
