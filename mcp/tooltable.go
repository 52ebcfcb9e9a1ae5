package mcp

import (
	"context"
	"reflect"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The tool table: the connector's own tools and every tool the platforms
// bring (mcpkit.ToolProvider), with its input and output types, its
// handler and its cost class. How a platform's tools come on (by
// default, only where listed, only with experimental_<key>) is the
// platforms table's (platforms.Platform.Tools). A connector offers
// connectorTools and the tools of the platforms it lists, in this order.
// docs/mcp.md lists the same.
//
// Built at first use: search_all's description reads the table.
var connectorTools = sync.OnceValue(func() []toolSpec {
	return []toolSpec{
		typed("besluitbron_platforms", "Platforms and their health", mcpkit.CostFree, platformsDesc, (*connector).platformsTool),
		typed("search_all", "Search every platform at once", mcpkit.CostBudget, searchAllDesc(), (*connector).searchAll),
		timelineSpec(), // offered where a source of the dossier is (timeline.go)
	}
})

// optInOf is how the platform's tools come on, from the platforms table;
// a key not in it is offered only where listed.
func optInOf(key string) platforms.ToolSet {
	if p, ok := platforms.Get(key); ok {
		return p.Tools
	}
	return platforms.ToolsOptIn
}

// toolSpec is one tool: its mcp-go tool (schemas from its input and
// output types) and its handler for a connector.
type toolSpec struct {
	tool    mcpgo.Tool
	wire    mcpgo.Tool // tool as mcp-go gets it (wireTool)
	cost    string
	in, out reflect.Type
	keep    mcpkit.Keeping // the result memo's (resultmemo.go)
	handler func(c *connector) server.ToolHandlerFunc
	// offered, when set, says whether a connector offers the tool (a
	// connector's own tool that needs a kind of platform); nil: always.
	offered func(keys []string) bool
}

// toolHandler is a tool's own work on the connector: arguments already
// checked against its schema and bound; the result, or an isError result
// saying what failed.
type toolHandler[In, Out any] func(c *connector, ctx context.Context, in In) (*Out, *mcpgo.CallToolResult)

// typed makes a table row of a tool of the connector's own.
func typed[In, Out any](name, title, cost, desc string, h toolHandler[In, Out]) toolSpec {
	return specOf("", mcpkit.Typed(name, title, cost, desc, func(ctx context.Context, env mcpkit.Env, in In) (*Out, *mcpgo.CallToolResult) {
		return h(env.(*toolCallEnv).connector, ctx, in)
	}))
}

// specOf is the table row of t, whoever wrote it (the connector, or
// platform's: mcpkit.ToolProvider). The handler chain: checkArguments (the
// schema a client sees, defaults filled in), t.Run on the call's own
// mcpkit.Env (binds into its input type and does the work), the result's
// Meta from the platform answers behind it where the tool left it
// empty, and the result as structuredContent beside its text.
func specOf(platform string, t mcpkit.Tool) toolSpec {
	mt := buildTool(t, mcpgo.WithDescription(t.Desc), readOnly(t.Title))
	return toolSpec{tool: mt, wire: wireTool(mt), cost: t.Cost, in: t.In, out: t.Out, keep: t.Keep,
		handler: func(c *connector) server.ToolHandlerFunc {
			return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				args, fail := checkArguments(mt, req.Params.Arguments)
				if fail != nil {
					return fail, nil
				}
				// BindArguments prefers the raw JSON: bind the checked
				// arguments instead.
				req.Params.Arguments, req.Params.RawArguments = args, nil
				call := &toolCallEnv{connector: c}
				out, fail := t.Run(ctx, call, req)
				if fail != nil {
					return fail, nil
				}
				call.fillMeta(ctx, platform, out)
				return structured(out), nil
			}
		}}
}

// platformTools is one platform's row of the tool table.
type platformTools struct {
	key   string
	tools []toolSpec
}

// allTools are the tools the platforms bring (mcpkit.ToolProvider), in
// table order. Built at first use, once every platform has registered.
var allTools = sync.OnceValue(func() []platformTools {
	var out []platformTools
	for _, p := range platforms.Providers() {
		tp, ok := p.(mcpkit.ToolProvider)
		if !ok {
			continue
		}
		row := platformTools{key: p.Platform().Key}
		for _, t := range tp.Tools() {
			row.tools = append(row.tools, specOf(row.key, t))
		}
		out = append(out, row)
	}
	return out
})

// keepingOf is how the result memo may keep each tool's result, by
// name (mcpkit.Keeping, as the tool declares it).
var keepingOf = sync.OnceValue(func() map[string]mcpkit.Keeping {
	m := map[string]mcpkit.Keeping{}
	for _, s := range connectorTools() {
		m[s.tool.Name] = s.keep
	}
	for _, p := range allTools() {
		for _, s := range p.tools {
			m[s.tool.Name] = s.keep
		}
	}
	return m
})

// toolsFor lists the tools a connector offering these platforms serves.
func (c *connector) toolsFor(keys []string) []server.ServerTool {
	var out []server.ServerTool
	add := func(specs []toolSpec) {
		for _, s := range specs {
			if s.offered != nil && !s.offered(keys) {
				continue
			}
			t := s.wire
			if hitpathOff.rawSchema {
				t = s.tool
			}
			out = append(out, server.ServerTool{Tool: t, Handler: s.handler(c)})
		}
	}
	add(connectorTools())
	table := allTools()
	for _, key := range keys {
		for _, p := range table {
			if p.key == key {
				add(p.tools)
			}
		}
	}
	return out
}

// toolNamesOf are the names of a platform's tools, in table order.
func toolNamesOf(key string) []string {
	var out []string
	for _, p := range allTools() {
		if p.key == key {
			for _, s := range p.tools {
				out = append(out, s.tool.Name)
			}
		}
	}
	return out
}
