package caselaw

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Query is a search of the index. Words are all required, in any form the
// Dutch stemmer takes for the same ("vergunningen" finds "vergunning"). A
// phrase in double quotes must occur as written: each pair of neighbouring
// words in it must (mapping.go says why pairs); a common word inside it may
// be any common word. Every filter is exact.
type Query struct {
	Words    string
	Court    string // the court's name, case-insensitive ("Rechtbank Den Haag")
	DateFrom string // YYYY-MM-DD, inclusive
	DateTo   string // YYYY-MM-DD, inclusive
	Type     string // "Uitspraak" or "Conclusie", case-insensitive
	Sort     string // SortRelevance (the default) or SortDate (newest first)
	Limit    int    // 1..MaxLimit; 0 means DefaultLimit
	Offset   int    // 0..MaxOffset; in date order 0..MaxDateOffset
	// After is the previous page's Result.Next: in date order, the page
	// that follows it, at the cost of a first page however deep (cursor.go).
	// Offset must be 0 with it.
	After string
	// Now is the time of the question, from the caller's clock: in date
	// order the windows of decisions count back from its day (search.go).
	// Zero is the wall clock's now. It changes the cost, never the hits.
	Now time.Time
}

// The orders a result can have.
const (
	SortRelevance = "relevance"
	SortDate      = "date"
)

// Bounds of a query. MaxOffset is Elasticsearch's default result window:
// past it, paging is a crawl, and the collector's cost grows with it. In
// date order an offset past the newest windows also sorts every window
// it skips (search.go), so there the bound is lower, MaxDateOffset, and
// deeper pages are reached by cursor (Query.After), whose cost does not
// grow with depth (docs/benchmarks.md, issue 31).
const (
	DefaultLimit  = 10
	MaxLimit      = 100
	MaxOffset     = 10_000
	MaxDateOffset = 1_000
	MaxTerms      = 16   // words and phrases; each is a posting-list walk
	MaxWordsBytes = 1000 // the whole words text
)

// plan is a checked query, ready to run.
type plan struct {
	must     []query.Query // the words: all must match, and they score
	filters  []query.Query // court, type, date range: select, never score
	from, to time.Time     // the date range's bounds, zero when open
	byDate   bool          // newest first; otherwise by BM25 score
	now      time.Time     // Query.Now
	limit    int
	offset   int
	after    *place   // date order: the hits after this place (Query.After)
	cursorOf []byte   // the query's fingerprint, for the cursor of the next page
	stems    []string // the analyzed words, to place the snippet
	ignored  []string // words the analyzer drops (common words): they match nothing
}

// analyzers are the two analyses of title and summary a query is built
// with: the Dutch words of fieldText, and their pairs in fieldPairs.
type analyzers struct{ words, pairs analysis.Analyzer }

// planQuery checks q and builds its bleve queries. User text only ever
// becomes term queries of analyzed tokens: no bleve syntax (+, -, field:,
// *, ~) is ever interpreted.
func planQuery(q Query, an analyzers) (plan, error) {
	p := plan{now: q.Now}
	var err error
	if p.limit, p.offset, err = checkPaging(q.Limit, q.Offset); err != nil {
		return p, err
	}

	terms, err := splitWords(q.Words)
	if err != nil {
		return p, err
	}
	for _, t := range terms {
		words := an.words.Analyze([]byte(t.text))
		if len(words) == 0 {
			p.ignored = append(p.ignored, t.text)
			continue
		}
		for _, w := range words {
			p.stems = append(p.stems, string(w.Term))
		}
		// A phrase, or one word the analyzer splits ("3:4", "art.6"): each
		// pair of neighbouring words must be in the pairs field.
		if pairs := phrasePairs(an.pairs.Analyze([]byte(t.text))); len(words) > 1 && len(pairs) > 0 {
			for _, pair := range pairs {
				p.must = append(p.must, termQuery(fieldPairs, pair))
			}
			continue
		}
		for _, w := range words {
			p.must = append(p.must, termQuery(fieldText, string(w.Term)))
		}
	}

	if p.filters, p.from, p.to, err = buildFilters(q); err != nil {
		return p, err
	}
	if len(p.must) == 0 && len(p.filters) == 0 {
		if len(p.ignored) > 0 {
			return p, queryErrorf("words", "%q holds only common words the index leaves out; add a more specific word or a filter", strings.Join(p.ignored, " "))
		}
		return p, queryErrorf("words", "no words and no filter; give words to search for, or a court, date range or type")
	}

	switch strings.ToLower(strings.TrimSpace(q.Sort)) {
	case "", SortRelevance:
		p.byDate = len(p.must) == 0 // without words every score is equal
	case SortDate:
		p.byDate = true
	default:
		return p, queryErrorf("sort", "%.40q is not an order; use %q or %q", q.Sort, SortRelevance, SortDate)
	}
	if err := p.checkDatePaging(q); err != nil {
		return p, err
	}
	return p, nil
}

// checkDatePaging holds the date order to MaxDateOffset and reads its
// cursor; a cursor in the relevance order is refused.
func (p *plan) checkDatePaging(q Query) error {
	after := strings.TrimSpace(q.After)
	switch {
	case !p.byDate && after != "":
		return queryErrorf("after", "a cursor pages the date order only; give sort=%q with it, or page the relevance order by offset", SortDate)
	case !p.byDate:
		return nil
	case p.offset > MaxDateOffset:
		return queryErrorf("offset", "%d is past %d, the deepest offset in date order: page on with after (each page's next), or narrow the dates (date_from, date_to)", p.offset, MaxDateOffset)
	case after != "" && p.offset != 0:
		return queryErrorf("offset", "%d given with after: the cursor already says where the page starts; leave offset out", p.offset)
	}
	p.cursorOf = queryFingerprint(q)
	if after != "" {
		at, err := decodeCursor(after, q)
		if err != nil {
			return err
		}
		p.after = &at
	}
	return nil
}

// phrasePairs are the pairs that stand for a phrase. A pair of two common
// words ("_ _") says only that two common words stood there: it is left
// out.
func phrasePairs(tokens analysis.TokenStream) []string {
	var out []string
	for _, t := range tokens {
		if pair := string(t.Term); pair != pairFiller+" "+pairFiller && !slices.Contains(out, pair) {
			out = append(out, pair)
		}
	}
	return out
}

func termQuery(field, term string) *query.TermQuery {
	tq := query.NewTermQuery(term)
	tq.SetField(field)
	return tq
}

// boolean is the bleve query of the plan, with extra conditions that must
// hold as well (the date window of a date-ordered page).
func (p plan) boolean(extra ...query.Query) query.Query {
	b := query.NewBooleanQuery(nil, nil, nil)
	if must := append(slices.Clip(p.must), extra...); len(must) > 0 {
		b.AddMust(query.NewConjunctionQuery(must))
	}
	if len(p.filters) > 0 {
		// A filter selects without scoring, so a court filter does not
		// shift the BM25 order of the words.
		b.AddFilter(query.NewConjunctionQuery(p.filters))
	}
	return b
}

func checkPaging(limit, offset int) (int, int, error) {
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return 0, 0, queryErrorf("limit", "%d is out of range; use 1 to %d", limit, MaxLimit)
	}
	if offset < 0 || offset > MaxOffset {
		return 0, 0, queryErrorf("offset", "%d is out of range; use 0 to %d", offset, MaxOffset)
	}
	return limit, offset, nil
}

// term is one word or one quoted phrase of the user's text.
type term struct {
	text   string
	phrase bool
}

// splitWords splits the text into words and "quoted phrases".
func splitWords(s string) ([]term, error) {
	if len(s) > MaxWordsBytes {
		return nil, queryErrorf("words", "text is %d bytes long; use at most %d", len(s), MaxWordsBytes)
	}
	if !utf8.ValidString(s) {
		return nil, queryErrorf("words", "text is not valid UTF-8")
	}
	if strings.Count(s, `"`)%2 != 0 {
		return nil, queryErrorf("words", `unbalanced double quote: close the phrase with a second " or remove the quote`)
	}
	var terms []term
	for n, part := range strings.Split(s, `"`) {
		if n%2 == 1 { // inside quotes
			if p := strings.Join(strings.Fields(part), " "); p != "" {
				terms = append(terms, term{text: p, phrase: true})
			}
			continue
		}
		for _, w := range strings.FieldsFunc(part, unicode.IsSpace) {
			terms = append(terms, term{text: w})
		}
	}
	if len(terms) > MaxTerms {
		return nil, queryErrorf("words", "%d words and phrases; use at most %d", len(terms), MaxTerms)
	}
	return terms, nil
}

// buildFilters checks and builds the exact filters, and returns the date
// range's bounds.
func buildFilters(q Query) (filters []query.Query, from, to time.Time, err error) {
	if court := strings.Join(strings.Fields(q.Court), " "); court != "" {
		filters = append(filters, termQuery(fieldCourt, strings.ToLower(court)))
	}
	if t := strings.TrimSpace(q.Type); t != "" {
		var canonical string
		switch {
		case strings.EqualFold(t, TypeRuling):
			canonical = TypeRuling
		case strings.EqualFold(t, TypeOpinion):
			canonical = TypeOpinion
		default:
			return nil, from, to, queryErrorf("type", "%.40q is not a decision type; use %q or %q", t, TypeRuling, TypeOpinion)
		}
		filters = append(filters, termQuery(fieldType, strings.ToLower(canonical)))
	}
	if from, err = queryDate("date_from", q.DateFrom); err != nil {
		return nil, from, to, err
	}
	if to, err = queryDate("date_to", q.DateTo); err != nil {
		return nil, from, to, err
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return nil, from, to, queryErrorf("date_to", "%s is before date_from %s; swap them", q.DateTo, q.DateFrom)
	}
	if !from.IsZero() || !to.IsZero() {
		end := to
		if !end.IsZero() {
			end = end.AddDate(0, 0, 1)
		}
		filters = append(filters, dateRange(from, end))
	}
	return filters, from, to, nil
}

// dateRange matches decisions dated from from (inclusive) to to
// (exclusive); a zero bound is open.
func dateRange(from, to time.Time) query.Query {
	inclusive, exclusive := true, false
	dq := query.NewDateRangeInclusiveQuery(from, to, &inclusive, &exclusive)
	dq.SetField(fieldDate)
	return dq
}

func queryDate(field, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := parseDate(s)
	if err != nil {
		return time.Time{}, queryErrorf(field, "%.40q: %v", s, err)
	}
	return t, nil
}
