package bleveindex

import (
	"time"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// The pieces every replica's mapping is made of. Each index keeps its own
// fields; these say once how a field is kept, so two indexes that keep a
// field alike map it alike. A mapping is part of its index's stamp
// (Stamp): changing what these give rebuilds every replica.

// AnalyzerExact matches a keyword regardless of case, so a filter
// "rechtbank den haag" finds "Rechtbank Den Haag". NewMapping adds it.
const AnalyzerExact = "keyword_lower"

// NewMapping is a mapping with nothing dynamic, BM25 scoring, the Dutch
// analyzer by default and AnalyzerExact; the caller adds its fields.
func NewMapping() *mapping.IndexMappingImpl {
	im := mapping.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = nl.AnalyzerName
	im.IndexDynamic, im.StoreDynamic, im.DocValuesDynamic = false, false, false
	if err := im.AddCustomAnalyzer(AnalyzerExact, map[string]any{
		"type": custom.Name, "tokenizer": single.Name, "token_filters": []any{lowercase.Name},
	}); err != nil {
		panic(err) // a constant configuration: fails in every test if wrong
	}
	return im
}

// Keyword is a field searched as one term by analyzer ("keyword" as
// given, AnalyzerExact in any case), stored to be shown when store, with
// doc values to sort by when docValues; never in _all, no term vectors.
func Keyword(analyzer string, store, docValues bool) *mapping.FieldMapping {
	f := mapping.NewKeywordFieldMapping()
	f.Analyzer = analyzer
	f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = store, docValues, false, false
	return f
}

// DayNumber is a day as a number (Day), indexed for ranges only: bleve
// writes a number's terms at several precisions, so a range of a year
// reads a few dozen terms where a YYYY-MM-DD keyword reads one a day.
func DayNumber() *mapping.FieldMapping {
	f := mapping.NewNumericFieldMapping()
	f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = false, false, false, false
	return f
}

// Day is the number DayNumber holds for a YYYY-MM-DD day: days since
// 1970-01-01; ok is false for anything else.
func Day(s string) (n float64, ok bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, false
	}
	return float64(t.Unix() / 86400), true
}

// DaysFrom matches the documents whose DayNumber field is a day from
// older (inclusive) to newer (exclusive); "" is open, and so is a day
// that is not YYYY-MM-DD.
func DaysFrom(field, older, newer string) query.Query {
	var min, max *float64
	if n, ok := Day(older); ok {
		min = &n
	}
	if n, ok := Day(newer); ok {
		max = &n
	}
	incl, excl := true, false
	r := query.NewNumericRangeInclusiveQuery(min, max, &incl, &excl)
	r.SetField(field)
	return r
}

// DaysFromTo matches the documents whose DayNumber field is a day from
// from to to, both inclusive ("" open).
func DaysFromTo(field, from, to string) query.Query {
	if t, err := time.Parse(time.DateOnly, to); err == nil {
		to = t.AddDate(0, 0, 1).Format(time.DateOnly)
	}
	return DaysFrom(field, from, to)
}

// EveryWord matches a document whose field holds every one of words, as
// the field's analyzer reads them.
func EveryWord(field, words string) query.Query {
	m := query.NewMatchQuery(words)
	m.SetField(field)
	m.SetOperator(query.MatchQueryOperatorAnd)
	return m
}

// EveryTerm is EveryWord for a search that is not scored: the terms the
// analyzer m gives field make of words, each a term query, joined with
// conj (an unscored search's other conditions). Unscored, bleve ANDs
// term postings as bitmaps when every part of a conjunction is a term
// or a range of terms; EveryWord is a conjunction of its own inside the
// outer one, which bleve then walks match by match to count them. A
// year's question of Official Publications at 3 million counted its
// 124,000 matches that way (docs/benchmarks.md, the moonshot's ninth
// run). Words that give no term (stop words alone) match nothing, as
// EveryWord's do.
func EveryTerm(m mapping.IndexMapping, field, words string, conj ...query.Query) query.Query {
	terms := WordsOf(m, field, words)
	if len(terms) == 0 {
		return query.NewMatchNoneQuery()
	}
	parts := make([]query.Query, 0, len(terms)+len(conj))
	for _, t := range terms {
		tq := query.NewTermQuery(t.Term)
		tq.SetField(field)
		parts = append(parts, tq)
	}
	parts = append(parts, conj...)
	if len(parts) == 1 {
		return parts[0]
	}
	return query.NewConjunctionQuery(parts)
}

// WordsOf are the terms the analyzer m gives field makes of words, one
// per token, in their order: what a match query of words asks.
func WordsOf(m mapping.IndexMapping, field, words string) []Word {
	tokens := m.AnalyzerNamed(m.AnalyzerNameForPath(field)).Analyze([]byte(words))
	out := make([]Word, len(tokens))
	for k, t := range tokens {
		out[k] = Word{Field: field, Term: string(t.Term)}
	}
	return out
}

// Searched is a text field searched through analyzer and not stored;
// never in _all, no term vectors (no phrase query reads positions).
func Searched(analyzer string) *mapping.FieldMapping {
	f := mapping.NewTextFieldMapping()
	f.Analyzer = analyzer
	f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = false, false, false, false
	return f
}

// StoredOnly makes f a field kept only to be shown: not searched, no doc
// values.
func StoredOnly(f *mapping.FieldMapping) *mapping.FieldMapping {
	f.Index, f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = false, true, false, false, false
	return f
}

// StoredText is a text field kept only to be shown.
func StoredText() *mapping.FieldMapping { return StoredOnly(mapping.NewTextFieldMapping()) }
