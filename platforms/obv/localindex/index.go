// Package localindex is OpenBesluitvorming's replica index: the export's
// records (platforms/obv, export.go and feeddoc.go) held on disk in a
// bleve index (replica/bleveindex), answering words, sources, types and
// days locally. What it can answer is what the export holds: names,
// titles, committees, organisations, agenda items and motions' results;
// never words inside a document's full text, which the export does not
// carry (issue "Feeds, not queries (1)", point 3).
package localindex

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/besluitbron/besluitbron/platforms/obv/export"
	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// format names how records become documents and what the checkpoint
// means (bleveindex.Config.Format): change it when either changes.
const format = "obv-export-v1"

// The fields of a document.
const (
	fieldType   = "type"   // lower-cased keyword, stored
	fieldSource = "source" // lower-cased keyword, stored
	fieldDay    = "day"    // YYYY-MM-DD keyword: stored, sorts, ranges
	fieldTitle  = "title"  // stored only
	fieldText   = "text"   // title and other words, Dutch analyzer, searched
	fieldHash   = "hash"   // the record's content_hash, stored only
)

const analyzerExact = "keyword_lower"

func newMapping() *mapping.IndexMappingImpl {
	im := mapping.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = nl.AnalyzerName
	im.IndexDynamic, im.StoreDynamic, im.DocValuesDynamic = false, false, false
	if err := im.AddCustomAnalyzer(analyzerExact, map[string]any{
		"type": custom.Name, "tokenizer": single.Name, "token_filters": []any{lowercase.Name},
	}); err != nil {
		panic(err) // a constant configuration: fails in every test if wrong
	}
	doc := mapping.NewDocumentStaticMapping()
	keyword := func() *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Analyzer = analyzerExact
		f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = true, false, false, false
		return f
	}
	storedOnly := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Index, f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = false, true, false, false, false
		return f
	}
	text := mapping.NewTextFieldMapping()
	text.Analyzer = nl.AnalyzerName
	text.Store, text.DocValues, text.IncludeInAll, text.IncludeTermVectors = false, false, false, false
	day := mapping.NewKeywordFieldMapping()
	day.Store, day.DocValues, day.IncludeInAll, day.IncludeTermVectors = true, true, false, false

	doc.AddFieldMappingsAt(fieldType, keyword())
	doc.AddFieldMappingsAt(fieldSource, keyword())
	doc.AddFieldMappingsAt(fieldDay, day)
	doc.AddFieldMappingsAt(fieldTitle, storedOnly())
	doc.AddFieldMappingsAt(fieldText, text)
	doc.AddFieldMappingsAt(fieldHash, storedOnly())
	im.DefaultMapping = doc
	return im
}

// Index is the replica's index.
type Index struct {
	store *bleveindex.Index
}

// Open opens the index under dir, making it when there is none (the rules
// of replica/bleveindex: a stamp, a foreign folder refused, a lock).
func Open(dir string) (*Index, replica.OpenReport, error) {
	store, report, err := bleveindex.Open(dir, bleveindex.Config{What: "council documents index", Mapping: newMapping(), Format: format})
	if err != nil {
		return nil, report, err
	}
	return &Index{store: store}, report, nil
}

// Applied counts what Apply did with a page.
type Applied struct {
	Stored, Unchanged, Deleted int
}

// Apply writes one export page's records and the checkpoint that follows
// them, in one batch. An upsert whose content_hash the index already holds
// for the entity changes nothing; a delete removes it; an entity that
// appears twice in the page keeps its last record. A record it cannot
// read fails the whole page, which writes nothing.
func (i *Index) Apply(records []export.ExportRecord, checkpoint []byte) (Applied, error) {
	var a Applied
	ops := make([]bleveindex.Op, 0, len(records))
	last := map[string]int{}
	for n, r := range records {
		last[r.EntityID] = n
	}
	for n, r := range records {
		if last[r.EntityID] != n {
			continue // a later record of the page replaces it
		}
		if r.Op == export.OpDelete {
			ops = append(ops, bleveindex.Delete(r.EntityID))
			a.Deleted++
			continue
		}
		d, err := export.FeedDocument(r)
		if err != nil {
			return Applied{}, err
		}
		if held, err := i.hash(r.EntityID); err != nil {
			return Applied{}, err
		} else if held != "" && held == d.Hash {
			a.Unchanged++
			continue
		}
		ops = append(ops, bleveindex.Upsert(r.EntityID, map[string]any{
			fieldType: d.Type, fieldSource: d.Source, fieldDay: d.Date, fieldTitle: d.Title,
			fieldText: []string{d.Title, d.Words}, fieldHash: d.Hash,
		}))
		a.Stored++
	}
	if err := i.store.Apply(ops, checkpoint); err != nil {
		return Applied{}, err
	}
	return a, nil
}

// hash is the content hash held for id, "" when none.
func (i *Index) hash(id string) (string, error) {
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery([]string{id}), 1, 0, false)
	req.Fields = []string{fieldHash}
	res, err := i.store.Search(context.Background(), req)
	if err != nil {
		return "", err
	}
	if len(res.Hits) == 0 {
		return "", nil
	}
	h, _ := res.Hits[0].Fields[fieldHash].(string)
	return h, nil
}

// Checkpoint is the checkpoint of the last page applied (nil before
// any).
func (i *Index) Checkpoint() []byte { return i.store.Checkpoint() }

// Count is the number of entities held.
func (i *Index) Count() (uint64, error) { return i.store.Count() }

// Err is the failure that stopped the index, nil while it answers.
func (i *Index) Err() error { return i.store.Err() }

// Close closes it.
func (i *Index) Close() error { return i.store.Close() }

// Query is a word search of the replica.
type Query struct {
	Words   string   // all words must match (Dutch stemming); "" matches every entity
	Sources []string // source keys; none: every source held
	Types   []string // meeting, document, motion; none: every type
	From    string   // YYYY-MM-DD, inclusive; "" unbounded
	To      string   // YYYY-MM-DD, inclusive; "" unbounded
	Limit   int      // 1..100, default 10
	Offset  int
}

// Hit is one entity found.
type Hit struct {
	ID, Type, Source, Title, Date string
	Score                         float64
}

// Result is a page of hits and how many match.
type Result struct {
	Total uint64
	Hits  []Hit
}

// ErrBadQuery is a query the index refuses: a date not YYYY-MM-DD, a
// limit out of range.
var ErrBadQuery = errors.New("a question the council documents index cannot take")

// Search answers q, best match first when it has words, else newest first.
func (i *Index) Search(ctx context.Context, q Query) (Result, error) {
	if q.Limit == 0 {
		q.Limit = 10
	}
	if q.Limit < 1 || q.Limit > 100 || q.Offset < 0 {
		return Result{}, fmt.Errorf("%w: limit %d, offset %d", ErrBadQuery, q.Limit, q.Offset)
	}
	var must []query.Query
	if w := strings.TrimSpace(q.Words); w != "" {
		m := query.NewMatchQuery(w)
		m.SetField(fieldText)
		m.SetOperator(query.MatchQueryOperatorAnd)
		must = append(must, m)
	}
	if len(q.Sources) > 0 {
		must = append(must, anyOf(fieldSource, q.Sources))
	}
	if len(q.Types) > 0 {
		must = append(must, anyOf(fieldType, q.Types))
	}
	if q.From != "" || q.To != "" {
		for _, d := range []string{q.From, q.To} {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return Result{}, fmt.Errorf("%w: date %q, want YYYY-MM-DD", ErrBadQuery, d)
			}
		}
		incl := true // "" is an open end (bleve's TermRangeQuery)
		r := query.NewTermRangeInclusiveQuery(q.From, q.To, &incl, &incl)
		r.SetField(fieldDay)
		must = append(must, r)
	}
	var qq query.Query = query.NewMatchAllQuery()
	if len(must) > 0 {
		qq = query.NewConjunctionQuery(must)
	}
	req := bleve.NewSearchRequestOptions(qq, q.Limit, q.Offset, false)
	req.Fields = []string{fieldType, fieldSource, fieldDay, fieldTitle}
	if strings.TrimSpace(q.Words) == "" {
		req.SortBy([]string{"-" + fieldDay, "_id"})
	}
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return Result{}, err
	}
	out := Result{Total: res.Total}
	for _, h := range res.Hits {
		str := func(f string) string { s, _ := h.Fields[f].(string); return s }
		out.Hits = append(out.Hits, Hit{ID: h.ID, Type: str(fieldType), Source: str(fieldSource),
			Title: str(fieldTitle), Date: str(fieldDay), Score: h.Score})
	}
	return out, nil
}

// anyOf matches a document whose field is one of values (lower-cased as
// the field's analyzer does).
func anyOf(field string, values []string) query.Query {
	var qs []query.Query
	for _, v := range values {
		t := query.NewTermQuery(strings.ToLower(strings.TrimSpace(v)))
		t.SetField(field)
		qs = append(qs, t)
	}
	return query.NewDisjunctionQuery(qs)
}
