package caselaw

import "time"

// Progress is where harvesting stands, for /status, the admin API and
// metrics.
type Progress struct {
	Decisions uint64 // decisions in the index
	// Running: a pass is under way in this process. PassStart is the
	// start of the pass the checkpoint holds (also of one left unfinished
	// by a stopped process), zero when none.
	Running   bool
	PassStart time.Time
	PagesDone int // pages the pass has read, over restarts
	// PagesLeft is estimated from the feed's total; -1 until the pass's
	// first page says it. TimeLeft is PagesLeft at the measured pace (gate
	// waits included); 0 while unknown.
	PagesLeft int
	TimeLeft  time.Duration
	// CompleteUpTo is the start of the last complete pass: every change
	// the feed made before it is in the index. Zero until a pass completes.
	CompleteUpTo time.Time
	NextPass     time.Time // while waiting between passes
	// Rejected counts feed entries that were not decisions (no ECLI, no
	// date) since the harvester started; LastRejected says why the last was.
	Rejected     int
	LastRejected error
	// LastError is the last failed page (fetch or gate), kept after
	// recovery; FailuresInRow is 0 once a page succeeds again.
	LastError     error
	LastErrorAt   time.Time
	FailuresInRow int
	// Stopped is the index failure that ended harvesting, nil while it goes
	// on.
	Stopped error
}

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
	p.Decisions, _ = h.idx.Count() // a failed index shows in Stopped
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
