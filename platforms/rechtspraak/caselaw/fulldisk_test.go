package caselaw

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

// fullDiskDirEnv tells the test binary it is the child of
// TestFullDiskStopsWritesAndKeepsTheIndexWhole, in a mount namespace of
// its own, and where to mount the small disk.
const fullDiskDirEnv = "CASELAW_FULL_DISK_DIR"

const fullDiskUnavailable = "FULL-DISK-TEST-UNAVAILABLE"

// TestFullDiskStopsWritesAndKeepsTheIndexWhole fills a real 4 MiB tmpfs
// until a write fails with ENOSPC. The test binary runs itself again under
// unshare(1) in a mount namespace of its own, so the tmpfs never shows
// outside it and is gone when the child ends. It needs root; without it
// the test is skipped, except under CI=true, where it fails.
func TestFullDiskStopsWritesAndKeepsTheIndexWhole(t *testing.T) {
	if dir := os.Getenv(fullDiskDirEnv); dir != "" {
		fillTheDisk(t, dir)
		return
	}
	testtier.Full(t, "root and a mount namespace")
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("the full-disk test cannot run under CI: %s", msg)
		}
		t.Skipf("skipping the full-disk test: %s (needs root and unshare)", msg)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		unavailable("no unshare command: %v", err)
	}
	if os.Geteuid() != 0 {
		unavailable("not root")
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private",
		os.Args[0], "-test.run=^TestFullDiskStopsWritesAndKeepsTheIndexWhole$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), fullDiskDirEnv+"="+t.TempDir())
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), fullDiskUnavailable):
		unavailable("%s", out)
	case err != nil || !strings.Contains(string(out), "--- PASS"):
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

func fillTheDisk(t *testing.T, dir string) {
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("%s: mounting a tmpfs: %v", fullDiskUnavailable, err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)

	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var stored, failed Checkpoint
	var writeErr error
	n := 0
	for batch := 0; batch < 10_000 && writeErr == nil; batch++ {
		var ds []Decision
		for range 100 {
			n++
			var words []string
			for w := range 60 { // words that do not compress away
				words = append(words, fmt.Sprintf("w%dx%d", n*61+w, n%97))
			}
			ds = append(ds, ruling(n, strings.Join(words, " ")))
		}
		cp := Checkpoint{NextFrom: n}
		if writeErr = ix.Apply(ds, cp); writeErr == nil {
			stored = cp
		} else {
			failed = cp
		}
	}
	wantUnavailable(t, writeErr, ErrWriteFailed)
	if !strings.Contains(writeErr.Error(), "no space left on device") {
		t.Fatalf("the error %q does not say the disk is full", writeErr)
	}
	t.Logf("the disk filled after %d decisions: %v", stored.NextFrom, writeErr)

	// No more writes, no searches of what may hold half a batch.
	wantUnavailable(t, ix.Apply(nil, Checkpoint{NextFrom: -1}), ErrWriteFailed)
	_, err = ix.Search(context.Background(), Query{Words: "uitspraak"})
	wantUnavailable(t, err, ErrWriteFailed)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	// Room again: the index opens whole, its checkpoint agreeing with its
	// decisions, at the last batch reported stored (or, if the failure
	// came after bleve committed it, the failed one, whole).
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT, "size=64m"); err != nil {
		t.Fatal(err)
	}
	ix, report, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	cp := ix.Checkpoint()
	if report.Rebuilt || (cp.NextFrom != stored.NextFrom && cp.NextFrom != failed.NextFrom) {
		t.Fatalf("reopened %+v at %d, want %d (or %d)", report, cp.NextFrom, stored.NextFrom, failed.NextFrom)
	}
	if got := count(t, ix); got != uint64(cp.NextFrom) {
		t.Fatalf("reopened index holds %d decisions, its checkpoint says %d", got, cp.NextFrom)
	}
	mustApply(t, ix, Checkpoint{NextFrom: cp.NextFrom + 1}, ruling(n+1, "Weer ruimte."))
}
