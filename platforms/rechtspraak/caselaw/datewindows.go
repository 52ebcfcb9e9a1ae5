package caselaw

import (
	"fmt"
	"sync/atomic"
	"time"
)

// The windows of the date order (newestFirst, search.go), sized by how
// many decisions each day holds.
//
// A date-ordered page sorts the matches of one window at a time, newest
// window first. Windows of fixed years (dateWindows) made a query that
// matches a third of the index sort tens of thousands of matches for a
// page of ten, because the newest year alone holds that many. The day
// field's terms say how many decisions each day holds (its dictionary:
// one term per day, with the count of decisions of that day), and the
// count of matches, taken first anyway, says what share of decisions
// match; together they give the window that holds the page with a margin,
// and each window after it grows fourfold, so a query whose matches lie in
// older years reaches them in a few steps. The windows still tile the
// whole range, so they change what a page costs, never which hits it has.

// dayCounts is the day field's dictionary: the days, oldest first, and how
// many decisions each holds. The counts are near, not exact: deleted
// decisions count until bleve merges them away, and in a merged segment
// zapx (v15 to v17) counts every day after one held by a single decision
// as one: its dictionary iterator reuses a postings list whose one-hit
// state it never clears (docs/upstream.md, "Proposals to bleve", 3).
// They size windows; they never select hits.
type dayCounts struct {
	days   []time.Time
	counts []uint64
	total  uint64
}

// dayHistogram caches the index's dayCounts; Apply clears it, and the
// next date-ordered query reads the dictionary again. A query that read
// it just before an Apply may cache the older counts: they size windows,
// they never select hits.
type dayHistogram struct {
	cached atomic.Pointer[dayCounts]
	// off makes the date order use windows of years, as before the days
	// sized them: for the figures that measure both (levers_figures_test.go).
	off atomic.Bool
}

func (h *dayHistogram) clear() { h.cached.Store(nil) }

// dayCounts returns the cached dictionary or reads it. It fails (and the
// caller falls back to windows of years) when the index cannot be read.
func (i *Index) dayCounts() (dc *dayCounts, err error) {
	if i.days.off.Load() {
		return nil, errNoFastPath
	}
	if dc := i.days.cached.Load(); dc != nil {
		return dc, nil
	}
	if err := i.store.Err(); err != nil {
		return nil, err
	}
	defer func() { // the dictionary is read outside the store's guard
		if r := recover(); r != nil {
			dc, err = nil, fmt.Errorf("reading the days of the index panicked: %v", r)
		}
	}()
	dict, err := i.store.Bleve().FieldDict(fieldDay)
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	dc = &dayCounts{}
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		day, err := time.Parse(dateLayout, e.Term)
		if err != nil {
			continue // not a day: it cannot bound a window
		}
		dc.days = append(dc.days, day)
		dc.counts = append(dc.counts, e.Count)
		dc.total += e.Count
	}
	i.days.cached.Store(dc)
	return dc, nil
}

// maxDayWindows bounds the windows of one page; the last is open.
const maxDayWindows = 8

// windowMargin is how many times the page's expected matches the first
// window holds: the matches of a query are seldom spread evenly in time.
const windowMargin = 4

// dayWindows are the lower bounds of the windows of a page, newest first,
// counted down from the day upTo (zero: from the newest day), for a query
// with total matches of which it needs want (offset and page): each
// window holds the decisions of the days from its bound up to the bound
// of the window before it (the first: up to open or upTo). The last bound
// is zero, an open window. A query that matches few decisions gets one
// open window: sorting all its matches is cheap.
func (dc *dayCounts) dayWindows(upTo time.Time, total uint64, want int) []time.Time {
	if dc == nil || dc.total == 0 || total == 0 {
		return []time.Time{{}}
	}
	// Decisions a window must hold to hold want matches with the margin,
	// were the matches spread evenly over the days.
	target := float64(want*windowMargin) * float64(dc.total) / float64(total)
	if target >= float64(dc.total)/2 {
		return []time.Time{{}}
	}
	var bounds []time.Time
	held := 0.0
	for k := len(dc.days) - 1; k >= 0 && len(bounds) < maxDayWindows-1; k-- {
		if !upTo.IsZero() && dc.days[k].After(upTo) {
			continue
		}
		held += float64(dc.counts[k])
		if held >= target {
			bounds = append(bounds, dc.days[k])
			held, target = 0, target*4
		}
	}
	return append(bounds, time.Time{})
}
