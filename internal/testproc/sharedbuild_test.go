package testproc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A run directory is removed once its go command has ended, and only
// then: each holds hard links to the Caddy binaries of its run (about
// 100 MB each), and no run removes its own.
func TestEndedRunsAreRemoved(t *testing.T) {
	start, ok := startTime(os.Getpid())
	if !ok {
		t.Skip("no /proc here")
	}
	tmp := t.TempDir()
	run := func(name string) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	self := run(fmt.Sprintf("%s%d-%s", runDirPrefix, os.Getpid(), start))
	live := run(fmt.Sprintf("%s%d-%s", runDirPrefix, 1, mustStart(t, 1)))
	reused := run(fmt.Sprintf("%s%d-%s", runDirPrefix, os.Getpid(), start+"0")) // the id now names a later process
	gone := run(fmt.Sprintf("%s%d-%s", runDirPrefix, 1<<30, "5"))
	other := run("besluitbron-kept-test-bin")

	removeEndedRuns(self)
	for dir, want := range map[string]bool{self: true, live: true, reused: false, gone: false, other: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
}

func mustStart(t *testing.T, pid int) string {
	start, ok := startTime(pid)
	if !ok {
		t.Skipf("no process %d to read", pid)
	}
	return start
}
