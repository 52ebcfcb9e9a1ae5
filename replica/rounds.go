package replica

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
)

// Rounds is the harvest in rounds that every feed read part by part
// shares (a source of OpenBesluitvorming's export, platforms/obv; a
// category of the Tweede Kamer's SyncFeed, platforms/tk). A round reads
// every part to its end, page by page, each page stored with the
// checkpoint after it, so a restart resumes at the next page. When every
// part is caught up, everything the feed held at the round's start is in
// the index (Progress.CompleteUpTo), and the next round starts after the
// interval. A failed page is asked again after a wait (RetryMin doubling
// to RetryMax, and at least what a Retry-After said); an index failure
// (*UnavailableError) ends the harvest. Instances that share one harvest
// (Relay) run the same rounds: a follower starts its round at the
// leader's round start and asks page k of it only once the leader has
// stored more than k pages.
//
// What a round reads and how it stores it is the feed's (RoundFeed);
// Rounds keeps the Progress, which the harvester reads (and adds to)
// while Run runs.
type Rounds struct {
	RoundsConfig
	mu       sync.Mutex
	progress Progress
}

// RoundsConfig is how Rounds runs.
type RoundsConfig struct {
	Clock    clock.Clock // nil: the wall clock
	Relay    *Relay      // nil: alone
	Interval time.Duration
	RetryMin time.Duration
	RetryMax time.Duration
	// AtOnce tells whether a failed page's error asks for the next page
	// at once (a refused cursor whose part starts anew): the error is
	// shown, and nothing is waited for. nil: none does.
	AtOnce func(error) bool
}

// RoundFeed is a harvester's side of Rounds.
type RoundFeed interface {
	// Round is the round state in the harvester's checkpoint, which Run
	// moves on and the harvester stores with every page.
	Round() *RoundState
	// BeginRound marks every part not caught up: a round starts.
	BeginRound()
	// Parts are the parts a round reads, in order; an error is retried
	// as a failed page is.
	Parts(ctx context.Context) ([]string, error)
	// CaughtUp tells whether the round has read part to its end.
	CaughtUp(part string) bool
	// Page reads part's next page and stores it with the checkpoint
	// after it, one more page in Round().Pages; an error stores nothing.
	Page(ctx context.Context, part string) error
	// Store stores the checkpoint alone.
	Store() error
}

// RoundState is where a harvest in rounds stands, as its checkpoint
// keeps it (embedded in the harvester's checkpoint: its JSON names are
// the checkpoint's own).
type RoundState struct {
	// Start is the start of the round under way, zero between rounds.
	Start time.Time `json:"round,omitzero"`
	// Pages are the pages the round has stored.
	Pages int `json:"pages,omitempty"`
	// CompleteUpTo is the start of the last round that caught up every
	// part.
	CompleteUpTo time.Time `json:"complete_up_to,omitzero"`
}

// Pass is the round as a shared harvest reads it (Relay).
func (r RoundState) Pass() Pass {
	return Pass{Start: r.Start, Pages: r.Pages, LastComplete: r.CompleteUpTo}
}

// NewRounds is Rounds as c says, its progress's pages left unknown.
func NewRounds(c RoundsConfig) *Rounds {
	c.Clock = clock.Or(c.Clock)
	r := &Rounds{RoundsConfig: c}
	r.progress.PagesLeft = -1
	return r
}

// Progress is the harvest's progress as Run keeps it (no Records, no
// Sources: those are the index's).
func (r *Rounds) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress
}

// Update changes the progress under its lock.
func (r *Rounds) Update(f func(p *Progress)) {
	r.mu.Lock()
	f(&r.progress)
	r.mu.Unlock()
}

// Stop records the index failure that ends the harvest, and returns it.
func (r *Rounds) Stop(err error) error {
	r.Update(func(p *Progress) { p.Stopped = err })
	return err
}

// Run runs rounds of f until ctx ends (its error) or the index fails
// (that *UnavailableError, in Progress.Stopped too).
func (r *Rounds) Run(ctx context.Context, f RoundFeed) error {
	r.Update(func(p *Progress) { p.Running = true })
	defer r.Update(func(p *Progress) { p.Running = false })
	rs := f.Round()
	for {
		if rs.Start.IsZero() {
			start := r.Clock.Now()
			if r.Relay != nil {
				var err error
				if start, err = r.Relay.PassStart(ctx, start, rs.Pass()); err != nil {
					return err
				}
			}
			rs.Start, rs.Pages = start, 0
			f.BeginRound()
		}
		r.Update(func(p *Progress) {
			p.PassStart, p.PagesDone, p.CompleteUpTo, p.NextPass = rs.Start, rs.Pages, rs.CompleteUpTo, time.Time{}
		})
		parts, err := r.parts(ctx, f)
		if err != nil {
			return err
		}
		for _, part := range parts {
			for !f.CaughtUp(part) {
				if err := r.page(ctx, f, part); err != nil {
					return err
				}
			}
		}
		rs.CompleteUpTo, rs.Start, rs.Pages = rs.Start, time.Time{}, 0
		if err := f.Store(); err != nil {
			return r.Stop(err)
		}
		if r.Relay != nil {
			r.Relay.Stored(ctx, rs.Pass())
		}
		next := r.Clock.Now().Add(r.Interval)
		r.Update(func(p *Progress) {
			p.CompleteUpTo, p.PassStart, p.NextPass = rs.CompleteUpTo, time.Time{}, next
		})
		if err := clock.Sleep(ctx, r.Clock, r.Interval); err != nil {
			return err
		}
	}
}

// parts asks f for the round's parts until it answers.
func (r *Rounds) parts(ctx context.Context, f RoundFeed) ([]string, error) {
	for failures := 0; ; failures++ {
		parts, err := f.Parts(ctx)
		if err == nil {
			return parts, nil
		}
		if err := r.failed(ctx, err, failures); err != nil {
			return nil, err
		}
	}
}

// page reads and stores part's next page, trying again after a failure
// until it succeeds, ctx ends or the index fails. A follower waits first
// until the leader has stored that page.
func (r *Rounds) page(ctx context.Context, f RoundFeed, part string) error {
	rs := f.Round()
	for failures := 0; ; failures++ {
		if r.Relay != nil {
			if err := r.Relay.Follow(ctx, rs.Pass()); err != nil {
				return err
			}
		}
		err := f.Page(ctx, part)
		switch {
		case err == nil:
			r.Update(func(p *Progress) { p.FailuresInRow, p.PagesDone = 0, rs.Pages })
			if r.Relay != nil {
				r.Relay.Stored(ctx, rs.Pass())
			}
			return nil
		case r.AtOnce != nil && r.AtOnce(err) && ctx.Err() == nil:
			r.Update(func(p *Progress) { p.LastError, p.LastErrorAt = err, r.Clock.Now() })
			continue
		}
		if err := r.failed(ctx, err, failures); err != nil {
			return err
		}
	}
}

// failed records a failed try and waits before the next: longer after
// each failure in a row, and at least as long as a Retry-After said. It
// returns ctx's error when ctx ended, and an index failure as the end of
// the harvest.
func (r *Rounds) failed(ctx context.Context, err error, failures int) error {
	var unavailable *UnavailableError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &unavailable):
		return r.Stop(err)
	}
	r.Update(func(p *Progress) {
		p.LastError, p.LastErrorAt, p.FailuresInRow = err, r.Clock.Now(), p.FailuresInRow+1
	})
	wait := Backoff(r.RetryMin, r.RetryMax, failures)
	var re *adapters.RouteError
	if errors.As(err, &re) && re.RetryKnown {
		wait = max(wait, time.Duration(re.RetryAfter)*time.Second)
	}
	return clock.Sleep(ctx, r.Clock, wait)
}
