package replica

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A status names its count after the replica's unit, first, as the
// status page's caselaw member always did, and reads back whatever the
// unit.
func TestStatusJSONNamesItsUnit(t *testing.T) {
	st := Status{Unit: "decisions", Records: 12, PagesDone: 3, PagesLeft: -1, CompleteUpTo: "2026-12-01T00:00:00Z", Dir: "/secret", ErrorDetail: "/secret: no space"}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"decisions":12,"running":false,"pages_done":3,"pages_left":-1,"complete_up_to":"2026-12-01T00:00:00Z"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Status
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Records != 12 || back.Unit != "decisions" || back.PagesDone != 3 || back.CompleteUpTo != st.CompleteUpTo {
		t.Fatalf("read back %+v", back)
	}
	// Every other member, set, is read back as itself, never as the count
	// (a disk size of 7 MB once read as 7 million decisions).
	full := Status{Unit: "records", Records: 49, Running: true, PagesDone: 2, PagesLeft: 5, SecondsLeft: 9,
		CompleteUpTo: "2026-12-01T00:00:00Z", NextPass: "2026-12-01T01:00:00Z", LastError: "x", FailuresInRow: 1,
		Swept: 3, Paused: true, DiskBytes: 7762878, MaxDisk: 1 << 30, Opening: true, Error: "y",
		Sources: []SourceStatus{{Source: "soest", Records: 49, LastChange: "2026-11-01T00:00:00Z", CaughtUpAt: "2026-12-01T00:00:00Z", LagSeconds: 60, Restarts: 1}}}
	b, err = json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var fullBack Status
	if err := json.Unmarshal(b, &fullBack); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fullBack, full) {
		t.Fatalf("read back\n%+v\nwant\n%+v", fullBack, full)
	}
	if b, _ := json.Marshal(Status{Records: 1}); !strings.HasPrefix(string(b), `{"records":1,`) {
		t.Fatalf("without a unit: %s", b)
	}
}

// Provenance says how far a replica got, and never passes a replica that
// is still filling off as complete.
func TestProvenance(t *testing.T) {
	done := Provenance("the index", "decisions", Progress{Records: 5, CompleteUpTo: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if done != "the index, complete up to 2026-12-01T00:00:00Z (5 decisions)" {
		t.Fatal(done)
	}
	filling := Provenance("the index", "records", Progress{Records: 5, PagesDone: 2, PagesLeft: 8, TimeLeft: 90 * time.Minute})
	if filling != "the index, still being built: 5 records so far, 2 of about 10 pages read, about 1h30m0s to go; hits from the part not yet read are missing" {
		t.Fatal(filling)
	}
}
