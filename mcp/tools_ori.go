package mcp

import (
	"context"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters/ori"
)

// oriTools are offered only by a connector that lists ori: ORI Classic was
// switched off on 2026-11-01, so they answer from an ORI-compatible index
// the operator runs (BESLUITBRON_ORI_URL; docs/migration-ori.md).
func (c *connector) oriTools() []server.ServerTool {
	var ts toolSet
	search := newTool("ori_search", "Search council documents (ORI-compatible index)",
		`Search the operator's ORI-compatible index of council documents (the Open Raadsinformatie "Classic" format: municipalities ori_*, provinces osi_*, water boards owi_*). The public ORI service was switched off on 2026-11-01; its data lives on in OpenBesluitvorming, so prefer obv_search unless you need this index. Returns id, title, date, organisation name, snippet and link.
Cost: titles and snippets only (full text stays out of search answers); one source (source="alkmaar") is faster than all.`,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Required(), mcp.Description("Search words (simple query syntax).")),
			mcp.WithString("source", mcp.Description("One organisation: its key (alkmaar; searches ori_, osi_ and owi_ indices), a prefixed key (osi_limburg, owi_limburg) or an OpenBesluitvorming key (provincie_limburg).")),
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
		names, used := c.oriOrganisations(ctx, ans.Body)
		page, err := ori.ParseSearch(ans.Body, p.Offset, names)
		if err != nil {
			return parseFailed(platforms.ORI, err)
		}
		return pageResult(platforms.ORI, page, p.Offset, nil, append([]*answer{ans}, used...)...)
	})
	fetch := newTool("ori_fetch", "Read a council document (ORI-compatible index)",
		`Fetch one document of the operator's ORI-compatible index by id (from ori_search) with its full text in pages of max_chars (continue with offset=next_offset).
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
		names, used := c.oriOrganisations(ctx, ans.Body)
		d, err := ori.ParseDocument(ans.Body, names)
		if err != nil {
			if strings.Contains(err.Error(), "no such document") {
				return mcp.NewToolResultError("The ORI index has no document " + id + ": take an id from ori_search.")
			}
			return parseFailed(platforms.ORI, err)
		}
		return docResult(platforms.ORI, d, off, max, append([]*answer{ans}, used...)...)
	})
	return ts
}

// oriOrganisations names the organisations of a search answer's hits:
// has_organization_name holds an Organization object's id, looked up once
// and remembered for memoTTL. A failed lookup costs the answer nothing but
// the names (the hits then carry the source key of their index).
func (c *connector) oriOrganisations(ctx context.Context, body []byte) (map[string]string, []*answer) {
	names := map[string]string{}
	var missing []string
	now := time.Now()
	for _, id := range ori.OrganisationIDs(body) {
		if v, ok := c.lists.get("ori-org:"+id, now); ok {
			names[id], _ = v.(string)
			continue
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return names, nil
	}
	r, err := ori.OrganisationsRequest(missing)
	if err != nil {
		return names, nil
	}
	ans, fail := c.call(ctx, platforms.ORI, r)
	if fail != nil {
		return names, nil
	}
	found, err := ori.ParseOrganisations(ans.Body)
	if err != nil {
		return names, []*answer{ans}
	}
	for _, id := range missing {
		// An id without an Organization object is remembered as "" so a
		// page of such hits does not ask again for every search.
		c.lists.put("ori-org:"+id, found[id], now)
		names[id] = found[id]
	}
	return names, []*answer{ans}
}
