package obv

import (
	"context"
	"strings"
	"time"

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
		Votes:     votes,
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
	if q.FullText {
		return askPlatform(ctx, env, q, fullTextWhy)
	}
	lq := localindex.Query{Words: q.Words, From: q.From, To: q.To, Limit: max(q.Limit, 1)}
	if q.Sort == "date" {
		lq.Order = localindex.OrderNewest
	}
	if org := strings.ToLower(strings.TrimSpace(q.Organisation)); org != "" {
		lq.Sources = []string{org}
	}
	a, why := askCouncil(ctx, council, lq)
	if why == "" {
		return localPage(a, 0, organisationLabels(env.Memo, env.Now)), nil
	}
	return askPlatform(ctx, env, q, why)
}

// askPlatform asks the platform where the replica might have answered,
// and says why in the provenance.
func askPlatform(ctx context.Context, env adapters.Env, q adapters.Question, why string) (adapters.Page, error) {
	page, err := search(ctx, env, q)
	if err != nil {
		return page, err
	}
	page.Provenance = askedPlatform + why
	return page, nil
}

// fullTextWhy is why a search marked full text goes to the platform.
const fullTextWhy = "full_text asks for words inside the documents, which only the platform holds"

// askedPlatform begins the provenance of an answer the platform gave
// where the replica might have.
const askedPlatform = "asked OpenBesluitvorming: "

// askCouncil asks the replica; why is "" when its answer stands, else
// why the platform must answer instead.
func askCouncil(ctx context.Context, council CouncilIndex, q localindex.Query) (LocalAnswer, string) {
	a, ok, why := council.SearchCouncil(ctx, q)
	switch {
	case ok && a.Total > 0:
		return a, ""
	case ok:
		return a, "the replica holds no match; words inside documents are only at the platform"
	}
	return a, why
}

// localPage is the replica's answer, from offset on, as a page of hits,
// linking to each entity as the platform's own search does: its type and
// organisation spelled as the platform spells them, where the list of
// organisations (label) knows the key.
func localPage(a LocalAnswer, offset int, label func(key string) string) adapters.Page {
	page := adapters.Page{Total: int(a.Total), HasMore: offset+len(a.Hits) < int(a.Total), Hits: []adapters.Hit{}, Provenance: a.Provenance}
	for _, hit := range a.Hits {
		h := adapters.Hit{ID: hit.ID, Type: entityType(hit.Type), Title: hit.Title, Date: hit.Date, Source: label(hit.Source)}
		h.SetURL(link(hit.URL))
		h.Citation = Citation(h.Source, h.Title, h.Date)
		page.Hits = append(page.Hits, h)
	}
	return page
}

// entityType is the platform's spelling (EntityTypes) of a type as the
// export writes it.
func entityType(t string) string {
	for _, e := range EntityTypes {
		if strings.EqualFold(e, t) {
			return e
		}
	}
	return t
}

// organisationLabels names a source by its label when the memo holds
// the list of organisations, else by its key.
func organisationLabels(memo *adapters.Memo, now time.Time) func(string) string {
	var list []Source
	if memo != nil {
		if v, ok := memo.Get(SourcesMemo, now); ok {
			list, _ = v.([]Source)
		}
	}
	return func(key string) string {
		for _, s := range list {
			if s.Key == key {
				return s.Label
			}
		}
		return key
	}
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
