package caselaw

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/replica"
)

// HarvesterConfig is what a Harvester needs. Index and Fetch are required.
type HarvesterConfig struct {
	Index *Index
	Fetch Fetcher
	// Gate is called before every page and blocks until the page may be
	// asked (the integration lets a page go only when visitors leave room
	// in Rechtspraak's budget). nil: every page goes at once.
	Gate func(ctx context.Context) error
	// Clock: nil is the wall clock.
	Clock clock.Clock
	// PassStart chooses the start of a new pass (the pass's upper bound on
	// modified) from now and the checkpoint before it; nil takes now.
	// Instances that share one harvest (replica.Relay) make a follower
	// take the leader's pass start: with the same start, the same
	// checkpoint and the same answers, two harvesters send identical page
	// requests.
	PassStart func(ctx context.Context, now time.Time, last replica.Pass) (time.Time, error)
	// Follow is called before the gate for every page, with the
	// checkpoint that asks for it, and blocks until the page may be asked
	// (a follower waits until the leader has stored it). nil: no wait.
	Follow func(ctx context.Context, cp replica.Pass) error
	// Stored is called after every checkpoint the harvester stores (a new
	// pass, each page, the pass's end), so a leader can publish how far
	// it got. nil: nothing is told.
	Stored func(ctx context.Context, cp replica.Pass)
	// PageSize is the entries asked per page, 1..MaxPageSize; 0 means
	// MaxPageSize.
	PageSize int
	// Interval is the wait from the end of a complete pass to the start of
	// the next; 0 means DefaultInterval.
	Interval time.Duration
	// Since is the harvest scope: "" for the whole feed, a year ("2015")
	// or a date ("2015-06-01"). Decisions dated before it are not stored.
	// A checkpoint of another scope is not continued: the harvester starts
	// over with a whole pass. Narrowing the scope leaves decisions already
	// stored from before it in the index.
	Since string
	// RetryMin and RetryMax bound the wait after a failed page, which
	// doubles from RetryMin with each failure in a row; 0 means the
	// defaults.
	RetryMin, RetryMax time.Duration
}

// The harvester's defaults. Rechtspraak publishes through the day; an
// incremental pass an hour is a few pages and keeps the index at most
// about an hour behind. A failing feed is asked again after 5 seconds,
// then less and less often, at least every 5 minutes.
const (
	DefaultInterval = time.Hour
	DefaultRetryMin = 5 * time.Second
	DefaultRetryMax = 5 * time.Minute
)

// Harvester keeps the index up to date with the feed: pass after pass,
// each asking for what changed since the last complete one (paging.go).
// Each page is stored with the checkpoint that follows it, so a harvester
// started on a reopened index resumes where the last one stopped.
// Progress is safe to call from any goroutine while Run runs.
type Harvester struct {
	idx      *Index
	fetch    Fetcher
	gate     func(ctx context.Context) error
	follow   func(ctx context.Context, cp replica.Pass) error
	stored   func(ctx context.Context, cp replica.Pass)
	start    func(ctx context.Context, now time.Time, last replica.Pass) (time.Time, error)
	clock    clock.Clock
	pageSize int
	interval time.Duration
	scope    string // "" or YYYY-MM-DD
	retryMin time.Duration
	retryMax time.Duration

	mu    sync.Mutex
	state harvestState
}

// NewHarvester checks cfg and fills in its defaults.
func NewHarvester(cfg HarvesterConfig) (*Harvester, error) {
	if cfg.Index == nil || cfg.Fetch == nil {
		return nil, errors.New("caselaw harvester: Index and Fetch are required")
	}
	scope, err := ParseScope(cfg.Since)
	if err != nil {
		return nil, err
	}
	h := &Harvester{
		idx: cfg.Index, fetch: cfg.Fetch, gate: cfg.Gate, clock: cfg.Clock,
		follow: cfg.Follow, stored: cfg.Stored, start: cfg.PassStart,
		pageSize: cfg.PageSize, interval: cfg.Interval, scope: scope,
		retryMin: cfg.RetryMin, retryMax: cfg.RetryMax,
	}
	if h.gate == nil {
		h.gate = func(context.Context) error { return nil }
	}
	h.clock = clock.Or(h.clock)
	if h.follow == nil {
		h.follow = func(context.Context, replica.Pass) error { return nil }
	}
	if h.stored == nil {
		h.stored = func(context.Context, replica.Pass) {}
	}
	if h.start == nil {
		h.start = func(_ context.Context, now time.Time, _ replica.Pass) (time.Time, error) { return now, nil }
	}
	if h.pageSize == 0 {
		h.pageSize = MaxPageSize
	}
	if h.pageSize < 1 || h.pageSize > MaxPageSize {
		return nil, fmt.Errorf("caselaw harvester: page size %d is out of range 1..%d", h.pageSize, MaxPageSize)
	}
	if h.interval <= 0 {
		h.interval = DefaultInterval
	}
	if h.retryMin <= 0 {
		h.retryMin = DefaultRetryMin
	}
	if h.retryMax < h.retryMin {
		h.retryMax = max(DefaultRetryMax, h.retryMin)
	}
	return h, nil
}

// ParseScope reads the harvest scope: "" (the whole feed), a year or a
// date, as the date from which decisions are kept.
func ParseScope(since string) (string, error) {
	since = strings.TrimSpace(since)
	if since == "" {
		return "", nil
	}
	if year, err := strconv.Atoi(since); err == nil && len(since) == 4 {
		since = fmt.Sprintf("%04d-01-01", year)
	}
	if _, err := parseDate(since); err != nil {
		return "", fmt.Errorf("caselaw harvester: scope %q is neither a year nor a date YYYY-MM-DD: %v", since, err)
	}
	return since, nil
}

// Run harvests until ctx ends (returning its error) or the index fails
// (returning that *UnavailableError, which Progress also shows). Fetch
// and gate errors never end it: it waits and asks again.
func (h *Harvester) Run(ctx context.Context) error {
	for {
		cp := h.checkpoint()
		if !cp.running() && !cp.LastComplete.IsZero() {
			next := cp.CompletedAt.Add(h.interval)
			h.update(func(s *harvestState) { s.nextPass = next })
			if d := next.Sub(h.clock.Now()); d > 0 {
				if err := clock.Sleep(ctx, h.clock, d); err != nil {
					return err
				}
			}
		}
		if err := h.Pass(ctx); err != nil {
			return err
		}
	}
}

// Pass runs one pass to its end: the unfinished pass of the checkpoint,
// or a new one. It returns nil when the pass is complete, ctx's error when
// ctx ends first (the checkpoint then holds the last page stored), or the
// index's *UnavailableError.
func (h *Harvester) Pass(ctx context.Context) error {
	cp := h.checkpoint()
	if !cp.running() {
		start, err := h.start(ctx, h.clock.Now(), cp.pass())
		if err != nil {
			return err
		}
		cp = cp.startPass(start)
		if err := h.apply(ctx, nil, cp); err != nil {
			return err
		}
	}
	h.update(func(s *harvestState) {
		s.running, s.nextPass, s.lastPageEnd = true, time.Time{}, h.clock.Now()
	})
	defer h.update(func(s *harvestState) { s.running = false })

	for {
		req := cp.request(h.pageSize)
		page, err := h.fetchPage(ctx, cp, req)
		if err != nil {
			return err
		}
		next, complete := cp.advance(req, page, h.clock.Now())
		if err := h.apply(ctx, h.keep(page.Decisions), next); err != nil {
			return err
		}
		h.notePage()
		if complete {
			return nil
		}
		cp = next
	}
}

// checkpoint is the index's checkpoint, or a fresh one when it belongs to
// another scope.
func (h *Harvester) checkpoint() Checkpoint {
	cp := h.idx.Checkpoint()
	if cp.Scope != h.scope {
		return Checkpoint{Scope: h.scope}
	}
	return cp
}

// fetchPage asks for req through the gate until an answer is a page,
// waiting longer after each failure in a row.
func (h *Harvester) fetchPage(ctx context.Context, cp Checkpoint, req PageRequest) (FeedPage, error) {
	for failures := 0; ; failures++ {
		page, err := h.tryPage(ctx, cp, req)
		if err == nil {
			h.update(func(s *harvestState) { s.failuresInRow = 0 })
			return page, nil
		}
		if ctx.Err() != nil {
			return FeedPage{}, ctx.Err()
		}
		h.update(func(s *harvestState) {
			s.lastErr, s.lastErrAt, s.failuresInRow = err, h.clock.Now(), s.failuresInRow+1
		})
		if err := clock.Sleep(ctx, h.clock, h.backoff(failures)); err != nil {
			return FeedPage{}, err
		}
	}
}

// tryPage makes one attempt. A fetcher that panics on a garbage answer
// fails the attempt, not the process.
func (h *Harvester) tryPage(ctx context.Context, cp Checkpoint, req PageRequest) (page FeedPage, err error) {
	if err := h.follow(ctx, cp.pass()); err != nil {
		return FeedPage{}, fmt.Errorf("waiting for the leading harvester: %w", err)
	}
	if err := h.gate(ctx); err != nil {
		return FeedPage{}, fmt.Errorf("waiting for room to ask the feed: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			page, err = FeedPage{}, fmt.Errorf("the page fetcher panicked: %v", r)
		}
	}()
	if page, err = h.fetch(ctx, req); err != nil {
		return FeedPage{}, err
	}
	return page, checkPage(req, page)
}

func (h *Harvester) backoff(failures int) time.Duration {
	return replica.Backoff(h.retryMin, h.retryMax, failures)
}

// keep returns the entries to store: normalized, without the ones that
// are not decisions (counted as rejected) and without decisions dated
// before the scope (a tombstone is always kept: removing is harmless).
func (h *Harvester) keep(entries []Decision) []Decision {
	out := make([]Decision, 0, len(entries))
	var rejected int
	var why error
	for _, d := range entries {
		d = d.normalized()
		if err := d.check(); err != nil {
			rejected, why = rejected+1, err
			continue
		}
		if !d.Deleted && h.scope != "" && d.Date < h.scope {
			continue
		}
		out = append(out, d)
	}
	if rejected > 0 {
		h.update(func(s *harvestState) { s.rejected, s.lastRejected = s.rejected+rejected, why })
	}
	return out
}

// apply stores a page; an index failure stops the harvester.
func (h *Harvester) apply(ctx context.Context, batch []Decision, cp Checkpoint) error {
	err := h.idx.Apply(batch, cp)
	if err != nil {
		h.update(func(s *harvestState) { s.stopped = err })
		return err
	}
	h.stored(ctx, cp.pass())
	return nil
}

func (h *Harvester) update(f func(*harvestState)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(&h.state)
}
