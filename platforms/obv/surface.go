package obv

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
)

// Surface is OpenBesluitvorming for the fan-out, the reader and the live
// check (adapters.Surface), asking the platform for every search.
func Surface() adapters.Surface { return SurfaceWith(nil) }

// SurfaceWith is the surface that answers word searches from council,
// BesluitBron's replica of the export, where it can (nil: never).
func SurfaceWith(council CouncilIndex) adapters.Surface {
	s := adapters.Surface{
		Unfit: func(adapters.Question) *adapters.UnfitError { return nil }, // it lists without words too
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			return searchCouncil(ctx, env, council, q)
		},
		Fetch:     fetch,
		Probe:     probe,
		Recognize: recognize,
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://obv/{id}{?page}", Name: "obv-document", Title: "Council document (OpenBesluitvorming)",
		Description: "A document of a municipality, province or water board by its OpenBesluitvorming id (as obv_search gives it): metadata and full text.",
	}, "id", fetch)
	return s
}

// searchCouncil answers a word search from the replica when it can
// answer it whole and holds a match. Otherwise it asks the platform, and
// says why in the provenance: words inside a document's full text are
// never in the export, so a search the replica finds nothing for is the
// platform's to answer.
func searchCouncil(ctx context.Context, env adapters.Env, council CouncilIndex, q adapters.Question) (adapters.Page, error) {
	if council == nil || strings.TrimSpace(q.Words) == "" {
		return search(ctx, env, q)
	}
	why := "the replica ranks by relevance only"
	if q.Sort != "date" {
		lq := localindex.Query{Words: q.Words, From: q.From, To: q.To, Limit: max(q.Limit, 1)}
		if org := strings.ToLower(strings.TrimSpace(q.Organisation)); org != "" {
			lq.Sources = []string{org}
		}
		res, provenance, ok, reason := council.SearchCouncil(ctx, lq)
		switch {
		case ok && res.Total > 0:
			return localPage(res, provenance), nil
		case ok:
			why = "the replica holds no match; words inside documents are only at the platform"
		default:
			why = reason
		}
	}
	page, err := search(ctx, env, q)
	if err != nil {
		return page, err
	}
	page.Provenance = "asked OpenBesluitvorming: " + why
	return page, nil
}

// localPage is the replica's answer as a page of hits, linking to each
// entity as the platform's own search does.
func localPage(res localindex.Result, provenance string) adapters.Page {
	page := adapters.Page{Total: int(res.Total), HasMore: int(res.Total) > len(res.Hits), Hits: []adapters.Hit{}, Provenance: provenance}
	for _, hit := range res.Hits {
		h := adapters.Hit{ID: hit.ID, Type: hit.Type, Title: hit.Title, Date: hit.Date, Source: hit.Source}
		h.Citation = Citation(h.Source, h.Title, h.Date)
		page.Hits = append(page.Hits, h)
	}
	return page
}

func search(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
	r, err := SearchRequest(SearchParams{Query: strings.TrimSpace(q.Words), Organization: strings.ToLower(strings.TrimSpace(q.Organisation)),
		DateFrom: q.From, DateTo: q.To, Limit: q.Limit})
	if err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	body, err := env.Get(ctx, platforms.OBV, r)
	if err != nil {
		return adapters.Page{}, err
	}
	return adapters.Parsed(ParseSearch(body))
}

func fetch(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
	r, err := EntityRequest(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := env.Get(ctx, platforms.OBV, r)
	if err != nil {
		return adapters.Document{}, err
	}
	return ParseEntity(body)
}

func probe(adapters.ProbeConfig) (adapters.Probe, error) {
	r, err := SearchRequest(SearchParams{Query: "begroting", EntityType: "Document", Limit: 1})
	// Options as in platforms/obv/emulator's TestSearch.
	return adapters.Probe{Name: "search", Request: r, Ext: "json", Samples: []adapters.Sample{{File: "search.json"}}}, err
}
