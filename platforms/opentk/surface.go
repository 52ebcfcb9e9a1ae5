package opentk

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Surface is OpenTK for the fan-out, the reader and the live check
// (adapters.Surface).
func Surface() adapters.Surface {
	const template = "besluitbron://opentk/{category}/{id}{?page}"
	return adapters.Surface{
		Unfit:  func(q adapters.Question) *adapters.UnfitError { return adapters.NoOrganisationFilter("OpenTK", q) },
		Search: search,
		Fetch:  fetch,
		Probe:  probe,
		Resources: []adapters.ResourceKind{{
			Template: template, Name: "opentk-item", Title: "Parliamentary item (OpenTK)",
			Description: "A Tweede Kamer item by its OpenTK category (Document, Verslag, ...) and number, as opentk_search gives them: documents and minutes with their text, other categories described with their link.",
			Read: func(ctx context.Context, env adapters.Env, vars map[string]string) (adapters.Document, error) {
				category, err := adapters.Var(vars, "category")
				if err != nil {
					return adapters.Document{}, err
				}
				id, err := adapters.Var(vars, "id")
				if err != nil {
					return adapters.Document{}, err
				}
				return fetch(ctx, env, id, category)
			},
		}},
		URI: func(id, kind string) string {
			if kind == "" {
				kind = Document
			}
			u, _ := adapters.ExpandURI(template, map[string]string{"category": kind, "id": id})
			return u
		},
	}
}

func search(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
	r, err := SearchRequest(strings.TrimSpace(q.Words), false, "alles")
	if err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	body, err := env.Get(ctx, platforms.OpenTK, r)
	if err != nil {
		return adapters.Page{}, err
	}
	// OpenTK has no date filter: its (at most MaxResults) hits come
	// newest first and are filtered here.
	pg, err := adapters.Parsed(ParseSearch(body, 0, MaxResults))
	if err != nil {
		return adapters.Page{}, err
	}
	kept := pg.Hits[:0]
	for _, h := range pg.Hits {
		if inRange(h.Date, q.From, q.To) {
			kept = append(kept, h)
		}
	}
	pg.Total = len(kept)
	pg.HasMore = len(kept) > q.Limit
	if pg.HasMore {
		kept = kept[:q.Limit]
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

// fetch reads a document, or a meeting's minutes (kind Verslag, or a
// GUID OpenTK knows as no document); an item of another category has no
// text here, only what it is and where to open it.
func fetch(ctx context.Context, env adapters.Env, id, kind string) (adapters.Document, error) {
	if kind != "" && !Fetchable(kind) {
		item, err := ValidItem(id)
		if err != nil {
			return adapters.Document{}, &adapters.InvalidError{Err: err}
		}
		return adapters.Document{ID: item, Type: kind, URL: ItemURL(kind, item), Citation: Citation(kind, item, "")}, nil
	}
	n, err := ValidNumber(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	if kind == Verslag {
		return minutes(ctx, env, n)
	}
	r, err := DocumentRequest(n)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := env.Get(ctx, platforms.OpenTK, r)
	if err != nil {
		if kind == "" && IsGUID(n) && adapters.NotFound(err) {
			return minutes(ctx, env, n)
		}
		return adapters.Document{}, err
	}
	return ParseDocument(n, Document, body)
}

func minutes(ctx context.Context, env adapters.Env, id string) (adapters.Document, error) {
	r, err := MinutesRequest(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := env.Get(ctx, platforms.OpenTK, r)
	if err != nil {
		return adapters.Document{}, err
	}
	return ParseDocument(id, Verslag, body)
}

// DocumentedSearch is tkconv's /search answer as its code writes it
// (berthubert/tkconv tkserv.cc: nummer, datum, score, category, onderwerp,
// snip, relurl, bijgewerkt, persoonnummer, and milliseconds). No recorded
// answer exists.
var DocumentedSearch = []byte(`{"results":[{"nummer":"2023D41173","datum":"2023-10-12T00:00:00","score":-7.5,
"category":"Document","onderwerp":"o","snip":"...<b>x</b>...","relurl":"get/2023D41173",
"bijgewerkt":"2023-10-12T10:00:00Z","persoonnummer":-1}],"milliseconds":1.5}`)

// probe is tkconv's POST /search as its own search page sends it, over
// the last two months, which keeps the platform's work small.
func probe(adapters.ProbeConfig) (adapters.Probe, error) {
	r, err := SearchRequest("stikstof", true, "alles")
	return adapters.Probe{Name: "search", Ext: "json", Request: r,
		Documented: DocumentedSearch, DocSource: "tkconv tkserv.cc"}, err
}
