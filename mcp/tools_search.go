package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/subcall"
)

// searchAllDesc says what search_all costs in the platforms table's
// words: the price of a search on each platform that prices one by its
// limit (OpenBesluitvorming's), like that platform's search tool. Read
// at first use, once every platform has registered.
var searchAllDesc = sync.OnceValue(func() string {
	var prices []string
	for _, p := range platforms.All() {
		if p.Budget == nil {
			continue
		}
		for _, c := range p.Budget.Costs {
			if c.Param == "limit" && c.Per > 0 {
				prices = append(prices, "at "+p.Name+" a search costs "+limitPrice(c))
				break
			}
		}
	}
	return searchAllDescFor(prices)
})

// limitPrice is c, worked out for the fan-out's default and largest
// limit.
func limitPrice(c platforms.Cost) string {
	return c.String() + fmt.Sprintf(" (limit %d = %s, %d = %s)", fanout.DefaultLimit, platforms.FormatUnits(c.UnitsFor(fanout.DefaultLimit)),
		fanout.MaxLimit, platforms.FormatUnits(c.UnitsFor(fanout.MaxLimit)))
}

func searchAllDescFor(prices []string) string {
	priced := ""
	if len(prices) > 0 {
		priced = ": " + strings.Join(prices, "; ") + " of the budget all BesluitBron users share"
	}
	return fmt.Sprintf(`Ask one question of every platform this connector offers at once and get one merged answer: hits (platform, type, id, title, date, organisation, snippet, link) ranked by relevance when the query has words (reciprocal rank fusion over each platform's own order: a document several platforms rank high comes first), newest first otherwise or with sort=date; the answer's sort says which. One document found on several platforms under a shared identifier (a kamerstuk number, also a Tweede Kamer document's dossier and volgnummer; a Tweede Kamer document number; an ECLI) is one hit with links to the others (also). Each platform's outcome is named: answered, cache, timeout, over_budget (with retry_after_seconds), failed, or skipped with the reason (Tweede Kamer and OpenTK have no organisation filter; Rechtspraak has no free text and answers only for an ECLI in the query or a court as organisation). A partial answer is an answer: the platforms that did not answer within the deadline (%v unless the operator set another) are named. Fetch a hit's text with its platform's fetch tool.
Cost: one search on each platform at once, each against that platform's own budget exactly as its search tool%s; OpenTK's full-text search is heavy for the platform. Asking the same question again (here, on the search page or through an app) comes from the cache. Narrow with platforms when you need only some.`, fanout.DefaultDeadline, priced)
}

type searchAllIn struct {
	Query        string `json:"query,omitempty" jsonschema_description:"Words to find, in each platform's own syntax (most require all words). Optional when organisation is given. An ECLI in the query is looked up at Rechtspraak."`
	Organisation string `json:"organisation,omitempty" jsonschema_description:"One body: an OpenBesluitvorming key (utrecht; see obv_sources), an issuing body for official publications (Bergeijk), a court for Rechtspraak (HR). Skips platforms without such a filter."`
	Platforms    string `json:"platforms,omitempty" jsonschema_description:"Only these platforms: keys separated by commas, e.g. obv,tk (see besluitbron_platforms); default every platform of this connector."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Hits asked of each platform. Larger pages cost OpenBesluitvorming more budget (see Cost)." jsonschema_extras:"minimum=1,maximum=50,default=10"`
	Sort         string `json:"sort,omitempty" jsonschema_description:"Order of the merged hits: relevance or date (newest first). Default relevance when query has words, date otherwise." jsonschema_extras:"enum=fanout.Sorts"`
	FullText     bool   `json:"full_text,omitempty" jsonschema_description:"Find the words inside documents' full text too: a platform whose word searches BesluitBron answers from its own replica of the platform's feed (which holds names, titles and descriptions, not full text) is asked itself." jsonschema_extras:"default=false"`
	mcpkit.DatesIn
}

type searchAllOut struct {
	mcpkit.Meta
	fanout.Result
}

// engineSlot is a connector's engine for one version of its settings: a
// reload makes a new one (platforms, TK root, OA endpoints may change).
type engineSlot struct {
	s *settings
	e *fanout.Engine
}

// engine returns the fan-out engine over the connector's platforms. It
// is kept on the connector, so it goes with it.
func (c *connector) engine() (*fanout.Engine, error) {
	s := c.settings()
	if slot := c.search.Load(); slot != nil && slot.s == s {
		return slot.e, nil
	}
	e, err := fanout.New(fanout.Options{Do: c.searchDo, Platforms: s.platforms, Adapters: s.adapterSettings(), Deadline: s.searchDeadline})
	if err != nil {
		return nil, err
	}
	c.search.Store(&engineSlot{s: s, e: e})
	return e, nil
}

// searchDo is the engine's way to the platforms: the tool call's own
// sub-requests (same session, same route as every tool), kept in the
// connector's health as the other tools' calls are.
func (c *connector) searchDo(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
	o, ok := subrequest.OriginFrom(ctx)
	if !ok {
		return nil, errNoOrigin
	}
	a, err := subrequest.Do(ctx, o, platform, req)
	if err == nil || ctx.Err() == nil {
		// The search's own deadline says nothing of the platform.
		c.observe(platform, a, err)
	}
	return a, err
}

func (c *connector) searchAll(ctx context.Context, in searchAllIn) (*searchAllOut, *mcpgo.CallToolResult) {
	e, err := c.engine()
	if err != nil {
		return nil, mcpgo.NewToolResultError("internal error: " + err.Error())
	}
	q := fanout.Query{Words: in.Query, From: in.DateFrom, To: in.DateTo, Organisation: in.Organisation, Limit: in.Limit, Sort: in.Sort, FullText: in.FullText}
	for _, k := range strings.Split(in.Platforms, ",") {
		if k = strings.TrimSpace(k); k != "" {
			q.Platforms = append(q.Platforms, k)
		}
	}
	if err := e.Check(q); err != nil {
		return nil, mcpkit.Invalid(err)
	}
	res := e.Search(ctx, q, nil)
	m := mcpkit.Meta{Platform: "besluitbron", FromCache: true}
	asked := 0
	for _, o := range res.Outcomes {
		if o.State == fanout.StateSkipped {
			continue
		}
		asked++
		m.FromCache = m.FromCache && o.State == fanout.StateCache
		m.QueueWaitMS += o.QueueWaitMS
	}
	m.FromCache = m.FromCache && asked > 0
	return &searchAllOut{Meta: m, Result: res}, nil
}

// resourceLinks: each merged hit that is a resource becomes a
// resource_link, as on every platform's search.
func (o *searchAllOut) ResourceLinks() []mcpgo.ResourceLink {
	var out []mcpgo.ResourceLink
	for _, h := range o.Hits {
		if h.URI != "" {
			out = append(out, mcpkit.DocumentLink(h.URI, h.ID, h.Title, h.Citation, h.Date))
		}
	}
	return out
}
