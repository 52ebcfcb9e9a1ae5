package tk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// The harvest of the SyncFeed (platforms/tk/feed). Per category, as the
// Kamer's documentation asks: the feed page by page from the category's
// skiptoken, each page stored in one batch with the checkpoint that
// follows it (the skiptoken of its last entry), until a page says the
// feed resumes there. A round reads every category of the scope so; when
// all are caught up, everything the feed held at the round's start is in
// the index (Progress.CompleteUpTo), and the next round, after the
// interval, reads only what came since. There is no snapshot: the feed
// from skiptoken 0 is every entity the Kamer holds, and a data fix that
// re-sends old entities is an upsert that changes nothing.
//
// Instances that share one harvest (replica.Relay) run the same rounds,
// as OpenBesluitvorming's harvest does (platforms/obv/harvest.go): a page
// follows from the checkpoint alone, so a follower's requests are the
// leader's, which the shared cache tier answers.

// defaultHarvestInterval is the wait between rounds: the Kamer's data is
// "near-time" (opendata.tweedekamer.nl), updated through the day.
const defaultHarvestInterval = 15 * time.Minute

// harvestRetryMin and harvestRetryMax bound the wait after a failed page.
const (
	harvestRetryMin = 10 * time.Second
	harvestRetryMax = 10 * time.Minute
)

// harvestCheckpoint is what the harvester stores with every page.
type harvestCheckpoint struct {
	// Round is the start of the round under way, zero between rounds.
	Round time.Time `json:"round,omitzero"`
	// Pages are the pages the round has stored.
	Pages int `json:"pages,omitempty"`
	// CompleteUpTo is the start of the last round that caught up every
	// category.
	CompleteUpTo time.Time                 `json:"complete_up_to,omitzero"`
	Categories   map[string]*categoryState `json:"categories,omitempty"`
}

// categoryState is where one category's harvest stands.
type categoryState struct {
	// Skiptoken is where its next page starts: the token of the last
	// entry stored (0: the feed's start).
	Skiptoken int64 `json:"skiptoken,omitempty"`
	// CaughtUp: the round under way has read it to the end.
	CaughtUp bool `json:"caught_up,omitempty"`
	// Entries are the entries its pages brought; Last when the feed
	// published the last one read.
	Entries int64  `json:"entries,omitempty"`
	Last    string `json:"last,omitempty"`
	// CaughtUpAt is when it was last read to the end.
	CaughtUpAt time.Time `json:"caught_up_at,omitzero"`
}

type harvester struct {
	idx      *localindex.Index
	fetch    replica.Fetch
	gate     func(context.Context) error
	relay    *replica.Relay // nil: alone
	clock    clock.Clock
	scope    harvestScope
	interval time.Duration

	mu       sync.Mutex
	progress replica.Progress
	// states are the categories' states as last stored, for Progress.
	states map[string]categoryState
}

func newHarvester(idx *localindex.Index, h replica.Harvest, scope harvestScope) *harvester {
	hv := &harvester{idx: idx, fetch: h.Fetch, gate: h.Gate, relay: h.Relay, clock: clock.Or(h.Clock), scope: scope, interval: h.Interval}
	if hv.interval <= 0 {
		hv.interval = defaultHarvestInterval
	}
	if hv.gate == nil {
		hv.gate = func(context.Context) error { return nil }
	}
	hv.progress.PagesLeft = -1
	return hv
}

// Progress says where the harvest stands (replica.Harvester), per
// category.
func (h *harvester) Progress() replica.Progress {
	p := h.overall()
	h.mu.Lock()
	states := maps.Clone(h.states)
	h.mu.Unlock()
	now := h.clock.Now()
	for _, c := range slices.Sorted(maps.Keys(states)) {
		st := states[c]
		sp := replica.SourceProgress{Source: c, CaughtUpAt: st.CaughtUpAt}
		sp.LastChange, _ = time.Parse(time.RFC3339Nano, st.Last)
		if !st.CaughtUpAt.IsZero() {
			sp.Lag = now.Sub(st.CaughtUpAt)
		}
		if n, err := h.idx.CountCategory(c); err == nil {
			sp.Records = n
		}
		p.Sources = append(p.Sources, sp)
	}
	return p
}

// overall is Progress without the categories: what a search's
// provenance needs.
func (h *harvester) overall() replica.Progress {
	h.mu.Lock()
	p := h.progress
	h.mu.Unlock()
	if n, err := h.idx.Count(); err == nil {
		p.Records = n
	}
	return p
}

func (h *harvester) publish(cp *harvestCheckpoint) {
	states := make(map[string]categoryState, len(cp.Categories))
	for c, st := range cp.Categories {
		states[c] = *st
	}
	h.mu.Lock()
	h.states = states
	h.mu.Unlock()
}

func (h *harvester) update(f func(p *replica.Progress)) {
	h.mu.Lock()
	f(&h.progress)
	h.mu.Unlock()
}

// Run harvests until ctx ends or the index fails (replica.Harvester).
func (h *harvester) Run(ctx context.Context) error {
	h.update(func(p *replica.Progress) { p.Running = true })
	defer h.update(func(p *replica.Progress) { p.Running = false })
	cp, err := h.loadCheckpoint()
	if err != nil {
		return h.stop(err)
	}
	if cp.Categories == nil {
		cp.Categories = map[string]*categoryState{}
	}
	for _, c := range h.scope.categories() {
		if cp.Categories[c] == nil {
			cp.Categories[c] = &categoryState{}
		}
	}
	h.publish(&cp)
	for {
		if cp.Round.IsZero() {
			start := h.clock.Now()
			if h.relay != nil {
				if start, err = h.relay.PassStart(ctx, start, cp.pass()); err != nil {
					return err
				}
			}
			cp.Round, cp.Pages = start, 0
			for _, st := range cp.Categories {
				st.CaughtUp = false
			}
		}
		h.update(func(p *replica.Progress) {
			p.PassStart, p.PagesDone, p.CompleteUpTo, p.NextPass = cp.Round, cp.Pages, cp.CompleteUpTo, time.Time{}
		})
		for _, c := range h.scope.categories() {
			for !cp.Categories[c].CaughtUp {
				if err := h.pageWithRetry(ctx, &cp, c); err != nil {
					return err
				}
			}
		}
		cp.CompleteUpTo, cp.Round, cp.Pages = cp.Round, time.Time{}, 0
		if err := h.store(&cp, nil); err != nil {
			return h.stop(err)
		}
		if h.relay != nil {
			h.relay.Stored(ctx, cp.pass())
		}
		next := h.clock.Now().Add(h.interval)
		h.update(func(p *replica.Progress) {
			p.CompleteUpTo, p.PassStart, p.NextPass = cp.CompleteUpTo, time.Time{}, next
		})
		if err := clock.Sleep(ctx, h.clock, h.interval); err != nil {
			return err
		}
	}
}

// pass is what a shared harvest reads of the checkpoint (replica.Relay).
func (cp *harvestCheckpoint) pass() replica.Pass {
	return replica.Pass{Start: cp.Round, Pages: cp.Pages, LastComplete: cp.CompleteUpTo}
}

// pageWithRetry reads and stores the category's next page, trying again
// after a failure until it succeeds, ctx ends or the index fails. A
// follower waits first until the leader has stored that page.
func (h *harvester) pageWithRetry(ctx context.Context, cp *harvestCheckpoint, category string) error {
	for failures := 0; ; failures++ {
		if h.relay != nil {
			if err := h.relay.Follow(ctx, cp.pass()); err != nil {
				return err
			}
		}
		err := h.page(ctx, cp, category)
		var unavailable *replica.UnavailableError
		switch {
		case err == nil:
			h.update(func(p *replica.Progress) { p.FailuresInRow, p.PagesDone = 0, cp.Pages })
			if h.relay != nil {
				h.relay.Stored(ctx, cp.pass())
			}
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &unavailable):
			return h.stop(err)
		}
		if err := h.failed(ctx, err, failures); err != nil {
			return err
		}
	}
}

// failed records a failed try and waits before the next: longer after
// each failure in a row, and at least as long as a Retry-After said.
func (h *harvester) failed(ctx context.Context, err error, failures int) error {
	h.update(func(p *replica.Progress) {
		p.LastError, p.LastErrorAt, p.FailuresInRow = err, h.clock.Now(), p.FailuresInRow+1
	})
	wait := replica.Backoff(harvestRetryMin, harvestRetryMax, failures)
	var re *adapters.RouteError
	if errors.As(err, &re) && re.RetryKnown {
		wait = max(wait, time.Duration(re.RetryAfter)*time.Second)
	}
	return clock.Sleep(ctx, h.clock, wait)
}

// page reads one page of category and stores it with the checkpoint
// after it.
func (h *harvester) page(ctx context.Context, cp *harvestCheckpoint, category string) error {
	st := *cp.Categories[category]
	if err := h.gate(ctx); err != nil {
		return fmt.Errorf("waiting for room to ask the platform: %w", err)
	}
	body, _, err := h.fetch(ctx, feed.Request(feedCategories[category], st.Skiptoken))
	if err != nil {
		return err
	}
	page, err := feed.ParsePage(body)
	if err != nil {
		return err
	}
	if err := feed.CheckMoves(st.Skiptoken, page); err != nil {
		return err
	}
	for _, e := range page.Entities {
		if e.Category != category {
			return &feed.Error{Kind: feed.ErrBadPage, Msg: fmt.Sprintf("the %s feed holds a %s (%s)", category, e.Category, e.ID)}
		}
	}
	if len(page.Entities) == 0 {
		st.CaughtUp, st.CaughtUpAt = true, h.clock.Now()
	} else {
		st.Skiptoken = page.Next
		st.Entries += int64(len(page.Entities))
		st.Last = page.Entities[len(page.Entities)-1].Updated
	}
	old := cp.Categories[category]
	cp.Categories[category] = &st
	cp.Pages++
	if err := h.store(cp, page.Entities); err != nil {
		cp.Categories[category] = old
		cp.Pages--
		return err
	}
	h.publish(cp)
	return nil
}

// store writes entities and the checkpoint cp in one batch.
func (h *harvester) store(cp *harvestCheckpoint, entities []feed.Entity) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	_, err = h.idx.Apply(entities, h.scope.keeps, b)
	return err
}

// loadCheckpoint reads the index's checkpoint (none: a fresh start).
func (h *harvester) loadCheckpoint() (harvestCheckpoint, error) {
	var cp harvestCheckpoint
	raw := h.idx.Checkpoint()
	if len(raw) == 0 {
		return cp, nil
	}
	if err := json.Unmarshal(raw, &cp); err != nil {
		return harvestCheckpoint{}, &replica.UnavailableError{What: localindex.What, Kind: replica.ErrCorrupt, Err: fmt.Errorf("the harvest's checkpoint: %v", err)}
	}
	return cp, nil
}

// stop records the index failure that ends the harvest.
func (h *harvester) stop(err error) error {
	h.update(func(p *replica.Progress) { p.Stopped = err })
	return err
}

// Interface guard
var _ replica.Harvester = (*harvester)(nil)
