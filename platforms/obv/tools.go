package obv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
)

// toolSearchDesc says what a search costs in the words of the platforms
// table (its budget and its price for a search), so the price is written
// once, in platforms.
var toolSearchDesc = toolSearchDescFor(toolBudget(), SearchCost())

func toolBudget() platforms.Budget {
	if tableRow.Budget != nil {
		return *tableRow.Budget
	}
	panic("the platform's row keeps no budget: its search tool's Cost sentence has nothing to say")
}

// toolSearchDescFor writes obv_search's description for a budget and a
// search price, with the price worked out for two limits: the rule's
// divisor (the most one unit buys) and the platform's largest page.
func toolSearchDescFor(b platforms.Budget, price platforms.Cost) string {
	cost := "a search costs " + price.String()
	if price.Param == "limit" && price.Per > 0 {
		one := int(price.Per)
		cost += fmt.Sprintf(" (limit %d = %s, %d = %s)", one, platforms.FormatUnits(price.UnitsFor(float64(one))),
			MaxLimit, platforms.FormatUnits(price.UnitsFor(MaxLimit)))
	}
	return `Search OpenBesluitvorming: meetings, documents, motions and spoken word of the councils and boards of 330 Dutch organisations: municipalities (gemeenten), provinces (provincies) and water boards (waterschappen). It also holds what Open Raadsinformatie (ORI, switched off on 1 November 2026) used to serve, under the same organisation keys. Returns compact hits (id, type, title, date, organisation, short snippet, link).
Cost: the platform allows ` + b.Allowance() + ` for all BesluitBron users together; ` + cost + `. A first question on a subject waits for that budget; repeating it in this conversation comes from the cache at once. Searching one organisation (organization="utrecht", keys from obv_sources) is faster and more precise than all 330. Titles and snippets are cheap; fetch full text only for the items you need with obv_fetch.`
}

const toolFetchDesc = `Fetch one OpenBesluitvorming item by id (from obv_search), of a municipality, province or water board: a document's full text (markdown), a meeting's agenda with documents, motions and transcript, or a motion's result, votes per member where the council publishes them, and otherwise the council's own vote summary (vote_summary). Text comes in pages of max_chars; continue with offset=next_offset.
Cost: full text is the most expensive call BesluitBron makes (1 budget unit, and a long wait when the budget is spent); once fetched it stays cached for weeks, so reading further pages or fetching it again later is free. Fetch only what you need.`

const toolSourcesDesc = `List OpenBesluitvorming's organisations (municipalities/gemeenten, provinces/provincies, water boards/waterschappen) with their keys for obv_search's organization argument; the keys are those Open Raadsinformatie used, except provincie_limburg, provincie_groningen and waterschap_limburg. Filter by type or by a part of the name.
Cost: cheap; the list changes in months and is kept in BesluitBron's cache for a long time.`

type toolSearchIn struct {
	Query        string `json:"query,omitempty" jsonschema_description:"Words to find; all must match. Put words in double quotes to find them as a phrase, in that order (\"sociale huurwoningen\"). Optional when organization is given."`
	Organization string `json:"organization,omitempty" jsonschema_description:"Organisation key of a municipality, province or water board, e.g. utrecht, soest, provincie-utrecht (see obv_sources). Omit to search all 330."`
	EntityType   string `json:"entity_type,omitempty" jsonschema_description:"Only this kind." jsonschema_extras:"enum=obv.EntityTypes"`
	Sort         string `json:"sort,omitempty" jsonschema_description:"Order: date_desc (newest first), date_asc or title_asc. When sort is omitted, the platform answers newest first, and BesluitBron's replica, when it answers a word search (see provenance), best match first." jsonschema_extras:"enum=obv.Sorts"`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Results per page. Larger pages cost more budget units (see Cost in the tool description)." jsonschema_extras:"minimum=1,maximum=obv.MaxLimit,default=10"`
	Offset       int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=10000,default=0"`
	FullText     bool   `json:"full_text,omitempty" jsonschema_description:"Find the words inside the documents' full text too: always asks OpenBesluitvorming. Without it, a BesluitBron that keeps a replica of the platform's export answers from the names, titles and descriptions it holds (see provenance)." jsonschema_extras:"default=false"`
	mcpkit.DatesIn
}

type toolSearchOut struct {
	mcpkit.PageOut
	BudgetUnits int    `json:"budget_units" jsonschema_description:"Budget units this search cost the platform's shared budget (the price under Cost in the tool description); 0 when BesluitBron's replica answered."`
	Provenance  string `json:"provenance,omitempty" jsonschema_description:"Where a BesluitBron that keeps a replica of the platform's export got the hits: from the replica, and how complete it is, or from the platform, and why."`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	p := SearchParams{Query: in.Query, Organization: in.Organization, EntityType: in.EntityType,
		Sort: in.Sort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	r, err := SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	if p.Organization != "" {
		if res := checkOrganization(ctx, c.Untracked(), p.Organization); res != nil {
			return nil, res
		}
	}
	var why string
	if council, _ := c.Replica(platforms.OBV).(CouncilIndex); council != nil {
		var out *toolSearchOut
		if out, why = toolSearchLocal(ctx, c, council, p, in.FullText); out != nil {
			return out, nil
		}
	}
	body, fail := c.Call(ctx, platforms.OBV, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := c.ParsePage(platforms.OBV, "obv.search", body, ParseSearch)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.OBV, err)
	}
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.OBV, pg, p.Offset), BudgetUnits: Cost(p.Limit)}
	if why != "" {
		out.Provenance = askedPlatform + why
	}
	return out, nil
}

// toolSearchLocal answers a word search from the replica when it can,
// else says why the platform must (for the provenance of its answer).
// The replica's answer changes as it harvests, with no platform answer
// behind it, so it fills its own Meta: the connector's result memo keeps
// no result whose Meta the tool wrote (mcp/resultmemo.go).
func toolSearchLocal(ctx context.Context, c mcpkit.Env, council CouncilIndex, p SearchParams, fullText bool) (*toolSearchOut, string) {
	q := localindex.Query{Words: p.Query, From: p.DateFrom, To: p.DateTo, Limit: p.Limit, Offset: p.Offset}
	switch {
	case strings.TrimSpace(p.Query) == "":
		return nil, "" // a listing: the platform's
	case fullText:
		return nil, fullTextWhy
	case p.Sort == "title_asc":
		return nil, "the replica orders by relevance or date, not by title"
	case p.EntityType != "" && !slices.Contains(replicaTypes, p.EntityType):
		return nil, "the replica holds meetings, documents and motions, not " + p.EntityType
	}
	q.Order = p.Sort // "", date_desc or date_asc, the replica's orders too
	if p.EntityType != "" {
		q.Types = []string{strings.ToLower(p.EntityType)}
	}
	if p.Organization != "" {
		q.Sources = []string{p.Organization}
	}
	a, why := askCouncil(ctx, council, q)
	if why != "" {
		return nil, why
	}
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.OBV, localPage(a, p.Offset, organisationLabels(c.Lists(), c.Now())), p.Offset), Provenance: a.Provenance}
	out.Meta = mcpkit.Meta{Platform: platforms.OBV, FetchedAt: a.CompleteUpTo.UTC().Format(time.RFC3339)}
	return out, ""
}

// replicaTypes are the entity types the export holds (EntityTypes less
// the recordings).
var replicaTypes = []string{"Meeting", "Document", "Motion"}

type toolFetchIn struct {
	ID string `json:"id" jsonschema_description:"Entity id, e.g. document:notubiz:gemeente:soest:12345." jsonschema_extras:"examples=document:notubiz:gemeente:soest:12345"`
	mcpkit.TextPageIn
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	d, fail := c.FetchDocument(ctx, platforms.OBV, in.ID, "",
		"OpenBesluitvorming has no entity "+in.ID+": take an id from obv_search.")
	if fail != nil {
		return nil, fail
	}
	return mcpkit.NewDoc(platforms.OBV, d, in.Offset, c.Chars(in.MaxChars)), nil
}

type toolSourcesIn struct {
	OrganizationType      string `json:"organization_type,omitempty" jsonschema_description:"Only this type." jsonschema_extras:"enum=gemeente|provincie|waterschap"`
	Name                  string `json:"name,omitempty" jsonschema_description:"Only organisations whose key or name contains this text (case-insensitive)."`
	IncludeNotImplemented bool   `json:"include_not_implemented,omitempty" jsonschema_description:"Also list organisations that are not imported (yet)." jsonschema_extras:"default=false"`
}

type toolSourcesOut struct {
	mcpkit.Meta
	Count         int           `json:"count"`
	Organizations []toolOrgItem `json:"organizations"`
}

type toolOrgItem struct {
	Key      string `json:"key" jsonschema_description:"Key for obv_search's organization."`
	Label    string `json:"label"`
	Type     string `json:"type" jsonschema_description:"gemeente, provincie or waterschap."`
	Supplier string `json:"supplier" jsonschema_description:"Council information system the platform imports from."`
}

func toolSourcesTool(ctx context.Context, c mcpkit.Env, in toolSourcesIn) (*toolSourcesOut, *mcpgo.CallToolResult) {
	list, fail := sourcesOf(ctx, c)
	if fail != nil {
		return nil, fail
	}
	name := strings.ToLower(in.Name)
	out := &toolSourcesOut{Organizations: []toolOrgItem{}}
	for _, s := range list {
		if (!in.IncludeNotImplemented && !s.Implemented) || (in.OrganizationType != "" && s.OrganizationType != in.OrganizationType) {
			continue
		}
		if name != "" && !strings.Contains(strings.ToLower(s.Key), name) && !strings.Contains(strings.ToLower(s.Label), name) {
			continue
		}
		out.Organizations = append(out.Organizations, toolOrgItem{s.Key, s.Label, s.OrganizationType, s.Supplier})
	}
	out.Count = len(out.Organizations)
	return out, nil
}

// sourcesOf returns the sources list, through the platform route (the
// platform cache keeps it long) and memoised for argument checks and
// completions (loadSources).
func sourcesOf(ctx context.Context, c mcpkit.Env) ([]Source, *mcpgo.CallToolResult) {
	list, err := loadSources(ctx, c)
	var pe *adapters.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, mcpkit.ParseFailed(platforms.OBV, pe.Err)
	case err != nil:
		return nil, mcpgo.NewToolResultError(c.FailureText(platforms.OBV, err))
	}
	return list, nil
}

// checkOrganization checks an organisation key against the sources list
// and names close matches. When the list cannot be had, the platform
// itself judges the key.
func checkOrganization(ctx context.Context, c mcpkit.Env, key string) *mcpgo.CallToolResult {
	var list []Source
	if v, ok := c.Lists().Get(SourcesMemo, c.Now()); ok {
		list = v.([]Source)
	} else {
		l, fail := sourcesOf(ctx, c)
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
			return mcpgo.NewToolResultError(fmt.Sprintf("Unknown organization %q: keys are case-sensitive; did you mean %q?", key, s.Key))
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
	return mcpgo.NewToolResultError(msg + " Use obv_sources to find the key.")
}
