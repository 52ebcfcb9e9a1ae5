package ori

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// DocumentedEnvelope is the Elasticsearch 7 _search envelope (the
// Elasticsearch reference, "Search API" response body) that an
// ORI-compatible index answers; what _source holds depends on the index,
// so only the envelope is checked.
var DocumentedEnvelope = []byte(`{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},
"hits":{"total":{"value":1,"relation":"eq"},"max_score":1.5,"hits":[{"_index":"ori_x","_id":"1","_score":1.5,"_source":{}}]}}`)

// Surface is Open Raadsinformatie for the fan-out, the reader and the live
// check (adapters.Surface).
func Surface() adapters.Surface {
	s := adapters.Surface{
		Unfit:  func(q adapters.Question) *adapters.UnfitError { return adapters.NeedWords("Open Raadsinformatie", q) },
		Search: search,
		Fetch: func(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
			return Fetch(env.Memo, env.Now, id, env.Bind(ctx, platforms.ORI))
		},
		Probe: func(adapters.ProbeConfig) (adapters.Probe, error) {
			return adapters.Probe{Name: "search", Ext: "json",
				Request:    adapters.Get("/_search", map[string][]string{"size": {"1"}}),
				Documented: DocumentedEnvelope, DocSource: "Elasticsearch 7 search API; no ORI sample"}, nil
		},
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://ori/{id}{?page}", Name: "ori-document", Title: "Council document (ORI-compatible index)",
		Description: "A council document by its id in the operator's ORI-compatible index, as ori_search gives it.",
	}, "id", s.Fetch)
	return s
}

// search asks the index and names its hits' organisations (Names); a
// failed look-up of the names costs only the names.
func search(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
	r, err := SearchRequest(SearchParams{Query: strings.TrimSpace(q.Words), Source: strings.ToLower(strings.TrimSpace(q.Organisation)),
		DateFrom: q.From, DateTo: q.To, Limit: q.Limit})
	if err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	get := env.Bind(ctx, platforms.ORI)
	body, err := get(r)
	if err != nil {
		return adapters.Page{}, err
	}
	names, _ := Names(env.Memo, env.Now, body, get)
	return adapters.Parsed(ParseSearch(body, 0, names))
}
