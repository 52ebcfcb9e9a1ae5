package rechtspraak

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `List published Dutch court rulings (uitspraken) and opinions (conclusies) from data.rechtspraak.nl, filtered by court, legal area, type and decision date, or found by words (query) in BesluitBron's own index of the platform's feed, which says how complete it is (provenance). The platform itself has no free-text search: without query, narrow by court (e.g. "HR", "Rechtbank Den Haag" or its URI), legal area and dates. Returns ECLI, court, date, type and a link per ruling (type is uitspraak or conclusie when known: the list itself does not say, so it is known when you ask for one type, and for the Parket bij de Hoge Raad, which publishes conclusies only; rechtspraak_fetch always names it); the summary (inhoudsindicatie) comes with rechtspraak_fetch.
Cost: a query costs no platform call (court names are looked up once, cached); lists of ECLIs are cheap and a repeated list comes from the cache; the platform asks not to be hammered (about 10 requests a second for all BesluitBron users), so a first question may wait briefly.`

const toolFetchDesc = `Fetch one ruling by ECLI (e.g. ECLI:NL:HR:2014:952): its metadata, summary (inhoudsindicatie) and, unless metadata_only, the full text in pages of max_chars (continue with offset=next_offset).
Cost: metadata_only=true is cheap; the full ruling is the expensive call, but once fetched it stays cached for weeks.`

const toolListsDesc = `Rechtspraak's value lists (Waardelijsten): Instanties (courts, with abbreviation and identifier), Rechtsgebieden (legal areas, two levels), Proceduresoorten, FormeleRelaties, InstantiesBuitenlands. Use the identifiers in rechtspraak_search.
Cost: cheap; the lists are nearly static and kept in the cache for days.`

type toolSearchIn struct {
	Query     string `json:"query,omitempty" jsonschema_description:"Words in the ruling's title or summary (all must match; \"quoted phrases\" as phrases), answered from BesluitBron's own index of Rechtspraak's feed, best match first (sort=DESC: newest first). Not with legal_area or sort=ASC."`
	Court     string `json:"court,omitempty" jsonschema_description:"Court: abbreviation (HR, RBDHA, GHARL, CRVB, RVS...), name, or identifier URI from rechtspraak_lists Instanties."`
	LegalArea string `json:"legal_area,omitempty" jsonschema_description:"Legal area: name (e.g. Belastingrecht) or identifier URI from rechtspraak_lists Rechtsgebieden."`
	Type      string `json:"type,omitempty" jsonschema_description:"Uitspraak (ruling) or Conclusie (opinion)." jsonschema_extras:"enum=Uitspraak|Conclusie"`
	Sort      string `json:"sort,omitempty" jsonschema_description:"Without query: by modification time, DESC (newest first, the default; relevance means the same) or ASC. With query: relevance (best match first, the default) or DESC (newest decision first)." jsonschema_extras:"enum=relevance|DESC|ASC"`
	Limit     int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=rechtspraak.MaxLimit,default=20"`
	Offset    int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page). With query and sort=DESC at most 1000: page deeper with after." jsonschema_extras:"minimum=0,maximum=100000,default=0"`
	After     string `json:"after,omitempty" jsonschema_description:"With query and sort=DESC: next_after of the previous page, for the page after it (a page this way costs the same however deep). Not with offset."`
	mcpkit.DatesIn
}

// toolSearchOut is a page of rulings, and where they came from.
type toolSearchOut struct {
	mcpkit.PageOut
	Provenance string `json:"provenance,omitempty" jsonschema_description:"With query: BesluitBron's index of Rechtspraak's feed answered, and how complete it is."`
	NextAfter  string `json:"next_after,omitempty" jsonschema_description:"With query, newest first: pass as after for the next page (given instead of next_offset)."`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	if strings.TrimSpace(in.Query) != "" {
		return toolWords(ctx, c, in)
	}
	if in.After != "" {
		return nil, mcpkit.Invalid(errors.New("after pages a query's newest-first results (query with sort=DESC); without query, page with offset"))
	}
	if in.Sort == "" || in.Sort == "relevance" {
		// Without words nothing is more relevant than another: newest
		// first, as before query existed.
		in.Sort = "DESC"
	}
	p := SearchParams{Type: in.Type, Sort: in.Sort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	get := c.Getter(ctx, platforms.Rechtspraak)
	if in.Court != "" {
		uri, fail := toolResolve(c, get, "Instanties", in.Court)
		if fail != nil {
			return nil, fail
		}
		p.Creators = []string{uri}
	}
	if in.LegalArea != "" {
		uri, fail := toolResolve(c, get, "Rechtsgebieden", in.LegalArea)
		if fail != nil {
			return nil, fail
		}
		p.Subjects = []string{uri}
	}
	r, err := SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	body, fail := c.Call(ctx, platforms.Rechtspraak, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := ParseSearch(body, p)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.Rechtspraak, err)
	}
	return &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.Rechtspraak, pg, p.Offset)}, nil
}

// toolWords answers query from the app's index of the feed: the
// platform itself has no word search.
func toolWords(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	switch {
	case in.LegalArea != "":
		return nil, mcpkit.Invalid(errors.New("legal_area cannot be combined with query: the index holds each ruling's court, date, type, title and summary; drop legal_area or query"))
	case in.Sort == "ASC":
		return nil, mcpkit.Invalid(errors.New("sort=ASC cannot be combined with query: a word search is best match first, or newest first with sort=DESC"))
	}
	idx, _ := c.Replica(platforms.Rechtspraak).(WordIndex)
	if idx == nil {
		return nil, mcpgo.NewToolResultError("This BesluitBron keeps no index of Rechtspraak's feed (its operator has not turned on caselaw), and the platform has no word search: search by court, legal area and dates without query.")
	}
	order := "relevance" // also for sort omitted
	if in.Sort == "DESC" {
		order = "date"
	}
	env := adapters.Env{Get: func(ctx context.Context, key string, r adapters.Request) ([]byte, error) {
		return c.Getter(ctx, key)(r)
	},
		Memo: c.Lists(), Now: c.Now()}
	pg, next, err := SearchByWords(ctx, env, idx, WordQuery{Words: in.Query, Court: in.Court,
		From: in.DateFrom, To: in.DateTo, Type: in.Type, Sort: order, Limit: in.Limit, Offset: in.Offset, After: in.After})
	var unfit *adapters.UnfitError
	switch {
	case errors.As(err, &unfit) && unfit.Reason == adapters.UnfitIndexUnavailable:
		return nil, mcpgo.NewToolResultError(unfit.Why + ". Search without query (by court, legal area and dates) meanwhile.")
	case errors.As(err, &unfit):
		return nil, mcpkit.Invalid(errors.New(unfit.Why))
	case err != nil:
		return nil, c.Failed(platforms.Rechtspraak, err)
	}
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.Rechtspraak, pg, in.Offset), Provenance: pg.Provenance, NextAfter: next}
	if next != "" {
		out.NextOffset = 0 // newest first, the cursor is the way on: an offset stops at 1000
	}
	return out, nil
}

type toolFetchIn struct {
	ECLI         string `json:"ecli" jsonschema_description:"ECLI, e.g. ECLI:NL:HR:2014:952." jsonschema_extras:"examples=ECLI:NL:HR:2014:952"`
	MetadataOnly bool   `json:"metadata_only,omitempty" jsonschema_description:"Only metadata and summary (cheap)." jsonschema_extras:"default=false"`
	mcpkit.TextPageIn
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	r, err := ContentRequest(in.ECLI, in.MetadataOnly)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	body, fail := c.Call(ctx, platforms.Rechtspraak, r)
	if fail != nil {
		return nil, fail
	}
	d, err := ParseContent(body)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.Rechtspraak, err)
	}
	return mcpkit.NewDoc(platforms.Rechtspraak, d, in.Offset, c.Chars(in.MaxChars)), nil
}

type toolListsIn struct {
	List string `json:"list" jsonschema_description:"Which list." jsonschema_extras:"enum=rechtspraak.Lists,examples=Instanties"`
	Name string `json:"name,omitempty" jsonschema_description:"Only items whose name, abbreviation or identifier contains this text."`
}

type toolListsOut struct {
	mcpkit.Meta
	List  string          `json:"list"`
	Count int             `json:"count"`
	Items []adapters.Item `json:"items"`
}

func toolLists(ctx context.Context, c mcpkit.Env, in toolListsIn) (*toolListsOut, *mcpgo.CallToolResult) {
	items, fail := toolList(ctx, c, in.List)
	if fail != nil {
		return nil, fail
	}
	filter := strings.ToLower(in.Name)
	out := &toolListsOut{List: in.List, Items: []adapters.Item{}}
	for _, it := range items {
		if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Key+" "+it.Extra["afkorting"]), filter) {
			out.Items = append(out.Items, it)
		}
	}
	out.Count = len(out.Items)
	return out, nil
}

func toolList(ctx context.Context, c mcpkit.Env, name string) ([]adapters.Item, *mcpgo.CallToolResult) {
	r, err := ListRequest(name)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	body, fail := c.Call(ctx, platforms.Rechtspraak, r)
	if fail != nil {
		return nil, fail
	}
	items, err := ParseList(body)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.Rechtspraak, err)
	}
	c.Lists().Put(listMemo(name), items, c.Now())
	return items, nil
}

// toolResolve turns a court or legal area given as URI,
// abbreviation or name into its identifier URI (Resolve).
func toolResolve(c mcpkit.Env, get func(adapters.Request) ([]byte, error), list, v string) (string, *mcpgo.CallToolResult) {
	uri, err := Resolve(c.Lists(), c.Now(), list, v, get)
	var un *UnresolvedError
	switch {
	case errors.As(err, &un):
		what := map[string]string{"Instanties": "court", "Rechtsgebieden": "legal_area"}[list]
		msg := fmt.Sprintf("Unknown %s %q: not found in Rechtspraak's %s list.", what, v, list)
		if len(un.Near) > 0 {
			msg += " Matches: " + strings.Join(un.Near[:min(len(un.Near), 8)], "; ") + "; give one exactly."
		}
		return "", mcpgo.NewToolResultError(msg + " See rechtspraak_lists " + list + ".")
	case err != nil:
		return "", c.Failed(platforms.Rechtspraak, err)
	}
	return uri, nil
}
