package caselaw

import (
	"github.com/besluitbron/besluitbron/replica/bleveindex"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/shingle"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
)

// stampFormat is the part of the mapping stamp (bleveindex.Stamp) the
// mapping JSON does not show: how documents are built from decisions
// (docOf) and what the checkpoint means. Raise its version when either
// changes, so an index written the old way is rebuilt rather than misread.
const stampFormat = "caselaw-v1"

// The fields of an indexed decision.
const (
	fieldECLI     = "ecli"     // keyword, stored
	fieldText     = "text"     // title and summary, Dutch analyzer, searched
	fieldPairs    = "pairs"    // title and summary as pairs of neighbouring words, for phrases
	fieldTitle    = "title"    // stored only
	fieldSummary  = "summary"  // stored only
	fieldCourt    = "court"    // lower-cased keyword, stored
	fieldDate     = "date"     // datetime, for the date range only
	fieldDay      = "day"      // the date as YYYY-MM-DD keyword: stored, sorts
	fieldType     = "type"     // lower-cased keyword, stored
	fieldModified = "modified" // stored only
)

// analyzerPairs is the Dutch analyzer followed by pairs of neighbouring
// words ("staand voet"). A common word the Dutch analyzer drops leaves a
// gap, which stands as pairFiller ("ontslag _", "_ staand"), so a phrase's
// common words may be any common word, as in bleve's own phrase query.
const (
	analyzerPairs = "nl_pairs"
	filterPairs   = "word_pairs"
	pairFiller    = "_"
)

// newMapping is the one mapping of the index. Title and summary are
// searched as one field, "text": one posting list per word instead of two
// halves the work of every query. They are also kept as stored-only fields
// to show in hits. Nothing goes into bleve's _all field.
//
// Phrases are searched as pairs of neighbouring words ("pairs"), not with
// bleve's phrase query: that one reads the positions of every document
// that holds all the phrase's words, which made a phrase of common words
// the slowest query by far, and the positions (term vectors) made the
// index larger than the pairs do. Title and summary are an array of two,
// so no pair runs from the title into the summary. A phrase of three or
// more words matches when each of its pairs occurs, which in a summary of
// a few sentences is as good as always the phrase itself.
//
// Sorting reads doc values for every match, which dominated query time
// (docs/benchmarks/caselaw.md): so only "day" has them, a single keyword
// term per decision, where a datetime field's doc values hold all its
// range-precision terms. The relevance order reads none: ties keep the
// index's order.
func newMapping() *mapping.IndexMappingImpl {
	im := bleveindex.NewMapping()
	if err := im.AddCustomTokenFilter(filterPairs, map[string]any{
		"type": shingle.Name, "min": 2.0, "max": 2.0,
		"output_original": false, "separator": " ", "filler": pairFiller,
	}); err != nil {
		panic(err) // a constant configuration: fails in every test if wrong
	}
	if err := im.AddCustomAnalyzer(analyzerPairs, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{lowercase.Name, nl.StopName, nl.SnowballStemmerName, filterPairs},
	}); err != nil {
		panic(err)
	}

	doc := mapping.NewDocumentStaticMapping()
	date := mapping.NewDateTimeFieldMapping()
	date.Store, date.DocValues, date.IncludeInAll = false, false, false
	doc.AddFieldMappingsAt(fieldECLI, bleveindex.Keyword(keyword.Name, true, false))
	doc.AddFieldMappingsAt(fieldText, bleveindex.Searched(nl.AnalyzerName))
	doc.AddFieldMappingsAt(fieldPairs, bleveindex.Searched(analyzerPairs))
	doc.AddFieldMappingsAt(fieldTitle, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldSummary, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldCourt, bleveindex.Keyword(bleveindex.AnalyzerExact, true, false))
	doc.AddFieldMappingsAt(fieldDate, date)
	doc.AddFieldMappingsAt(fieldDay, bleveindex.Keyword(keyword.Name, true, true))
	doc.AddFieldMappingsAt(fieldType, bleveindex.Keyword(bleveindex.AnalyzerExact, true, false))
	doc.AddFieldMappingsAt(fieldModified, bleveindex.StoredOnly(mapping.NewDateTimeFieldMapping()))
	im.DefaultMapping = doc
	return im
}

// docOf is the document stored for a decision (normalized and checked).
func docOf(d Decision) map[string]any {
	date, _ := parseDate(d.Date) // checked before
	doc := map[string]any{
		fieldECLI:    d.ECLI,
		fieldText:    []string{d.Title, d.Summary},
		fieldPairs:   []string{d.Title, d.Summary},
		fieldTitle:   d.Title,
		fieldSummary: d.Summary,
		fieldCourt:   d.Court,
		fieldDate:    date,
		fieldDay:     d.Date,
		fieldType:    d.Type,
	}
	if !d.Modified.IsZero() {
		doc[fieldModified] = d.Modified.UTC()
	}
	return doc
}
