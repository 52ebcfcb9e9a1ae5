package caselaw

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"

	"github.com/besluitbron/besluitbron/clock"
)

// Result is one page of a search.
type Result struct {
	Total uint64 // decisions that match, over all pages
	Hits  []Hit  // in the query's order
	// Ignored lists the words left out because the analyzer drops them
	// (common words such as "de", "het"): they restrict nothing.
	Ignored []string
	// Next, in date order, is the cursor of the page after this one
	// (Query.After); "" when no hit follows, and in relevance order.
	Next string
}

// Hit is one matching decision.
type Hit struct {
	ECLI    string
	Title   string
	Snippet string // a part of the summary, around the first word found
	Court   string
	Date    string // YYYY-MM-DD
	Type    string
	Score   float64 // BM25, comparable only within one result; 0 in date order (not computed)
}

// snippetRunes is the length of a hit's snippet.
const snippetRunes = 240

var hitFields = []string{fieldTitle, fieldSummary, fieldCourt, fieldDay, fieldType}

// Search runs q. A query the index cannot run is a *QueryError naming what
// to change; an index that failed is an *UnavailableError.
func (i *Index) Search(ctx context.Context, q Query) (Result, error) {
	p, err := planQuery(q, i.analyzers)
	if err != nil {
		return Result{}, err
	}
	var total uint64
	var hits search.DocumentMatchCollection
	var next string
	if p.byDate {
		total, hits, next, err = i.newestFirst(ctx, p)
	} else {
		total, hits, err = i.bestFirst(ctx, p)
	}
	if err != nil {
		return Result{}, err
	}
	out := Result{Total: total, Ignored: p.ignored, Next: next, Hits: make([]Hit, 0, len(hits))}
	for _, h := range hits {
		out.Hits = append(out.Hits, hitOf(h, p.stems))
	}
	return out, nil
}

// bestFirst is the BM25 order. Equal scores keep the index's order, the
// same on every page of one snapshot of the index.
func (i *Index) bestFirst(ctx context.Context, p plan) (uint64, search.DocumentMatchCollection, error) {
	if total, hits, err := i.fastBestFirst(ctx, p); err == nil {
		return total, hits, nil
	} // otherwise bleve answers, and says what went wrong (fastpath.go)
	return i.plainBestFirst(ctx, p)
}

// plainBestFirst is the BM25 order by one bleve search.
func (i *Index) plainBestFirst(ctx context.Context, p plan) (uint64, search.DocumentMatchCollection, error) {
	req := bleve.NewSearchRequestOptions(p.boolean(), p.limit, p.offset, false)
	req.Fields = hitFields
	req.SortBy([]string{"-_score"})
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	return res.Total, res.Hits, nil
}

// dateWindows are the spans, in years back from now, that a date-ordered
// query reads one after the other, newest first, when the days of the
// index cannot be read (datewindows.go sizes them otherwise); the last is
// open.
var dateWindows = []int{1, 3, 7, 15}

// newestFirst is the date order. Sorting reads the date of every match,
// so a query matching half the index spent most of its time there: the
// page is taken from windows of days instead, newest first, each sorted
// on its own, skipping whole windows that lie before the offset; the
// windows are sized to hold the page (datewindows.go), so usually the
// first holds it. The total is counted once over the whole range, without
// sorting or scoring (nothing is scored in date order). The count and the
// windows are separate searches: a batch stored between them can make the
// total differ from the pages by that batch.
//
// A page after a cursor (p.after) counts its windows back from the
// cursor's day instead, reads only from that day down, and skips the
// day's decisions up to the cursor's with bleve's search_after
// (cursor.go). Each page asks one hit more than it shows: that one says
// whether a next page exists.
func (i *Index) newestFirst(ctx context.Context, p plan) (uint64, search.DocumentMatchCollection, string, error) {
	total, err := i.count(ctx, p)
	if err != nil {
		return 0, nil, "", err
	}
	skip, need := p.offset, p.limit+1
	upTo := p.to // the newest day a hit can have
	if p.after != nil && (upTo.IsZero() || p.after.date.Before(upTo)) {
		upTo = p.after.date
	}
	// The windows' newest bound: open for a first page; the day after
	// the cursor's for a page after it, so that one range, as narrow as
	// a first page's, holds the cursor's day (a second, open range beside
	// it would walk the terms of every older date).
	top := time.Time{}
	if p.after != nil {
		top = p.after.date.AddDate(0, 0, 1)
	}
	var hits search.DocumentMatchCollection
	newer := top
	for _, older := range i.windows(p, upTo, total, skip+need) {
		from, to := older, newer
		newer = older
		if outside(from, to, p.from, upTo) {
			continue
		}
		if need <= 0 || uint64(skip) >= total {
			break
		}
		req := bleve.NewSearchRequestOptions(p.boolean(dateRange(from, to)), need, skip, false)
		req.Fields = hitFields
		// Many rulings share a day: the id breaks the tie, so every
		// window, page and full sort agree on one order (without it,
		// bleve's order of equal days depends on its segments, and a
		// page could repeat or skip a ruling of the day it cuts).
		req.SortBy([]string{"-" + fieldDay, "_id"})
		req.Score = "none"
		if p.after != nil {
			req.SearchAfter = []string{p.after.day, p.after.ecli}
		}
		res, err := i.store.Search(ctx, req)
		if err != nil {
			return 0, nil, "", err
		}
		if uint64(skip) >= res.Total { // the page starts in an older window
			skip -= int(res.Total)
			continue
		}
		hits = append(hits, res.Hits...)
		skip, need = 0, need-len(res.Hits)
	}
	if len(hits) <= p.limit {
		return total, hits, "", nil
	}
	hits = hits[:p.limit]
	last := hits[len(hits)-1]
	day, _ := last.Fields[fieldDay].(string)
	return total, hits, encodeCursor(p.cursorOf, day, last.ID), nil
}

// windows are the lower bounds of the date order's windows, newest first,
// the last zero (open): sized by the days of the index when they read,
// otherwise years back from the query's now (the cursor's day for a page
// after a cursor).
func (i *Index) windows(p plan, upTo time.Time, total uint64, want int) []time.Time {
	if dc, err := i.dayCounts(); err == nil {
		return dc.dayWindows(upTo, total, want)
	}
	now := p.now.UTC()
	if p.now.IsZero() {
		now = clock.Wall{}.Now().UTC()
	}
	if p.after != nil {
		now = p.after.date.AddDate(0, 0, 1)
	}
	bounds := make([]time.Time, 0, len(dateWindows)+1)
	for _, years := range dateWindows {
		bounds = append(bounds, now.AddDate(-years, 0, 0))
	}
	return append(bounds, time.Time{})
}

// count is the number of matches of p: by the segments' bitmaps where
// they read p, otherwise by bleve without scores
// (bleveindex.Index.CountMatches).
func (i *Index) count(ctx context.Context, p plan) (uint64, error) {
	return i.store.CountMatches(ctx, p.boolean())
}

// outside reports whether the window [older, newer) misses the query's
// date range [from, to] (zero bounds are open).
func outside(older, newer, from, to time.Time) bool {
	return (!newer.IsZero() && !from.IsZero() && !newer.After(from)) ||
		(!older.IsZero() && !to.IsZero() && to.Before(older))
}

func hitOf(h *search.DocumentMatch, stems []string) Hit {
	field := func(name string) string {
		s, _ := h.Fields[name].(string)
		return s
	}
	return Hit{
		ECLI:    h.ID,
		Title:   field(fieldTitle),
		Snippet: snippet(field(fieldSummary), stems, snippetRunes),
		Court:   field(fieldCourt),
		Date:    field(fieldDay),
		Type:    field(fieldType),
		Score:   h.Score,
	}
}

// snippet returns about width runes of text, starting a little before the
// first of the stems it finds (the analyzed query words: "vergunn" is
// found in "vergunningen"), at a word boundary. Without a match it is the
// text's start.
func snippet(text string, stems []string, width int) string {
	if utf8.RuneCountInString(text) <= width {
		return text
	}
	lower := strings.ToLower(text)
	at := -1
	for _, s := range stems {
		if p := strings.Index(lower, s); p >= 0 && (at < 0 || p < at) {
			at = p
		}
	}
	start := 0
	if at > 0 && len(lower) == len(text) { // byte offsets of lower hold for text
		start = at
		for n := 0; n < width/4 && start > 0; n++ { // some context before the word
			_, size := utf8.DecodeLastRuneInString(text[:start])
			start -= size
		}
		if start > 0 { // begin at a word
			if sp := strings.IndexFunc(text[start:], unicode.IsSpace); sp >= 0 && start+sp < at {
				start += sp + 1
			} else {
				start = at
			}
		}
	}
	end, n := start, 0
	for end < len(text) && n < width {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
		n++
	}
	if end < len(text) { // end at a word
		if sp := strings.LastIndexFunc(text[start:end], unicode.IsSpace); sp > 0 {
			end = start + sp
		}
	}
	out := strings.TrimSpace(text[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}
