package caselaw

import (
	"context"
	"fmt"
	"time"
)

// PageRequest asks the feed for one page of entries, sorted ascending on
// modified (the feed's sort=ASC).
type PageRequest struct {
	// ModifiedSince: entries modified at or after it (the feed's first
	// modified parameter); zero asks from the start of the feed.
	ModifiedSince time.Time
	// ModifiedUntil: entries modified at or before it (a second modified
	// parameter): the start of the pass, so that changes made while the
	// pass runs wait for the next pass.
	ModifiedUntil time.Time
	// DateFrom: only decisions dated on or after it (YYYY-MM-DD); "" for
	// the whole feed. The harvester drops older ones itself too.
	DateFrom string
	From     int // entries to skip (the feed's from)
	Max      int // at most this many entries (the feed's max), 1..MaxPageSize
	// Incremental: the pass asks what changed since a complete one, so
	// it must also learn of withdrawn decisions (tombstones), which a
	// whole first pass need not ask for.
	Incremental bool
}

// FeedPage is one answer of the feed.
type FeedPage struct {
	// Total is the feed's count of entries matching the request's bounds
	// ("Aantal gevonden ECLI's: N"), regardless of From and Max.
	Total     int
	Decisions []Decision
}

// MaxPageSize is the most entries the feed returns per request.
const MaxPageSize = 1000

// Fetcher asks the feed for one page.
type Fetcher func(ctx context.Context, req PageRequest) (FeedPage, error)

// How a pass pages through a changing feed.
//
// A pass asks for the entries modified in [Since, PassStart], ascending on
// modified. The upper bound PassStart is fixed for the whole pass, so
// entries changed while it runs do not join it: a change gets a modified
// after PassStart and belongs to the next pass, whose Since is this
// PassStart (less passOverlap).
//
// Plain offset paging (From = 0, 1000, 2000, ... on one fixed query) is
// not enough, even with that bound: an entry the pass already read that
// changes meanwhile leaves the window (its new modified is past the
// bound), every entry after it moves one place forward, and the entry
// that moved onto the offset already read is skipped, for good, because
// it did not change and so is not in the next pass either.
//
// So the pass also moves its lower bound along: after each page, Cursor
// becomes the page's last modified (less cursorRewind) and From returns to
// 0. Entries before the cursor can change and leave without moving
// anything after it. Only when a page does not move the cursor (more than
// a page of entries within cursorRewind of each other, as a bulk update
// makes) does From count on within that group; there a change can still
// shift entries, but only among those few.
//
// The rewind makes the feed's bound semantics irrelevant: whether it
// reads modified inclusively or exclusively, to the second or finer, the
// entries of the page's last second are asked again. A few entries per
// page come twice; storing is an upsert by ECLI, so they are stored once.
const cursorRewind = time.Second

// passOverlap is how far before the last complete pass's start the next
// pass begins. Entries whose modified is just before that start may have
// become visible in the feed only after the pass read past them (a change
// stamped when it began, published when it committed), and our clock,
// which sets PassStart, may run ahead of Rechtspraak's. Reading a quarter
// of an hour again costs a few entries.
const passOverlap = 15 * time.Minute

// request is the page the checkpoint asks for next.
func (c Checkpoint) request(max int) PageRequest {
	return PageRequest{
		ModifiedSince: c.Cursor,
		ModifiedUntil: c.PassStart,
		DateFrom:      c.Scope,
		From:          c.NextFrom,
		Max:           max,
		Incremental:   !c.Since.IsZero(),
	}
}

// startPass is the checkpoint of a new pass that starts at now.
func (c Checkpoint) startPass(now time.Time) Checkpoint {
	next := Checkpoint{Scope: c.Scope, LastComplete: c.LastComplete, CompletedAt: c.CompletedAt}
	next.PassStart = now
	if !c.LastComplete.IsZero() {
		next.Since = c.LastComplete.Add(-passOverlap)
	}
	next.Cursor = next.Since
	return next
}

// advance is the checkpoint after page (checked by checkPage) answered
// req, and whether the pass is complete: the page is short (the feed has
// nothing after it) or it reaches the feed's total.
func (c Checkpoint) advance(req PageRequest, page FeedPage, now time.Time) (Checkpoint, bool) {
	read := req.From + len(page.Decisions)
	if len(page.Decisions) < req.Max || read >= page.Total {
		return Checkpoint{Scope: c.Scope, LastComplete: c.PassStart, CompletedAt: now}, true
	}
	next := c
	next.Pages++
	next.Total = page.Total
	next.Left = max(0, page.Total-read)
	cursor := page.Decisions[len(page.Decisions)-1].Modified.Add(-cursorRewind)
	if cursor.After(c.Cursor) && !cursor.After(c.PassStart) {
		next.Cursor, next.NextFrom = cursor, 0
	} else {
		next.NextFrom = read
	}
	return next, false
}

// checkPage refuses an answer that cannot be a page of this request. A
// total below the entries read is refused too: taken at its word it would
// end the pass early, and ignored (as some feeds answer 0) a feed that
// repeats one full page would be paged forever.
func checkPage(req PageRequest, page FeedPage) error {
	if len(page.Decisions) > req.Max {
		return fmt.Errorf("the feed's page has %d entries, %d were asked", len(page.Decisions), req.Max)
	}
	if read := req.From + len(page.Decisions); len(page.Decisions) > 0 && page.Total < read {
		return fmt.Errorf("the feed's total %d is less than the %d entries read up to this page", page.Total, read)
	}
	return nil
}
