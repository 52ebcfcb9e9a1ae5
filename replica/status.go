package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Status is a replica's state as the status page, the admin API and the
// metrics show it. In JSON the count of records is named after the
// replica's Unit ("decisions": 12, as /status.json's caselaw member has
// always shown it), first, before the other members.
type Status struct {
	Unit    string `json:"-"` // Spec.Units
	Dir     string `json:"-"` // the admin API only
	Records uint64 `json:"-"` // in JSON under Unit
	Running bool   `json:"running"`
	// PagesDone and PagesLeft: PagesLeft is -1 until the pass's first
	// page gave the feed's count.
	PagesDone     int    `json:"pages_done"`
	PagesLeft     int    `json:"pages_left"`
	SecondsLeft   int64  `json:"seconds_left,omitempty"`
	CompleteUpTo  string `json:"complete_up_to,omitempty"` // RFC 3339; "" before the first complete pass
	NextPass      string `json:"next_pass,omitempty"`
	LastError     string `json:"last_error,omitempty"` // the last failed page, kept after recovery
	FailuresInRow int    `json:"failures_in_row,omitempty"`
	// Swept: records removed because a feed read anew no longer held
	// them (Progress.Swept).
	Swept int `json:"swept,omitempty"`
	// Unread: the parts of the feed the last pass could not read whole
	// (Progress.Unread).
	Unread []string `json:"unread,omitempty"`
	// Paused: an operator paused the harvest (the admin API); the index
	// still answers.
	Paused bool `json:"paused,omitempty"`
	// DiskBytes is what the replica's folder holds; MaxDisk its budget
	// (0: none), which harvesting waits at (DiskBudget).
	DiskBytes int64 `json:"disk_bytes,omitempty"`
	MaxDisk   int64 `json:"max_disk,omitempty"`
	// Sources is the harvest per source (Progress.Sources).
	Sources []SourceStatus `json:"sources,omitempty"`
	// Opening: the index is being opened (after a start or reload; it
	// waits while the config before holds it).
	Opening bool `json:"opening,omitempty"`
	// Error says why the index cannot answer, "" when it can: only the
	// kind of failure ("index unavailable: corrupt"), for anyone to read.
	Error string `json:"error,omitempty"`

	// CompleteUpToTime is CompleteUpTo, for the metrics.
	CompleteUpToTime time.Time `json:"-"`
	// ErrorDetail is the failure as the operator reads it (the admin API,
	// the log): the directory, the system's words for the cause, and
	// what to do. Never on a public answer.
	ErrorDetail string `json:"-"`
}

// SourceStatus is one source's harvest as the status shows it
// (SourceProgress).
type SourceStatus struct {
	Source     string `json:"source"`
	Records    uint64 `json:"records"`
	LastChange string `json:"last_change,omitempty"`  // RFC 3339
	CaughtUpAt string `json:"caught_up_at,omitempty"` // RFC 3339; "" not yet
	LagSeconds int64  `json:"lag_seconds,omitempty"`  // since CaughtUpAt
	Restarts   int    `json:"restarts,omitempty"`
}

// StatusOf is the state of a replica of unit kept under dir whose host
// holds idx and h, or err (ErrOpening while it opens).
func StatusOf(unit, dir string, idx Index, h Harvester, err error) Status {
	st := Status{Unit: unit, Dir: dir, PagesLeft: -1}
	switch {
	case errors.Is(err, ErrOpening):
		st.Opening = true
		return st
	case err != nil:
		st.Error, st.ErrorDetail = PublicReason(err), err.Error()
		return st
	}
	p := h.Progress()
	st.Records, st.Running, st.PagesDone, st.PagesLeft = p.Records, p.Running, p.PagesDone, p.PagesLeft
	st.SecondsLeft, st.FailuresInRow, st.CompleteUpToTime = int64(p.TimeLeft.Seconds()), p.FailuresInRow, p.CompleteUpTo
	st.Swept = p.Swept
	for _, u := range p.Unread {
		st.Unread = append(st.Unread, u.Error())
	}
	for _, s := range p.Sources {
		ss := SourceStatus{Source: s.Source, Records: s.Records, Restarts: s.Restarts}
		if !s.LastChange.IsZero() {
			ss.LastChange = s.LastChange.UTC().Format(time.RFC3339)
		}
		if !s.CaughtUpAt.IsZero() {
			ss.CaughtUpAt = s.CaughtUpAt.UTC().Format(time.RFC3339)
			ss.LagSeconds = int64(s.Lag.Seconds())
		}
		st.Sources = append(st.Sources, ss)
	}
	if !p.CompleteUpTo.IsZero() {
		st.CompleteUpTo = p.CompleteUpTo.UTC().Format(time.RFC3339)
	}
	if !p.NextPass.IsZero() {
		st.NextPass = p.NextPass.UTC().Format(time.RFC3339)
	}
	if p.LastError != nil {
		st.LastError = p.LastError.Error()
	}
	stopped := p.Stopped
	if stopped == nil {
		stopped = idx.Err() // a search found it broken; the harvest may not have tried since
	}
	if stopped != nil {
		st.Error, st.ErrorDetail = PublicReason(stopped), stopped.Error()
	}
	return st
}

// Available says whether the replica answers now.
func (s Status) Available() bool { return s.Error == "" && !s.Opening }

// plainStatus is Status without its JSON methods.
type plainStatus Status

// MarshalJSON writes the count under the replica's unit, first.
func (s Status) MarshalJSON() ([]byte, error) {
	unit := s.Unit
	if unit == "" {
		unit = "records"
	}
	head, err := json.Marshal(map[string]uint64{unit: s.Records})
	if err != nil {
		return nil, err
	}
	rest, err := json.Marshal(plainStatus(s))
	if err != nil {
		return nil, err
	}
	// rest always holds running, pages_done and pages_left.
	return append(append(head[:len(head)-1], ','), rest[1:]...), nil
}

// statusFields are the JSON names of Status's own members, read from its
// tags, so that a member added later is never taken for the count.
func statusFields() map[string]bool {
	fields := map[string]bool{}
	t := reflect.TypeFor[plainStatus]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = true
		}
	}
	return fields
}

// UnmarshalJSON reads what MarshalJSON wrote: the count is the one
// member that is not another field's, whatever the unit.
func (s *Status) UnmarshalJSON(b []byte) error {
	var plain plainStatus
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	fields := statusFields()
	for name, v := range members {
		if fields[name] {
			continue
		}
		if err := json.Unmarshal(v, &plain.Records); err != nil {
			return fmt.Errorf("the replica's count %s: %w", name, err)
		}
		plain.Unit = name
	}
	*s = Status(plain)
	return nil
}
