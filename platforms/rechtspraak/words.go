package rechtspraak

import (
	"context"
	"errors"
)

// WordIndex answers words for Rechtspraak, whose open data has no
// free-text search: BesluitBron's own index of its feed
// (platforms/rechtspraak/caselaw, kept by the besluitbron app). The page it returns
// says where its hits came from (adapters.Page.Provenance).
type WordIndex interface {
	SearchWords(ctx context.Context, q WordQuery) (WordPage, error)
}

// WordQuery is a question for the index.
type WordQuery struct {
	Words    string // all words must match; "quoted phrases" as phrases
	Court    string // a court's name as the feed writes it ("Rechtbank Den Haag"); may be empty
	From, To string // decision dates, YYYY-MM-DD, either may be empty
	Type     string // Uitspraak or Conclusie; may be empty
	Sort     string // relevance (default) or date
	Limit    int
	Offset   int
	// After is the previous page's WordPage.Next: in date order, the page
	// after it, however deep, at the cost of a first page. Offset is 0
	// with it.
	After string
}

// WordPage is the index's answer: hits in its order (BM25 for relevance)
// and how far the index got.
type WordPage struct {
	Total int
	Hits  []WordHit
	// Provenance says where the hits came from and how complete the index
	// is, in English.
	Provenance string
	// Next, in date order, is the cursor of the page after this one (for
	// WordQuery.After); "" when no hit follows, and in relevance order.
	Next string
}

// WordHit is one decision the index found.
type WordHit struct {
	ECLI, Title, Summary, Court, Date, Type string
}

// ErrIndexUnavailable is an index that cannot answer now (not yet open,
// a corrupt file, a full disk): the surfaces say so and never serve a
// part of it as the whole. Wrap it with the reason.
var ErrIndexUnavailable = errors.New("BesluitBron's index of Rechtspraak's feed is unavailable")
