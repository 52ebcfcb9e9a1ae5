package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters"
	"github.com/besluitbron/besluitbron/mcp/adapters/ob"
)

func (c *connector) obTools() []server.ServerTool {
	var ts toolSet
	search := newTool("ob_search", "Search official publications (Officiële Bekendmakingen)",
		`Search the Dutch official publications (Staatsblad, Staatscourant, Kamerstukken, Gemeenteblad, Provinciaal blad, Waterschapsblad...) through KOOP's SRU service, newest first. Returns identifier (e.g. stb-2024-1), title, publication, issuing body, date, abstract and a link.
Cost: searches return metadata only and are cheap; the platform's budget is shared by all BesluitBron users, so a first question may wait, a repeated one comes from the cache. Narrowing by publication, creator or dates is faster than a search over everything.`,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Description("Words to find anywhere in the publication.")),
			mcp.WithString("publication", mcp.Description("Only this publication."), mcp.Enum(ob.Publications...)),
			mcp.WithString("creator", mcp.Description("Issuing body, e.g. a municipality (Bergeijk) or ministry.")),
			limitArg(10, ob.MaxLimit, ""),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		p := ob.SearchParams{Query: a.str("query"), Publication: a.str("publication"), Creator: a.str("creator"),
			DateFrom: a.str("date_from"), DateTo: a.str("date_to"), Limit: a.integer("limit", 10, 1, ob.MaxLimit), Offset: a.integer("offset", 0, 0, 4900)}
		if r := a.err(); r != nil {
			return r
		}
		r, err := ob.SearchRequest(p)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.OB, r)
		if fail != nil {
			return fail
		}
		page, _, err := ob.ParseSearch(ans.Body)
		if err != nil {
			return parseFailed(platforms.OB, err)
		}
		return pageResult(platforms.OB, page, p.Offset, nil, ans)
	})

	fetch := newTool("ob_fetch", "Read an official publication (Officiële Bekendmakingen)",
		`Fetch one official publication by identifier (e.g. stb-2018-84, kst-26100-1, gmb-2023-174296): its metadata and full text (from the XML edition) in pages of max_chars (continue with offset=next_offset).
Cost: two platform requests (look-up and full text); full text is the expensive path but stays cached for weeks, so further pages are free.`,
		append([]mcp.ToolOption{mcp.WithString("id", mcp.Required(), mcp.Description("Publication identifier, e.g. stb-2018-84."))}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "stb-2018-84")
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		look, err := ob.LookupRequest(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.OB, look)
		if fail != nil {
			return fail
		}
		rec, err := ob.ParseLookup(ans.Body, id)
		if errors.Is(err, ob.ErrNoPublication) {
			return mcp.NewToolResultError("Officiële Bekendmakingen has no publication " + strings.ToLower(strings.TrimSpace(id)) + ": check the identifier or take one from ob_search.")
		}
		if err != nil {
			return parseFailed(platforms.OB, err)
		}
		d := adapters.Document{ID: rec.Hit.ID, Type: rec.Hit.Type, Title: rec.Hit.Title, Date: rec.Hit.Date, Source: rec.Hit.Source,
			URL: rec.Hit.URL, Meta: map[string]string{}}
		for k, v := range rec.Items {
			if k == "pdf" || k == "html" {
				d.Meta[k] = v
			}
		}
		xmlURL := rec.Items["xml"]
		if xmlURL == "" {
			d.Text = "No XML edition exists (publications before 1995 are scanned PDF only); see the pdf link."
			return docResult(platforms.OB, d, off, max, ans)
		}
		fr, err := ob.FileRequest(xmlURL)
		if err != nil {
			return parseFailed(platforms.OB, err)
		}
		file, fail := c.call(ctx, platforms.OB, fr)
		if fail != nil {
			return fail
		}
		text, err := ob.ParseXML(file.Body)
		if err != nil {
			return parseFailed(platforms.OB, err)
		}
		d.Text = text
		return docResult(platforms.OB, d, off, max, ans, file)
	})
	return ts
}
