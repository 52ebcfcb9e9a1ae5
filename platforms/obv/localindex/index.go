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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/besluitbron/besluitbron/platforms/obv/export"
	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// format names how records become documents and what the checkpoint
// means (bleveindex.Config.Format): change it when either changes.
const format = "obv-export-v5"

// The fields of a document.
const (
	fieldType   = "type"   // lower-cased keyword, stored
	fieldSource = "source" // lower-cased keyword, stored
	fieldDay    = "day"    // YYYY-MM-DD keyword: stored, sorts
	fieldDayNum = "daynum" // the day as a number (bleveindex.DayNumber): ranges
	fieldTitle  = "title"  // stored only
	fieldText   = "text"   // title and other words, Dutch analyzer, searched
	fieldHash   = "hash"   // the record's content_hash, stored only
	fieldAt     = "at"     // the record's time (RFC 3339), stored only
	fieldURL    = "url"    // where the document is published, stored only
	fieldMark   = "mark"   // the snapshot that last wrote it (Sweep), keyword
)

// typeGone is the type of a tombstone: the entity was deleted at its
// fieldAt, so a record of it older than that, arriving late, stays out.
// No search finds it; Count leaves it out.
const typeGone = "-gone"

func newMapping() *mapping.IndexMappingImpl {
	im := bleveindex.NewMapping()
	doc := mapping.NewDocumentStaticMapping()
	exact := func() *mapping.FieldMapping { return bleveindex.Keyword(bleveindex.AnalyzerExact, true, false) }
	doc.AddFieldMappingsAt(fieldType, exact())
	doc.AddFieldMappingsAt(fieldSource, exact())
	doc.AddFieldMappingsAt(fieldDay, bleveindex.Keyword(keyword.Name, true, true))
	doc.AddFieldMappingsAt(fieldDayNum, bleveindex.DayNumber())
	doc.AddFieldMappingsAt(fieldTitle, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldText, bleveindex.Searched(nl.AnalyzerName))
	doc.AddFieldMappingsAt(fieldHash, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldAt, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldURL, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldMark, exact())
	im.DefaultMapping = doc
	return im
}

// Index is the replica's index.
type Index struct {
	store *bleveindex.Index

	// The counts of entities, all ("") and per source, as of the index's
	// generation countsAt: /status and every metrics scrape ask each
	// source's count, and at 3M entities counting the 124 sources anew
	// costs about a quarter of a second of CPU. Between two batches
	// nothing they count changes.
	countsMu sync.Mutex
	countsAt uint64
	counts   map[string]uint64
}

// Open opens the index under dir, making it when there is none (the rules
// of replica/bleveindex: a stamp, a foreign folder refused, a lock).
func Open(dir string) (*Index, replica.OpenReport, error) {
	store, report, err := bleveindex.Open(dir, bleveindex.Config{What: What, Mapping: newMapping(), Format: format})
	if err != nil {
		return nil, report, err
	}
	return &Index{store: store}, report, nil
}

// What names the index in its failures.
const What = "council documents index"

// Remove removes the closed index under dir, so that Open makes a new,
// empty one (bleveindex.Remove).
func Remove(dir string) error { return bleveindex.Remove(dir, What) }

// Applied counts what Apply did with a page.
type Applied struct {
	Stored, Unchanged, Deleted int
	// Stale are records older (by their time) than what the index
	// holds of the entity, a deletion included: a repeated or late
	// record, which changes nothing.
	Stale int
}

// Apply writes one export page's records and the checkpoint that follows
// them, in one batch (ApplyMarked without a mark).
func (i *Index) Apply(records []export.ExportRecord, checkpoint []byte) (Applied, error) {
	return i.ApplyMarked(records, "", checkpoint)
}

// ApplyMarked writes one export page's records and the checkpoint that
// follows them, in one batch, each entity ending as its newest record
// says, whatever order the records come in:
//   - a record older (by its time) than what the index holds of the
//     entity, its deletion included, changes nothing;
//   - an upsert whose content_hash the index already holds changes
//     nothing (but see mark);
//   - a delete leaves a tombstone, which no search finds;
//   - an entity that appears twice in the page ends as the newer record.
//
// With a mark (a snapshot read anew, Sweep), every upsert of the page
// is written with that mark, unchanged or not, so that Sweep can remove
// what the snapshot no longer holds. A record it cannot read fails the
// whole page, which writes nothing.
func (i *Index) ApplyMarked(records []export.ExportRecord, mark string, checkpoint []byte) (Applied, error) {
	var a Applied
	newest := map[string]int{} // entity → its newest record of the page
	ids := make([]string, 0, len(records))
	for n, r := range records {
		m, ok := newest[r.EntityID]
		if !ok {
			ids = append(ids, r.EntityID)
		}
		if !ok || !older(recordTime(r), recordTime(records[m])) {
			newest[r.EntityID] = n
		}
	}
	held, err := i.heldOf(ids)
	if err != nil {
		return Applied{}, err
	}
	ops := make([]bleveindex.Op, 0, len(ids))
	for n, r := range records {
		if newest[r.EntityID] != n {
			a.Stale++ // a newer record of the page decides
			continue
		}
		h, isHeld := held[r.EntityID]
		at := recordTime(r)
		if isHeld && older(at, h.at) {
			a.Stale++
			continue
		}
		if r.Op == export.OpDelete {
			if isHeld && h.gone {
				a.Unchanged++
				continue
			}
			ops = append(ops, bleveindex.Upsert(r.EntityID, map[string]any{
				fieldType: typeGone, fieldSource: r.SourceKey, fieldAt: stamp(r), fieldMark: mark,
			}))
			a.Deleted++
			continue
		}
		d, err := export.FeedDocument(r)
		if err != nil {
			return Applied{}, err
		}
		if isHeld && !h.gone && h.hash == d.Hash && (mark == "" || h.mark == mark) {
			a.Unchanged++
			continue
		}
		doc := map[string]any{
			fieldType: d.Type, fieldSource: d.Source, fieldDay: d.Date, fieldTitle: d.Title,
			fieldText: []string{d.Title, d.Words}, fieldHash: d.Hash, fieldAt: stamp(r), fieldMark: mark, fieldURL: d.URL,
		}
		if n, ok := bleveindex.Day(d.Date); ok {
			doc[fieldDayNum] = n
		}
		ops = append(ops, bleveindex.Upsert(r.EntityID, doc))
		a.Stored++
	}
	if err := i.store.Apply(ops, checkpoint); err != nil {
		return Applied{}, err
	}
	return a, nil
}

// older tells whether a record of time at is older than one of time
// than. A record without a time (zero) is ordered by its place in the
// feed alone: it is never older, and nothing is older than it.
func older(at, than time.Time) bool {
	return !at.IsZero() && !than.IsZero() && at.Before(than)
}

// recordTime is a record's time; the zero time when it has none that
// parses.
func recordTime(r export.ExportRecord) time.Time {
	t, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return time.Time{}
	}
	return t
}

// stamp is a record's time as stored: RFC 3339 in UTC, "" when none.
func stamp(r export.ExportRecord) string {
	t := recordTime(r)
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// heldEntity is what the index holds of an entity.
type heldEntity struct {
	hash, mark string
	at         time.Time
	gone       bool
}

// heldOf reads what the index holds of ids, in one search.
func (i *Index) heldOf(ids []string) (map[string]heldEntity, error) {
	out := make(map[string]heldEntity, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = []string{fieldHash, fieldAt, fieldType, fieldMark}
	res, err := i.store.Search(context.Background(), req)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		str := func(f string) string { return bleveindex.Stored(h, f) }
		e := heldEntity{hash: str(fieldHash), mark: str(fieldMark), gone: str(fieldType) == typeGone}
		e.at, _ = time.Parse(time.RFC3339Nano, str(fieldAt))
		out[h.ID] = e
	}
	return out, nil
}

// sweepBatch is how many entities one batch of Sweep removes.
const sweepBatch = 1000

// Sweep removes every entity of source that the snapshot marked mark did
// not write (ApplyMarked): what the platform no longer holds, when a
// source's snapshot was read anew. Each batch is written with
// checkpoint; a sweep cut off repeats harmlessly. It returns how many
// entities it removed.
func (i *Index) Sweep(ctx context.Context, source, mark string, checkpoint []byte) (int, error) {
	inSource := query.NewTermQuery(strings.ToLower(source))
	inSource.SetField(fieldSource)
	marked := query.NewTermQuery(strings.ToLower(mark))
	marked.SetField(fieldMark)
	q := query.NewBooleanQuery([]query.Query{inSource}, nil, []query.Query{marked})
	removed := 0
	for {
		req := bleve.NewSearchRequestOptions(q, sweepBatch, 0, false)
		res, err := i.store.Search(ctx, req)
		if err != nil {
			return removed, err
		}
		ops := make([]bleveindex.Op, 0, len(res.Hits))
		for _, h := range res.Hits {
			ops = append(ops, bleveindex.Delete(h.ID))
		}
		if err := i.store.Apply(ops, checkpoint); err != nil {
			return removed, err
		}
		removed += len(ops)
		if len(res.Hits) < sweepBatch {
			return removed, nil
		}
	}
}

// Checkpoint is the checkpoint of the last page applied (nil before
// any).
func (i *Index) Checkpoint() []byte { return i.store.Checkpoint() }

// Count is the number of entities held, tombstones left out.
func (i *Index) Count() (uint64, error) {
	return i.counted("", func() (uint64, error) {
		all, err := i.store.Count()
		if err != nil {
			return 0, err
		}
		req := bleve.NewSearchRequestOptions(typeIs(typeGone), 0, 0, false)
		res, err := i.store.Search(context.Background(), req)
		if err != nil {
			return 0, err
		}
		return all - min(all, res.Total), nil
	})
}

// CountSource is the number of entities held of source, tombstones left
// out.
func (i *Index) CountSource(source string) (uint64, error) {
	source = strings.ToLower(source)
	return i.counted("source:"+source, func() (uint64, error) {
		inSource := query.NewTermQuery(source)
		inSource.SetField(fieldSource)
		q := query.NewBooleanQuery([]query.Query{inSource}, nil, []query.Query{typeIs(typeGone)})
		res, err := i.store.Search(context.Background(), bleve.NewSearchRequestOptions(q, 0, 0, false))
		if err != nil {
			return 0, err
		}
		return res.Total, nil
	})
}

// counted is the count named key as of the index's generation: kept from
// an earlier call at the same generation, else counted now. The
// generation is read before counting and moves only after a batch is
// searchable (bleveindex.Index.Generation), so a count kept under it
// never misses a batch of that generation.
func (i *Index) counted(key string, count func() (uint64, error)) (uint64, error) {
	gen := i.store.Generation()
	i.countsMu.Lock()
	n, ok := i.counts[key]
	ok = ok && i.countsAt == gen
	i.countsMu.Unlock()
	if ok {
		return n, nil
	}
	n, err := count()
	if err != nil {
		return 0, err
	}
	i.countsMu.Lock()
	defer i.countsMu.Unlock()
	switch {
	case gen > i.countsAt || i.counts == nil:
		i.counts, i.countsAt = map[string]uint64{key: n}, gen
	case gen == i.countsAt:
		i.counts[key] = n
	}
	return n, nil
}

// typeIs matches the documents of type t.
func typeIs(t string) query.Query {
	q := query.NewTermQuery(t)
	q.SetField(fieldType)
	return q
}

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
	// Order is "" (best match first with words, else newest first),
	// OrderNewest or OrderOldest.
	Order string
}

// The orders a search may ask besides relevance: by the entity's day,
// then its id, so that pages never overlap.
const (
	OrderNewest = "date_desc"
	OrderOldest = "date_asc"
)

// Hit is one entity found.
type Hit struct {
	ID, Type, Source, Title, Date string
	URL                           string // where the document is published; "" none known
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

// Search answers q in its order: best match first when it has words
// and asks none, else newest first. Best match orders equal scores by
// where the entities lie in the index, which its merger changes: the
// page after a merge may repeat or skip a tie of the page before. The
// orders by day are total orders (day, then id).
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
	return i.search(ctx, q)
}

// search is Search of a query checked, but for its page's size: a test
// reads every match of a best-match search in one page (paging it is
// not a total order, Search's doc says why).
func (i *Index) search(ctx context.Context, q Query) (Result, error) {
	words := strings.TrimSpace(q.Words)
	var filters []query.Query
	if len(q.Sources) > 0 {
		filters = append(filters, anyOf(fieldSource, q.Sources))
	}
	if len(q.Types) > 0 {
		filters = append(filters, anyOf(fieldType, q.Types))
	}
	if q.From != "" || q.To != "" {
		for _, d := range []string{q.From, q.To} {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return Result{}, fmt.Errorf("%w: date %q, want YYYY-MM-DD", ErrBadQuery, d)
			}
		}
		filters = append(filters, bleveindex.DaysFromTo(fieldDayNum, q.From, q.To))
	}
	var excluded []query.Query
	if words == "" && len(q.Types) == 0 {
		// Only a search without words or types could find a tombstone.
		excluded = append(excluded, typeIs(typeGone))
	}
	fields := []string{fieldType, fieldSource, fieldDay, fieldTitle, fieldURL}
	var page bleveindex.Page
	if words == "" || q.Order != "" {
		// Nothing is scored: the words' terms and the filters are one
		// conjunction, which bleve ANDs as bitmaps and SearchNewest
		// counts without visiting the matches (bleveindex.EveryTerm).
		var qq query.Query = query.NewMatchAllQuery()
		switch {
		case words != "":
			qq = bleveindex.EveryTerm(i.store.Bleve().Mapping(), fieldText, words, filters...)
		case len(filters) > 0:
			qq = query.NewConjunctionQuery(filters)
		}
		if len(excluded) > 0 {
			qq = query.NewBooleanQuery([]query.Query{qq}, nil, excluded)
		}
		var err error
		if page, err = i.byDay(ctx, qq, q, fields); err != nil {
			return Result{}, err
		}
	} else {
		// Best match first: the words alone are scored. The filters only
		// narrow (bleve's boolean filter, unscored), so a filter never
		// reorders the words' matches, and a range of days is read as
		// one union of its days' postings instead of being scored as
		// hundreds of terms beside the words.
		var err error
		if page, err = i.bestFirst(ctx, words, filters, q, fields); err != nil {
			return Result{}, err
		}
	}
	out := Result{Total: page.Total}
	for _, h := range page.Hits {
		str := func(f string) string { return bleveindex.Stored(h, f) }
		out.Hits = append(out.Hits, Hit{ID: h.ID, Type: str(fieldType), Source: str(fieldSource),
			Title: str(fieldTitle), Date: str(fieldDay), URL: str(fieldURL), Score: h.Score})
	}
	return out, nil
}

// bestFirst is a page of the entities holding every one of words (as
// the Dutch analyzer reads them), best match first, among those filters
// match (bleveindex.Index.SearchBestFirst).
func (i *Index) bestFirst(ctx context.Context, words string, filters []query.Query, q Query, fields []string) (bleveindex.Page, error) {
	var filter query.Query
	if len(filters) > 0 {
		filter = query.NewConjunctionQuery(filters)
	}
	return i.store.SearchBestFirst(ctx, bleveindex.WordsOf(i.store.Bleve().Mapping(), fieldText, words), filter, q.Limit, q.Offset, fields)
}

// The orders by day: the entity's day, then its id, so that pages never
// overlap. Entities without a day come last in both.
var (
	sortNewest = []string{"-" + fieldDay, "_id"}
	sortOldest = []string{fieldDay, "_id"}
)

// fewMatches and windowDays are how byDay reads newest first
// (bleveindex.NewestFirst); vars, so that tests reach the windows with a
// small index.
var (
	fewMatches = bleveindex.DefaultFewMatches
	windowDays = bleveindex.DefaultWindowDays
)

// byDay is a page of qq's matches, unscored, in q's order by day. Newest
// first (the default without words) reads many matches a window of
// recent days at a time (bleveindex.Index.SearchNewest), counting back
// from the question's last day or today: a page of ten of a million
// entities would otherwise sort the million.
func (i *Index) byDay(ctx context.Context, qq query.Query, q Query, fields []string) (bleveindex.Page, error) {
	if q.Order == OrderOldest {
		req := bleve.NewSearchRequestOptions(qq, q.Limit, q.Offset, false)
		req.Fields = fields
		req.SortBy(slices.Clone(sortOldest))
		req.Score = "none"
		return i.store.SearchPage(ctx, req)
	}
	return i.store.SearchNewest(ctx, qq, bleveindex.NewestFirst{DayField: fieldDay, DayNumberField: fieldDayNum, Sort: sortNewest,
		Fields: fields, FewMatches: fewMatches, WindowDays: windowDays}, q.Limit, q.Offset, q.To)
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
