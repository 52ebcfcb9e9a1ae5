package bleveindex

import (
	"context"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// NewestFirst says how an index orders matches newest first by a day
// field whose terms are YYYY-MM-DD.
type NewestFirst struct {
	// DayField holds each document's day ("" or absent: no day).
	DayField string
	// DayNumberField holds the same days as numbers (DayNumber): each
	// window is then a range of it (DaysFrom), a few dozen terms where a
	// range over DayField's terms reads one a day. "": DayField's terms.
	DayNumberField string
	// Sort is the whole order, newest day first ("-"+DayField), then
	// what breaks ties, so that pages never overlap.
	Sort []string
	// Fields are the stored fields each hit carries.
	Fields []string
	// FewMatches is how many matches are sorted in one search: below it,
	// sorting them all costs less than the windows' searches. 0 is
	// DefaultFewMatches.
	FewMatches uint64
	// WindowDays are the windows read newest first, as days back from
	// today, each older than the one before; what is older than the last
	// (and what has no day) is read by sorting every match. A window is
	// a range over its days' terms, so one of many days costs about what
	// the sort it spares would. nil is DefaultWindowDays.
	WindowDays []int
}

// The defaults of NewestFirst.
var (
	DefaultFewMatches uint64 = 5000
	DefaultWindowDays        = []int{90, 360, 1440, 5760}
)

// Page is a page of matches and how many match in all.
type Page struct {
	Total uint64
	Hits  search.DocumentMatchCollection
}

// SearchPage runs req and returns its page: its hits and how many match.
func (i *Index) SearchPage(ctx context.Context, req *bleve.SearchRequest) (Page, error) {
	res, err := i.Search(ctx, req)
	if err != nil {
		return Page{}, err
	}
	return Page{Total: res.Total, Hits: res.Hits}, nil
}

// Stored is the text a hit's stored field holds ("" none).
func Stored(h *search.DocumentMatch, field string) string {
	s, _ := h.Fields[field].(string)
	return s
}

// SearchNewest is the page of q's matches from offset from, newest first.
// A query matching many documents (a kind, a common word, a year) would
// sort every match for a page of ten; so the matches are counted first
// (from the bitmaps, MatchesOf, or by bleve where they do not read q),
// and many are read one window of recent days at a time,
// newest window first, until the page is full. A page that starts
// beyond the windows is the full sort's, from the offset past the
// windows' matches. The windows count back from last, the question's
// last day (YYYY-MM-DD), or from today when it is "" or no day. The
// windows and the rest tile every match, so they change what a page
// costs, never which hits it has: where they start only moves them. No
// hit carries a score.
func (i *Index) SearchNewest(ctx context.Context, q query.Query, o NewestFirst, size, from int, last string) (Page, error) {
	few, windows := o.FewMatches, o.WindowDays
	if few == 0 {
		few = DefaultFewMatches
	}
	if windows == nil {
		windows = DefaultWindowDays
	}
	window := func(older, newer string) query.Query { return daysFrom(o.DayField, older, newer) }
	if o.DayNumberField != "" {
		window = func(older, newer string) query.Query { return DaysFrom(o.DayNumberField, older, newer) }
	}
	today, err := time.Parse(time.DateOnly, last)
	if err != nil {
		today = time.Now().UTC()
	}
	// Where the bitmaps read q, its matches are read once (MatchesOf) and
	// each window below is counted within them; otherwise bleve counts.
	matches, countable, err := i.MatchesOf(ctx, q)
	if err != nil {
		return Page{}, err
	}
	var total uint64
	if countable {
		defer matches.Close()
		total = matches.Total
	} else if total, err = i.CountMatches(ctx, q); err != nil {
		return Page{}, err
	}
	page := func(window query.Query, size, from int) (*bleve.SearchResult, error) {
		qq := q
		if window != nil {
			qq = query.NewConjunctionQuery([]query.Query{q, window})
		}
		req := bleve.NewSearchRequestOptions(qq, size, from, false)
		req.Fields = o.Fields
		req.SortBy(slices.Clone(o.Sort))
		req.Score = "none"
		return i.Search(ctx, req)
	}
	if total <= few || uint64(from) >= total {
		res, err := page(nil, size, from)
		if err != nil {
			return Page{}, err
		}
		return Page{Total: total, Hits: res.Hits}, nil
	}
	out := Page{Total: total}
	skip, need := from, size
	var passed uint64 // the matches of the windows read
	// Where the window's matches can be counted from the bitmaps, a
	// window is counted before it is read: one the page skips whole is
	// not searched, and one holding more than splitAbove matches is read
	// as its newer half, then its older half. The lead windows assume
	// the matches spread evenly over the years; a year's word asked of
	// any date crowds them into that year, whose fixed window sorted
	// tens of thousands for a page of ten. A count within the matches
	// costs less than a search, so windows are split until one holds
	// about twice the page's end (at least a fiftieth of few, so that
	// a page does not cost a count a day).
	splitAbove := max(few/50, 2*uint64(from+size), 1)
	var read func(older, newer time.Time, open bool) error
	read = func(older, newer time.Time, open bool) error {
		if need == 0 {
			return nil
		}
		w := window(older.Format(time.DateOnly), "")
		if !open {
			w = window(older.Format(time.DateOnly), newer.Format(time.DateOnly))
		}
		if countable {
			n, ok, err := matches.CountWithin(ctx, w)
			if err != nil {
				return err
			}
			if ok && uint64(skip) >= n { // the page starts in an older window
				skip -= int(n)
				passed += n
				return nil
			}
			if days := int(newer.Sub(older).Hours() / 24); ok && n > splitAbove && days > 1 {
				mid := older.AddDate(0, 0, days/2)
				if err := read(mid, newer, open); err != nil {
					return err
				}
				return read(older, mid, false)
			}
		}
		res, err := page(w, need, skip)
		if err != nil {
			return err
		}
		passed += res.Total
		if uint64(skip) >= res.Total {
			skip -= int(res.Total)
			return nil
		}
		out.Hits = append(out.Hits, res.Hits...)
		skip, need = 0, need-len(res.Hits)
		return nil
	}
	// The first window is open towards the future: it also holds what is
	// dated after the question's last day.
	newer, open := today.AddDate(0, 0, 1), true
	for _, days := range leadWindows(total, from+size, windows) {
		older := today.AddDate(0, 0, -days)
		if err := read(older, newer, open); err != nil {
			return Page{}, err
		}
		if need == 0 {
			return out, nil
		}
		newer, open = older, false
	}
	if need > 0 {
		// The rest (older days, and the documents without one, which
		// the full sort puts last too) comes after every match of the
		// windows in the full sort.
		res, err := page(nil, need, int(passed)+skip)
		if err != nil {
			return Page{}, err
		}
		out.Hits = append(out.Hits, res.Hits...)
	}
	return out, nil
}

// leadWindows puts before windows the narrower ones that the matches'
// density calls for. A window's page sorts every match inside it, so a
// year's 120,000 matches of Official Publications put 30,000 in the last
// 90 days, and that sort set the fan-out's tail (docs/benchmarks.md,
// the moonshot's eighth run). Spread evenly over the windows' span, want
// matches take about want*span/total days; the first window is twice
// that, at least a day, and each next one four times the one before,
// until the given windows take over. Matches that lie further back only
// cost a few windows that hold nothing, each a leap through the shorter
// postings.
func leadWindows(total uint64, want int, windows []int) []int {
	if len(windows) == 0 || total == 0 {
		return windows
	}
	span := uint64(windows[len(windows)-1])
	d := max(int((2*uint64(want)*span+total-1)/total), 1)
	var lead []int
	for ; d < windows[0]; d *= 4 {
		lead = append(lead, d)
	}
	return append(lead, windows...)
}

// daysFrom matches the documents whose field is a day from older
// (inclusive) to newer (exclusive; "" open).
func daysFrom(field, older, newer string) query.Query {
	incl, excl := true, false
	r := query.NewTermRangeInclusiveQuery(older, newer, &incl, &excl)
	r.SetField(field)
	return r
}
