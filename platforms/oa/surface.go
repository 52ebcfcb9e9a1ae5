package oa

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Surface is Open Archivaris for the fan-out and the live check
// (adapters.Surface), at the endpoints e (over Defaults). The reader does
// not read its documents: Unreadable says why.
func Surface(e Endpoints) adapters.Surface {
	e = e.WithDefaults()
	return adapters.Surface{
		Unfit: func(q adapters.Question) *adapters.UnfitError { return adapters.NeedWords("Open Archivaris", q) },
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			r, err := e.SearchRequest(SearchParams{Query: strings.TrimSpace(q.Words), Organisation: strings.TrimSpace(q.Organisation),
				DateFrom: q.From, DateTo: q.To, Limit: q.Limit})
			if err != nil {
				return adapters.Page{}, adapters.Unfit(err)
			}
			body, err := env.Get(ctx, platforms.OA, r)
			if err != nil {
				return adapters.Page{}, err
			}
			return adapters.Parsed(ParseSearch(body, 0))
		},
		Unreadable: "Open Archivaris publishes no API description, so its fetch rests on an operator's assumed endpoints (docs/emulators.md): its hits link to the source instead",
		Probe: func(adapters.ProbeConfig) (adapters.Probe, error) {
			r, err := e.SearchRequest(SearchParams{Query: "woo", Limit: 1})
			return adapters.Probe{Name: "search", Ext: "json", Request: r,
				DocSource: "API assumed: no public description or payload exists"}, err
		},
	}
}
