// Package localindex is the Tweede Kamer's replica index: the SyncFeed's
// entities (platforms/tk/feed) held on disk in a bleve index
// (replica/bleveindex). Documents answer words, kinds and days locally,
// as tk_search asks them; every entity is kept whole (its fields and
// links), so that what joins them (votes, dossiers) reads the replica
// rather than the platform.
package localindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// format names how entities become documents and what the checkpoint
// means (bleveindex.Config.Format): change it when either changes. v2
// indexes the links, numbers and change times that votes join on
// (lookups.go); v3 the day as a number too (fieldDayNum); an index of an
// older format is rebuilt, its harvest starting over.
// Documents' numbers joined v2 later without a new format: a document
// stored before has none, so a lookup by its number misses it and the
// question goes to the platform, which answers it; the feed's next copy
// of the document adds it (or an admin rebuild, for all at once). A new
// format would have made every instance read the whole feed again.
const format = "tk-syncfeed-v3"

// What names the index in its failures.
const What = "parliament index"

// The fields of a document.
const (
	fieldCategory = "category" // the entity's type, lower case: keyword
	fieldSoort    = "soort"    // a document's kind, lower-cased keyword
	fieldDay      = "day"      // YYYY-MM-DD keyword: sorts
	fieldDayNum   = "daynum"   // the day as a number (bleveindex.DayNumber): ranges
	fieldText     = "text"     // the words searched, Dutch analyzer
	fieldHash     = "hash"     // of the entity as stored, stored only
	fieldEntity   = "entity"   // the entity as JSON, stored only
	// What votes and dossiers join on (lookups.go).
	fieldNummer  = "nummer"  // a zaak's, dossier's or document's number, lower-cased keyword
	fieldRefs    = "refs"    // each link as "<element>:<guid>", lower-cased keywords
	fieldUpdated = "updated" // when the feed published it, UTC RFC 3339 keyword: ranges
)

func newMapping() *mapping.IndexMappingImpl {
	im := bleveindex.NewMapping()
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldCategory, bleveindex.Keyword(bleveindex.AnalyzerExact, false, false))
	doc.AddFieldMappingsAt(fieldSoort, bleveindex.Keyword(bleveindex.AnalyzerExact, false, false))
	doc.AddFieldMappingsAt(fieldDay, bleveindex.Keyword(keyword.Name, false, true))
	doc.AddFieldMappingsAt(fieldDayNum, bleveindex.DayNumber())
	doc.AddFieldMappingsAt(fieldText, bleveindex.Searched(nl.AnalyzerName))
	doc.AddFieldMappingsAt(fieldNummer, bleveindex.Keyword(bleveindex.AnalyzerExact, false, false))
	doc.AddFieldMappingsAt(fieldRefs, bleveindex.Keyword(bleveindex.AnalyzerExact, false, false))
	doc.AddFieldMappingsAt(fieldUpdated, bleveindex.Keyword(keyword.Name, false, false))
	doc.AddFieldMappingsAt(fieldHash, bleveindex.StoredText())
	doc.AddFieldMappingsAt(fieldEntity, bleveindex.StoredText())
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
	store, report, err := bleveindex.Open(dir, bleveindex.Config{What: What, Mapping: newMapping(), Format: format})
	if err != nil {
		return nil, report, err
	}
	return &Index{store: store}, report, nil
}

// Remove removes the closed index under dir, so that Open makes a new,
// empty one (bleveindex.Remove).
func Remove(dir string) error { return bleveindex.Remove(dir, What) }

// Applied counts what Apply did with a page.
type Applied struct {
	Stored, Unchanged, Deleted int
	// Repeated are entries of the page that a later entry of the same
	// entity in the page overrides.
	Repeated int
}

// Apply writes one page's entities and the checkpoint that follows them,
// in one batch. The feed is the order of the Kamer's changes, so an
// entity ends as its last entry says: a re-sent entity the index holds
// unchanged writes nothing, a deleted one leaves the index, and one that
// appears twice in the page ends as the later entry. keep tells which
// entities the scope holds; one it refuses is removed as if deleted (it
// may be held from before the scope changed). nil keeps every one.
func (i *Index) Apply(entities []feed.Entity, keep func(feed.Entity) bool, checkpoint []byte) (Applied, error) {
	var a Applied
	last := map[string]int{}
	ids := make([]string, 0, len(entities))
	for n, e := range entities {
		if _, ok := last[e.ID]; !ok {
			ids = append(ids, e.ID)
		}
		last[e.ID] = n
	}
	held, err := i.hashesOf(ids)
	if err != nil {
		return Applied{}, err
	}
	ops := make([]bleveindex.Op, 0, len(ids))
	for n, e := range entities {
		if last[e.ID] != n {
			a.Repeated++
			continue
		}
		h, isHeld := held[e.ID]
		if e.Deleted || (keep != nil && !keep(e)) {
			if isHeld {
				ops = append(ops, bleveindex.Delete(e.ID))
				a.Deleted++
			} else {
				a.Unchanged++
			}
			continue
		}
		doc, hash, err := document(e)
		if err != nil {
			return Applied{}, err
		}
		if isHeld && h == hash {
			a.Unchanged++
			continue
		}
		ops = append(ops, bleveindex.Upsert(e.ID, doc))
		a.Stored++
	}
	if err := i.store.Apply(ops, checkpoint); err != nil {
		return Applied{}, err
	}
	return a, nil
}

// stored is an entity as fieldEntity keeps it.
type stored struct {
	Category string              `json:"c"`
	Fields   map[string]string   `json:"f,omitempty"`
	Refs     map[string][]string `json:"r,omitempty"`
	Updated  string              `json:"u,omitempty"`
}

// document is the bleve document of e and the hash of what it keeps.
// The hash leaves out when the feed published it: a re-sent entity with
// the same fields and links is unchanged.
func document(e feed.Entity) (map[string]any, string, error) {
	b, err := json.Marshal(stored{Category: e.Category, Fields: e.Fields, Refs: e.Refs})
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	hash := hex.EncodeToString(sum[:16])
	s := stored{Category: e.Category, Fields: e.Fields, Refs: e.Refs, Updated: e.Updated}
	full, err := json.Marshal(s)
	if err != nil {
		return nil, "", err
	}
	doc := map[string]any{fieldCategory: e.Category, fieldHash: hash, fieldEntity: string(full)}
	if d := DayOf(e); d != "" {
		doc[fieldDay] = d
		if n, ok := bleveindex.Day(d); ok {
			doc[fieldDayNum] = n
		}
	}
	if s := e.Fields["soort"]; s != "" {
		doc[fieldSoort] = s
	}
	if words := wordsOf(e); len(words) > 0 {
		doc[fieldText] = words
	}
	if n := numberOf(e); n != "" {
		doc[fieldNummer] = n
	}
	if refs := refTerms(e.Refs); len(refs) > 0 {
		doc[fieldRefs] = refs
	}
	if u := updatedTerm(e.Updated); u != "" {
		doc[fieldUpdated] = u
	}
	return doc, hash, nil
}

// dayFields are, per category, the field that dates the entity.
var dayFields = map[string]string{
	"document": "datum", "zaak": "gestartOp", "activiteit": "datum", "kamerstukdossier": "",
}

// DayOf is the day an entity is dated (YYYY-MM-DD), "" when its category
// has no date or the entity gives none that reads.
func DayOf(e feed.Entity) string {
	f := dayFields[e.Category]
	if f == "" {
		return ""
	}
	v := e.Fields[f]
	if len(v) < 10 {
		return ""
	}
	if _, err := time.Parse(time.DateOnly, v[:10]); err != nil {
		return ""
	}
	return v[:10]
}

// wordFields are, per category, the fields whose words are searched: a
// document's and a zaak's title and subject, as the platform's own
// search matches them (tk.SearchRequest).
var wordFields = map[string][]string{
	"document":         {"titel", "onderwerp"},
	"zaak":             {"titel", "onderwerp"},
	"kamerstukdossier": {"titel"},
	"activiteit":       {"onderwerp"},
	"agendapunt":       {"onderwerp"},
}

func wordsOf(e feed.Entity) []string {
	var out []string
	for _, f := range wordFields[e.Category] {
		if v := e.Fields[f]; v != "" {
			out = append(out, v)
		}
	}
	return out
}

// hashesOf reads the hash the index holds of each of ids, in one search.
func (i *Index) hashesOf(ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = []string{fieldHash}
	res, err := i.store.Search(context.Background(), req)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		s, _ := h.Fields[fieldHash].(string)
		out[h.ID] = s
	}
	return out, nil
}

// Checkpoint is the checkpoint of the last page applied (nil before
// any).
func (i *Index) Checkpoint() []byte { return i.store.Checkpoint() }

// Count is the number of entities held.
func (i *Index) Count() (uint64, error) { return i.store.Count() }

// CountCategory is the number of entities held of category.
func (i *Index) CountCategory(category string) (uint64, error) {
	res, err := i.store.Search(context.Background(), bleve.NewSearchRequestOptions(categoryIs(category), 0, 0, false))
	if err != nil {
		return 0, err
	}
	return res.Total, nil
}

func categoryIs(c string) query.Query {
	q := query.NewTermQuery(strings.ToLower(c))
	q.SetField(fieldCategory)
	return q
}

// Err is the failure that stopped the index, nil while it answers.
func (i *Index) Err() error { return i.store.Err() }

// Close closes it.
func (i *Index) Close() error { return i.store.Close() }

// Get reads the entities ids names that the index holds, by id.
func (i *Index) Get(ctx context.Context, ids []string) (map[string]Entity, error) {
	out := map[string]Entity{}
	if len(ids) == 0 {
		return out, nil
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = []string{fieldEntity}
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		e, err := entityOf(h.ID, h.Fields)
		if err != nil {
			return nil, err
		}
		out[h.ID] = e
	}
	return out, nil
}

// Entity is an entity as the index holds it.
type Entity struct {
	ID       string
	Category string
	Fields   map[string]string
	Refs     map[string][]string
	// Updated is when the feed published the version held.
	Updated string
}

func entityOf(id string, fields map[string]any) (Entity, error) {
	raw, _ := fields[fieldEntity].(string)
	var s stored
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return Entity{}, &replica.UnavailableError{What: What, Kind: replica.ErrCorrupt, Err: fmt.Errorf("entity %s: %v", id, err)}
	}
	return Entity{ID: id, Category: s.Category, Fields: s.Fields, Refs: s.Refs, Updated: s.Updated}, nil
}

// Query is a word search of the documents held.
type Query struct {
	Words string // all words must match, in a title or subject (Dutch stemming)
	Soort string // a document kind (Motie, Brief regering); "" every kind
	From  string // YYYY-MM-DD, inclusive; "" unbounded
	To    string // YYYY-MM-DD, inclusive; "" unbounded
	Limit int    // 1..250, default 10
	// Offset skips this many hits.
	Offset int
	// Relevance orders the best match first; otherwise newest first, as
	// the platform's search orders.
	Relevance bool
}

// Result is a page of documents and how many match.
type Result struct {
	Total uint64
	Hits  []Entity
}

// ErrBadQuery is a query the index refuses: a date not YYYY-MM-DD, a
// limit out of range.
var ErrBadQuery = errors.New("a question the parliament index cannot take")

// MaxLimit is the most hits one search returns.
const MaxLimit = 250

// SearchDocuments answers q from the documents held.
func (i *Index) SearchDocuments(ctx context.Context, q Query) (Result, error) {
	if q.Limit == 0 {
		q.Limit = 10
	}
	if q.Limit < 1 || q.Limit > MaxLimit || q.Offset < 0 {
		return Result{}, fmt.Errorf("%w: limit %d, offset %d", ErrBadQuery, q.Limit, q.Offset)
	}
	words := strings.TrimSpace(q.Words)
	scored := q.Relevance && words != ""
	must := []query.Query{categoryIs("document")}
	if s := strings.TrimSpace(q.Soort); s != "" {
		t := query.NewTermQuery(strings.ToLower(s))
		t.SetField(fieldSoort)
		must = append(must, t)
	}
	if q.From != "" || q.To != "" {
		for _, d := range []string{q.From, q.To} {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return Result{}, fmt.Errorf("%w: date %q, want YYYY-MM-DD", ErrBadQuery, d)
			}
		}
		must = append(must, bleveindex.DaysFromTo(fieldDayNum, q.From, q.To))
	}
	if !scored && words != "" {
		// Unscored, the words' terms join the filters in one
		// conjunction, which bleve ANDs as bitmaps and SearchNewest
		// counts without visiting the matches (bleveindex.EveryTerm).
		must = []query.Query{bleveindex.EveryTerm(i.store.Bleve().Mapping(), fieldText, words, must...)}
	}
	var total uint64
	var hits search.DocumentMatchCollection
	var err error
	if scored {
		// Best match first: the words scored, the kind, category and
		// days only selecting (bleveindex.Index.SearchBestFirst).
		page, err := i.store.SearchBestFirst(ctx, bleveindex.WordsOf(i.store.Bleve().Mapping(), fieldText, words),
			query.NewConjunctionQuery(must), q.Limit, q.Offset, []string{fieldEntity})
		if err != nil {
			return Result{}, err
		}
		total, hits = page.Total, page.Hits
	} else if total, hits, err = i.newestFirst(ctx, must, q); err != nil {
		return Result{}, err
	}
	out := Result{Total: total}
	for _, h := range hits {
		e, err := entityOf(h.ID, h.Fields)
		if err != nil {
			return Result{}, err
		}
		out.Hits = append(out.Hits, e)
	}
	return out, nil
}

// sortNewest is the platform's order: newest first, then by id
// descending (tk.SearchRequest's $orderby), so that pages never overlap.
var sortNewest = []string{"-" + fieldDay, "-_id"}

// fewMatches is how many matches newestFirst sorts in one search
// (bleveindex.NewestFirst.FewMatches).
var fewMatches = bleveindex.DefaultFewMatches // a var: tests lower it

// windowDays are the windows of days newestFirst reads, newest first
// (bleveindex.NewestFirst.WindowDays).
var windowDays = bleveindex.DefaultWindowDays

// newestFirst is a page of q's matches newest first, read a window of
// days at a time when they are many (bleveindex.Index.SearchNewest),
// counting back from the question's last day or today.
func (i *Index) newestFirst(ctx context.Context, must []query.Query, q Query) (uint64, search.DocumentMatchCollection, error) {
	p, err := i.store.SearchNewest(ctx, query.NewConjunctionQuery(must), bleveindex.NewestFirst{DayField: fieldDay, DayNumberField: fieldDayNum,
		Sort: sortNewest, Fields: []string{fieldEntity}, FewMatches: fewMatches, WindowDays: windowDays}, q.Limit, q.Offset, q.To)
	return p.Total, p.Hits, err
}
