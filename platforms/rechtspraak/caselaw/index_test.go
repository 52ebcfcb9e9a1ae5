package caselaw

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testtier"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

func TestOpenCreatesThenReopens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, report, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !report.Created || report.Rebuilt || report.Stamp == "" {
		t.Fatalf("first open: %+v, want Created with a stamp", report)
	}
	if n := count(t, ix); n != 0 {
		t.Fatalf("new index holds %d decisions", n)
	}
	cp := Checkpoint{NextFrom: 1000, Total: 5000, PassStart: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	mustApply(t, ix, cp, ruling(1, "Huurrecht."))
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ix, report, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if report.Created || report.Rebuilt {
		t.Fatalf("reopen: %+v, want neither created nor rebuilt", report)
	}
	if n := count(t, ix); n != 1 {
		t.Fatalf("reopened index holds %d decisions, want 1", n)
	}
	if got := ix.Checkpoint(); !sameCheckpoint(got, cp) {
		t.Fatalf("reopened checkpoint %+v, want %+v", got, cp)
	}
}

func TestApplyUpsertsByECLIAndTombstonesRemove(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	mustApply(t, ix, Checkpoint{}, ruling(1, "Huurrecht. Ontbinding."), ruling(2, "Arbeidsrecht. Ontslag."))
	changed := ruling(1, "Huurrecht. Huurprijsvermindering.")
	mustApply(t, ix, Checkpoint{}, changed)
	if n := count(t, ix); n != 2 {
		t.Fatalf("after an update: %d decisions, want 2", n)
	}
	res, err := ix.Search(context.Background(), Query{Words: "huurprijsvermindering"})
	if err != nil || res.Total != 1 || res.Hits[0].ECLI != changed.ECLI {
		t.Fatalf("the updated summary is not the one found: %+v %v", res, err)
	}
	if res, _ := ix.Search(context.Background(), Query{Words: "ontbinding"}); res.Total != 0 {
		t.Fatalf("the old summary is still found: %+v", res)
	}

	mustApply(t, ix, Checkpoint{}, Decision{ECLI: ruling(2, "").ECLI, Deleted: true})
	if n := count(t, ix); n != 1 {
		t.Fatalf("after a tombstone: %d decisions, want 1", n)
	}
}

func TestSummaryDashMeansNone(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	mustApply(t, ix, Checkpoint{}, ruling(1, " - "))
	res, err := ix.Search(context.Background(), Query{Court: "Rechtbank Den Haag"})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if res.Hits[0].Snippet != "" {
		t.Fatalf("summary %q, want none for the feed's \"-\"", res.Hits[0].Snippet)
	}
}

func TestApplyRefusesABadDecisionBeforeWritingAnything(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	before := Checkpoint{NextFrom: 10}
	mustApply(t, ix, before, ruling(1, "Huurrecht."))
	for name, bad := range map[string]Decision{
		"no ECLI":       {Title: "x", Date: "2020-01-01"},
		"not an ECLI":   {ECLI: "12345", Date: "2020-01-01"},
		"ECLI too long": {ECLI: "ECLI:" + strings.Repeat("X", 100), Date: "2020-01-01"},
		"no date":       {ECLI: "ECLI:NL:HR:2020:1"},
		"bad date":      {ECLI: "ECLI:NL:HR:2020:1", Date: "02-01-2020"},
		"year 0001":     {ECLI: "ECLI:NL:HR:2020:1", Date: "0001-01-01"},
	} {
		err := ix.Apply([]Decision{ruling(2, "Arbeidsrecht."), bad}, Checkpoint{NextFrom: 20})
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		if ix.Err() != nil {
			t.Fatalf("%s: a caller's mistake broke the index: %v", name, ix.Err())
		}
	}
	if n := count(t, ix); n != 1 {
		t.Fatalf("a refused batch was partly written: %d decisions, want 1", n)
	}
	if got := ix.Checkpoint(); !sameCheckpoint(got, before) {
		t.Fatalf("a refused batch moved the checkpoint to %+v", got)
	}
	// A tombstone needs only its ECLI.
	mustApply(t, ix, Checkpoint{}, Decision{ECLI: ruling(1, "").ECLI, Deleted: true})
}

// An index written with another mapping is rebuilt empty, checkpoint and
// all, never read: the same rule as the cache's version stamps.
func TestAnotherMappingStampRebuilds(t *testing.T) {
	t.Parallel()
	for name, tamper := range map[string]func(stampFile string) error{
		"another stamp": func(f string) error { return os.WriteFile(f, []byte("caselaw-v0-0123456789abcdef"), 0o644) },
		"no stamp":      os.Remove,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ix, _, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			mustApply(t, ix, Checkpoint{NextFrom: 1, LastComplete: time.Now()}, ruling(1, "Huurrecht."))
			ix.Close()
			if err := tamper(filepath.Join(dir, bleveindex.DirName, bleveindex.StampFileName)); err != nil {
				t.Fatal(err)
			}

			ix, report, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if !report.Rebuilt || report.Created || report.Reason == "" {
				t.Fatalf("report %+v, want Rebuilt with a reason", report)
			}
			if name == "another stamp" && !strings.Contains(report.Reason, "caselaw-v0-0123456789abcdef") {
				t.Fatalf("reason %q does not name the old stamp", report.Reason)
			}
			if n := count(t, ix); n != 0 {
				t.Fatalf("rebuilt index holds %d decisions", n)
			}
			if cp := ix.Checkpoint(); !sameCheckpoint(cp, Checkpoint{}) {
				t.Fatalf("rebuilt index kept the checkpoint %+v", cp)
			}
			ix.Close()
			if _, report, _ := Open(dir); report.Rebuilt || report.Created {
				t.Fatalf("the rebuilt index was rebuilt again: %+v", report)
			}
		})
	}
}

// A rebuild that died halfway leaves index.new behind; the next Open
// clears it.
func TestOpenClearsAnUnfinishedBuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, bleveindex.NewDirName, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, bleveindex.NewDirName, "index_meta.json"), []byte("{half"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, report, err := Open(dir)
	if err != nil || !report.Created {
		t.Fatalf("%+v %v", report, err)
	}
	ix.Close()
	if _, err := os.Stat(filepath.Join(dir, bleveindex.NewDirName)); !os.IsNotExist(err) {
		t.Fatalf("index.new is still there: %v", err)
	}
}

// Garbage in the index files is an operator-visible *UnavailableError of
// kind ErrCorrupt, never a panic, and nothing is removed.
func TestCorruptIndexIsATypedError(t *testing.T) {
	t.Parallel()
	garbage := []byte("this is not an index file, only garbage bytes written by a test")
	for name, corrupt := range map[string]func(t *testing.T, indexDir string){
		"metadata": func(t *testing.T, d string) { writeFile(t, filepath.Join(d, "index_meta.json"), garbage) },
		"root bolt": func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "store", "root.bolt"), garbage)
		},
		"segment replaced": func(t *testing.T, d string) {
			for _, z := range segments(t, d) {
				writeFile(t, z, garbage)
			}
		},
		"segment scribbled over": func(t *testing.T, d string) {
			for _, z := range segments(t, d) {
				b, err := os.ReadFile(z)
				if err != nil {
					t.Fatal(err)
				}
				for k := 100; k < len(b)-100; k++ {
					b[k] = byte(k * 7)
				}
				writeFile(t, z, b)
			}
		},
		"batches lost": func(t *testing.T, d string) {
			// What bleve's silent fallback to an older snapshot leaves: an
			// index behind the batches written.
			writeFile(t, filepath.Join(d, bleveindex.GenerationFileName), []byte("2"))
		},
		"checkpoint": func(t *testing.T, d string) {
			// A checkpoint that is not JSON: written through bleve, so only
			// the harvest state is wrong.
			ix, _, err := Open(filepath.Dir(d))
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.store.Apply(nil, garbage); err != nil {
				t.Fatal(err)
			}
			ix.Close()
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ix, _, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			var batch []Decision
			for n := range 50 {
				batch = append(batch, ruling(n, "Huurrecht. Ontbinding van de huurovereenkomst."))
			}
			mustApply(t, ix, Checkpoint{NextFrom: 50}, batch...)
			ix.Close()
			corrupt(t, filepath.Join(dir, bleveindex.DirName))

			ix, report, err := Open(dir)
			if err == nil {
				ix.Close()
				t.Fatalf("a corrupt index opened: %+v", report)
			}
			ue := wantUnavailable(t, err, ErrCorrupt)
			if ue.Dir != dir || !strings.Contains(err.Error(), "remove the directory") {
				t.Fatalf("error %q does not tell the operator what to do", err)
			}
			if _, err := os.Stat(filepath.Join(dir, bleveindex.DirName, bleveindex.StampFileName)); err != nil {
				t.Fatalf("the corrupt index was touched: %v", err)
			}
		})
	}
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func segments(t *testing.T, indexDir string) []string {
	t.Helper()
	zaps, err := filepath.Glob(filepath.Join(indexDir, "store", "*.zap"))
	if err != nil || len(zaps) == 0 {
		t.Fatalf("no segment files: %v", err)
	}
	return zaps
}

// A write that does not reach the disk (here: the store directory is gone,
// so the next segment file cannot be created) makes the index unavailable:
// no more writes, no searches of what may be half a batch. Reopening shows
// the checkpoint and the decisions still agree.
// fulldisk_test.go does the same against a real full disk.
func TestFailedWriteStopsWritesAndSearches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	mustApply(t, ix, Checkpoint{NextFrom: 1}, ruling(1, "Huurrecht."))
	store := filepath.Join(dir, bleveindex.DirName, "store")
	if err := os.Rename(store, store+".away"); err != nil {
		t.Fatal(err)
	}

	err = ix.Apply([]Decision{ruling(2, "Arbeidsrecht.")}, Checkpoint{NextFrom: 2})
	wantUnavailable(t, err, ErrWriteFailed)
	if !strings.Contains(err.Error(), "free disk space") {
		t.Fatalf("error %q does not tell the operator what to do", err)
	}
	wantUnavailable(t, ix.Err(), ErrWriteFailed)
	wantUnavailable(t, ix.Apply(nil, Checkpoint{NextFrom: 3}), ErrWriteFailed)
	_, err = ix.Search(context.Background(), Query{Words: "huurrecht"})
	wantUnavailable(t, err, ErrWriteFailed)
	_, err = ix.Count()
	wantUnavailable(t, err, ErrWriteFailed)
	if err := ix.Close(); err != nil {
		t.Fatalf("closing a failed index: %v", err)
	}

	if err := os.Rename(store+".away", store); err != nil {
		t.Fatal(err)
	}
	ix, _, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, cp := count(t, ix), ix.Checkpoint(); n != uint64(cp.NextFrom) {
		t.Fatalf("after the failed write the index holds %d decisions but its checkpoint says %d", n, cp.NextFrom)
	}
}

// bolt waits for another process's lock; after lockWaitTimeout the second
// Open reports ErrLocked instead of hanging.
func TestSecondOpenIsLocked(t *testing.T) {
	t.Parallel()
	testtier.Full(t, "a two-second lock wait")
	ix, dir := openTest(t)
	_, _, err := Open(dir)
	wantUnavailable(t, err, ErrLocked)
	if n := count(t, ix); n != 0 {
		t.Fatalf("the first index suffered: %d", n)
	}
}

func TestClosedIndexSaysSo(t *testing.T) {
	t.Parallel()
	ix, _ := openTest(t)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := ix.Search(context.Background(), Query{Words: "huur"})
	wantUnavailable(t, err, ErrClosed)
	wantUnavailable(t, ix.Apply(nil, Checkpoint{}), ErrClosed)
}
