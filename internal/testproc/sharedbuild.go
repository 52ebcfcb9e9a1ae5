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

// runDir is the directory shared by the test processes of this go test
// run, "" when there is none.
func runDir() string {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return ""
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ppid))
	if err != nil {
		return ""
	}
	// Field 22, the start time, counting after the command's ")".
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("besluitbron-test-bin-%d-%s", ppid, f[19]))
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
	sum := sha256.Sum256([]byte(sp.pkg + "\x00" + sp.stamp))
	name := filepath.Join(dir, hex.EncodeToString(sum[:8]))
	lock, err := os.OpenFile(name+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", false, nil
	}
	defer lock.Close()
	if !lockWait(lock) {
		return "", false, nil
	}
	defer unlock(lock)
	path = name + ".bin"
	if _, err := os.Stat(path); err == nil {
		return path, true, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", true, err
	}
	// Built under another name and renamed: a process killed mid-build
	// leaves no half binary under the shared name.
	tmp := name + ".building"
	if err := build(tmp); err != nil {
		return "", true, err
	}
	return path, true, os.Rename(tmp, path)
}
