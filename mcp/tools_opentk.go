package mcp

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters/opentk"
)

func (c *connector) opentkTools() []server.ServerTool {
	var ts toolSet
	search := newTool("opentk_search", "Full-text search in parliament (OpenTK)",
		`Full-text search in what the Tweede Kamer publishes, through OpenTK. Each hit's type is its category: Document (parliamentary papers), Verslag (minutes of a meeting; its id is the meeting's), Activiteit (debates and other agenda items), Toezegging (a minister's commitment), PersoonGeschenk (a member's registered gift) or OODocument (an open.overheid.nl publication). Documents and minutes can be read with opentk_fetch; the others are described by their hit and opened through its link. Results are newest first. Syntax: words are ANDed; "exact phrase", NEAR(a b), AND/OR/NOT in capitals and prefix* work. Page through the (at most 280) results with offset.
kind: alles = every category; activiteiten = Activiteit hits only; moties = documents of soort Motie; vragenantwoorden = written questions and their answers. moties and vragenantwoorden are picked from the newest 280 hits, so a broad query may return few.
Cost: a full-text search is heavy for the platform (it cuts searches short when many run at once), so BesluitBron runs few at a time: a first question may wait, a repeated one and its further pages come from the cache at once. two_months=true searches only the last two months and is much faster.`,
		mcp.WithString("query", mcp.Required(), mcp.Description(`Search words, e.g. stikstof "Natura 2000".`)),
		mcp.WithBoolean("two_months", mcp.Description("Only the last two months (faster). Default false.")),
		mcp.WithString("kind", mcp.Description("alles (default), activiteiten, moties or vragenantwoorden; see the tool description."), mcp.Enum(opentk.Kinds...)),
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

	fetch := newTool("opentk_fetch", "Read a parliamentary document or minutes (OpenTK)",
		`Fetch the text of one Tweede Kamer document (by number, e.g. 2023D41173, or GUID, from opentk_search or tk_search) or the minutes of a meeting (a Verslag hit), in pages of max_chars (continue with offset=next_offset). Pass category = the hit's type. For an Activiteit, Toezegging, PersoonGeschenk or OODocument hit, OpenTK has no text to render: the answer says what the item is and gives its link.
Cost: full text is the slow, expensive path; once fetched it stays cached for weeks, so further pages are free.`,
		append([]mcp.ToolOption{
			mcp.WithString("id", mcp.Required(), mcp.Description("Id of the hit: a document number (2023D41173) or GUID, a Verslag's meeting id, or another category's number.")),
			mcp.WithString("category", mcp.Description("The hit's type (default Document; a GUID that is no document is tried as minutes)."), mcp.Enum(opentk.Categories...)),
		}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "2023D41173")
		category := a.str("category")
		if category != "" && opentk.What(category) == opentk.What("") {
			a.fail("category %q must be one of %s (the type of a search hit)", category, strings.Join(opentk.Categories, ", "))
		}
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		if category != "" && !opentk.Fetchable(category) {
			return c.opentkUnfetchable(category, id)
		}
		n, err := opentk.ValidNumber(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		if category == opentk.Verslag {
			return c.opentkMinutes(ctx, n, off, max)
		}
		r, _ := opentk.DocumentRequest(n)
		ans, fail := c.call(ctx, platforms.OpenTK, r)
		if fail != nil {
			// A GUID without category may be a Verslag hit's meeting id,
			// which /getdoc does not know: try the minutes.
			if category == "" && opentk.IsGUID(n) && notFound(fail) {
				return c.opentkMinutes(ctx, n, off, max)
			}
			return fail
		}
		d, err := opentk.ParseDocument(n, opentk.Document, ans.Body)
		if err != nil {
			return parseFailed(platforms.OpenTK, err)
		}
		return docResult(platforms.OpenTK, d, off, max, ans)
	})
	return ts
}

// opentkMinutes reads the minutes of a meeting by its id.
func (c *connector) opentkMinutes(ctx context.Context, vergaderingID string, off, max int) *mcp.CallToolResult {
	r, err := opentk.MinutesRequest(vergaderingID)
	if err != nil {
		return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
	}
	ans, fail := c.call(ctx, platforms.OpenTK, r)
	if fail != nil {
		return fail
	}
	d, err := opentk.ParseDocument(vergaderingID, opentk.Verslag, ans.Body)
	if err != nil {
		return parseFailed(platforms.OpenTK, err)
	}
	return docResult(platforms.OpenTK, d, off, max, ans)
}

// opentkUnfetchable answers for a hit OpenTK cannot render as text: what it
// is and where to open it, without asking the platform.
func (c *connector) opentkUnfetchable(category, id string) *mcp.CallToolResult {
	id, err := opentk.ValidItem(id)
	if err != nil {
		return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
	}
	v := map[string]any{"id": id, "category": category, "fetchable": false}
	note := "This " + category + " is " + opentk.What(category) + ". OpenTK has no text of it to fetch; its search hit (title and snippet) is what OpenTK returns."
	if u := opentk.ItemURL(category, id); u != "" {
		v["url"] = u
		note += " Open it at " + u + "."
	} else {
		note += " Open it through the url of its search hit."
	}
	v["note"] = note
	return jsonResult(platforms.OpenTK, v)
}

// notFound tells whether a tool failure is the platform's 404 (the
// message call writes for it).
func notFound(r *mcp.CallToolResult) bool {
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok && strings.HasPrefix(t.Text, "Not found on ") {
			return true
		}
	}
	return false
}
