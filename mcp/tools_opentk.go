package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters/opentk"
)

func (c *connector) opentkTools() []server.ServerTool {
	var ts toolSet
	search := newTool("opentk_search", "Full-text search in parliament (OpenTK)",
		`Full-text search in everything the Tweede Kamer publishes (documents and minutes), through OpenTK. Syntax: words are ANDed; "exact phrase", NEAR(a b), AND/OR/NOT in capitals and prefix* work. Returns document number, kind, subject, date, a snippet and a link; page through the (at most 280) results with offset.
Cost: a full-text search is heavy for the platform (it cuts searches short when many run at once), so BesluitBron runs few at a time: a first question may wait, a repeated one and its further pages come from the cache at once. two_months=true searches only the last two months and is much faster.`,
		mcp.WithString("query", mcp.Required(), mcp.Description(`Search words, e.g. stikstof "Natura 2000".`)),
		mcp.WithBoolean("two_months", mcp.Description("Only the last two months (faster). Default false.")),
		mcp.WithString("kind", mcp.Description("Only this kind (default alles)."), mcp.Enum(opentk.Kinds...)),
		limitArg(10, 100, ""),
		offsetArg(),
	)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		q := a.required("query", "stikstof")
		two, kind := a.boolean("two_months", false), a.str("kind")
		limit, offset := a.integer("limit", 10, 1, 100), a.integer("offset", 0, 0, opentk.MaxResults)
		if r := a.err(); r != nil {
			return r
		}
		r, err := opentk.SearchRequest(q, two, kind)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.OpenTK, r)
		if fail != nil {
			return fail
		}
		page, err := opentk.ParseSearch(ans.Body, offset, limit)
		if err != nil {
			return parseFailed(platforms.OpenTK, err)
		}
		return pageResult(platforms.OpenTK, page, offset, nil, ans)
	})

	fetch := newTool("opentk_fetch", "Read a parliamentary document (OpenTK)",
		`Fetch the text of one Tweede Kamer document by number (e.g. 2023D41173, from opentk_search or tk_search), in pages of max_chars (continue with offset=next_offset).
Cost: full text is the slow, expensive path; once fetched it stays cached for weeks, so further pages are free.`,
		append([]mcp.ToolOption{mcp.WithString("id", mcp.Required(), mcp.Description("Document number, e.g. 2023D41173."))}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "2023D41173")
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		n, err := opentk.ValidNumber(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		r, _ := opentk.DocumentRequest(n)
		ans, fail := c.call(ctx, platforms.OpenTK, r)
		if fail != nil {
			return fail
		}
		d, err := opentk.ParseDocument(n, ans.Body)
		if err != nil {
			return parseFailed(platforms.OpenTK, err)
		}
		return docResult(platforms.OpenTK, d, off, max, ans)
	})
	return ts
}
