package replica

import (
	"fmt"
	"time"
)

// Progress is where a replica's harvest stands, for /status, the admin
// API, the metrics and a search's provenance.
type Progress struct {
	Records uint64 // records in the index (decisions, for case law)
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
	// Rejected counts feed entries that were not records (no id, no
	// date) since the harvester started; LastRejected says why the last was.
	Rejected     int
	LastRejected error
	// Swept counts records removed since the harvester started because a
	// feed read anew (after the platform refused a cursor) no longer held
	// them.
	Swept int
	// LastError is the last failed page (fetch or gate), kept after
	// recovery; FailuresInRow is 0 once a page succeeds again.
	LastError     error
	LastErrorAt   time.Time
	FailuresInRow int
	// Stopped is the index failure that ended harvesting, nil while it goes
	// on.
	Stopped error
	// Unread are the parts of the feed the last pass could not read whole,
	// each a typed error saying which and how much (a day holding more
	// records than the platform pages to, say). The pass still completes,
	// so CompleteUpTo holds for the rest; a search's provenance names them.
	// None when the feed was read whole.
	Unread []error
	// Sources is the harvest per part of the feed, for a feed per source
	// (an organisation), by key; none for a feed that is one.
	Sources []SourceProgress
}

// SourceProgress is where the harvest of one source stands.
type SourceProgress struct {
	Source  string
	Records uint64 // held in the index
	// LastChange is the time of the newest record read of the source;
	// CaughtUpAt when its change feed was last read to the end (zero:
	// not yet), and Lag how long ago that is.
	LastChange time.Time
	CaughtUpAt time.Time
	Lag        time.Duration
	// Restarts counts the times its feed was read anew after the
	// platform refused a cursor.
	Restarts int
}

// Provenance says where a search's hits came from and how far the
// replica got: source names it ("BesluitBron's index of Rechtspraak's
// feed"), unit what it holds ("decisions"). A replica still filling says
// so, and that hits from the part not yet read are missing: never a
// silent short list.
func Provenance(source, unit string, p Progress) string {
	if !p.CompleteUpTo.IsZero() {
		s := fmt.Sprintf("%s, complete up to %s (%d %s)", source, p.CompleteUpTo.UTC().Format(time.RFC3339), p.Records, unit)
		if len(p.Unread) > 0 {
			s += fmt.Sprintf(", except %d part(s) of the feed the platform would not page through whole (first: %v)", len(p.Unread), p.Unread[0])
		}
		return s
	}
	s := fmt.Sprintf("%s, still being built: %d %s so far", source, p.Records, unit)
	if p.PagesLeft >= 0 && p.PagesDone > 0 {
		s += fmt.Sprintf(", %d of about %d pages read", p.PagesDone, p.PagesDone+p.PagesLeft)
	}
	if p.TimeLeft > 0 {
		s += ", about " + p.TimeLeft.Round(time.Minute).String() + " to go"
	}
	return s + "; hits from the part not yet read are missing"
}
