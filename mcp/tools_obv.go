package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/mcpkit"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
)

// obvSearchDesc says what a search costs in the words of the platforms
// table (its budget and its price for a search), so the price is written
// once, in platforms.
var obvSearchDesc = obvSearchDescFor(obvBudget(), obv.SearchCost())

func obvBudget() platforms.Budget {
	if p, _ := platforms.Get(platforms.OBV); p.Budget != nil {
		return *p.Budget
	}
	panic("the platforms table keeps no budget for obv: its search tool's Cost sentence has nothing to say")
}

// obvSearchDescFor writes obv_search's description for a budget and a
// search price, with the price worked out for two limits: the rule's
// divisor (the most one unit buys) and the platform's largest page.
func obvSearchDescFor(b platforms.Budget, price platforms.Cost) string {
	cost := "a search costs " + price.String()
	if price.Param == "limit" && price.Per > 0 {
		one := int(price.Per)
		cost += fmt.Sprintf(" (limit %d = %s, %d = %s)", one, platforms.FormatUnits(price.UnitsFor(float64(one))),
			obv.MaxLimit, platforms.FormatUnits(price.UnitsFor(obv.MaxLimit)))
	}
	return `Search OpenBesluitvorming: meetings, documents, motions and spoken word of the councils and boards of 330 Dutch organisations: municipalities (gemeenten), provinces (provincies) and water boards (waterschappen). It also holds what Open Raadsinformatie (ORI, switched off on 1 November 2026) used to serve, under the same organisation keys. Returns compact hits (id, type, title, date, organisation, short snippet, link).
Cost: the platform allows ` + b.Allowance() + ` for all BesluitBron users together; ` + cost + `. A first question on a subject waits for that budget; repeating it in this conversation comes from the cache at once. Searching one organisation (organization="utrecht", keys from obv_sources) is faster and more precise than all 330. Titles and snippets are cheap; fetch full text only for the items you need with obv_fetch.`
}

const obvFetchDesc = `Fetch one OpenBesluitvorming item by id (from obv_search), of a municipality, province or water board: a document's full text (markdown), a meeting's agenda with documents, motions and transcript, or a motion's result, votes per member where the council publishes them, and otherwise the council's own vote summary (vote_summary). Text comes in pages of max_chars; continue with offset=next_offset.
Cost: full text is the most expensive call BesluitBron makes (1 budget unit, and a long wait when the budget is spent); once fetched it stays cached for weeks, so reading further pages or fetching it again later is free. Fetch only what you need.`

const obvSourcesDesc = `List OpenBesluitvorming's organisations (municipalities/gemeenten, provinces/provincies, water boards/waterschappen) with their keys for obv_search's organization argument; the keys are those Open Raadsinformatie used, except provincie_limburg, provincie_groningen and waterschap_limburg. Filter by type or by a part of the name.
Cost: cheap; the list changes in months and is kept in BesluitBron's cache for a long time.`

const obvStatusDesc = `Laadstatus: how fresh OpenBesluitvorming's import is per organisation (state ok/failing/discontinued, last successful import, latest content date, last error) and per supplier (iBabs, Notubiz, ...). Use it to tell whether a missing recent document is simply not imported yet.
Cost: free for you: BesluitBron's own maintenance refreshes it every few minutes as its shared session; the answer says how old it is.`

type obvSearchIn struct {
	Query        string `json:"query,omitempty" jsonschema_description:"Words to find; all must match. Put words in double quotes to find them as a phrase, in that order (\"sociale huurwoningen\"). Optional when organization is given."`
	Organization string `json:"organization,omitempty" jsonschema_description:"Organisation key of a municipality, province or water board, e.g. utrecht, soest, provincie-utrecht (see obv_sources). Omit to search all 330."`
	EntityType   string `json:"entity_type,omitempty" jsonschema_description:"Only this kind." jsonschema_extras:"enum=obv.EntityTypes"`
	Sort         string `json:"sort,omitempty" jsonschema_description:"Order: date_desc (newest first), date_asc or title_asc. There is no relevance order: the platform answers newest first when sort is omitted." jsonschema_extras:"enum=obv.Sorts"`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Results per page. Larger pages cost more budget units (see Cost in the tool description)." jsonschema_extras:"minimum=1,maximum=obv.MaxLimit,default=10"`
	Offset       int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=10000,default=0"`
	mcpkit.DatesIn
}

type obvSearchOut struct {
	mcpkit.PageOut
	BudgetUnits int `json:"budget_units" jsonschema_description:"Budget units this search cost the platform's shared budget (the price under Cost in the tool description)."`
}

func (c *connector) obvSearch(ctx context.Context, in obvSearchIn) (*obvSearchOut, *mcpgo.CallToolResult) {
	p := obv.SearchParams{Query: in.Query, Organization: in.Organization, EntityType: in.EntityType,
		Sort: in.Sort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	r, err := obv.SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	if p.Organization != "" {
		if res := c.checkOrganization(ctx, p.Organization); res != nil {
			return nil, res
		}
	}
	ans, fail := c.call(ctx, platforms.OBV, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := parsePage(platforms.OBV, "obv.search", ans.Body, obv.ParseSearch)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.OBV, err)
	}
	return &obvSearchOut{PageOut: *page(platforms.OBV, pg, p.Offset, ans), BudgetUnits: obv.Cost(p.Limit)}, nil
}

type obvFetchIn struct {
	ID string `json:"id" jsonschema_description:"Entity id, e.g. document:notubiz:gemeente:soest:12345." jsonschema_extras:"examples=document:notubiz:gemeente:soest:12345"`
	mcpkit.TextPageIn
}

func (c *connector) obvFetch(ctx context.Context, in obvFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	d, answers, fail := c.fetchDocument(ctx, platforms.OBV, in.ID, "",
		"OpenBesluitvorming has no entity "+in.ID+": take an id from obv_search.")
	if fail != nil {
		return nil, fail
	}
	return doc(platforms.OBV, d, in.Offset, c.chars(in.TextPageIn), answers...), nil
}

type obvSourcesIn struct {
	OrganizationType      string `json:"organization_type,omitempty" jsonschema_description:"Only this type." jsonschema_extras:"enum=gemeente|provincie|waterschap"`
	Name                  string `json:"name,omitempty" jsonschema_description:"Only organisations whose key or name contains this text (case-insensitive)."`
	IncludeNotImplemented bool   `json:"include_not_implemented,omitempty" jsonschema_description:"Also list organisations that are not imported (yet)." jsonschema_extras:"default=false"`
}

type obvSourcesOut struct {
	mcpkit.Meta
	Count         int          `json:"count"`
	Organizations []obvOrgItem `json:"organizations"`
}

type obvOrgItem struct {
	Key      string `json:"key" jsonschema_description:"Key for obv_search's organization."`
	Label    string `json:"label"`
	Type     string `json:"type" jsonschema_description:"gemeente, provincie or waterschap."`
	Supplier string `json:"supplier" jsonschema_description:"Council information system the platform imports from."`
}

func (c *connector) obvSourcesTool(ctx context.Context, in obvSourcesIn) (*obvSourcesOut, *mcpgo.CallToolResult) {
	list, ans, fail := c.obvSources(ctx)
	if fail != nil {
		return nil, fail
	}
	name := strings.ToLower(in.Name)
	out := &obvSourcesOut{Meta: meta(platforms.OBV, ans), Organizations: []obvOrgItem{}}
	for _, s := range list {
		if (!in.IncludeNotImplemented && !s.Implemented) || (in.OrganizationType != "" && s.OrganizationType != in.OrganizationType) {
			continue
		}
		if name != "" && !strings.Contains(strings.ToLower(s.Key), name) && !strings.Contains(strings.ToLower(s.Label), name) {
			continue
		}
		out.Organizations = append(out.Organizations, obvOrgItem{s.Key, s.Label, s.OrganizationType, s.Supplier})
	}
	out.Count = len(out.Organizations)
	return out, nil
}

type obvStatusIn struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Only this organisation key (see obv_sources)."`
	State        string `json:"state,omitempty" jsonschema_description:"Only organisations in this state, e.g. failing."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"At most this many organisations." jsonschema_extras:"minimum=1,maximum=400,default=50"`
}

type obvStatusOut struct {
	mcpkit.Meta
	GeneratedAt  string               `json:"generated_at" jsonschema_description:"When the platform made the status."`
	FetchedAt    string               `json:"fetched_at" jsonschema_description:"When BesluitBron fetched it (RFC 3339)."`
	AgeSeconds   int                  `json:"age_seconds"`
	States       map[string]int       `json:"states" jsonschema_description:"Organisations per state."`
	Suppliers    []obv.SupplierStatus `json:"suppliers"`
	Sources      []obv.SourceStatus   `json:"sources"`
	HasMore      bool                 `json:"has_more" jsonschema_description:"More organisations match than limit."`
	MaintainedBy string               `json:"maintained_by"`
}

func (c *connector) obvStatus(ctx context.Context, in obvStatusIn) (*obvStatusOut, *mcpgo.CallToolResult) {
	snap, now, fail := c.laadstatus(ctx)
	if fail != nil {
		return nil, fail
	}
	rows := []obv.SourceStatus{}
	for _, s := range snap.Status.Sources {
		if in.Organization != "" && !strings.EqualFold(s.SourceKey, in.Organization) {
			continue
		}
		if in.State != "" && !strings.EqualFold(s.State, in.State) {
			continue
		}
		rows = append(rows, s)
	}
	if in.Organization != "" && len(rows) == 0 {
		return nil, mcpgo.NewToolResultError(fmt.Sprintf("Organisation %q has no load status: check the key with obv_sources.", in.Organization))
	}
	counts := map[string]int{}
	for _, s := range snap.Status.Sources {
		counts[s.State]++
	}
	more := len(rows) > in.Limit
	if more {
		rows = rows[:in.Limit]
	}
	age := c.now().Sub(snap.Fetched).Round(time.Second)
	out := &obvStatusOut{Meta: mcpkit.Meta{Platform: platforms.OBV, FromCache: !now || cachestatus.Hit(snap.Cache)},
		GeneratedAt: snap.Status.GeneratedAt, FetchedAt: snap.Fetched.UTC().Format(time.RFC3339), AgeSeconds: int(age.Seconds()),
		States: counts, Suppliers: snap.Status.Suppliers, Sources: rows, HasMore: more,
		MaintainedBy: "BesluitBron maintenance (shared session)"}
	if out.Suppliers == nil {
		out.Suppliers = []obv.SupplierStatus{}
	}
	if now {
		out.QueueWaitMS = snap.QueueWaitMS
	}
	return out, nil
}

// obvSources returns the sources list, through the platform route (the
// platform cache keeps it long) and memoised for argument checks.
func (c *connector) obvSources(ctx context.Context) ([]obv.Source, *subrequest.Answer, *mcpgo.CallToolResult) {
	list, ans, err := c.loadOBVSources(ctx)
	var pe *adapters.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, nil, mcpkit.ParseFailed(platforms.OBV, pe.Err)
	case err != nil:
		return nil, nil, mcpgo.NewToolResultError(failureText(platforms.OBV, err))
	}
	return list, ans, nil
}

// loadOBVSources reads the sources list through the route and keeps it
// in the memo; an answer that does not parse is an *adapters.ParseError,
// a failed call the route's error (completions tell the two apart from
// the caller's own failures: platformFault).
func (c *connector) loadOBVSources(ctx context.Context) ([]obv.Source, *subrequest.Answer, error) {
	ans, err := c.ask(ctx, platforms.OBV, obv.SourcesRequest())
	if err != nil {
		return nil, nil, err
	}
	list, err := obv.ParseSources(ans.Body)
	if err != nil {
		return nil, nil, &adapters.ParseError{Err: err}
	}
	c.lists.Put(obv.SourcesMemo, list, c.now())
	return list, ans, nil
}

// checkOrganization checks an organisation key against the sources list
// and names close matches. When the list cannot be had, the platform
// itself judges the key.
func (c *connector) checkOrganization(ctx context.Context, key string) *mcpgo.CallToolResult {
	var list []obv.Source
	if v, ok := c.lists.Get(obv.SourcesMemo, c.now()); ok {
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

// laadstatus returns the load status the app's keeper last fetched; when
// it has none yet (or it is too old), it fetches it now, also as the
// shared session, and hands it to the keeper.
func (c *connector) laadstatus(ctx context.Context) (snap *app.Laadstatus, fetchedNow bool, fail *mcpgo.CallToolResult) {
	k := c.settings().laadstatus
	if k != nil {
		if l, ok := k.Last(); ok && c.now().Sub(l.Fetched) < 2*k.Interval()+time.Minute {
			return &l, false, nil
		}
	}
	o, ok := subrequest.OriginFrom(ctx)
	if !ok {
		return nil, false, mcpgo.NewToolResultError("internal error: no server for the load status")
	}
	o.Key = session.Shared
	ctx = subrequest.WithOrigin(ctx, o)
	ans, fail := c.call(ctx, platforms.OBV, obv.StatusRequest())
	if fail != nil {
		return nil, false, fail
	}
	st, err := obv.ParseStatus(ans.Body)
	if err != nil {
		return nil, false, mcpkit.ParseFailed(platforms.OBV, err)
	}
	l := app.Laadstatus{Status: st, Fetched: c.now(), Cache: ans.Cache, QueueWaitMS: ans.QueueWaitMS}
	if k != nil {
		k.Store(l)
	}
	return &l, true, nil
}
