package caselaw

import (
	"context"
	"errors"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// The faster path beside bleve, for the queries that are only words and
// court and type filters: bleve scores a match through a stack of
// searchers, one DocumentMatch per word per match, which made a query of
// two common words matching 175,000 of 1,000,000 decisions the slowest
// (docs/benchmarks/caselaw.md, "side by side with SQLite FTS5").
// bleveindex.Index.BestFirst ANDs the postings' bitmaps and scores each
// match in one loop with bleve's own BM25 formula and statistics.
//
// It answers only what it fully recognises: term queries with no boost,
// a scorch index, BM25 scoring; anything else (a date range of bleve's
// datetime kind, an error) falls through to the plain bleve search,
// which then gives the answer and the error. fastpath_test.go holds it
// to bleve's pages, totals and scores on a generated index.

// errNoFastPath says the fast path does not handle the plan.
var errNoFastPath = errors.New("not a plan of words and term filters")

// termsOf returns the plan's words and filters as terms, ok only when
// every one is a term query without a boost.
func termsOf(p plan) (words []bleveindex.Word, filters []query.Query, ok bool) {
	for _, q := range p.must {
		tq, ok := q.(*query.TermQuery)
		if !ok || tq.BoostVal != nil || tq.FieldVal == "" {
			return nil, nil, false
		}
		words = append(words, bleveindex.Word{Field: tq.FieldVal, Term: tq.Term})
	}
	for _, q := range p.filters {
		if tq, ok := q.(*query.TermQuery); !ok || tq.BoostVal != nil || tq.FieldVal == "" {
			return nil, nil, false
		}
	}
	return words, p.filters, len(words) > 0
}

// fastBestFirst is bestFirst's answer by the fast path, or errNoFastPath.
func (i *Index) fastBestFirst(ctx context.Context, p plan) (uint64, search.DocumentMatchCollection, error) {
	words, filters, ok := termsOf(p)
	if !ok {
		return 0, nil, errNoFastPath
	}
	var filter query.Query
	if len(filters) > 0 {
		filter = query.NewConjunctionQuery(filters)
	}
	page, ok, err := i.store.BestFirst(ctx, words, filter, p.limit, p.offset, hitFields)
	switch {
	case err != nil:
		return 0, nil, err
	case !ok:
		return 0, nil, errNoFastPath
	}
	return page.Total, page.Hits, nil
}
