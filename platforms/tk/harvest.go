package tk

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

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
// The rounds themselves (the waits, the retries, the progress, and the
// instances that share one harvest) are replica.Rounds'. A page follows
// from the checkpoint alone, so a follower's requests are the leader's,
// which the shared cache tier answers.

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
	replica.RoundState
	Categories map[string]*categoryState `json:"categories,omitempty"`
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
	idx    *localindex.Index
	fetch  replica.Fetch
	gate   func(context.Context) error
	clock  clock.Clock
	scope  harvestScope
	rounds *replica.Rounds
	// cp is the checkpoint, Run's alone while it runs.
	cp harvestCheckpoint

	mu sync.Mutex
	// states are the categories' states as last stored, for Progress.
	states map[string]categoryState
}

func newHarvester(idx *localindex.Index, h replica.Harvest, scope harvestScope) *harvester {
	hv := &harvester{idx: idx, fetch: h.Fetch, gate: h.Gate, clock: clock.Or(h.Clock), scope: scope}
	interval := h.Interval
	if interval <= 0 {
		interval = defaultHarvestInterval
	}
	if hv.gate == nil {
		hv.gate = func(context.Context) error { return nil }
	}
	hv.rounds = replica.NewRounds(replica.RoundsConfig{Clock: hv.clock, Relay: h.Relay, Interval: interval,
		RetryMin: harvestRetryMin, RetryMax: harvestRetryMax})
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
	p := h.rounds.Progress()
	if n, err := h.idx.Count(); err == nil {
		p.Records = n
	}
	return p
}

// publish keeps the categories' state of the checkpoint, as stored, for
// Progress.
func (h *harvester) publish() {
	states := make(map[string]categoryState, len(h.cp.Categories))
	for c, st := range h.cp.Categories {
		states[c] = *st
	}
	h.mu.Lock()
	h.states = states
	h.mu.Unlock()
}

// Run harvests until ctx ends or the index fails (replica.Harvester).
func (h *harvester) Run(ctx context.Context) error {
	cp, err := h.loadCheckpoint()
	if err != nil {
		return h.rounds.Stop(err)
	}
	if cp.Categories == nil {
		cp.Categories = map[string]*categoryState{}
	}
	for _, c := range h.scope.categories() {
		if cp.Categories[c] == nil {
			cp.Categories[c] = &categoryState{}
		}
	}
	h.cp = cp
	h.publish()
	return h.rounds.Run(ctx, h)
}

// Round is the checkpoint's round (replica.RoundFeed).
func (h *harvester) Round() *replica.RoundState { return &h.cp.RoundState }

// BeginRound marks every category not caught up (replica.RoundFeed).
func (h *harvester) BeginRound() {
	for _, st := range h.cp.Categories {
		st.CaughtUp = false
	}
}

// Parts are the scope's categories (replica.RoundFeed).
func (h *harvester) Parts(context.Context) ([]string, error) { return h.scope.categories(), nil }

// CaughtUp tells whether the round has read category to its end
// (replica.RoundFeed).
func (h *harvester) CaughtUp(category string) bool { return h.cp.Categories[category].CaughtUp }

// Store stores the checkpoint alone (replica.RoundFeed).
func (h *harvester) Store() error { return h.store(nil) }

// Page reads one page of category and stores it with the checkpoint
// after it (replica.RoundFeed).
func (h *harvester) Page(ctx context.Context, category string) error {
	cp := &h.cp
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
	if err := h.store(page.Entities); err != nil {
		cp.Categories[category] = old
		cp.Pages--
		return err
	}
	h.publish()
	return nil
}

// store writes entities and the checkpoint in one batch.
func (h *harvester) store(entities []feed.Entity) error {
	b, err := json.Marshal(&h.cp)
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

// Interface guards
var (
	_ replica.Harvester = (*harvester)(nil)
	_ replica.RoundFeed = (*harvester)(nil)
)
