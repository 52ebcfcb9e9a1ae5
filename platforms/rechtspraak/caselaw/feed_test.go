package caselaw

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// fakeFeed is Rechtspraak's feed as the harvester sees it: entries sorted
// ascending on modified (ties by ECLI), bounded by ModifiedSince and
// ModifiedUntil and by date, paged by From and Max, with the total.
type fakeFeed struct {
	mu       sync.Mutex
	entries  map[string]Decision
	requests []PageRequest
	// exclusiveSince reads ModifiedSince as "after", not "at or after".
	exclusiveSince bool
	// ignoreDateFrom answers as if the feed had no date filter.
	ignoreDateFrom bool
	// before runs before each answer, with the feed unlocked; the n-th
	// request counts from 1. A non-nil result is the fetch's result.
	before func(ctx context.Context, n int, req PageRequest) (*FeedPage, error)
}

func newFakeFeed(ds []Decision) *fakeFeed {
	f := &fakeFeed{entries: map[string]Decision{}}
	for _, d := range ds {
		f.entries[d.ECLI] = d
	}
	return f
}

func (f *fakeFeed) fetch(ctx context.Context, req PageRequest) (FeedPage, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	f.mu.Unlock()
	if f.before != nil {
		if page, err := f.before(ctx, n, req); page != nil || err != nil {
			if page == nil {
				return FeedPage{}, err
			}
			return *page, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var window []Decision
	for _, d := range f.entries {
		switch {
		case !req.ModifiedSince.IsZero() && d.Modified.Before(req.ModifiedSince):
		case f.exclusiveSince && !req.ModifiedSince.IsZero() && d.Modified.Equal(req.ModifiedSince):
		case !req.ModifiedUntil.IsZero() && d.Modified.After(req.ModifiedUntil):
		case !f.ignoreDateFrom && req.DateFrom != "" && d.Date < req.DateFrom:
		default:
			window = append(window, d)
		}
	}
	slices.SortFunc(window, func(a, b Decision) int {
		return cmp.Or(a.Modified.Compare(b.Modified), cmp.Compare(a.ECLI, b.ECLI))
	})
	page := FeedPage{Total: len(window)}
	if req.From < len(window) {
		page.Decisions = slices.Clone(window[req.From:min(req.From+req.Max, len(window))])
	}
	return page, nil
}

// change gives an entry a new summary and modified time, as Rechtspraak
// does when it corrects one.
func (f *fakeFeed) change(ecli string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.entries[ecli]
	d.Summary += " Gewijzigd."
	d.Modified = at
	f.entries[ecli] = d
}

func (f *fakeFeed) put(d Decision) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries[d.ECLI] = d
}

func (f *fakeFeed) asked() []PageRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// feedEntries makes n decisions modified one a minute from start, except
// that the entries from tieAt on, tieLen of them, share one modified time
// (a bulk update). Dates run over the years 2000-2024.
func feedEntries(n int, start time.Time, tieAt, tieLen int) []Decision {
	out := make([]Decision, n)
	at := start
	for i := range out {
		if i < tieAt || i >= tieAt+tieLen || i == tieAt {
			at = at.Add(time.Minute)
		}
		year := 2000 + i%25
		out[i] = Decision{
			ECLI:     fmt.Sprintf("ECLI:NL:RBDHA:%d:%d", year, 10000+i),
			Title:    fmt.Sprintf("ECLI:NL:RBDHA:%d:%d, Rechtbank Den Haag", year, 10000+i),
			Summary:  fmt.Sprintf("Uitspraak nummer %d over huurrecht.", i),
			Court:    "Rechtbank Den Haag",
			Date:     fmt.Sprintf("%d-%02d-%02d", year, 1+i%12, 1+i%28),
			Type:     TypeRuling,
			Modified: at,
		}
	}
	return out
}

// notedClock is the fake clock, telling the test each wait the harvester
// starts, so the test moves time only once the harvester waits.
type notedClock struct {
	*fakeclock.Clock
	waits chan time.Duration
}

func newNotedClock(start time.Time) *notedClock {
	return &notedClock{Clock: fakeclock.New(start), waits: make(chan time.Duration, 64)}
}

func (c *notedClock) AfterFunc(d time.Duration, f func()) fakeclock.Timer {
	t := c.Clock.AfterFunc(d, f)
	c.waits <- d
	return t
}

// nextWait returns the next wait the harvester starts.
func (c *notedClock) nextWait(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.waits:
		return d
	case <-time.After(10 * time.Second): // a hang guard, never a pace
		t.Fatal("the harvester started no wait")
		return 0
	}
}

// wantAllOnce fails unless the index holds exactly the feed's decisions,
// each once, in their current version.
func wantAllOnce(t *testing.T, ix *Index, f *fakeFeed) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := count(t, ix); n != uint64(len(f.entries)) {
		t.Fatalf("index holds %d decisions, the feed %d", n, len(f.entries))
	}
	for ecli, want := range f.entries {
		doc, err := ix.store.Bleve().Document(ecli)
		if err != nil || doc == nil {
			t.Fatalf("%s is not in the index: %v", ecli, err)
		}
		var summary string
		doc.VisitFields(func(fl index.Field) {
			if fl.Name() == fieldSummary {
				summary = string(fl.Value())
			}
		})
		if summary != want.Summary {
			t.Fatalf("%s holds summary %q, the feed %q", ecli, summary, want.Summary)
		}
	}
}
