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
	// Keep says whether a connector may keep the tool's encoded result
	// and write it again for the same call (Kept).
	Keep Keeping
}

// Keeping says what a tool's answer is a function of, so a connector may
// keep its encoded result and write it again for the same arguments
// instead of running the tool (package mcp's result memo), for as long as
// all of that holds. A tool declares it (Tool.Kept); the default keeps
// nothing. Declare it only when the answer is a function of these alone:
//
//   - its platform answers, each a cache hit (the connector writes their
//     Cache-Status and Age, which move with the clock, into the kept
//     result per call: the Meta it fills, never the tool's own fields);
//   - the connector's config and tool list, and its list memo (Env.Lists:
//     the connector drops a kept result on any Put or expiry there);
//   - for KeptForTheDay, the date of Env.Now.
//
// Nothing else: not the clock at a finer grain, not the platforms' health,
// not state the connector does not see change (a harvested index, the
// load status). The connector's differential test holds a kept tool's
// answer to its own at other clock times.
type Keeping uint8

const (
	// NotKept: the tool runs on every call.
	NotKept Keeping = iota
	// KeptWhileHitsHold: a function of the platform answers, config and
	// list memo alone.
	KeptWhileHitsHold
	// KeptForTheDay: the same, and of the date of Env.Now (a default
	// "today"): a kept result holds until the connector's clock reaches
	// another date.
	KeptForTheDay
)

// Kept returns t declaring that its answer is such a function (Keeping).
func (t Tool) Kept(k Keeping) Tool {
	t.Keep = k
	return t
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
