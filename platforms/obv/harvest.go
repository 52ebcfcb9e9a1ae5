package obv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/obv/export"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// The harvest. Per source, as OpenBesluitvorming's documentation asks
// (export.go): the snapshot page by page, keeping X-Changes-Cursor from
// its first page, then the change feed from that cursor until a page says
// there is no more. A round reads every source in the scope so; when all
// are caught up, everything the export held at the round's start is in
// the index (Progress.CompleteUpTo), and the next round starts after the
// interval, reading only the changes.
//
// Every page is one batch with the checkpoint that follows it
// (localindex.Apply), so a restart resumes at the page after the last one
// stored. A cursor the platform rejects (400: an expired cursor, say)
// starts that source's snapshot anew: upserts of entities already held
// with the same content_hash store nothing. The gate (visitors first)
// waits before every page.
//
// The rounds themselves (the waits, the retries, the progress, and the
// instances that share one harvest, replica.Relay) are replica.Rounds'.
// A page follows from the checkpoint and the answers before it alone, so
// a follower's requests are the leader's, which the shared cache tier
// answers (the platform's table keeps export pages for minutes).

// defaultHarvestInterval is the wait between rounds: the platform
// imports the councils' systems about hourly (/api/status).
const defaultHarvestInterval = time.Hour

// harvestRetryMin and harvestRetryMax bound the wait after a failed page.
const (
	harvestRetryMin = 10 * time.Second
	harvestRetryMax = 10 * time.Minute
)

// recentCursors is how many of a source's last cursors a harvester
// remembers to notice a feed that goes round in a circle.
const recentCursors = 64

// ErrCursorRejected is a failed page's error when the platform refused a
// cursor it gave: the source's snapshot starts anew.
var ErrCursorRejected = errors.New("OpenBesluitvorming rejected its own cursor; the source's snapshot starts anew")

// harvestCheckpoint is what a harvester stores with every page.
type harvestCheckpoint struct {
	replica.RoundState
	Sources map[string]*sourceState `json:"sources,omitempty"`
}

// sourceState is where one source's harvest stands.
type sourceState struct {
	// Snapshot is the next snapshot page's cursor ("" the first page).
	Snapshot string `json:"snapshot,omitempty"`
	// Changes is the change feed's cursor: X-Changes-Cursor of the
	// snapshot's first page, then each changes page's X-Next-Cursor.
	Changes string `json:"changes,omitempty"`
	// InChanges: the snapshot is read whole; the change feed is next.
	InChanges bool `json:"in_changes,omitempty"`
	// CaughtUp: the round under way has read the source's changes to
	// the end.
	CaughtUp bool `json:"caught_up,omitempty"`
	// Restarts counts snapshots begun anew after a rejected cursor.
	Restarts int `json:"restarts,omitempty"`
	// Mark marks what a snapshot begun anew writes (localindex.ApplyMarked);
	// Sweep: that snapshot is read whole, and what it did not write
	// (deleted while the cursor was lost) is still to be removed.
	Mark  string `json:"mark,omitempty"`
	Sweep bool   `json:"sweep,omitempty"`
	// Records are the records this source's pages brought (upserts and
	// deletes, over restarts); Last the time of the last record read.
	Records int64  `json:"records,omitempty"`
	Last    string `json:"last,omitempty"`
	// CaughtUpAt is when the source's change feed was last read to the
	// end (kept over a restart of its snapshot: what the index holds is
	// as of then).
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
	// firstYear is the scope's first year as a date's prefix ("2024"),
	// "" for every year.
	firstYear string

	mu     sync.Mutex
	recent map[string][]string // source → its last cursors asked
	// states is the checkpoint's state of each source as last stored,
	// for Progress.
	states map[string]sourceState
}

func newHarvester(idx *localindex.Index, h replica.Harvest, scope harvestScope) *harvester {
	hv := &harvester{idx: idx, fetch: h.Fetch, gate: h.Gate, clock: clock.Or(h.Clock), scope: scope, recent: map[string][]string{}}
	interval := h.Interval
	if interval <= 0 {
		interval = defaultHarvestInterval
	}
	if scope.Since != 0 {
		hv.firstYear = fmt.Sprintf("%04d", scope.Since)
	}
	if hv.gate == nil {
		hv.gate = func(context.Context) error { return nil }
	}
	hv.rounds = replica.NewRounds(replica.RoundsConfig{Clock: hv.clock, Relay: h.Relay, Interval: interval,
		RetryMin: harvestRetryMin, RetryMax: harvestRetryMax,
		// The source starts anew at once: the next page is the first of
		// a new snapshot, not the one refused.
		AtOnce: func(err error) bool { return errors.Is(err, ErrCursorRejected) }})
	return hv
}

// Progress says where the harvest stands (replica.Harvester).
func (h *harvester) Progress() replica.Progress {
	p := h.overall()
	h.mu.Lock()
	states := maps.Clone(h.states)
	h.mu.Unlock()
	now := h.clock.Now()
	for _, src := range slices.Sorted(maps.Keys(states)) {
		st := states[src]
		sp := replica.SourceProgress{Source: src, CaughtUpAt: st.CaughtUpAt, Restarts: st.Restarts}
		sp.LastChange, _ = time.Parse(time.RFC3339Nano, st.Last)
		if !st.CaughtUpAt.IsZero() {
			sp.Lag = now.Sub(st.CaughtUpAt)
		}
		if n, err := h.idx.CountSource(src); err == nil {
			sp.Records = n
		}
		p.Sources = append(p.Sources, sp)
	}
	return p
}

// overall is Progress without the sources: what a search's provenance
// needs, without counting each source's records.
func (h *harvester) overall() replica.Progress {
	p := h.rounds.Progress()
	if n, err := h.idx.Count(); err == nil {
		p.Records = n
	}
	return p
}

// publish keeps the sources' state of cp, as stored, for Progress.
func (h *harvester) publish(cp *harvestCheckpoint) {
	states := make(map[string]sourceState, len(cp.Sources))
	for src, st := range cp.Sources {
		states[src] = *st
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
	if cp.Sources == nil {
		cp.Sources = map[string]*sourceState{}
	}
	h.cp = cp
	h.publish(&h.cp)
	return h.rounds.Run(ctx, h)
}

// Round is the checkpoint's round (replica.RoundFeed).
func (h *harvester) Round() *replica.RoundState { return &h.cp.RoundState }

// BeginRound marks every source not caught up (replica.RoundFeed).
func (h *harvester) BeginRound() {
	for _, st := range h.cp.Sources {
		st.CaughtUp = false
	}
}

// CaughtUp tells whether the round has read src's changes to the end
// (replica.RoundFeed).
func (h *harvester) CaughtUp(src string) bool { return h.cp.Sources[src].CaughtUp }

// Page reads and stores src's next page (replica.RoundFeed).
func (h *harvester) Page(ctx context.Context, src string) error { return h.page(ctx, &h.cp, src) }

// Store stores the checkpoint alone (replica.RoundFeed).
func (h *harvester) Store() error { return h.store(&h.cp, nil) }

// Parts are the scope's sources, or every implemented source the
// platform lists (asked again each round, through the cache)
// (replica.RoundFeed).
func (h *harvester) Parts(ctx context.Context) ([]string, error) {
	sources := h.scope.Sources
	if len(sources) == 0 {
		var err error
		if sources, err = h.listSources(ctx); err != nil {
			return nil, err
		}
	}
	for _, src := range sources {
		if h.cp.Sources[src] == nil {
			h.cp.Sources[src] = &sourceState{}
		}
	}
	return sources, nil
}

func (h *harvester) listSources(ctx context.Context) ([]string, error) {
	if err := h.gate(ctx); err != nil {
		return nil, fmt.Errorf("waiting for room to ask the platform: %w", err)
	}
	body, _, err := h.fetch(ctx, SourcesRequest())
	if err != nil {
		return nil, err
	}
	list, err := ParseSources(body)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, s := range list {
		if s.Implemented && !s.IsAggregate && sourceKeyRE.MatchString(s.Key) {
			keys = append(keys, s.Key)
		}
	}
	return keys, nil
}

// page reads one page of src and stores it with the checkpoint after it.
func (h *harvester) page(ctx context.Context, cp *harvestCheckpoint, src string) (err error) {
	st := *cp.Sources[src]
	if st.Sweep {
		return h.sweep(ctx, cp, src)
	}
	asked := st.Snapshot
	req := export.SnapshotRequest(src, st.Snapshot, export.MaxExportLimit)
	if st.InChanges {
		asked = st.Changes
		req = export.ChangesRequest(src, st.Changes, export.MaxExportLimit)
	}
	if err := h.gate(ctx); err != nil {
		return fmt.Errorf("waiting for room to ask the platform: %w", err)
	}
	body, header, err := h.fetch(ctx, req)
	if err != nil {
		var re *adapters.RouteError
		if errors.As(err, &re) && re.Status == http.StatusBadRequest && asked != "" {
			return h.restart(cp, src, err)
		}
		return err
	}
	page, err := export.ParseExportPage(src, header, body)
	if err != nil {
		return err
	}
	if err := export.CheckMoves(asked, page); err != nil {
		return err
	}
	if page.More && h.seen(src, page.Next) {
		return &export.ExportError{Kind: export.ErrStuckFeed, Msg: fmt.Sprintf("X-Next-Cursor %q came before in this source's last %d pages", page.Next, recentCursors)}
	}
	switch {
	case !st.InChanges && st.Snapshot == "" && page.Changes == "":
		return &export.ExportError{Kind: export.ErrBadPageHeaders, Msg: "the snapshot's first page without X-Changes-Cursor"}
	case !st.InChanges:
		if st.Snapshot == "" {
			st.Changes = page.Changes
		}
		st.Snapshot = page.Next
		if !page.More {
			st.InChanges, st.Snapshot, st.Sweep = true, "", st.Mark != ""
		}
	default:
		if page.Next != "" {
			st.Changes = page.Next
		}
		st.CaughtUp = !page.More
		if st.CaughtUp {
			st.CaughtUpAt = h.clock.Now()
		}
	}
	st.Records += int64(len(page.Records))
	if n := len(page.Records); n > 0 {
		st.Last = page.Records[n-1].Time
	}
	records := h.inScope(page.Records)
	mark := ""
	if !cp.Sources[src].InChanges {
		mark = st.Mark // a snapshot page
	}
	old := cp.Sources[src]
	cp.Sources[src] = &st
	cp.Pages++
	if err := h.storeMarked(cp, records, mark); err != nil {
		cp.Sources[src] = old
		cp.Pages--
		return err
	}
	h.publish(cp)
	return nil
}

// sweep removes what src's snapshot, read anew, did not write. Its
// batches carry the checkpoint that still asks for the sweep, so a sweep
// cut off is done again; the checkpoint after it says it is done.
func (h *harvester) sweep(ctx context.Context, cp *harvestCheckpoint, src string) error {
	pending, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	st := *cp.Sources[src]
	removed, err := h.idx.Sweep(ctx, src, st.Mark, pending)
	if err != nil {
		return err
	}
	st.Sweep, st.Mark = false, ""
	old := cp.Sources[src]
	cp.Sources[src] = &st
	if err := h.store(cp, nil); err != nil {
		cp.Sources[src] = old
		return err
	}
	h.publish(cp)
	h.rounds.Update(func(p *replica.Progress) { p.Swept += removed })
	return nil
}

// restart begins src's snapshot anew after the platform refused a cursor.
// The new snapshot marks what it writes, so that what it no longer holds
// can be swept when it is read whole.
func (h *harvester) restart(cp *harvestCheckpoint, src string, why error) error {
	old := cp.Sources[src]
	cp.Sources[src] = &sourceState{Restarts: old.Restarts + 1, Records: old.Records, Last: old.Last, CaughtUpAt: old.CaughtUpAt,
		Mark: fmt.Sprintf("%s-r%d", src, old.Restarts+1)}
	if err := h.store(cp, nil); err != nil {
		cp.Sources[src] = old
		return err
	}
	h.publish(cp)
	h.mu.Lock()
	delete(h.recent, src)
	h.mu.Unlock()
	return fmt.Errorf("%w (%v)", ErrCursorRejected, why)
}

// seen remembers cursor among src's recent ones and tells whether it was
// there already.
func (h *harvester) seen(src, cursor string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	recent := h.recent[src]
	for _, c := range recent {
		if c == cursor {
			return true
		}
	}
	if len(recent) == recentCursors {
		recent = recent[1:]
	}
	h.recent[src] = append(recent, cursor)
	return false
}

// inScope keeps the records the scope holds. An upsert of an entity
// dated before the scope's first year becomes a delete (it may have been
// held under an older date); a record the index cannot read is counted
// as rejected and left out.
func (h *harvester) inScope(records []export.ExportRecord) []export.ExportRecord {
	out := make([]export.ExportRecord, 0, len(records))
	var rejected int
	var why error
	for _, r := range records {
		if r.Op == export.OpUpsert {
			d, err := export.FeedDocument(r)
			if err != nil {
				rejected, why = rejected+1, err
				continue
			}
			if h.firstYear != "" && d.Date != "" && d.Date < h.firstYear {
				r = export.ExportRecord{Op: export.OpDelete, EntityID: r.EntityID, EntityType: r.EntityType, SourceKey: r.SourceKey}
			}
		}
		out = append(out, r)
	}
	if rejected > 0 {
		h.rounds.Update(func(p *replica.Progress) { p.Rejected, p.LastRejected = p.Rejected+rejected, why })
	}
	return out
}

// store writes records and the checkpoint cp in one batch.
func (h *harvester) store(cp *harvestCheckpoint, records []export.ExportRecord) error {
	return h.storeMarked(cp, records, "")
}

// storeMarked is store with the records written under mark
// (localindex.ApplyMarked).
func (h *harvester) storeMarked(cp *harvestCheckpoint, records []export.ExportRecord, mark string) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	_, err = h.idx.ApplyMarked(records, mark, b)
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
