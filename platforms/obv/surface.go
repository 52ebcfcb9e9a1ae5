package obv

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Surface is OpenBesluitvorming for the fan-out, the reader and the live
// check (adapters.Surface).
func Surface() adapters.Surface {
	s := adapters.Surface{
		Unfit:     func(adapters.Question) *adapters.UnfitError { return nil }, // it lists without words too
		Search:    search,
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
