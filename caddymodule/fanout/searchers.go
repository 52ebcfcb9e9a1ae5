package fanout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/oa"
	"github.com/besluitbron/besluitbron/adapters/ob"
	"github.com/besluitbron/besluitbron/adapters/obv"
	"github.com/besluitbron/besluitbron/adapters/opentk"
	"github.com/besluitbron/besluitbron/adapters/ori"
	"github.com/besluitbron/besluitbron/adapters/rechtspraak"
	"github.com/besluitbron/besluitbron/adapters/tk"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

// A searcher asks one platform the question, with the same requests its
// MCP search tool sends for the same arguments (the tools' defaults
// otherwise), so the page, the tools and apps share cache entries.
type searcher func(ctx context.Context, c *calls, q Query) (adapters.Page, error)

var searchers = map[string]searcher{
	platforms.OBV:         searchOBV,
	platforms.TK:          searchTK,
	platforms.OpenTK:      searchOpenTK,
	platforms.OB:          searchOB,
	platforms.Rechtspraak: searchRechtspraak,
	platforms.ORI:         searchORI,
	platforms.OA:          searchOA,
}

// skipError is a question the platform cannot answer (an organisation it
// does not know, arguments its adapter refuses): the outcome is skipped,
// not failed, and no budget is spent.
type skipError struct{ why, reason string }

func (s skipError) Error() string { return s.why }

func skip(err error) error {
	return skipError{why: adapters.Cut(err.Error(), 300), reason: ReasonQueryUnfit}
}

// skipReason says why q does not fit platform k, before asking it, in
// English and as a reason code; "" when it fits.
func skipReason(k string, q Query) (why, reason string) {
	words := strings.TrimSpace(q.Words) != ""
	org := strings.TrimSpace(q.Organisation) != ""
	name := platformName(k)
	switch k {
	case platforms.TK, platforms.OpenTK:
		if org {
			return name + " has no organisation filter (its documents are parliament's): search without organisation to include it", ReasonNoOrganisationFilter
		}
	case platforms.Rechtspraak:
		if !org && len(eclis(q.Words)) == 0 {
			return "Rechtspraak has no free-text search: name a court as organisation (HR, Rechtbank Den Haag) or search for an ECLI", ReasonNoWordSearch
		}
		return "", ""
	}
	if !words && k != platforms.OBV && k != platforms.OB {
		return name + " needs words to search for", ReasonNeedsWords
	}
	return "", ""
}

func searchOBV(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	p := obv.SearchParams{Query: strings.TrimSpace(q.Words), Organization: strings.ToLower(strings.TrimSpace(q.Organisation)),
		DateFrom: q.From, DateTo: q.To, Limit: q.limit()}
	r, err := obv.SearchRequest(p)
	if err != nil {
		return adapters.Page{}, skip(err)
	}
	body, err := c.get(ctx, r)
	if err != nil {
		return adapters.Page{}, err
	}
	return parsed(obv.ParseSearch(body))
}

func searchTK(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	p := tk.SearchParams{Query: strings.TrimSpace(q.Words), DateFrom: q.From, DateTo: q.To, Limit: q.limit()}
	if err := p.Check(); err != nil {
		return adapters.Page{}, skip(err)
	}
	e, err := c.tkDocument(ctx)
	if err != nil {
		return adapters.Page{}, err
	}
	var callErr error
	pg, err := tk.Search(e, p, func(r adapters.Request) ([]byte, error) {
		b, err := c.get(ctx, r)
		if err != nil {
			callErr = err
		}
		return b, err
	})
	if callErr != nil {
		return adapters.Page{}, callErr
	}
	return parsed(pg, err)
}

// tkDocument is the Document entity of the configured OData root, its
// field names read from $metadata (memoised, as the connector does).
func (c *calls) tkDocument(ctx context.Context) (*tk.Entity, error) {
	s, err := tk.SchemaOf(&c.e.memo, c.e.tkRoot, c.e.clock.Now(), func(r adapters.Request) ([]byte, error) { return c.get(ctx, r) })
	var bad *tk.MetadataError
	if errors.As(err, &bad) {
		return nil, parseError{bad.Err}
	}
	if err != nil {
		return nil, err
	}
	e, err := s.Entity("Document")
	if err != nil {
		return nil, parseError{err}
	}
	return e, nil
}

func searchOpenTK(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	r, err := opentk.SearchRequest(strings.TrimSpace(q.Words), false, "alles")
	if err != nil {
		return adapters.Page{}, skip(err)
	}
	body, err := c.get(ctx, r)
	if err != nil {
		return adapters.Page{}, err
	}
	// OpenTK has no date filter: its (at most 280) hits come newest
	// first and are filtered here.
	pg, err := opentk.ParseSearch(body, 0, opentk.MaxResults)
	if err != nil {
		return adapters.Page{}, parseError{err}
	}
	kept := pg.Hits[:0]
	for _, h := range pg.Hits {
		if inRange(h.Date, q.From, q.To) {
			kept = append(kept, h)
		}
	}
	pg.Total = len(kept)
	if len(kept) > q.limit() {
		kept, pg.HasMore = kept[:q.limit()], true
	} else {
		pg.HasMore = false
	}
	pg.Hits = kept
	return pg, nil
}

// inRange tells whether day (YYYY-MM-DD...) lies in [from, to]; an
// undated hit is kept only when no range is asked.
func inRange(day, from, to string) bool {
	if from == "" && to == "" {
		return true
	}
	if len(day) < 10 {
		return false
	}
	day = day[:10]
	return (from == "" || day >= from) && (to == "" || day <= to)
}

func searchOB(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	p := ob.SearchParams{Query: strings.TrimSpace(q.Words), Creator: strings.TrimSpace(q.Organisation),
		DateFrom: q.From, DateTo: q.To, Limit: q.limit()}
	r, err := ob.SearchRequest(p)
	if err != nil {
		return adapters.Page{}, skip(err)
	}
	body, err := c.get(ctx, r)
	if err != nil {
		return adapters.Page{}, err
	}
	pg, _, err := ob.ParseSearch(body)
	return parsed(pg, err)
}

// maxECLIs bounds the rulings one question looks up.
const maxECLIs = 5

// eclis are the valid ECLIs in words, at most maxECLIs.
func eclis(words string) []string { return rechtspraak.FindECLIs(words, maxECLIs) }

// searchRechtspraak: the platform has no free text. An ECLI in the words
// is looked up (metadata only, as rechtspraak_fetch with
// metadata_only=true); otherwise the organisation names a court, and the
// court's newest rulings in the date range are listed, as
// rechtspraak_search with that court does.
func searchRechtspraak(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	if ids := eclis(q.Words); len(ids) > 0 {
		pg := adapters.Page{Hits: []adapters.Hit{}}
		for _, id := range ids {
			r, err := rechtspraak.ContentRequest(id, true)
			if err != nil {
				return adapters.Page{}, skip(err)
			}
			body, err := c.get(ctx, r)
			if adapters.KindOf(err) == adapters.KindNotFound {
				continue // not a Dutch ruling the platform knows
			}
			if err != nil {
				return adapters.Page{}, err
			}
			d, err := rechtspraak.ParseContent(body)
			if err != nil {
				return adapters.Page{}, parseError{err}
			}
			pg.Hits = append(pg.Hits, adapters.Hit{ID: d.ID, Type: d.Type, Title: d.Title, Date: d.Date,
				Source: d.Source, Snippet: adapters.Snippet(d.Meta["summary"], adapters.SnippetLen), URL: d.URL})
		}
		pg.Total = len(pg.Hits)
		return pg, nil
	}
	court, err := c.court(ctx, strings.TrimSpace(q.Organisation))
	if err != nil {
		return adapters.Page{}, err
	}
	p := rechtspraak.SearchParams{Creators: []string{court}, DateFrom: q.From, DateTo: q.To, Sort: "DESC", Limit: q.limit()}
	if p.DateFrom != "" && p.DateTo == "" {
		// One date alone is that one day to the platform: "from" means
		// up to today.
		p.DateTo = c.e.clock.Now().Format("2006-01-02")
	}
	r, err := rechtspraak.SearchRequest(p)
	if err != nil {
		return adapters.Page{}, skip(err)
	}
	body, err := c.get(ctx, r)
	if err != nil {
		return adapters.Page{}, err
	}
	return parsed(rechtspraak.ParseSearch(body, p))
}

// court resolves a court's abbreviation or name (or a part of it that
// names one court) to its identifier (rechtspraak.Resolve).
func (c *calls) court(ctx context.Context, v string) (string, error) {
	uri, err := rechtspraak.Resolve(&c.e.memo, c.e.clock.Now(), "Instanties", v, func(r adapters.Request) ([]byte, error) { return c.get(ctx, r) })
	var un *rechtspraak.UnresolvedError
	switch {
	case errors.As(err, &un):
		return "", skipError{why: fmt.Sprintf("%q names no single court of Rechtspraak (%d match): give a court such as HR or Rechtbank Den Haag", adapters.Cut(v, 60), len(un.Near)),
			reason: ReasonUnknownCourt}
	case err != nil && !adapters.CallFailed(err):
		return "", parseError{err}
	}
	return uri, err
}

func searchORI(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	p := ori.SearchParams{Query: strings.TrimSpace(q.Words), Source: strings.ToLower(strings.TrimSpace(q.Organisation)),
		DateFrom: q.From, DateTo: q.To, Limit: q.limit()}
	r, err := ori.SearchRequest(p)
	if err != nil {
		return adapters.Page{}, skip(err)
	}
	body, err := c.get(ctx, r)
	if err != nil {
		return adapters.Page{}, err
	}
	return parsed(ori.ParseSearch(body, 0, c.oriNames(ctx, body)))
}

// oriNames names the organisations of an ORI answer's hits (ori.Names);
// a failed look-up costs only the names.
func (c *calls) oriNames(ctx context.Context, body []byte) map[string]string {
	names, err := ori.Names(&c.e.memo, c.e.clock.Now(), body, func(r adapters.Request) ([]byte, error) { return c.get(ctx, r) })
	if err != nil {
		c.refused = nil // the search itself answered
	}
	return names
}

func searchOA(ctx context.Context, c *calls, q Query) (adapters.Page, error) {
	p := oa.SearchParams{Query: strings.TrimSpace(q.Words), Organisation: strings.TrimSpace(q.Organisation),
		DateFrom: q.From, DateTo: q.To, Limit: q.limit()}
	r, err := c.e.oa.SearchRequest(p)
	if err != nil {
		return adapters.Page{}, skip(err)
	}
	body, err := c.get(ctx, r)
	if err != nil {
		return adapters.Page{}, err
	}
	return parsed(oa.ParseSearch(body, 0))
}

// parsed wraps a parser's error as a parseError.
func parsed(pg adapters.Page, err error) (adapters.Page, error) {
	if err != nil {
		return adapters.Page{}, parseError{err}
	}
	return pg, nil
}
