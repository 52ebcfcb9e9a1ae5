package mcp

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters"
	"github.com/besluitbron/besluitbron/mcp/adapters/tk"
)

func (c *connector) tkTools() []server.ServerTool {
	var ts toolSet
	search := newTool("tk_search", "Search parliamentary documents (Tweede Kamer)",
		`Search the Tweede Kamer's Gegevensmagazijn (official open data of the Dutch House of Representatives) for documents (motions, letters, questions, reports) whose title or subject contains all given words, newest first. Returns document number, kind, subject, date and a link per document.
Cost: metadata searches are cheap and a repeated one comes from the cache; for searching inside the documents' text use opentk_search.`,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Description("Words that must all appear in the title or subject.")),
			mcp.WithString("soort", mcp.Description("Document kind, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen.")),
			limitArg(10, 100, ""),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		p := tk.SearchParams{Query: a.str("query"), Soort: a.str("soort"), DateFrom: a.str("date_from"), DateTo: a.str("date_to"),
			Limit: a.integer("limit", 10, 1, 100), Offset: a.integer("offset", 0, 0, 100000)}
		if r := a.err(); r != nil {
			return r
		}
		r, err := tk.SearchRequest(p)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.TK, r)
		if fail != nil {
			return fail
		}
		page, err := tk.ParseSearch(ans.Body, p.Offset)
		if err != nil {
			return parseFailed(platforms.TK, err)
		}
		return pageResult(platforms.TK, page, p.Offset, nil, ans)
	})

	fetch := newTool("tk_fetch", "Document details (Tweede Kamer)",
		`Fetch one Tweede Kamer document's metadata by document number (2023D41173) or GUID: title, subject, kind, date, parliamentary year and the link to its file. The Gegevensmagazijn holds the text only as a PDF/Word file; for readable text use opentk_fetch with the same number.
Cost: cheap, cached.`,
		mcp.WithString("id", mcp.Required(), mcp.Description("Document number (e.g. 2023D41173) or GUID.")))
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "2023D41173")
		if r := a.err(); r != nil {
			return r
		}
		r, err := tk.DocumentRequest(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.TK, r)
		if fail != nil {
			return fail
		}
		d, err := tk.ParseDocument(ans.Body)
		if err != nil {
			if strings.Contains(err.Error(), "no such document") {
				return mcp.NewToolResultError("Tweede Kamer has no document " + id + ": check the number or take one from tk_search.")
			}
			return parseFailed(platforms.TK, err)
		}
		return docResult(platforms.TK, d, 0, c.settings().maxTextChars, ans)
	})

	list := func(name, title, desc string, build func(a *args) adapters.Request, opts ...mcp.ToolOption) {
		t := newTool(name, title, desc, append(opts, mcp.WithString("name", mcp.Description("Only items whose name or abbreviation contains this text.")))...)
		ts.add(t, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
			r := build(a)
			filter := strings.ToLower(a.str("name"))
			if res := a.err(); res != nil {
				return res
			}
			ans, fail := c.call(ctx, platforms.TK, r)
			if fail != nil {
				return fail
			}
			items, err := tk.ParseList(ans.Body)
			if err != nil {
				return parseFailed(platforms.TK, err)
			}
			out := []adapters.Item{}
			for _, it := range items {
				if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Extra["afkorting"]), filter) {
					out = append(out, it)
				}
			}
			return jsonResult(platforms.TK, map[string]any{"count": len(out), "items": out}, ans)
		})
	}
	list("tk_commissies", "Committees (Tweede Kamer)",
		`List the Tweede Kamer's committees (commissies) with id, name and abbreviation.
Cost: cheap; the list changes rarely and is kept in the cache for a long time.`,
		func(a *args) adapters.Request { return tk.CommissiesRequest() })
	list("tk_fracties", "Parliamentary groups (Tweede Kamer)",
		`List the Tweede Kamer's parliamentary groups (fracties) with abbreviation, name and seats; only current ones unless include_inactive.
Cost: cheap; the list changes at elections and is kept in the cache for a long time.`,
		func(a *args) adapters.Request { return tk.FractiesRequest(a.boolean("include_inactive", false)) },
		mcp.WithBoolean("include_inactive", mcp.Description("Also former groups. Default false.")))
	return ts
}
