package mcp

import (
	"context"
	"sort"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

func (c *connector) platformsTools() []server.ServerTool {
	var ts toolSet
	t := newTool("besluitbron_platforms", "Platforms and their health",
		`List the platforms this connector answers from, their tools, whether BesluitBron keeps a request budget for them, and their health as seen by recent calls (ok, failing, over_budget with retry_after_seconds, or unknown when not called yet).
Cost: free; it asks no platform.`)
	ts.add(t, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		type row struct {
			Key       string         `json:"key"`
			Name      string         `json:"name"`
			OwnBudget bool           `json:"own_budget"`
			Tools     []string       `json:"tools"`
			Health    platformHealth `json:"health"`
		}
		var tools map[string][]string = map[string][]string{}
		for name := range c.mcp.ListTools() {
			for _, key := range c.settings().platforms {
				if len(name) > len(key) && name[:len(key)+1] == key+"_" {
					tools[key] = append(tools[key], name)
				}
			}
		}
		rows := []row{}
		for _, key := range c.settings().platforms {
			p, _ := platforms.Get(key)
			h := c.health.get(key)
			if h.RetryAfterS > 0 && time.Since(h.LastCallAt) > time.Duration(h.RetryAfterS)*time.Second {
				h.RetryAfterS = 0
			}
			ts := tools[key]
			sort.Strings(ts)
			rows = append(rows, row{Key: key, Name: p.Name, OwnBudget: p.OwnLimit, Tools: ts, Health: h})
		}
		return jsonResult("besluitbron", map[string]any{"connector": c.name, "platforms": rows, "from_cache": false, "queue_wait_ms": 0})
	})
	return ts
}
