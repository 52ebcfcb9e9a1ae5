package datereplica

import (
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/replica"
)

// How a pass reads the records modified in its span.
//
// A pass asks for the records modified from its first day (the epoch, or
// the day before the last complete pass began) to the day it began, as a
// list of windows of days read oldest first. A window whose first page
// holds every record it counts is done. One whose first page holds fewer
// (the service counts more than a page, or cut the page without saying
// so) is split into as many windows of equal days as pages its count
// needs (at least two), and those are read in its place; what the cut page did give is stored (storing is
// an upsert by id, so a record read twice is held once). One day cannot be
// split: it is paged by startRecord, each page as large as the service
// was seen to give in full. A day holding more records than paging
// reaches (MaxOffset) is read as far as it goes and reported (DayError on
// Progress.Unread): the pass completes, and says what it could not read.
//
// Every step follows from the checkpoint and the answer alone, so
// instances that share a harvest (replica.Relay) ask the same pages; the
// passes themselves, their retries and their relay are replica.Rounds'
// (harvester.go).

// Window is a span of days, both ends included (YYYY-MM-DD).
type Window struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (w Window) String() string {
	if w.From == w.To {
		return w.From
	}
	return w.From + ".." + w.To
}

// days is the number of days w spans.
func (w Window) days() int {
	from, err1 := time.Parse(time.DateOnly, w.From)
	to, err2 := time.Parse(time.DateOnly, w.To)
	if err1 != nil || err2 != nil || to.Before(from) {
		return 1
	}
	return int(to.Sub(from).Hours()/24) + 1
}

// split cuts w into n windows of about equal days, oldest first (at most
// one a day).
func (w Window) split(n int) []Window {
	days := w.days()
	n = min(max(n, 2), days)
	from, _ := time.Parse(time.DateOnly, w.From)
	out := make([]Window, 0, n)
	start := 0
	for k := 1; k <= n; k++ {
		end := days * k / n // the days before part k+1
		out = append(out, Window{From: from.AddDate(0, 0, start).Format(time.DateOnly),
			To: from.AddDate(0, 0, end-1).Format(time.DateOnly)})
		start = end
	}
	return out
}

// DayError is a day of the feed that holds more records than the
// service pages to: the records past Read were not read.
type DayError struct {
	Source string
	Day    string
	Total  int // the records the service counts that day
	Read   int // the records it gave
}

func (e *DayError) Error() string {
	return fmt.Sprintf("%s: %d records were modified on %s, and paging reached only %d of them", e.Source, e.Total, e.Day, e.Read)
}

// ErrBadPage is a page that cannot be an answer to what was asked: more
// records than asked, a count below the records given, no record where
// the count promised some.
var ErrBadPage = errors.New("the page is no answer to the request")

// checkpoint is what the harvest stores with every page.
type checkpoint struct {
	// RoundState is the pass under way (Start, zero between passes, and
	// its Pages) and the start of the last complete one (CompleteUpTo),
	// as replica.Rounds moves them on.
	replica.RoundState
	// Scope is the scope it was made under; another scope starts anew.
	Scope string `json:"scope"`
	// Pending are the windows still to read, oldest first; the first is
	// being read, Offset records of it so far (a day paged).
	Pending []Window `json:"pending,omitempty"`
	Offset  int      `json:"offset,omitempty"`
	// Cap is the largest page the service was seen to give in full when
	// it gave less than asked: pages are asked at that size. 0: none seen.
	Cap int `json:"cap,omitempty"`
	// Unread are the days of this pass not read whole; LastUnread those
	// of the last complete pass.
	Unread     []DayError `json:"unread,omitempty"`
	LastUnread []DayError `json:"last_unread,omitempty"`
}

func (c checkpoint) running() bool { return !c.Start.IsZero() }

// beginPass is the checkpoint of a pass that starts at c.Start: from
// the epoch, or from the day before the last complete pass began (a
// record modified that day after the pass read it is read again; the
// day is KOOP's finest grain).
func (c checkpoint) beginPass(epoch string) checkpoint {
	next := checkpoint{RoundState: c.RoundState, Scope: c.Scope, Cap: c.Cap, LastUnread: c.LastUnread}
	from := epoch
	if !c.CompleteUpTo.IsZero() {
		from = c.CompleteUpTo.UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	}
	to := max(c.Start.UTC().Format(time.DateOnly), from)
	next.Pending = []Window{{From: from, To: to}}
	return next
}

// limit is the page size to ask: the source's, or less when the service
// was seen to cut pages.
func (c checkpoint) limit(pageSize int) int {
	if c.Cap > 0 {
		return min(c.Cap, pageSize)
	}
	return pageSize
}

// advance is the checkpoint after page answered the first pending window
// at c.Offset with limit, one page more. When no window is left, the
// pass is read whole (replica.Rounds completes it) and its unread days
// become LastUnread. A page that cannot be an answer is an error
// wrapping ErrBadPage.
func (c checkpoint) advance(src Source, limit int, page Page) (checkpoint, error) {
	w := c.Pending[0]
	got := len(page.Records) + page.Rejected
	want := min(limit, max(page.Total-c.Offset, 0))
	switch {
	case got > limit:
		return c, fmt.Errorf("%w: %d records, %d asked", ErrBadPage, got, limit)
	case got > 0 && page.Total < c.Offset+got:
		return c, fmt.Errorf("%w: it counts %d records, %d were given up to it", ErrBadPage, page.Total, c.Offset+got)
	case got == 0 && want > 0 && c.Offset == 0:
		// An empty first page of a window the service counts records
		// in: nothing to learn a size from, so it is asked again.
		return c, fmt.Errorf("%w: no records, %d counted", ErrBadPage, page.Total)
	}
	next := c
	next.Pending = append([]Window(nil), c.Pending...)
	next.Unread = append([]DayError(nil), c.Unread...)
	next.Pages++
	if got < want && got > 0 && (next.Cap == 0 || got < next.Cap) {
		next.Cap = got // cut without a word: ask pages of this size from now on
	}
	done := false
	switch {
	case c.Offset == 0 && got >= page.Total:
		done = true // the window's one page holds all it counts
	case w.From != w.To:
		size := next.limit(src.PageSize)
		parts := (page.Total + size - 1) / size // as many as pages the count needs (split makes at least two)
		next.Pending = append(w.split(parts), next.Pending[1:]...)
		next.Offset = 0
	default: // one day, paged
		read := c.Offset + got
		switch {
		case read >= page.Total:
			done = true
		case got == 0 || read > src.MaxOffset:
			// The service gives no more of this day: paging ends here.
			next.Unread = append(next.Unread, DayError{Source: src.Name, Day: w.From, Total: page.Total, Read: read})
			done = true
		default:
			next.Offset = read
		}
	}
	if done {
		next.Pending, next.Offset = next.Pending[1:], 0
	}
	if len(next.Pending) == 0 {
		next.Pending, next.LastUnread, next.Unread = nil, next.Unread, nil
	}
	return next, nil
}
