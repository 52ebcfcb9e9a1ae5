package mcp

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters/ori"
)

func (c *connector) oriTools() []server.ServerTool {
	var ts toolSet
	search := newTool("ori_search", "Search council documents (Open Raadsinformatie)",
		`Search Open Raadsinformatie (ORI Classic), the older archive of council documents of 300+ municipalities and provinces. The public service was switched off upstream on 2026-11-01; prefer obv_search, which covers the same councils. Returns id, title, date, organisation, snippet and link.
Cost: titles and snippets only (full text stays out of search answers); one source (source="alkmaar") is faster than all.`,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Required(), mcp.Description("Search words (simple query syntax).")),
			mcp.WithString("source", mcp.Description("Index name of one municipality, e.g. alkmaar.")),
			limitArg(10, ori.MaxLimit, ""),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		p := ori.SearchParams{Query: a.required("query", "parkeren"), Source: a.str("source"), DateFrom: a.str("date_from"), DateTo: a.str("date_to"),
			Limit: a.integer("limit", 10, 1, ori.MaxLimit), Offset: a.integer("offset", 0, 0, 9900)}
		if r := a.err(); r != nil {
			return r
		}
		r, err := ori.SearchRequest(p)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.ORI, r)
		if fail != nil {
			return fail
		}
		page, err := ori.ParseSearch(ans.Body, p.Offset)
		if err != nil {
			return parseFailed(platforms.ORI, err)
		}
		return pageResult(platforms.ORI, page, p.Offset, nil, ans)
	})
	fetch := newTool("ori_fetch", "Read a council document (Open Raadsinformatie)",
		`Fetch one ORI document by id (from ori_search) with its full text in pages of max_chars (continue with offset=next_offset).
Cost: full text is the expensive path; once fetched it stays cached, so further pages are free.`,
		append([]mcp.ToolOption{mcp.WithString("id", mcp.Required(), mcp.Description("Document id from ori_search."))}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "123456")
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		r, err := ori.DocumentRequest(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.ORI, r)
		if fail != nil {
			return fail
		}
		d, err := ori.ParseDocument(ans.Body)
		if err != nil {
			if strings.Contains(err.Error(), "no such document") {
				return mcp.NewToolResultError("ORI has no document " + id + ": take an id from ori_search.")
			}
			return parseFailed(platforms.ORI, err)
		}
		return docResult(platforms.ORI, d, off, max, ans)
	})
	return ts
}
