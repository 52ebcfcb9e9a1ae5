package caselaw

import (
	"time"

	"github.com/besluitbron/besluitbron/replica"
)

// Progress is where harvesting stands (replica.Progress: Records are
// the decisions in the index).
type Progress = replica.Progress

// harvestState is what the harvester knows beyond the checkpoint.
type harvestState struct {
	running       bool
	nextPass      time.Time
	lastPageEnd   time.Time
	pageTime      time.Duration // moving average of the time per page
	rejected      int
	lastRejected  error
	lastErr       error
	lastErrAt     time.Time
	failuresInRow int
	stopped       error
}

// pacePageWeight is the weight of the newest page in the moving average of
// the pace: about the last ten pages count.
const pacePageWeight = 0.2

// notePage folds the page just stored into the measured pace.
func (h *Harvester) notePage() {
	now := h.clock.Now()
	h.update(func(s *harvestState) {
		took := now.Sub(s.lastPageEnd)
		s.lastPageEnd = now
		if s.pageTime == 0 {
			s.pageTime = took
			return
		}
		s.pageTime += time.Duration(pacePageWeight * float64(took-s.pageTime))
	})
}

// Progress returns where harvesting stands.
func (h *Harvester) Progress() Progress {
	cp := h.idx.Checkpoint()
	if cp.Scope != h.scope {
		cp = Checkpoint{}
	}
	h.mu.Lock()
	s := h.state
	h.mu.Unlock()

	p := Progress{
		Running: s.running, PassStart: cp.PassStart, PagesDone: cp.Pages,
		CompleteUpTo: cp.LastComplete, NextPass: s.nextPass,
		Rejected: s.rejected, LastRejected: s.lastRejected,
		LastError: s.lastErr, LastErrorAt: s.lastErrAt, FailuresInRow: s.failuresInRow,
		Stopped: s.stopped,
	}
	if s.running {
		p.NextPass = time.Time{}
	}
	p.Records, _ = h.idx.Count() // a failed index shows in Stopped
	switch {
	case !cp.running():
	case cp.Pages == 0:
		p.PagesLeft = -1
	default:
		p.PagesLeft = (cp.Left + h.pageSize - 1) / h.pageSize
		if s.pageTime > 0 {
			p.TimeLeft = time.Duration(p.PagesLeft) * s.pageTime
		}
	}
	return p
}
