// Package testproc runs the repository's own Caddy binaries as real child
// processes for tests (restart, kill -9, several instances), builds them
// once per go test run, and hands out free loopback ports, so packages can
// run their tests at the same time. It does not link Caddy: Caddy in the
// test process is internal/testcaddy's.
package testproc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

// Ports for tests come from a block of 400 below the kernel's ephemeral
// range (32768 and up on Linux), claimed by this test process alone: a
// port the kernel hands out for Listen(":0") is also what it hands out as
// the source port of outgoing connections, and test processes of other
// packages make thousands of those, so a port found free a moment ago
// could be taken before Caddy binds it ("address already in use", seen
// in CI). A block is claimed with an exclusive lock on a file in the
// temporary directory, held until the process ends, so packages running
// at the same time never share a block.
const (
	portBlockBase = 10000
	portBlockSize = 400
	portBlocks    = 55 // 10000 up to 32000
)

var ports = struct {
	sync.Mutex
	base, next int
	claimed    bool
	lock       *os.File     // held open: the block's claim
	handedOut  map[int]bool // every port FreePort returned in this process
}{handedOut: map[int]bool{}}

// claimBlock claims a free block of ports (base 0: none could be claimed).
func claimBlock() {
	ports.claimed = true
	start := os.Getpid() % portBlocks
	for i := range portBlocks {
		n := (start + i) % portBlocks
		f, err := os.OpenFile(filepath.Join(os.TempDir(), fmt.Sprintf("besluitbron-test-ports-%d.lock", n)), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return
		}
		if lockExclusive(f) {
			ports.lock, ports.base = f, portBlockBase+n*portBlockSize
			return
		}
		f.Close()
	}
}

// FreePort returns a loopback TCP port that is free now, that no earlier
// call in this process returned, and that no other test process will
// pick (see the block above).
func FreePort(t testing.TB) int {
	t.Helper()
	ports.Lock()
	defer ports.Unlock()
	if !ports.claimed {
		claimBlock()
	}
	for ports.base != 0 && ports.next < portBlockSize {
		port := ports.base + ports.next
		ports.next++
		// A service of the machine may listen in the block: skip it.
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
		if err != nil {
			continue
		}
		l.Close()
		ports.handedOut[port] = true
		return port
	}
	// No block (or it is used up): ask the kernel, as before.
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !ports.handedOut[port] {
			ports.handedOut[port] = true
			return port
		}
	}
	t.Fatal("finding a free port: every port the kernel offered was handed out before")
	return 0
}

var (
	builtMu sync.Mutex
	built   = map[buildSpec]*build{}
)

type build struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the repository's ./cmd/caddy, the product (no emulators),
// once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	return buildCmd(t, "./cmd/caddy")
}

// OfflineBinary builds ./cmd/caddy-offline, the product plus the platform
// emulators (besluitbron_emulator), as ./xcaddy.sh offline does, once per
// test process and returns its path. For tests whose child process serves
// an emulator itself; the others use Binary.
func OfflineBinary(t testing.TB) string {
	t.Helper()
	return buildCmd(t, "./cmd/caddy-offline")
}

// buildCmd builds the command package pkg (relative to the module root)
// once per test process.
func buildCmd(t testing.TB, pkg string) string {
	t.Helper()
	testtier.Full(t, "a Caddy binary built with go build")
	return builds(t, []buildSpec{{pkg: pkg}})[0]
}

// buildSpec is one binary: a command package and the version stamp
// linked into it ("" for none).
type buildSpec struct{ pkg, stamp string }

// builds builds each spec once per test process, those not built yet at
// the same time (on two cores the links overlap: each is mostly one
// process's work), and returns their paths in order.
func builds(t testing.TB, specs []buildSpec) []string {
	t.Helper()
	bs := make([]*build, len(specs))
	var wg sync.WaitGroup
	for i, sp := range specs {
		builtMu.Lock()
		b := built[sp]
		if b == nil {
			b = &build{}
			built[sp] = b
		}
		builtMu.Unlock()
		bs[i] = b
		wg.Go(func() { b.once.Do(func() { b.path, b.err = goBuild(sp) }) })
	}
	wg.Wait()
	paths := make([]string, len(bs))
	for i, b := range bs {
		if b.err != nil {
			t.Fatal(b.err)
		}
		paths[i] = b.path
	}
	return paths
}

// goBuild builds one spec: shared with the other test processes of this
// go test run (sharedbuild.go), or else into a new temporary directory.
func goBuild(sp buildSpec) (string, error) {
	if path, ok, err := sharedBuild(sp, func(path string) error { return runGoBuild(sp, path) }); ok {
		return path, err
	}
	dir, err := os.MkdirTemp("", "besluitbron-caddy-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "caddy")
	return path, runGoBuild(sp, path)
}

// runGoBuild runs go build for one spec, writing the binary to path.
func runGoBuild(sp buildSpec, path string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	args := []string{"build", "-o", path}
	if sp.stamp != "" {
		args = append(args, "-ldflags", "-X github.com/besluitbron/besluitbron/caddymodule/version.Override="+sp.stamp)
	}
	cmd := exec.Command("go", append(args, sp.pkg)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		if sp.stamp != "" {
			return fmt.Errorf("go build %s stamped %q: %v\n%s", sp.pkg, sp.stamp, err, out)
		}
		return fmt.Errorf("go build %s: %v\n%s", sp.pkg, err, out)
	}
	return nil
}

// StampedBinary builds ./cmd/caddy with the version stamp linked in, as
// ./xcaddy.sh does (-ldflags -X .../caddymodule/version.Override=stamp),
// once per stamp and test process, and returns its path. Only the link
// step differs from Binary's build, so Go's build cache serves the rest.
func StampedBinary(t testing.TB, stamp string) string {
	t.Helper()
	return StampedBinaries(t, stamp)[0]
}

// StampedBinaries is StampedBinary for several stamps, linked at the same
// time.
func StampedBinaries(t testing.TB, stamps ...string) []string {
	t.Helper()
	testtier.Full(t, "a Caddy binary built with go build")
	specs := make([]buildSpec, len(stamps))
	for i, s := range stamps {
		specs[i] = buildSpec{pkg: "./cmd/caddy", stamp: s}
	}
	return builds(t, specs)
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the module")
	}
	return filepath.Dir(gomod), nil
}

// Process is a real Caddy child process.
type Process struct {
	cmd    *exec.Cmd
	Output *bytes.Buffer // stdout and stderr so far
	done   chan struct{}
	mu     sync.Mutex
}

// Start runs `caddy run --config <caddyfile> --adapter caddyfile` with the
// given extra environment (KEY=VALUE) and the XDG directories under
// xdgDir, and waits until healthURL answers (any status). The process is
// killed when the test ends if it still runs.
func Start(t testing.TB, caddyfilePath, xdgDir, healthURL string, env ...string) *Process {
	t.Helper()
	return StartBinary(t, Binary(t), caddyfilePath, xdgDir, healthURL, env...)
}

// StartBinary is Start with a given caddy binary (see StampedBinary).
func StartBinary(t testing.TB, binary, caddyfilePath, xdgDir, healthURL string, env ...string) *Process {
	t.Helper()
	testtier.Full(t, "a Caddy child process")
	cmd := exec.Command(binary, "run", "--config", caddyfilePath, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(),
		"XDG_DATA_HOME="+filepath.Join(xdgDir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(xdgDir, "config"))
	cmd.Env = append(cmd.Env, env...)
	p := &Process{cmd: cmd, Output: new(bytes.Buffer), done: make(chan struct{})}
	w := &lockedWriter{p: p}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting caddy: %v", err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.Kill() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-p.done:
			t.Fatalf("caddy exited during start:\n%s", p.Log())
		default:
		}
		resp, err := http.Get(healthURL)
		if err == nil {
			resp.Body.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("caddy did not answer %s within 60s:\n%s", healthURL, p.Log())
		}
		time.Sleep(50 * time.Millisecond) // polling a child process's start, not waiting for time to pass
	}
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Log returns what the process printed so far.
func (p *Process) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Output.String()
}

// Kill sends SIGKILL (kill -9) and waits for the process to end.
func (p *Process) Kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	<-p.done
}

// Stop asks for a graceful shutdown (SIGINT) and waits up to timeout.
func (p *Process) Stop(timeout time.Duration) error {
	_ = p.cmd.Process.Signal(os.Interrupt)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		p.Kill()
		return fmt.Errorf("caddy did not stop within %s", timeout)
	}
}

type lockedWriter struct{ p *Process }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.Output.Write(b)
}

// EmulatorRequests returns how many requests the emulator at base (a
// besluitbron_emulator site, with its path prefix if it has one) answered,
// from its own /_emulator/stats: the count tests hold cache hits and
// coalescing against.
func EmulatorRequests(t testing.TB, base string) int64 {
	t.Helper()
	resp, err := http.Get(base + "/_emulator/stats")
	if err != nil {
		t.Fatalf("emulator stats: %v", err)
	}
	defer resp.Body.Close()
	var st struct {
		Total int64 `json:"total"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("emulator stats: %v", err)
	}
	return st.Total
}

// BaseURLEnv names the environment variable the default Caddyfile reads
// (as a {$VAR} placeholder) into a platform's base_url: BESLUITBRON_<KEY>_URL.
func BaseURLEnv(key string) string { return "BESLUITBRON_" + strings.ToUpper(key) + "_URL" }
