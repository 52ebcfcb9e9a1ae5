package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters"
	"github.com/besluitbron/besluitbron/mcp/adapters/rechtspraak"
)

func (c *connector) rechtspraakTools() []server.ServerTool {
	var ts toolSet
	search := newTool("rechtspraak_search", "Find court rulings (Rechtspraak)",
		`List published Dutch court rulings (uitspraken) and opinions (conclusies) from data.rechtspraak.nl, filtered by court, legal area, type and decision date. The platform has NO free-text search: narrow by court (e.g. "HR", "Rechtbank Den Haag" or its URI), legal area and dates. Returns ECLI, court, date, type and a link per ruling (type is uitspraak or conclusie when known: the list itself does not say, so it is known when you ask for one type, and for the Parket bij de Hoge Raad, which publishes conclusies only; rechtspraak_fetch always names it); the summary (inhoudsindicatie) comes with rechtspraak_fetch.
Cost: lists of ECLIs are cheap and a repeated query comes from the cache; the platform asks not to be hammered (about 10 requests a second for all BesluitBron users), so a first question may wait briefly.`,
		append([]mcp.ToolOption{
			mcp.WithString("court", mcp.Description("Court: abbreviation (HR, RBDHA, GHARL, CRVB, RVS...), name, or identifier URI from rechtspraak_lists Instanties.")),
			mcp.WithString("legal_area", mcp.Description("Legal area: name (e.g. Belastingrecht) or identifier URI from rechtspraak_lists Rechtsgebieden.")),
			mcp.WithString("type", mcp.Description("Uitspraak (ruling) or Conclusie (opinion)."), mcp.Enum("Uitspraak", "Conclusie")),
			mcp.WithString("sort", mcp.Description("By modification time: DESC (newest first) or ASC."), mcp.Enum("DESC", "ASC")),
			limitArg(20, rechtspraak.MaxLimit, ""),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		court, area := a.str("court"), a.str("legal_area")
		p := rechtspraak.SearchParams{Type: a.str("type"), Sort: a.str("sort"), DateFrom: a.str("date_from"), DateTo: a.str("date_to"),
			Limit: a.integer("limit", 20, 1, rechtspraak.MaxLimit), Offset: a.integer("offset", 0, 0, 100000)}
		if r := a.err(); r != nil {
			return r
		}
		if p.Sort == "" {
			p.Sort = "DESC"
		}
		var used []*answer
		if court != "" {
			uri, ans, fail := c.resolveRechtspraak(ctx, "Instanties", court)
			if fail != nil {
				return fail
			}
			used = append(used, ans)
			p.Creators = []string{uri}
		}
		if area != "" {
			uri, ans, fail := c.resolveRechtspraak(ctx, "Rechtsgebieden", area)
			if fail != nil {
				return fail
			}
			used = append(used, ans)
			p.Subjects = []string{uri}
		}
		r, err := rechtspraak.SearchRequest(p)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.Rechtspraak, r)
		if fail != nil {
			return fail
		}
		page, err := rechtspraak.ParseSearch(ans.Body, p)
		if err != nil {
			return parseFailed(platforms.Rechtspraak, err)
		}
		return pageResult(platforms.Rechtspraak, page, p.Offset, nil, append(used, ans)...)
	})

	fetch := newTool("rechtspraak_fetch", "Read a court ruling (Rechtspraak)",
		`Fetch one ruling by ECLI (e.g. ECLI:NL:HR:2014:952): its metadata, summary (inhoudsindicatie) and, unless metadata_only, the full text in pages of max_chars (continue with offset=next_offset).
Cost: metadata_only=true is cheap; the full ruling is the expensive call, but once fetched it stays cached for weeks.`,
		append([]mcp.ToolOption{
			mcp.WithString("ecli", mcp.Required(), mcp.Description("ECLI, e.g. ECLI:NL:HR:2014:952.")),
			mcp.WithBoolean("metadata_only", mcp.Description("Only metadata and summary (cheap). Default false.")),
		}, textPageArgs()...)...)
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		ecli := a.required("ecli", "ECLI:NL:HR:2014:952")
		meta := a.boolean("metadata_only", false)
		off, max := a.textPage(c.settings().maxTextChars)
		if r := a.err(); r != nil {
			return r
		}
		r, err := rechtspraak.ContentRequest(ecli, meta)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		ans, fail := c.call(ctx, platforms.Rechtspraak, r)
		if fail != nil {
			return fail
		}
		d, err := rechtspraak.ParseContent(ans.Body)
		if err != nil {
			return parseFailed(platforms.Rechtspraak, err)
		}
		return docResult(platforms.Rechtspraak, d, off, max, ans)
	})

	lists := newTool("rechtspraak_lists", "Courts and legal areas (Rechtspraak value lists)",
		`Rechtspraak's value lists (Waardelijsten): Instanties (courts, with abbreviation and identifier), Rechtsgebieden (legal areas, two levels), Proceduresoorten, FormeleRelaties, InstantiesBuitenlands. Use the identifiers in rechtspraak_search.
Cost: cheap; the lists are nearly static and kept in the cache for days.`,
		mcp.WithString("list", mcp.Required(), mcp.Description("Which list."), mcp.Enum(rechtspraak.Lists...)),
		mcp.WithString("name", mcp.Description("Only items whose name, abbreviation or identifier contains this text.")),
	)
	ts.add(lists, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		name, filter := a.required("list", "Instanties"), strings.ToLower(a.str("name"))
		if r := a.err(); r != nil {
			return r
		}
		items, ans, fail := c.rechtspraakList(ctx, name)
		if fail != nil {
			return fail
		}
		out := []adapters.Item{}
		for _, it := range items {
			if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Key+" "+it.Extra["afkorting"]), filter) {
				out = append(out, it)
			}
		}
		return jsonResult(platforms.Rechtspraak, map[string]any{"list": name, "count": len(out), "items": out}, ans)
	})
	return ts
}

func (c *connector) rechtspraakList(ctx context.Context, name string) ([]adapters.Item, *answer, *mcp.CallToolResult) {
	r, err := rechtspraak.ListRequest(name)
	if err != nil {
		return nil, nil, mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
	}
	ans, fail := c.call(ctx, platforms.Rechtspraak, r)
	if fail != nil {
		return nil, nil, fail
	}
	items, err := rechtspraak.ParseList(ans.Body)
	if err != nil {
		return nil, nil, parseFailed(platforms.Rechtspraak, err)
	}
	c.lists.put("rechtspraak:"+strings.ToLower(name), items, time.Now())
	return items, ans, nil
}

// resolveRechtspraak turns a court or legal area given as URI,
// abbreviation or name into its identifier URI.
func (c *connector) resolveRechtspraak(ctx context.Context, list, v string) (string, *answer, *mcp.CallToolResult) {
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return v, nil, nil
	}
	var items []adapters.Item
	var ans *answer
	if cached, ok := c.lists.get("rechtspraak:"+strings.ToLower(list), time.Now()); ok {
		items = cached.([]adapters.Item)
	} else {
		var fail *mcp.CallToolResult
		items, ans, fail = c.rechtspraakList(ctx, list)
		if fail != nil {
			return "", nil, fail
		}
	}
	lv := strings.ToLower(v)
	var near []string
	for _, it := range items {
		if strings.EqualFold(it.Extra["afkorting"], v) || strings.EqualFold(it.Label, v) {
			return it.Key, ans, nil
		}
		if strings.Contains(strings.ToLower(it.Label), lv) {
			near = append(near, it.Label)
		}
	}
	if len(near) == 1 {
		for _, it := range items {
			if it.Label == near[0] {
				return it.Key, ans, nil
			}
		}
	}
	what := map[string]string{"Instanties": "court", "Rechtsgebieden": "legal_area"}[list]
	msg := fmt.Sprintf("Unknown %s %q: not found in Rechtspraak's %s list.", what, v, list)
	if len(near) > 0 {
		if len(near) > 8 {
			near = near[:8]
		}
		msg += " Matches: " + strings.Join(near, "; ") + "; give one exactly."
	}
	return "", nil, mcp.NewToolResultError(msg + " See rechtspraak_lists " + list + ".")
}
