package caselaw

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// openTest opens a new index in a temporary directory, closed when the
// test ends.
func openTest(t testing.TB) (*Index, string) {
	t.Helper()
	dir := t.TempDir()
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix, dir
}

// ruling is a decision with everything but the text filled in.
func ruling(n int, summary string) Decision {
	return Decision{
		ECLI:     fmt.Sprintf("ECLI:NL:RBDHA:2020:%d", n),
		Title:    fmt.Sprintf("ECLI:NL:RBDHA:2020:%d, Rechtbank Den Haag, 02-01-2020, C/09/%d", n, 500000+n),
		Summary:  summary,
		Court:    "Rechtbank Den Haag",
		Date:     "2020-01-02",
		Type:     TypeRuling,
		Modified: time.Date(2020, 1, 3, 0, 0, n, 0, time.UTC),
	}
}

func mustApply(t testing.TB, ix *Index, cp Checkpoint, ds ...Decision) {
	t.Helper()
	if err := ix.Apply(ds, cp); err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, ix *Index) uint64 {
	t.Helper()
	n, err := ix.Count()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wantUnavailable fails unless err is an *UnavailableError of kind.
func wantUnavailable(t testing.TB, err, kind error) *UnavailableError {
	t.Helper()
	var ue *UnavailableError
	if !errors.As(err, &ue) || !errors.Is(err, kind) {
		t.Fatalf("error %v (%T), want an *UnavailableError of kind %v", err, err, kind)
	}
	return ue
}

// sameCheckpoint compares checkpoints by instant, not by time.Location.
func sameCheckpoint(a, b Checkpoint) bool {
	return a.Scope == b.Scope && a.PassStart.Equal(b.PassStart) && a.Since.Equal(b.Since) &&
		a.Cursor.Equal(b.Cursor) && a.NextFrom == b.NextFrom && a.Total == b.Total &&
		a.LastComplete.Equal(b.LastComplete) && a.CompletedAt.Equal(b.CompletedAt)
}
