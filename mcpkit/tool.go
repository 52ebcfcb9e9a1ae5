package mcpkit

import (
	"context"
	"fmt"
	"reflect"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// ToolProvider is a platform with MCP tools of its own. A connector offers
// them where it offers the platform (platforms.Platform.Tools says when
// that is by default).
type ToolProvider interface {
	Tools() []Tool
}

// Cost classes: what one call costs the platform and the caller's wait.
// A tool's description says it in words ("Cost: ...").
const (
	CostFree     = "free"      // asks no platform, or BesluitBron's maintenance did
	CostCheap    = "cheap"     // metadata or a list, cached long
	CostBudget   = "budgeted"  // a search that spends the platform's shared budget
	CostFullText = "full text" // the expensive path, cached for weeks once fetched
)

// Tool is one MCP tool: its name, title, cost class and description, its
// input and output types (the schemas a client is sent come from them,
// package mcp adds the bounds of their jsonschema_extras tags), and its
// work. Make one with Typed.
type Tool struct {
	Name, Title, Cost, Desc string
	// In and Out are the input and output struct types.
	In, Out reflect.Type
	// New makes the mcp-go tool with the schemas of In and Out and opts.
	New func(opts ...mcpgo.ToolOption) mcpgo.Tool
	// Run binds the checked arguments of req into In and does the work:
	// the *Out, or an isError result that says what failed.
	Run func(ctx context.Context, env Env, req mcpgo.CallToolRequest) (any, *mcpgo.CallToolResult)
}

// Handler is a tool's own work: arguments already checked against its
// schema and bound; the result, or an isError result saying what failed.
type Handler[In, Out any] func(ctx context.Context, env Env, in In) (*Out, *mcpgo.CallToolResult)

// Typed makes a tool of input type In and output type Out.
func Typed[In, Out any](name, title, cost, desc string, h Handler[In, Out]) Tool {
	return Tool{Name: name, Title: title, Cost: cost, Desc: desc,
		In: reflect.TypeFor[In](), Out: reflect.TypeFor[Out](),
		New: func(opts ...mcpgo.ToolOption) mcpgo.Tool {
			return mcpgo.NewTool(name, append(opts, mcpgo.WithInputSchema[In](), mcpgo.WithOutputSchema[Out]())...)
		},
		Run: func(ctx context.Context, env Env, req mcpgo.CallToolRequest) (any, *mcpgo.CallToolResult) {
			var in In
			if err := req.BindArguments(&in); err != nil {
				// As mcp-go's NewTypedToolHandler words it.
				return nil, mcpgo.NewToolResultError(fmt.Sprintf("failed to bind arguments: %v", err))
			}
			out, fail := h(ctx, env, in)
			switch {
			case fail != nil:
				return nil, fail
			case out == nil:
				return nil, mcpgo.NewToolResultError("internal error: the tool gave no result")
			}
			return out, nil
		}}
}
