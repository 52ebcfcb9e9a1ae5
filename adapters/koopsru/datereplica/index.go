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
const format = "koop-sru-v3"

// The fields of a document.
const (
	fieldGroup    = "group"    // keyword, stored
	fieldType     = "type"     // lower-cased keyword, stored
	fieldOrg      = "org"      // stored only: the organisation as written
	fieldOrgWords = "orgwords" // the organisation's words, searched
	fieldPub      = "pub"      // lower-cased keyword, stored
	fieldDay      = "day"      // YYYY-MM-DD keyword: stored, sorts
	fieldDayNum   = "daynum"   // the day as a number (bleveindex.DayNumber): ranges
	fieldFrom     = "from"     // YYYY-MM-DD keyword, stored
	fieldUntil    = "until"    // YYYY-MM-DD keyword (open: 9999-12-31), stored
	fieldFromNum  = "fromnum"  // the first day in force as a number (open: 0001-01-01)
	fieldUntilNum = "untilnum" // the last day in force as a number (open: 9999-12-31)
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
	for _, k := range []string{fieldDayNum, fieldFromNum, fieldUntilNum} {
		doc.AddFieldMappingsAt(k, bleveindex.DayNumber())
	}
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
		if n, ok := bleveindex.Day(r.Date); ok {
			doc[fieldDayNum] = n
		}
		if r.InForceFrom != "" || r.InForceUntil != "" {
			until := r.InForceUntil
			if until == "" {
				until = openUntil
			}
			doc[fieldFrom], doc[fieldUntil] = r.InForceFrom, until
			from := r.InForceFrom
			if from == "" {
				from = openFrom
			}
			if n, ok := bleveindex.Day(from); ok {
				doc[fieldFromNum] = n
			}
			if n, ok := bleveindex.Day(until); ok {
				doc[fieldUntilNum] = n
			}
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
	// rangeOnly asks in force as the range of start days whatever it
	// costs: the benchmark's side by side with startedAfter.
	rangeOnly bool
	// termInForce asks in force over the keyword days (inForce), as
	// before the period's days were numbers too (the benchmark's side by
	// side).
	termInForce bool
	// textDays asks From..To as a range of the day's keyword terms, as
	// before the day was a number too (the benchmark's side by side).
	textDays bool
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
	// The words are scored; everything else only filters. A filter is
	// read without scores, so bleve ORs a day range's postings as bitmaps
	// instead of scoring each day of it as a term: in force today is
	// every day before today, and scored that way it cost the BWB's
	// replica half a second a question (docs/benchmarks.md, KOOP's
	// replicas) and gave a rare start date a higher rank.
	var filters []query.Query
	if org := strings.TrimSpace(q.Organisation); org != "" {
		filters = append(filters, bleveindex.EveryTerm(i.store.Bleve().Mapping(), fieldOrgWords, org))
	}
	if len(q.Types) > 0 {
		filters = append(filters, anyOf(fieldType, q.Types))
	}
	if p := strings.TrimSpace(q.Publication); p != "" {
		filters = append(filters, anyOf(fieldPub, []string{p}))
	}
	if q.From != "" || q.To != "" {
		if q.textDays {
			filters = append(filters, dayRange(fieldDay, q.From, q.To))
		} else {
			filters = append(filters, bleveindex.DaysFromTo(fieldDayNum, q.From, q.To))
		}
	}
	var excluded []query.Query
	switch {
	case q.InForceOn != "" && (q.termInForce || q.rangeOnly):
		in, out, err := i.inForce(q.InForceOn, q.rangeOnly)
		if err != nil {
			return Result{}, err
		}
		filters, excluded = append(filters, in...), out
	case q.InForceOn != "":
		// In force on the day: a period begun by then and not ended
		// before it. As numbers each side reads a few dozen terms
		// whatever the day; as keyword days it read one term a day
		// (inForce), up to thousands. A version without a period has
		// neither number.
		filters = append(filters, bleveindex.DaysFromTo(fieldFromNum, "", q.InForceOn), bleveindex.DaysFromTo(fieldUntilNum, q.InForceOn, ""))
	}
	byDate := q.Order != "" || words == ""
	var qq query.Query = query.NewMatchAllQuery() // by date: what is searched
	if words != "" && byDate {
		qq = bleveindex.EveryWord(fieldText, words)
	}
	var filter query.Query // best match first: what selects without a score
	switch {
	case !byDate:
		if len(filters) > 0 {
			filter = query.NewConjunctionQuery(filters)
		}
		if len(excluded) > 0 {
			if filter == nil {
				filter = query.NewMatchAllQuery()
			}
			filter = query.NewBooleanQuery([]query.Query{filter}, nil, excluded)
		}
	case words != "" && len(excluded) == 0:
		// Nothing is scored: the words' terms and the filters are one
		// conjunction, which bleve ANDs as bitmaps where it can
		// (bleveindex.EveryTerm) and otherwise leaps through the
		// longest postings by the shortest; a filter apart would read
		// every match of the words.
		qq = bleveindex.EveryTerm(i.store.Bleve().Mapping(), fieldText, words, filters...)
	case len(filters) > 0:
		qq = query.NewBooleanQuery(append([]query.Query{qq}, filters...), nil, excluded)
	}
	fields := []string{fieldGroup, fieldType, fieldOrg, fieldPub, fieldDay, fieldFrom, fieldUntil, fieldTitle, fieldCite,
		fieldModified, fieldURL, fieldSnippet, fieldCitation}
	var page bleveindex.Page
	if byDate && q.Order != OrderOldest {
		// Newest first, as the platforms answer: a page of ten of a
		// year's publications would otherwise sort the whole year. The
		// windows count back from the question's last day, or today.
		var err error
		page, err = i.store.SearchNewest(ctx, qq, bleveindex.NewestFirst{DayField: fieldDay, DayNumberField: fieldDayNum, Sort: sortNewest, Fields: fields,
			FewMatches: newestFewMatches, WindowDays: newestWindowDays}, q.Limit, q.Offset, q.To)
		if err != nil {
			return Result{}, err
		}
	} else if !byDate {
		// Best match first: the words scored, the rest only selecting
		// (bleveindex.Index.SearchBestFirst).
		var err error
		page, err = i.store.SearchBestFirst(ctx, bleveindex.WordsOf(i.store.Bleve().Mapping(), fieldText, words), filter, q.Limit, q.Offset, fields)
		if err != nil {
			return Result{}, err
		}
	} else {
		req := bleve.NewSearchRequestOptions(qq, q.Limit, q.Offset, false)
		req.Fields = fields
		req.SortBy([]string{fieldDay, "_id"})
		var err error
		if page, err = i.store.SearchPage(ctx, req); err != nil {
			return Result{}, err
		}
	}
	out := Result{Total: page.Total}
	for _, h := range page.Hits {
		str := func(f string) string { return bleveindex.Stored(h, f) }
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

// sortNewest is newest first, then by id, so that pages never overlap.
var sortNewest = []string{"-" + fieldDay, "_id"}

// newestFewMatches is how many matches a newest-first search sorts in
// one go (bleveindex.NewestFirst.FewMatches); a var: tests lower it.
var newestFewMatches = bleveindex.DefaultFewMatches

// newestWindowDays are the recent windows a newest-first search reads
// before it sorts the rest: a quarter and a year. The KOOP platforms'
// records spread over decades, so a page that a year's matches do not
// fill lies among most of the rest, and a wider window would spare
// little of the sort.
var newestWindowDays = []int{90, 360}

// maxRangeTerms bounds the terms inForce counts on a side of a day:
// past it a side is a large one, and counting on costs about what the
// range it spares would (a term a step through the field's dictionary).
const maxRangeTerms = 2048

// inForce is "in force on day" as the filter asks it: the ranges a
// version must be in (in) and those it must not be in (out). A version
// is in force when its start is on or before day and its end on or after
// it. Each of the two may be asked as its range or as the other days
// excluded; a range costs a term per distinct day it covers, and in force
// today is every start day there ever was, while the start days after
// today are few. An exclusion alone would let in a version with no
// in-force period, so at most one of the two is excluded: a version with
// a period has both a start and an end (apply), and the range asked of
// the other holds it to having one. Of the three ways the one over the
// fewest terms is taken, counting no further than the best so far.
// rangeOnly asks both as ranges (the benchmark's side by side).
func (i *Index) inForce(day string, rangeOnly bool) (in, out []query.Query, err error) {
	started, ended := dayRange(fieldFrom, "", day), dayRange(fieldUntil, day, "")
	if rangeOnly {
		return []query.Query{started, ended}, nil, nil
	}
	count := func(field string, min, max []byte, limit int) int {
		if err != nil || limit <= 0 {
			return limit
		}
		var n int
		n, err = i.store.Terms(field, min, max, limit)
		return n
	}
	// Excluding the start days after day costs those and the end days
	// from day on; both ranges cost the start days up to day instead of
	// the first; excluding the end days before day costs those and the
	// start days up to day.
	startedAfter := count(fieldFrom, []byte(day+"\x00"), nil, maxRangeTerms)
	endedFrom := count(fieldUntil, []byte(day), nil, maxRangeTerms)
	way, cost := "exclude starts", startedAfter+endedFrom
	startedUpTo := count(fieldFrom, nil, []byte(day), cost+1)
	if startedUpTo < startedAfter {
		way, cost = "ranges", startedUpTo+endedFrom
	}
	if startedUpTo < cost {
		if endedBefore := count(fieldUntil, nil, []byte(dayBefore(day)), cost-startedUpTo); startedUpTo+endedBefore < cost {
			way = "exclude ends"
		}
	}
	if err != nil {
		return nil, nil, err
	}
	excl, incl := false, true
	switch way {
	case "exclude starts":
		r := query.NewTermRangeInclusiveQuery(day, "", &excl, &incl)
		r.SetField(fieldFrom)
		return []query.Query{ended}, []query.Query{r}, nil
	case "exclude ends":
		r := query.NewTermRangeInclusiveQuery("", day, &incl, &excl)
		r.SetField(fieldUntil)
		return []query.Query{started}, []query.Query{r}, nil
	}
	return []query.Query{started, ended}, nil, nil
}

// dayBefore is the last term before day in the order of terms: day with
// its last byte lowered, enough for counting a range that ends before it.
func dayBefore(day string) string {
	b := []byte(day)
	if n := len(b); n > 0 && b[n-1] > 0 {
		b[n-1]--
	}
	return string(b)
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
