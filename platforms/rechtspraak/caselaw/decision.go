package caselaw

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/replica"
)

// Decision is one entry of Rechtspraak's feed: a ruling (Uitspraak) or an
// advisory opinion (Conclusie), identified by its ECLI.
type Decision struct {
	ECLI    string
	Title   string
	Summary string // the feed's inhoudsindicatie; the feed's "-" (none) is stored as ""
	Court   string // the court's name, e.g. "Rechtbank Den Haag"
	Date    string // decision date, YYYY-MM-DD
	Type    string // "Uitspraak" or "Conclusie"
	// Modified is when Rechtspraak last changed the entry; the harvester
	// pages in its order.
	Modified time.Time
	// Deleted marks a tombstone: the decision was withdrawn and leaves the
	// index.
	Deleted bool
}

// The decision types the feed knows.
const (
	TypeRuling  = "Uitspraak"
	TypeOpinion = "Conclusie"
)

// dateLayout is the calendar-date form used for decision dates, query
// date bounds and the harvest scope.
const dateLayout = "2006-01-02"

// maxECLILength bounds an identifier: real ones are about 25 characters,
// so anything near this is garbage from the feed, not a decision.
const maxECLILength = 64

// Real titles are under 200 bytes and summaries under 5,000; the bounds
// keep a feed gone wrong from filling the disk with one entry.
const (
	maxTitleBytes   = 2_000
	maxSummaryBytes = 20_000
)

// normalized returns d as it is stored: trimmed, cut to the bounds, and
// without the feed's "-" placeholder for a missing summary.
func (d Decision) normalized() Decision {
	d.ECLI = strings.TrimSpace(d.ECLI)
	d.Title = truncate(strings.TrimSpace(d.Title), maxTitleBytes)
	d.Summary = truncate(strings.TrimSpace(d.Summary), maxSummaryBytes)
	if d.Summary == "-" {
		d.Summary = ""
	}
	d.Court = strings.TrimSpace(d.Court)
	d.Date = strings.TrimSpace(d.Date)
	d.Type = strings.TrimSpace(d.Type)
	return d
}

// truncate cuts s to at most n bytes, at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// check reports why a normalized decision cannot be stored. A tombstone
// needs only its ECLI: the feed sends nothing else for it.
func (d Decision) check() error {
	if !strings.HasPrefix(d.ECLI, "ECLI:") || len(d.ECLI) > maxECLILength || strings.ContainsAny(d.ECLI, " \t\r\n") {
		return fmt.Errorf("ECLI %.80q is not an ECLI", d.ECLI)
	}
	if d.Deleted {
		return nil
	}
	if _, err := parseDate(d.Date); err != nil {
		return fmt.Errorf("%s: date %.40q: %w", d.ECLI, d.Date, err)
	}
	return nil
}

// parseDate reads a YYYY-MM-DD date within the years a datetime field can
// hold and the feed can contain.
func parseDate(s string) (time.Time, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("not a date in the form YYYY-MM-DD")
	}
	if t.Year() < 1800 || t.Year() > 2200 {
		return time.Time{}, fmt.Errorf("year %d is outside 1800-2200", t.Year())
	}
	return t, nil
}

// Checkpoint is where harvesting stands. It is written in the same bleve
// batch as the decisions of the page it follows, so after a crash the
// index and its checkpoint always agree. paging.go explains the fields a
// pass moves.
type Checkpoint struct {
	// Scope is the harvest scope the checkpoint belongs to (see
	// HarvesterConfig.Since); another scope starts over with a whole pass.
	Scope string `json:"scope,omitempty"`
	// PassStart is when the running pass began, zero when none runs. It is
	// the pass's upper bound on modified.
	PassStart time.Time `json:"pass_start,omitzero"`
	// Since is the running pass's lower bound on modified: the PassStart of
	// the last complete pass, zero for a whole-feed pass.
	Since time.Time `json:"since,omitzero"`
	// Cursor and NextFrom are the position of the next page: entries
	// modified at or after Cursor, skipping the first NextFrom.
	Cursor   time.Time `json:"cursor,omitzero"`
	NextFrom int       `json:"next_from,omitempty"`
	// Total is the feed's count of entries from Cursor on, as of the last
	// page ("Aantal gevonden ECLI's"); Left is how many of them were not
	// read yet; Pages is the pages this pass has read. For progress only.
	Total int `json:"total,omitempty"`
	Left  int `json:"left,omitempty"`
	Pages int `json:"pages,omitempty"`
	// LastComplete is the PassStart of the last complete pass: every
	// change before it is in the index.
	LastComplete time.Time `json:"last_complete,omitzero"`
	// CompletedAt is when that pass finished; the next one starts an
	// interval later.
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

// running reports whether a pass is under way.
func (c Checkpoint) running() bool { return !c.PassStart.IsZero() }

// pass is what a shared harvest reads of the checkpoint (replica.Relay).
func (c Checkpoint) pass() replica.Pass {
	return replica.Pass{Start: c.PassStart, Pages: c.Pages, LastComplete: c.LastComplete}
}

func (c Checkpoint) encode() ([]byte, error) { return json.Marshal(c) }

func decodeCheckpoint(b []byte) (Checkpoint, error) {
	var c Checkpoint
	if len(b) == 0 {
		return c, nil
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return Checkpoint{}, err
	}
	if c.NextFrom < 0 || c.Total < 0 || c.Left < 0 || c.Pages < 0 {
		return Checkpoint{}, fmt.Errorf("negative position %d of %d", c.NextFrom, c.Total)
	}
	return c, nil
}
