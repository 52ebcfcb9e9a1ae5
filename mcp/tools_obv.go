package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/mcp/adapters/obv"
)

const obvSearchDesc = `Search OpenBesluitvorming: meetings, documents, motions and spoken word of the councils and boards of 330 Dutch organisations: municipalities (gemeenten), provinces (provincies) and water boards (waterschappen). It also holds what Open Raadsinformatie (ORI, switched off on 1 November 2026) used to serve, under the same organisation keys. Returns compact hits (id, type, title, date, organisation, short snippet, link).
Cost: the platform allows 60 units a minute for all BesluitBron users together; a search costs 1 unit per 24 results (limit 24 = 1 unit, 100 = 5). A first question on a subject waits for that budget; repeating it in this conversation comes from the cache at once. Searching one organisation (organization="utrecht", keys from obv_sources) is faster and more precise than all 330. Titles and snippets are cheap; fetch full text only for the items you need with obv_fetch.`

func (c *connector) obvTools() []server.ServerTool {
	var ts toolSet
	search := newTool("obv_search", "Search council decisions (OpenBesluitvorming)", obvSearchDesc,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Description(`Words to find; all must match. Put words in double quotes to find them as a phrase, in that order ("sociale huurwoningen"). Optional when organization is given.`)),
			mcp.WithString("organization", mcp.Description("Organisation key of a municipality, province or water board, e.g. utrecht, soest, provincie-utrecht (see obv_sources). Omit to search all 330.")),
			mcp.WithString("entity_type", mcp.Description("Only this kind."), mcp.Enum(obv.EntityTypes...)),
			mcp.WithString("sort", mcp.Description("Order: date_desc (newest first, the default), date_asc or title_asc. There is no relevance order."), mcp.Enum(obv.Sorts...)),
			limitArg(10, obv.MaxLimit, "Up to 24 costs one budget unit."),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		p := obv.SearchParams{Query: a.str("query"), Organization: a.str("organization"), EntityType: a.str("entity_type"),
			Sort: a.str("sort"), DateFrom: a.str("date_from"), DateTo: a.str("date_to"),
			Limit: a.integer("limit", 10, 1, obv.MaxLimit), Offset: a.integer("offset", 0, 0, 10000)}
		if r := a.err(); r != nil {
			return r
		}
		r, err := obv.SearchRequest(p)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		if p.Organization != "" {
			if res := c.checkOrganization(ctx, p.Organization); res != nil {
				return res
			}
		}
		ans, fail := c.call(ctx, platforms.OBV, r)
		if fail != nil {
			return fail
		}
		page, err := obv.ParseSearch(ans.Body)
		if err != nil {
			return parseFailed(platforms.OBV, err)
		}
		return pageResult(platforms.OBV, page, p.Offset, map[string]any{"budget_units": obv.Cost(p.Limit)}, ans)
	})

	fetch := newTool("obv_fetch", "Read a council document, meeting or motion (OpenBesluitvorming)",
		`Fetch one OpenBesluitvorming item by id (from obv_search), of a municipality, province or water board: a document's full text (markdown), a meeting's agenda with documents, motions and transcript, or a motion's result, votes per member where the council publishes them, and otherwise the council's own vote summary (vote_summary). Text comes in pages of max_chars; continue with offset=next_offset.
Cost: full text is the most expensive call BesluitBron makes (1 budget unit, and a long wait when the budget is spent); once fetched it stays cached for weeks, so reading further pages or fetching it again later is free. Fetch only what you need.`,
		append([]mcp.ToolOption{mcp.WithString("id", mcp.Required(), mcp.Description("Entity id, e.g. document:notubiz:gemeente:soest:12345."))}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		id := a.required("id", "document:notubiz:gemeente:soest:12345")
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		r, err := obv.EntityRequest(id)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.OBV, r)
		if fail != nil {
			return fail
		}
		d, err := obv.ParseEntity(ans.Body)
		if err != nil {
			return parseFailed(platforms.OBV, err)
		}
		return docResult(platforms.OBV, d, off, max, ans)
	})

	sources := newTool("obv_sources", "List the organisations (OpenBesluitvorming)",
		`List OpenBesluitvorming's organisations (municipalities/gemeenten, provinces/provincies, water boards/waterschappen) with their keys for obv_search's organization argument; the keys are those Open Raadsinformatie used, except provincie_limburg, provincie_groningen and waterschap_limburg. Filter by type or by a part of the name.
Cost: cheap; the list changes in months and is kept in BesluitBron's cache for a long time.`,
		mcp.WithString("organization_type", mcp.Description("Only this type."), mcp.Enum("gemeente", "provincie", "waterschap")),
		mcp.WithString("name", mcp.Description("Only organisations whose key or name contains this text (case-insensitive).")),
		mcp.WithBoolean("include_not_implemented", mcp.Description("Also list organisations that are not imported (yet). Default false.")),
	)
	ts.add(sources, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		typ, name, all := a.str("organization_type"), strings.ToLower(a.str("name")), a.boolean("include_not_implemented", false)
		if r := a.err(); r != nil {
			return r
		}
		list, ans, fail := c.obvSources(ctx)
		if fail != nil {
			return fail
		}
		type item struct {
			Key      string `json:"key"`
			Label    string `json:"label"`
			Type     string `json:"type"`
			Supplier string `json:"supplier"`
		}
		out := []item{}
		for _, s := range list {
			if (!all && !s.Implemented) || (typ != "" && s.OrganizationType != typ) {
				continue
			}
			if name != "" && !strings.Contains(strings.ToLower(s.Key), name) && !strings.Contains(strings.ToLower(s.Label), name) {
				continue
			}
			out = append(out, item{s.Key, s.Label, s.OrganizationType, s.Supplier})
		}
		return jsonResult(platforms.OBV, map[string]any{"count": len(out), "organizations": out}, ans)
	})

	status := newTool("obv_laadstatus", "Load status per organisation (OpenBesluitvorming Laadstatus)",
		`Laadstatus: how fresh OpenBesluitvorming's import is per organisation (state ok/failing/discontinued, last successful import, latest content date, last error) and per supplier (iBabs, Notubiz, ...). Use it to tell whether a missing recent document is simply not imported yet.
Cost: free for you: BesluitBron's own maintenance refreshes it every few minutes as its shared session; the answer says how old it is.`,
		mcp.WithString("organization", mcp.Description("Only this organisation key (see obv_sources).")),
		mcp.WithString("state", mcp.Description("Only organisations in this state, e.g. failing.")),
		limitArg(50, 400, ""),
	)
	ts.add(status, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		org, state, limit := a.str("organization"), a.str("state"), a.integer("limit", 50, 1, 400)
		if r := a.err(); r != nil {
			return r
		}
		snap, now, fail := c.laadstatus(ctx)
		if fail != nil {
			return fail
		}
		var rows []obv.SourceStatus
		for _, s := range snap.status.Sources {
			if org != "" && !strings.EqualFold(s.SourceKey, org) {
				continue
			}
			if state != "" && !strings.EqualFold(s.State, state) {
				continue
			}
			rows = append(rows, s)
		}
		if org != "" && len(rows) == 0 {
			return mcp.NewToolResultError(fmt.Sprintf("Organisation %q has no load status: check the key with obv_sources.", org))
		}
		counts := map[string]int{}
		for _, s := range snap.status.Sources {
			counts[s.State]++
		}
		more := len(rows) > limit
		if more {
			rows = rows[:limit]
		}
		if rows == nil {
			rows = []obv.SourceStatus{}
		}
		age := time.Since(snap.fetched).Round(time.Second)
		v := map[string]any{"generated_at": snap.status.GeneratedAt, "fetched_at": snap.fetched.UTC().Format(time.RFC3339),
			"age_seconds": int(age.Seconds()), "states": counts, "suppliers": snap.status.Suppliers, "sources": rows,
			"has_more": more, "maintained_by": "BesluitBron maintenance (shared session)",
			"from_cache": !now || cacheHit(snap.cache), "queue_wait_ms": 0}
		if now {
			v["queue_wait_ms"] = snap.waitMS
		}
		return jsonResult(platforms.OBV, v)
	})
	return ts
}

// obvSources returns the sources list, through the platform route (the
// platform cache keeps it long) and memoised for argument checks.
func (c *connector) obvSources(ctx context.Context) ([]obv.Source, *answer, *mcp.CallToolResult) {
	ans, fail := c.call(ctx, platforms.OBV, obv.SourcesRequest())
	if fail != nil {
		return nil, nil, fail
	}
	list, err := obv.ParseSources(ans.Body)
	if err != nil {
		return nil, nil, parseFailed(platforms.OBV, err)
	}
	c.lists.put("obv:sources", list, time.Now())
	return list, ans, nil
}

// checkOrganization checks an organisation key against the sources list
// and names close matches. When the list cannot be had, the platform
// itself judges the key.
func (c *connector) checkOrganization(ctx context.Context, key string) *mcp.CallToolResult {
	var list []obv.Source
	if v, ok := c.lists.get("obv:sources", time.Now()); ok {
		list = v.([]obv.Source)
	} else {
		l, _, fail := c.obvSources(ctx)
		if fail != nil {
			return nil
		}
		list = l
	}
	var near []string
	lk := strings.ToLower(key)
	for _, s := range list {
		if s.Key == key {
			return nil
		}
		if strings.EqualFold(s.Key, key) || strings.EqualFold(s.Label, key) {
			return mcp.NewToolResultError(fmt.Sprintf("Unknown organization %q: keys are case-sensitive; did you mean %q?", key, s.Key))
		}
		if strings.Contains(strings.ToLower(s.Key), lk) || strings.Contains(strings.ToLower(s.Label), lk) {
			near = append(near, s.Key)
		}
	}
	sort.Strings(near)
	if len(near) > 8 {
		near = near[:8]
	}
	msg := fmt.Sprintf("Unknown organization %q: it is not in OpenBesluitvorming's sources list.", key)
	if len(near) > 0 {
		msg += " Did you mean: " + strings.Join(near, ", ") + "?"
	}
	return mcp.NewToolResultError(msg + " Use obv_sources to find the key.")
}

// laadstatus returns the maintained load status; when the maintenance has
// none yet (or it is too old), it fetches it now, also as the shared
// session.
func (c *connector) laadstatus(ctx context.Context) (snap *statusSnapshot, fetchedNow bool, fail *mcp.CallToolResult) {
	m := c.maint.Load()
	if m != nil {
		if s := m.snapshot(); s != nil && time.Since(s.fetched) < 2*time.Duration(m.interval.Load())+time.Minute {
			return s, false, nil
		}
	}
	o, ok := originFrom(ctx)
	if !ok {
		return nil, false, mcp.NewToolResultError("internal error: no server for the load status")
	}
	o.key = session.Shared
	ctx = withOrigin(ctx, o)
	ans, fail := c.call(ctx, platforms.OBV, obv.StatusRequest())
	if fail != nil {
		return nil, false, fail
	}
	st, err := obv.ParseStatus(ans.Body)
	if err != nil {
		return nil, false, parseFailed(platforms.OBV, err)
	}
	now := time.Now()
	if m != nil {
		m.store(st, ans, now)
	}
	return &statusSnapshot{status: st, fetched: now, cache: ans.Cache, waitMS: ans.QueueWaitMS}, true, nil
}
