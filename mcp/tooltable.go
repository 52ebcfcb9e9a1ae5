package mcp

import (
	"context"
	"reflect"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/platforms"
)

// The tool table: every tool of every platform, with its input and output
// types, its handler and its cost class. How a platform's tools come on
// (by default, only where listed, only with experimental_oa) is the
// platforms table's (platforms.Platform.Tools). A connector offers
// connectorTools and the tools of the platforms it lists, in this order.
// docs/mcp.md lists the same.
var (
	connectorTools []toolSpec
	toolTable      []platformTools
)

func init() {
	connectorTools = []toolSpec{
		typed("besluitbron_platforms", "Platforms and their health", costFree, platformsDesc, (*connector).platformsTool),
		typed("search_all", "Search every platform at once", costBudget, searchAllDesc, (*connector).searchAll),
	}
	toolTable = []platformTools{
		{platforms.OBV, []toolSpec{
			typed("obv_search", "Search council decisions (OpenBesluitvorming)", costBudget, obvSearchDesc, (*connector).obvSearch),
			typed("obv_fetch", "Read a council document, meeting or motion (OpenBesluitvorming)", costFullText, obvFetchDesc, (*connector).obvFetch),
			typed("obv_sources", "List the organisations (OpenBesluitvorming)", costCheap, obvSourcesDesc, (*connector).obvSourcesTool),
			typed("obv_laadstatus", "Load status per organisation (OpenBesluitvorming Laadstatus)", costFree, obvStatusDesc, (*connector).obvStatus),
		}},
		{platforms.TK, []toolSpec{
			typed("tk_search", "Search parliamentary documents (Tweede Kamer)", costCheap, tkSearchDesc, (*connector).tkSearch),
			typed("tk_fetch", "Document details (Tweede Kamer)", costCheap, tkFetchDesc, (*connector).tkFetch),
			typed("tk_commissies", "Committees (Tweede Kamer)", costCheap, tkCommissiesDesc, (*connector).tkCommissies),
			typed("tk_fracties", "Parliamentary groups (Tweede Kamer)", costCheap, tkFractiesDesc, (*connector).tkFracties),
		}},
		{platforms.OpenTK, []toolSpec{
			typed("opentk_search", "Full-text search in parliament (OpenTK)", costBudget, opentkSearchDesc, (*connector).opentkSearch),
			typed("opentk_fetch", "Read a parliamentary document or minutes (OpenTK)", costFullText, opentkFetchDesc, (*connector).opentkFetch),
		}},
		{platforms.OB, []toolSpec{
			typed("ob_search", "Search official publications (Officiële Bekendmakingen)", costCheap, obSearchDesc, (*connector).obSearch),
			typed("ob_fetch", "Read an official publication (Officiële Bekendmakingen)", costFullText, obFetchDesc, (*connector).obFetch),
		}},
		{platforms.Rechtspraak, []toolSpec{
			typed("rechtspraak_search", "Find court rulings (Rechtspraak)", costCheap, rechtspraakSearchDesc, (*connector).rechtspraakSearch),
			typed("rechtspraak_fetch", "Read a court ruling (Rechtspraak)", costFullText, rechtspraakFetchDesc, (*connector).rechtspraakFetch),
			typed("rechtspraak_lists", "Courts and legal areas (Rechtspraak value lists)", costCheap, rechtspraakListsDesc, (*connector).rechtspraakLists),
		}},
		{platforms.BWB, []toolSpec{
			typed("bwb_search", "Search laws and national regulations (wetten.overheid.nl)", costCheap, bwbSearchDesc, (*connector).bwbSearch),
			typed("bwb_fetch", "Read a law as in force on a date, or one article (wetten.overheid.nl)", costFullText, bwbFetchDesc, (*connector).bwbFetch),
		}},
		{platforms.CVDR, []toolSpec{
			typed("cvdr_search", "Search local regulations (lokaleregelgeving.overheid.nl)", costCheap, cvdrSearchDesc, (*connector).cvdrSearch),
			typed("cvdr_fetch", "Read a local regulation (lokaleregelgeving.overheid.nl)", costFullText, cvdrFetchDesc, (*connector).cvdrFetch),
		}},
		// ORI Classic was switched off on 2026-11-01: its tools answer from
		// an ORI-compatible index the operator runs (docs/migration-ori.md).
		{platforms.ORI, []toolSpec{
			typed("ori_search", "Search council documents (ORI-compatible index)", costBudget, oriSearchDesc, (*connector).oriSearch),
			typed("ori_fetch", "Read a council document (ORI-compatible index)", costFullText, oriFetchDesc, (*connector).oriFetch),
		}},
		// Open Archivaris publishes no API description: its tools rest on
		// assumed endpoints, so an operator has to ask for them.
		{platforms.OA, []toolSpec{
			typed("oa_search", "Search the government archive (Open Archivaris)", costBudget, oaSearchDesc, (*connector).oaSearch),
			typed("oa_fetch", "Read an archived document (Open Archivaris)", costFullText, oaFetchDesc, (*connector).oaFetch),
		}},
	}
}

// platformTools is one platform's row of the tool table.
type platformTools struct {
	key   string
	tools []toolSpec
}

// optInOf is how the platform's tools come on, from the platforms table;
// a key not in it is offered only where listed.
func optInOf(key string) platforms.ToolSet {
	if p, ok := platforms.Get(key); ok {
		return p.Tools
	}
	return platforms.ToolsOptIn
}

// Cost classes, what one call costs the platform and the caller's wait.
// The tool descriptions say it in words ("Cost: ...").
const (
	costFree     = "free"      // asks no platform, or BesluitBron's maintenance did
	costCheap    = "cheap"     // metadata or a list, cached long
	costBudget   = "budgeted"  // a search that spends the platform's shared budget
	costFullText = "full text" // the expensive path, cached for weeks once fetched
)

// toolSpec is one tool: its mcp-go tool (schemas from its input and
// output types) and its handler for a connector.
type toolSpec struct {
	tool    mcpgo.Tool
	wire    mcpgo.Tool // tool as mcp-go gets it (wireTool)
	cost    string
	in, out reflect.Type
	handler func(c *connector) server.ToolHandlerFunc
}

// toolHandler is a tool's own work: arguments already checked against its
// schema and bound; the result, or an isError result saying what failed.
type toolHandler[In, Out any] func(c *connector, ctx context.Context, in In) (*Out, *mcpgo.CallToolResult)

// typed makes a table row. The handler chain: checkArguments (the schema
// a client sees, defaults filled in), mcp-go's NewTypedToolHandler (binds
// into In), h, and the result as structuredContent beside its text.
func typed[In, Out any](name, title, cost, desc string, h toolHandler[In, Out]) toolSpec {
	t := buildTool[In, Out](name, mcpgo.WithDescription(desc), readOnly(title))
	return toolSpec{tool: t, wire: wireTool(t), cost: cost, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
		handler: func(c *connector) server.ToolHandlerFunc {
			bound := mcpgo.NewTypedToolHandler(func(ctx context.Context, _ mcpgo.CallToolRequest, in In) (*mcpgo.CallToolResult, error) {
				out, fail := h(c, ctx, in)
				switch {
				case fail != nil:
					return fail, nil
				case out == nil:
					return mcpgo.NewToolResultError("internal error: the tool gave no result"), nil
				}
				return structured(out), nil
			})
			return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				args, fail := checkArguments(t, req.Params.Arguments)
				if fail != nil {
					return fail, nil
				}
				// BindArguments prefers the raw JSON: bind the checked
				// arguments instead.
				req.Params.Arguments, req.Params.RawArguments = args, nil
				return bound(ctx, req)
			}
		}}
}

// toolsFor lists the tools a connector offering these platforms serves.
func (c *connector) toolsFor(keys []string) []server.ServerTool {
	var out []server.ServerTool
	add := func(specs []toolSpec) {
		for _, s := range specs {
			t := s.wire
			if hitpathOff.rawSchema {
				t = s.tool
			}
			out = append(out, server.ServerTool{Tool: t, Handler: s.handler(c)})
		}
	}
	add(connectorTools)
	for _, key := range keys {
		for _, p := range toolTable {
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
	for _, p := range toolTable {
		if p.key == key {
			for _, s := range p.tools {
				out = append(out, s.tool.Name)
			}
		}
	}
	return out
}
