package mcp

import (
	"context"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters/oa"
)

func (c *connector) oaTools() []server.ServerTool {
	var ts toolSet
	search := newTool("oa_search", "Search the government archive (Open Archivaris)",
		`Search Open Archivaris, a full-text archive of documents from council information systems, municipal websites and other sources (municipalities, water boards, provinces). Returns id, title, date, organisation, snippet and link.
Experimental: Open Archivaris publishes no API description; this tool uses endpoints the operator configured on an assumption, so an answer may fail or be incomplete. For council documents prefer obv_search.
Cost: the platform allows 120 calls a minute for all BesluitBron users; a first question may wait, a repeated one comes from the cache. Naming one organisation is faster than searching all.`,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Required(), mcp.Description("Search words.")),
			mcp.WithString("organisation", mcp.Description("Only documents of this body (its key, e.g. utrecht).")),
			limitArg(10, oa.MaxLimit, ""),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		p := oa.SearchParams{Query: a.required("query", "woo-besluit"), Organisation: a.str("organisation"), DateFrom: a.str("date_from"),
			DateTo: a.str("date_to"), Limit: a.integer("limit", 10, 1, oa.MaxLimit), Offset: a.integer("offset", 0, 0, 10000)}
		if r := a.err(); r != nil {
			return r
		}
		r, err := c.settings().oa.SearchRequest(p)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.OA, r)
		if fail != nil {
			return fail
		}
		page, err := oa.ParseSearch(ans.Body, p.Offset)
		if err != nil {
			return parseFailed(platforms.OA, err)
		}
		return pageResult(platforms.OA, page, p.Offset, nil, ans)
	})
	fetch := newTool("oa_fetch", "Read an archived document (Open Archivaris)",
		`Fetch one Open Archivaris document by id (from oa_search): its metadata and the text of one page of the document (page, default 1; the answer gives pages and next_page), bounded by max_chars.
Experimental: the API behind this tool is assumed, not published by Open Archivaris.
Cost: each page of full text is one platform call (budget 120 a minute for all users); pages already read stay cached, so reading them again is free. Read only the pages you need.`,
		append([]mcp.ToolOption{
			mcp.WithString("id", mcp.Required(), mcp.Description("Document id from oa_search.")),
			mcp.WithNumber("page", mcp.Description("Page of the document, from 1. Default 1."), mcp.Min(1)),
		}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "utrecht-000123")
		page := a.integer("page", 1, 1, 100000)
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		ep := c.settings().oa
		r, err := ep.DocumentRequest(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.OA, r)
		if fail != nil {
			return fail
		}
		d, err := oa.ParseDocument(ans.Body)
		if err != nil {
			return parseFailed(platforms.OA, err)
		}
		used := []*answer{ans}
		if d.Text == "" {
			tr, err := ep.TextRequest(id, page)
			if err != nil {
				return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
			}
			tans, fail := c.call(ctx, platforms.OA, tr)
			if fail != nil {
				return fail
			}
			tp, err := oa.ParseText(tans.Body)
			if err != nil {
				return parseFailed(platforms.OA, err)
			}
			used = append(used, tans)
			d.Text = tp.Text
			if d.Meta == nil {
				d.Meta = map[string]string{}
			}
			d.Meta["page"] = strconv.Itoa(tp.Page)
			d.Meta["pages"] = strconv.Itoa(tp.Pages)
			if tp.Page < tp.Pages {
				d.Meta["next_page"] = strconv.Itoa(tp.Page + 1)
			}
		}
		return docResult(platforms.OA, d, off, max, used...)
	})
	return ts
}
