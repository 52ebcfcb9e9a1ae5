package testproc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// One `go test ./...` runs a test process per package, and several of
// them build the same binary (./cmd/caddy-offline for the root package,
// the site and the multi-instance tests): each link costs seconds of a
// core. The test processes of one run share what they build, in a
// directory named after that run's go command (its process id and start
// time, so a later run never finds it): the first to need a binary builds
// it under a lock, the others wait for it and use it. The source does not
// change during one run, so the binary is the one each would have built.
// A test process not started by a go command builds its own (as on
// systems without /proc or file locks).
//
// A run's binary is a hard link to a kept build: one file per clone and
// spec in the temporary directory, rebuilt with `go build -o` over
// itself. The go command links again only when the build ID it would
// write differs from the file's (source, flags or toolchain changed), so
// a run on an unchanged tree links nothing, as it compiles nothing. The
// go command replaces the file rather than writing into it, so a run
// still using the old binary keeps it. Run directories whose go command
// has ended are removed when a new run starts.

// runDir is the directory shared by the test processes of this go test
// run, "" when there is none.
func runDir() string {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return ""
	}
	start, ok := startTime(ppid)
	if !ok {
		return ""
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-%s", runDirPrefix, ppid, start))
}

// runDirPrefix begins the name of every run directory.
const runDirPrefix = "besluitbron-test-bin-"

// startTime returns the start time of process pid (field 22 of its
// /proc stat, in clock ticks since boot), false when there is no such
// process.
func startTime(pid int) (string, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	// Counting after the command's ")", which may hold spaces.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}

// sharedBuild returns the binary of sp built once for this go test run,
// building it if no test process of the run has; ok is false when the
// binary cannot be shared here (the caller builds its own).
func sharedBuild(sp buildSpec, build func(path string) error) (path string, ok bool, err error) {
	dir := runDir()
	if dir == "" {
		return "", false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, nil
	}
	removeEndedRuns(dir)
	name, release, ok := lockName(dir, sp.pkg, sp.stamp)
	if !ok {
		return "", false, nil
	}
	defer release()
	path = name + ".bin"
	if _, err := os.Stat(path); err == nil {
		return path, true, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", true, err
	}
	if kept, ok, err := keptBuild(sp, build); err != nil {
		return "", true, err
	} else if ok && os.Link(kept, path) == nil {
		return path, true, nil
	}
	// Built under another name and renamed: a process killed mid-build
	// leaves no half binary under the shared name.
	tmp := name + ".building"
	if err := build(tmp); err != nil {
		return "", true, err
	}
	return path, true, os.Rename(tmp, path)
}

// keptBuild brings sp's kept build up to date under a lock that every
// run shares, and returns its path; ok is false when there can be no kept
// build here (the caller builds into the run directory).
func keptBuild(sp buildSpec, build func(path string) error) (path string, ok bool, err error) {
	root, err := moduleRoot()
	if err != nil {
		return "", false, nil
	}
	dir := filepath.Join(os.TempDir(), "besluitbron-kept-test-bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, nil
	}
	name, release, ok := lockName(dir, root, sp.pkg, sp.stamp)
	if !ok {
		return "", false, nil
	}
	defer release()
	path = name + ".bin"
	return path, true, build(path)
}

// lockName names a file in dir after parts and takes the lock beside it,
// waiting for it; release ends the lock. ok is false when it cannot be
// taken here.
func lockName(dir string, parts ...string) (name string, release func(), ok bool) {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	name = filepath.Join(dir, hex.EncodeToString(sum[:8]))
	lock, err := os.OpenFile(name+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, false
	}
	if !lockWait(lock) {
		lock.Close()
		return "", nil, false
	}
	return name, func() { unlock(lock); lock.Close() }, true
}

// removeEndedRuns removes the run directories beside dir whose go command
// has ended: the process is gone, or its id now names a later process.
func removeEndedRuns(dir string) {
	others, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), runDirPrefix+"*"))
	for _, other := range others {
		if other == dir {
			continue
		}
		var pid int
		var start string
		if _, err := fmt.Sscanf(strings.TrimPrefix(filepath.Base(other), runDirPrefix), "%d-%s", &pid, &start); err != nil {
			continue
		}
		if started, ok := startTime(pid); !ok || started != start {
			_ = os.RemoveAll(other)
		}
	}
}
