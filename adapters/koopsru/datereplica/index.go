package datereplica

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// format names how records become documents and what the checkpoint
// means (bleveindex.Config.Format): change it when either changes.
const format = "koop-sru-v1"

// The fields of a document.
const (
	fieldGroup    = "group"    // keyword, stored
	fieldType     = "type"     // lower-cased keyword, stored
	fieldOrg      = "org"      // stored only: the organisation as written
	fieldOrgWords = "orgwords" // the organisation's words, searched
	fieldPub      = "pub"      // lower-cased keyword, stored
	fieldDay      = "day"      // YYYY-MM-DD keyword: stored, sorts, ranges
	fieldFrom     = "from"     // YYYY-MM-DD keyword, stored
	fieldUntil    = "until"    // YYYY-MM-DD keyword (open: 9999-12-31), stored
	fieldTitle    = "title"    // stored only
	fieldCite     = "cite"     // stored only
	fieldText     = "text"     // title, citation title and words, Dutch analyzer
	fieldModified = "modified" // stored only
	fieldURL      = "url"      // stored only
	fieldSnippet  = "snippet"  // stored only
	fieldCitation = "citation" // stored only
)

func newMapping() *mapping.IndexMappingImpl {
	im := bleveindex.NewMapping()
	doc := mapping.NewDocumentStaticMapping()
	for _, k := range []string{fieldGroup, fieldType, fieldPub, fieldFrom, fieldUntil} {
		doc.AddFieldMappingsAt(k, bleveindex.Keyword(bleveindex.AnalyzerExact, true, false))
	}
	doc.AddFieldMappingsAt(fieldDay, bleveindex.Keyword(bleveindex.AnalyzerExact, true, true))
	for _, k := range []string{fieldOrg, fieldTitle, fieldCite, fieldModified, fieldURL, fieldSnippet, fieldCitation} {
		doc.AddFieldMappingsAt(k, bleveindex.StoredText())
	}
	doc.AddFieldMappingsAt(fieldText, bleveindex.Searched(nl.AnalyzerName))
	doc.AddFieldMappingsAt(fieldOrgWords, bleveindex.Searched(standard.Name))
	im.DefaultMapping = doc
	return im
}

// Index is a KOOP replica's index.
type Index struct {
	store *bleveindex.Index
	what  string
}

// Open opens the index under dir, making it when there is none (the
// rules of replica/bleveindex: a stamp, a foreign folder refused, a
// lock); what names it in its failures ("laws index").
func Open(dir, what string) (*Index, replica.OpenReport, error) {
	store, report, err := bleveindex.Open(dir, bleveindex.Config{What: what, Mapping: newMapping(), Format: format})
	if err != nil {
		return nil, report, err
	}
	return &Index{store: store, what: what}, report, nil
}

// Remove removes the closed index under dir, so that Open makes a new,
// empty one (bleveindex.Remove).
func Remove(dir, what string) error { return bleveindex.Remove(dir, what) }

// apply writes records (an upsert by id: a record read twice is held
// once, as its last reading says) and the checkpoint after them, in one
// batch.
func (i *Index) apply(records []Record, checkpoint []byte) error {
	ops := make([]bleveindex.Op, 0, len(records))
	for _, r := range records {
		doc := map[string]any{
			fieldGroup: r.groupOf(), fieldType: r.Type, fieldOrg: r.Organisation, fieldOrgWords: r.Organisation,
			fieldPub: r.Publication, fieldDay: r.Date, fieldTitle: r.Title, fieldCite: r.CitationTitle,
			fieldText: []string{r.Title, r.CitationTitle, r.Words}, fieldModified: r.Modified, fieldURL: r.URL, fieldSnippet: r.Snippet,
			fieldCitation: r.Citation,
		}
		if r.InForceFrom != "" || r.InForceUntil != "" {
			until := r.InForceUntil
			if until == "" {
				until = openUntil
			}
			doc[fieldFrom], doc[fieldUntil] = r.InForceFrom, until
		}
		ops = append(ops, bleveindex.Upsert(r.ID, doc))
	}
	return i.store.Apply(ops, checkpoint)
}

func (r Record) groupOf() string {
	if r.Group != "" {
		return r.Group
	}
	return r.ID
}

// Checkpoint is the checkpoint of the last batch (nil before any).
func (i *Index) Checkpoint() []byte { return i.store.Checkpoint() }

// Count is the number of records held.
func (i *Index) Count() (uint64, error) { return i.store.Count() }

// Err is the failure that stopped the index, nil while it answers.
func (i *Index) Err() error { return i.store.Err() }

// Close closes it.
func (i *Index) Close() error { return i.store.Close() }

// Query is a search of the replica. Every filter given must hold.
type Query struct {
	Words        string   // all must match, in the title, citation title or words (Dutch stemming)
	Types        []string // any of these kinds (any case)
	Organisation string   // all its words in the organisation's name
	Publication  string   // the publication (any case)
	From, To     string   // the record's date, YYYY-MM-DD, inclusive; "" open
	InForceOn    string   // YYYY-MM-DD: only versions in force that day
	Limit        int      // 1..100, default 10
	Offset       int
	// Order is "" (best match first with words, else newest first),
	// OrderNewest or OrderOldest.
	Order string
}

// The orders a search may ask besides relevance: by date, then id.
const (
	OrderNewest = "date_desc"
	OrderOldest = "date_asc"
)

// Hit is one record found.
type Hit struct {
	Record
	Score float64
}

// Result is a page of hits and how many match.
type Result struct {
	Total uint64
	Hits  []Hit
}

// ErrBadQuery is a query the index refuses: a date not YYYY-MM-DD, a
// limit out of range, an unknown order.
var ErrBadQuery = errors.New("a question the replica cannot take")

// Search answers q.
func (i *Index) Search(ctx context.Context, q Query) (Result, error) {
	if q.Limit == 0 {
		q.Limit = 10
	}
	if q.Limit < 1 || q.Limit > 100 || q.Offset < 0 {
		return Result{}, fmt.Errorf("%w: limit %d, offset %d", ErrBadQuery, q.Limit, q.Offset)
	}
	if q.Order != "" && q.Order != OrderNewest && q.Order != OrderOldest {
		return Result{}, fmt.Errorf("%w: order %q, want %s or %s", ErrBadQuery, q.Order, OrderNewest, OrderOldest)
	}
	for _, d := range []string{q.From, q.To, q.InForceOn} {
		if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
			return Result{}, fmt.Errorf("%w: date %q, want YYYY-MM-DD", ErrBadQuery, d)
		}
	}
	words := strings.TrimSpace(q.Words)
	var must []query.Query
	if words != "" {
		must = append(must, matchAll(fieldText, words))
	}
	if org := strings.TrimSpace(q.Organisation); org != "" {
		must = append(must, matchAll(fieldOrgWords, org))
	}
	if len(q.Types) > 0 {
		must = append(must, anyOf(fieldType, q.Types))
	}
	if p := strings.TrimSpace(q.Publication); p != "" {
		must = append(must, anyOf(fieldPub, []string{p}))
	}
	if q.From != "" || q.To != "" {
		must = append(must, dayRange(fieldDay, q.From, q.To))
	}
	if q.InForceOn != "" {
		must = append(must, dayRange(fieldFrom, "", q.InForceOn), dayRange(fieldUntil, q.InForceOn, ""))
	}
	var qq query.Query = query.NewMatchAllQuery()
	if len(must) > 0 {
		qq = query.NewConjunctionQuery(must)
	}
	req := bleve.NewSearchRequestOptions(qq, q.Limit, q.Offset, false)
	req.Fields = []string{fieldGroup, fieldType, fieldOrg, fieldPub, fieldDay, fieldFrom, fieldUntil, fieldTitle, fieldCite,
		fieldModified, fieldURL, fieldSnippet, fieldCitation}
	switch {
	case q.Order == OrderOldest:
		req.SortBy([]string{fieldDay, "_id"})
	case q.Order == OrderNewest || words == "":
		req.SortBy([]string{"-" + fieldDay, "_id"})
	}
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return Result{}, err
	}
	out := Result{Total: res.Total}
	for _, h := range res.Hits {
		str := func(f string) string { s, _ := h.Fields[f].(string); return s }
		r := Record{ID: h.ID, Group: str(fieldGroup), Type: str(fieldType), Organisation: str(fieldOrg), Publication: str(fieldPub),
			Date: str(fieldDay), InForceFrom: str(fieldFrom), InForceUntil: str(fieldUntil), Title: str(fieldTitle),
			CitationTitle: str(fieldCite), Modified: str(fieldModified), URL: str(fieldURL), Snippet: str(fieldSnippet), Citation: str(fieldCitation)}
		if r.InForceUntil == openUntil {
			r.InForceUntil = ""
		}
		out.Hits = append(out.Hits, Hit{Record: r, Score: h.Score})
	}
	return out, nil
}

// matchAll matches a document whose field holds every word of s.
func matchAll(field, s string) query.Query {
	m := query.NewMatchQuery(s)
	m.SetField(field)
	m.SetOperator(query.MatchQueryOperatorAnd)
	return m
}

// dayRange matches a day field from..to, inclusive ("" open).
func dayRange(field, from, to string) query.Query {
	incl := true
	r := query.NewTermRangeInclusiveQuery(from, to, &incl, &incl)
	r.SetField(field)
	return r
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
