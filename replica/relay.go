package replica

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/clock"
)

// Several instances, one harvest (docs/scaling.md, "Case law on several
// instances"). Each instance keeps its own replica, but the platform
// should see each page once. One instance leads (it holds a lease the caller
// keeps, in Redis): its harvester runs as alone and publishes, on a
// Board, the start of its pass and how many pages of it it has stored.
// The others follow: a follower starts its pass at the leader's pass
// start, and asks page k only once the leader has stored more than k
// pages of that pass. Their checkpoints are then equal page by page, so
// the follower's requests are the leader's, which the shared cache tier
// answers without asking the platform.
//
// A follower out of step (its unfinished pass is not the leader's, after
// a restart, say) finishes that pass on its own and follows from the
// next one. A follower that becomes the leader (the leader went away and
// its lease expired) carries on from its own checkpoint, which is in
// step. Without a shared store every harvester is Alone.

// Role is a harvester's part in a shared harvest.
type Role int

const (
	// Alone: no shared store (or it does not answer): harvest as the only
	// instance.
	Alone Role = iota
	// Leader: harvest as alone and publish the progress.
	Leader
	// Follower: take the leader's pass start and ask only pages it has
	// stored.
	Follower
)

// Published is what the leader tells the followers: the pass it runs (or
// last completed) and how many of its pages it has stored.
type Published struct {
	PassStart time.Time
	Pages     int
	// Complete: the pass is complete; every page of it may be asked.
	Complete bool
}

// Board is where the leader publishes. Published returns the zero value
// when nothing is published.
type Board interface {
	Publish(ctx context.Context, p Published) error
	Published(ctx context.Context) (Published, error)
}

// Pass is what the relay reads of a harvester's checkpoint: the pass it
// runs and how far, and the last it completed. A harvester whose pages
// follow from its checkpoint alone (the same start and the same pages
// stored give the same next request) can share its harvest.
type Pass struct {
	// Start is the start of the running pass (its upper bound on the
	// feed's modified), zero when none runs.
	Start time.Time
	// Pages is the pages of the running pass stored.
	Pages int
	// LastComplete is the start of the last complete pass.
	LastComplete time.Time
}

// Running reports whether a pass is under way.
func (p Pass) Running() bool { return !p.Start.IsZero() }

// Relay shares one harvest between instances: a harvester calls
// PassStart to choose a new pass's start, Follow before it asks a page,
// and Stored after it stored one (Harvest.Relay).
type Relay struct {
	// Role says what this instance is now; it may change at any time.
	Role  func() Role
	Board Board
	// Clock and Poll: a waiting follower asks the board again every Poll.
	Clock clock.Clock
	Poll  time.Duration
}

// PassStart is the start of this instance's next pass: now for a leader
// or an instance alone; for a follower, the leader's pass start once it
// is newer than the follower's last complete pass (it waits until then,
// or until it leads itself).
func (r *Relay) PassStart(ctx context.Context, now time.Time, last Pass) (time.Time, error) {
	for {
		if r.Role() != Follower {
			return now, nil
		}
		p, err := r.Board.Published(ctx)
		if err == nil && p.PassStart.After(last.LastComplete) {
			return p.PassStart, nil
		}
		// An error of the board is the store's trouble: the role turns
		// Alone and the next round starts the pass here.
		if err := clock.Sleep(ctx, r.Clock, r.Poll); err != nil {
			return time.Time{}, err
		}
		now = r.Clock.Now()
	}
}

// Follow blocks a follower until the leader has stored the page cp asks
// for: the leader runs cp's pass and has stored more than cp.Pages pages
// of it, or completed it. It returns at once for a leader, an instance
// alone, a follower out of step (the leader runs another pass) and when
// the board cannot be read.
func (r *Relay) Follow(ctx context.Context, cp Pass) error {
	for r.Role() == Follower {
		p, err := r.Board.Published(ctx)
		if err != nil || !p.PassStart.Equal(cp.Start) || p.Complete || p.Pages > cp.Pages {
			return nil
		}
		if err := clock.Sleep(ctx, r.Clock, r.Poll); err != nil {
			return err
		}
	}
	return nil
}

// Stored publishes a leader's checkpoint: its pass and the pages stored,
// or the pass it just completed. A failed publish is not retried: the
// next page publishes again, and followers meanwhile wait.
func (r *Relay) Stored(ctx context.Context, cp Pass) {
	if r.Role() != Leader {
		return
	}
	p := Published{PassStart: cp.Start, Pages: cp.Pages}
	if !cp.Running() {
		p = Published{PassStart: cp.LastComplete, Complete: true}
	}
	_ = r.Board.Publish(ctx, p)
}
