package datereplica

import (
	"context"
	"encoding/json"

	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/replica"
)

// The harvester's defaults. KOOP publishes new versions and publications
// early each morning; a pass every six hours keeps the replica within a
// working day of it at the cost of a few pages. A failing page is asked
// again after 10 seconds, then less and less often, at least every 10
// minutes (or after the Retry-After the platform gave).
const (
	DefaultInterval = 6 * time.Hour
	retryMin        = 10 * time.Second
	retryMax        = 10 * time.Minute
)

// windowsPart is the one part of a pass (replica.RoundFeed): the windows
// of days, read oldest first.
const windowsPart = "windows"

// Harvester keeps an Index up to date with a Source: passes of
// replica.Rounds (each pass a round of one part, its windows: windows.go),
// each page stored with the checkpoint after it, so a harvester started
// on a reopened index resumes at the page after the last one stored.
type Harvester struct {
	idx   *Index
	src   Source
	fetch replica.Fetch
	gate  func(context.Context) error
	clock clock.Clock
	since string // YYYY-MM-DD, "" all
	scope string // the canonical scope, kept on the checkpoint

	rounds *replica.Rounds
	// cp is the checkpoint as the pass moves it on; replica.Rounds moves
	// its RoundState. Only Run's goroutine touches it; Progress reads the
	// one stored.
	cp checkpoint

	mu sync.Mutex
	// pageTime is the moving average of the time per page (gate waits
	// included), lastPage when the last one ended.
	pageTime time.Duration
	lastPage time.Time
	// passEnded, while Pass runs, ends Run once a pass is complete.
	passEnded func()
	ended     bool
}

// NewHarvester builds the harvester of idx from src as h says. The scope
// (h.Scope) is ParseScope's canonical form.
func NewHarvester(idx *Index, src Source, h replica.Harvest) (*Harvester, error) {
	since, err := ParseScope(h.Scope)
	if err != nil {
		return nil, err
	}
	if src.Request == nil || src.Parse == nil || src.PageSize < 1 || src.Epoch == "" {
		return nil, fmt.Errorf("%s's harvest needs a request, a parser, a page size and an epoch", src.Name)
	}
	interval := h.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	hv := &Harvester{idx: idx, src: src, fetch: h.Fetch, gate: h.Gate, clock: clock.Or(h.Clock), since: since, scope: h.Scope,
		rounds: replica.NewRounds(replica.RoundsConfig{Clock: h.Clock, Relay: h.Relay, Interval: interval, RetryMin: retryMin, RetryMax: retryMax})}
	if hv.gate == nil {
		hv.gate = func(context.Context) error { return nil }
	}
	hv.cp = hv.checkpoint()
	return hv, nil
}

// ParseScope reads a scope: "" (everything), a year or a date, as the
// first day kept, YYYY-MM-DD.
func ParseScope(since string) (string, error) {
	since = strings.TrimSpace(since)
	if since == "" || since == "all" {
		return "", nil
	}
	if y, err := strconv.Atoi(since); err == nil && len(since) == 4 {
		since = fmt.Sprintf("%04d-01-01", y)
	}
	if _, err := time.Parse(time.DateOnly, since); err != nil {
		return "", fmt.Errorf("since %q: give a year such as 2024 or a date YYYY-MM-DD, or all", since)
	}
	return since, nil
}

// Since is the first day the replica keeps, "" every day.
func (h *Harvester) Since() string { return h.since }

// Progress says where the harvest stands (replica.Harvester): Rounds'
// progress, with the stored checkpoint's pass, the records held, the
// days not read whole and the pages left.
func (h *Harvester) Progress() replica.Progress {
	p := h.rounds.Progress()
	cp := h.checkpoint()
	h.mu.Lock()
	pageTime := h.pageTime
	h.mu.Unlock()
	p.PassStart, p.PagesDone, p.CompleteUpTo = cp.Start, cp.Pages, cp.CompleteUpTo
	if n, err := h.idx.Count(); err == nil {
		p.Records = n
	}
	for _, u := range append(cp.LastUnread, cp.Unread...) { // the last pass's, then this one's so far
		p.Unread = append(p.Unread, &u)
	}
	switch {
	case !cp.running() && !cp.CompleteUpTo.IsZero():
		p.PagesLeft = 0
	case cp.Pages == 0:
		p.PagesLeft = -1
	default:
		// Each window still to read is a page at least; a window split
		// shows as more windows, so the estimate grows as it learns.
		p.PagesLeft = len(cp.Pending)
		p.TimeLeft = time.Duration(p.PagesLeft) * pageTime
	}
	return p
}

// checkpoint is the index's checkpoint, or a fresh one when it belongs
// to another scope (or does not read: Run refuses it first).
func (h *Harvester) checkpoint() checkpoint {
	var cp checkpoint
	if raw := h.idx.Checkpoint(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &cp); err != nil {
			return checkpoint{Scope: h.scope}
		}
	}
	if cp.Scope != h.scope {
		return checkpoint{Scope: h.scope}
	}
	return cp
}

// Run harvests until ctx ends or the index fails (replica.Harvester).
func (h *Harvester) Run(ctx context.Context) error {
	if raw := h.idx.Checkpoint(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &checkpoint{}); err != nil {
			return h.rounds.Stop(&replica.UnavailableError{What: h.idx.what, Kind: replica.ErrCorrupt, Err: fmt.Errorf("the harvest's checkpoint: %v", err)})
		}
	}
	h.mu.Lock()
	h.lastPage = h.clock.Now()
	h.mu.Unlock()
	return h.rounds.Run(ctx, feed{h})
}

// Pass runs one pass to its end (the checkpoint's unfinished one, or a
// new one) and returns: nil when it is complete, ctx's error when ctx
// ends first, or the index's *replica.UnavailableError. For tests and
// tools that want one pass; the host runs Run.
func (h *Harvester) Pass(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.mu.Lock()
	h.passEnded, h.ended = cancel, false
	h.mu.Unlock()
	err := h.Run(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.passEnded = nil
	if h.ended {
		return nil
	}
	return err
}

// feed is the harvester as replica.Rounds reads it.
type feed struct{ h *Harvester }

func (f feed) Round() *replica.RoundState { return &f.h.cp.RoundState }

func (f feed) BeginRound() { f.h.cp = f.h.cp.beginPass(f.h.src.Epoch) }

func (f feed) Parts(context.Context) ([]string, error) { return []string{windowsPart}, nil }

func (f feed) CaughtUp(string) bool { return len(f.h.cp.Pending) == 0 }

func (f feed) Page(ctx context.Context, _ string) error { return f.h.page(ctx) }

// Store stores the checkpoint alone: Rounds does so when a pass is
// complete, which ends a Pass.
func (f feed) Store() error {
	if err := f.h.store(f.h.cp, nil); err != nil {
		return err
	}
	f.h.mu.Lock()
	defer f.h.mu.Unlock()
	if f.h.passEnded != nil && !f.h.cp.running() {
		f.h.ended = true
		f.h.passEnded()
	}
	return nil
}

// page asks for the checkpoint's next page and stores it with the
// checkpoint after it.
func (h *Harvester) page(ctx context.Context) error {
	if err := h.gate(ctx); err != nil {
		return fmt.Errorf("waiting for room to ask the platform: %w", err)
	}
	cp := h.cp
	limit := cp.limit(h.src.PageSize)
	body, _, err := h.fetch(ctx, h.src.Request(cp.Pending[0], h.since, cp.Offset, limit))
	if err != nil {
		return err
	}
	page, err := h.src.Parse(body)
	if err != nil {
		return fmt.Errorf("%s's page of %s: %w", h.src.Name, cp.Pending[0], err)
	}
	next, err := cp.advance(h.src, limit, page)
	if err != nil {
		return fmt.Errorf("%s's page of %s from %d: %w", h.src.Name, cp.Pending[0], cp.Offset, err)
	}
	if page.Rejected > 0 {
		h.rounds.Update(func(p *replica.Progress) { p.Rejected, p.LastRejected = p.Rejected+page.Rejected, page.Why })
	}
	kept := page.Records[:0:0]
	for _, r := range page.Records {
		if inScope(r, h.since) {
			kept = append(kept, r)
		}
	}
	if err := h.store(next, kept); err != nil {
		return err
	}
	h.cp = next
	h.notePage()
	return nil
}

// store writes records with cp in one batch.
func (h *Harvester) store(cp checkpoint, records []Record) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	return h.idx.apply(records, b)
}

// pacePageWeight is the weight of the newest page in the moving average
// of the pace: about the last ten pages count.
const pacePageWeight = 0.2

// notePage folds the page just stored into the measured pace.
func (h *Harvester) notePage() {
	now := h.clock.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	took := now.Sub(h.lastPage)
	h.lastPage = now
	if h.pageTime == 0 {
		h.pageTime = took
		return
	}
	h.pageTime += time.Duration(pacePageWeight * float64(took-h.pageTime))
}

// Interface guards
var (
	_ replica.Harvester = (*Harvester)(nil)
	_ replica.RoundFeed = feed{}
	_ replica.Index     = (*Index)(nil)
)
