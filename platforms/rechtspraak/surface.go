package rechtspraak

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// MaxQuestionECLIs bounds the rulings one question looks up by ECLI.
const MaxQuestionECLIs = 5

// Surface is Rechtspraak for the fan-out, the reader and the live check
// (adapters.Surface). The platform has no free text: a question's words
// go to words, BesluitBron's own index of its feed (nil: none), and
// otherwise a question names ECLIs, or a court as its organisation.
func Surface(words WordIndex) adapters.Surface {
	s := adapters.Surface{
		Unfit: func(q adapters.Question) *adapters.UnfitError { return unfit(q, words != nil) },
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			return search(ctx, env, words, q)
		},
		Fetch: func(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
			r, err := ContentRequest(id, false)
			if err != nil {
				return adapters.Document{}, &adapters.InvalidError{Err: err}
			}
			body, err := env.Get(ctx, platforms.Rechtspraak, r)
			if err != nil {
				return adapters.Document{}, err
			}
			return ParseContent(body)
		},
		Probe: func(adapters.ProbeConfig) (adapters.Probe, error) {
			r, err := SearchRequest(SearchParams{Sort: "DESC", Limit: 1})
			return adapters.Probe{Name: "zoeken", Request: r, Ext: "xml",
				Samples: []adapters.Sample{{File: "zoeken.atom.xml"}}}, err
		},
		Recognize: adapters.Recognizes(ValidECLI),
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://rechtspraak/{ecli}{?page}", Name: "rechtspraak-ruling", Title: "Court ruling or opinion (Rechtspraak)",
		Description: "A ruling (uitspraak) or opinion (conclusie) by its ECLI, e.g. ECLI:NL:HR:2014:952: metadata, summary and full text.",
	}, "ecli", s.Fetch)
	return s
}

func unfit(q adapters.Question, indexed bool) *adapters.UnfitError {
	if indexed && strings.TrimSpace(q.Words) != "" {
		return nil
	}
	if strings.TrimSpace(q.Organisation) == "" && len(FindECLIs(q.Words, MaxQuestionECLIs)) == 0 {
		return &adapters.UnfitError{Why: "Rechtspraak has no free-text search: name a court as organisation (HR, Rechtbank Den Haag) or search for an ECLI",
			Reason: adapters.UnfitNoWordSearch}
	}
	return nil
}

// search looks up the ECLIs in the words (metadata only, as
// rechtspraak_fetch with metadata_only=true); without one, the
// organisation names a court, and the court's newest rulings in the date
// range are listed, as rechtspraak_search with that court does.
func search(ctx context.Context, env adapters.Env, words WordIndex, q adapters.Question) (adapters.Page, error) {
	if ids := FindECLIs(q.Words, MaxQuestionECLIs); len(ids) > 0 {
		return byECLI(ctx, env, ids)
	}
	if words != nil && strings.TrimSpace(q.Words) != "" {
		return byWords(ctx, env, words, q)
	}
	court, err := resolveCourt(ctx, env, strings.TrimSpace(q.Organisation))
	if err != nil {
		return adapters.Page{}, err
	}
	p := SearchParams{Creators: []string{court}, DateFrom: q.From, DateTo: q.To, Sort: "DESC", Limit: q.Limit}
	if p.DateFrom != "" && p.DateTo == "" {
		// One date alone is that one day to the platform: "from" means
		// up to today.
		p.DateTo = env.Now.Format("2006-01-02")
	}
	r, err := SearchRequest(p)
	if err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	body, err := env.Get(ctx, platforms.Rechtspraak, r)
	if err != nil {
		return adapters.Page{}, err
	}
	return adapters.Parsed(ParseSearch(body, p))
}

func byECLI(ctx context.Context, env adapters.Env, ids []string) (adapters.Page, error) {
	pg := adapters.Page{Hits: []adapters.Hit{}}
	for _, id := range ids {
		r, err := ContentRequest(id, true)
		if err != nil {
			return adapters.Page{}, adapters.Unfit(err)
		}
		body, err := env.Get(ctx, platforms.Rechtspraak, r)
		if adapters.KindOf(err) == adapters.KindNotFound {
			continue // not a Dutch ruling the platform knows
		}
		if err != nil {
			return adapters.Page{}, err
		}
		d, err := adapters.Parsed(ParseContent(body))
		if err != nil {
			return adapters.Page{}, err
		}
		pg.Hits = append(pg.Hits, adapters.Hit{ID: d.ID, Type: d.Type, Title: d.Title, Date: d.Date,
			Source: d.Source, Snippet: adapters.Snippet(d.Meta["summary"], adapters.SnippetLen), URL: d.URL, Citation: d.Citation})
	}
	pg.Total = len(pg.Hits)
	return pg, nil
}

// resolveCourt resolves a court's abbreviation or name (or a part of it
// that names one court) to its identifier (Resolve).
func resolveCourt(ctx context.Context, env adapters.Env, v string) (string, error) {
	uri, err := Resolve(env.Memo, env.Now, "Instanties", v, env.Bind(ctx, platforms.Rechtspraak))
	if err != nil {
		return "", courtError(v, err)
	}
	return uri, nil
}

// courtError says why v named no court: an unfit question, a failed
// call, or a list that did not parse.
func courtError(v string, err error) error {
	var un *UnresolvedError
	switch {
	case errors.As(err, &un):
		return &adapters.UnfitError{Why: fmt.Sprintf("%q names no single court of Rechtspraak (%d match): give a court such as HR or Rechtbank Den Haag", adapters.Cut(v, 60), len(un.Near)),
			Reason: adapters.UnfitUnknownCourt}
	case !adapters.CallFailed(err):
		return &adapters.ParseError{Err: err}
	}
	return err
}

// byWords asks the index the fan-out's question.
func byWords(ctx context.Context, env adapters.Env, words WordIndex, q adapters.Question) (adapters.Page, error) {
	pg, _, err := SearchByWords(ctx, env, words, WordQuery{Words: q.Words, Court: q.Organisation, From: q.From, To: q.To, Sort: q.Sort, Limit: q.Limit})
	return pg, err
}

// SearchByWords asks the index q, whose Court may be any way of naming a
// court (abbreviation, name, identifier: ResolveItem), as the surfaces
// do. An index that cannot answer is an *adapters.UnfitError with reason
// index_unavailable; a court that names none, one with unknown_court; a
// question the index refuses, one with query_unfit. next, in date order,
// is the cursor of the page after this one (WordQuery.After), "" when
// none follows.
func SearchByWords(ctx context.Context, env adapters.Env, words WordIndex, q WordQuery) (pg adapters.Page, next string, err error) {
	if org := strings.TrimSpace(q.Court); org != "" {
		it, err := ResolveItem(env.Memo, env.Now, "Instanties", org, env.Bind(ctx, platforms.Rechtspraak))
		if err != nil {
			return adapters.Page{}, "", courtError(org, err)
		}
		q.Court = it.Label
	}
	wp, err := words.SearchWords(ctx, q)
	if errors.Is(err, ErrIndexUnavailable) {
		return adapters.Page{}, "", &adapters.UnfitError{Why: err.Error(), Reason: adapters.UnfitIndexUnavailable}
	}
	if err != nil {
		return adapters.Page{}, "", adapters.Unfit(err)
	}
	hasMore := q.Offset+len(wp.Hits) < wp.Total
	if wp.Next != "" || q.After != "" { // paged by cursor: the index knows whether a page follows
		hasMore = wp.Next != ""
	}
	pg = adapters.Page{Total: wp.Total, HasMore: hasMore, Hits: []adapters.Hit{}, Provenance: wp.Provenance}
	for _, h := range wp.Hits {
		pg.Hits = append(pg.Hits, adapters.Hit{ID: h.ECLI, Type: h.Type, Title: h.Title, Date: h.Date, Source: h.Court,
			Snippet: adapters.Snippet(h.Summary, adapters.SnippetLen), URL: DocumentURL(h.ECLI), Citation: Citation(h.ECLI, h.Court, h.Date)})
	}
	return pg, wp.Next, nil
}
