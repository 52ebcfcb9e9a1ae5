// Package netnstest gives fault tests a platform host on the far end of a
// real link: a network namespace joined to the test's own by a veth pair,
// whose packets the test can drop all at once. It needs root and
// iproute2; where it cannot build one it skips the test, except under
// CI=true, where it fails it (CI runs as root on a machine that has them).
package netnstest

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

// Path is a network namespace joined to this one by a veth pair: a
// platform host on the far end of a real link whose packets the test can
// drop all at once (the far end's link goes down; nothing is answered,
// nothing is reset).
type Path struct {
	NS, near, far string // namespace, near and far interface names
	nearIP, FarIP string
}

var seqNo atomic.Int64

// New builds the namespace and link, removed when the test ends, or skips
// the test where it cannot (not root, no iproute2, no namespaces). Under
// CI=true it fails instead.
func New(t *testing.T) *Path {
	testtier.Full(t, "network namespaces")
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("network namespace fault test cannot run under CI: %s", msg)
		}
		t.Skipf("skipping the network namespace fault test: %s (needs root and iproute2's ip netns)", msg)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		unavailable("no ip command: %v", err)
	}
	seq := seqNo.Add(1)
	pid := os.Getpid()
	idx := (pid*8 + int(seq)) % 16384
	p := &Path{
		NS:     fmt.Sprintf("bbdead%d-%d", pid, seq),
		near:   fmt.Sprintf("bb%dn%d", pid%100000, seq),
		far:    fmt.Sprintf("bb%df%d", pid%100000, seq),
		nearIP: fmt.Sprintf("10.213.%d.%d", idx/64, idx%64*4+1),
		FarIP:  fmt.Sprintf("10.213.%d.%d", idx/64, idx%64*4+2),
	}
	if out, err := exec.Command("ip", "netns", "add", p.NS).CombinedOutput(); err != nil {
		unavailable("ip netns add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		// Deleting the namespace deletes the far end, and with it the
		// near end of the pair.
		_ = exec.Command("ip", "netns", "del", p.NS).Run()
		_ = exec.Command("ip", "link", "del", p.near).Run()
	})
	for _, args := range [][]string{
		{"link", "add", p.near, "type", "veth", "peer", "name", p.far, "netns", p.NS},
		{"addr", "add", p.nearIP + "/30", "dev", p.near},
		{"link", "set", p.near, "up"},
		{"-n", p.NS, "addr", "add", p.FarIP + "/30", "dev", p.far},
		{"-n", p.NS, "link", "set", p.far, "up"},
		{"-n", p.NS, "link", "set", "lo", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return p
}

// Listen opens a TCP listener inside the namespace: the socket is created
// on a thread that joined it (a socket stays in the namespace it was
// created in, whichever thread serves it later). The thread then joins
// this process's namespace again before the runtime may use it for other
// goroutines. Leaving it locked for its goroutine to end is not enough:
// when that goroutine happens to run on the main thread, the runtime
// parks the main thread instead of ending it, and /proc/self/net, which
// shows the main thread's namespace, would show the test's namespace for
// the rest of the process (internal/testcaddy/oldlisteners.go reads the
// listening sockets there). Where joining back fails, the thread stays
// locked and ends with its goroutine.
func (p *Path) Listen(t *testing.T) net.Listener {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer home.Close()
		f, err := os.Open("/var/run/netns/" + p.NS)
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("setns: %w", err)}
			return
		}
		ln, err := net.Listen("tcp", p.FarIP+":0")
		if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err == nil {
			runtime.UnlockOSThread()
		}
		ch <- result{ln, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatalf("listening in namespace %s: %v", p.NS, r.err)
	}
	t.Cleanup(func() { r.ln.Close() })
	return r.ln
}

// Cut drops every packet on the link from now on: the far end goes down,
// so the near end has no carrier and sends into nothing, and the far host
// neither answers nor resets. It returns when the link is down.
func (p *Path) Cut(t *testing.T) time.Time {
	t.Helper()
	if out, err := exec.Command("ip", "-n", p.NS, "link", "set", p.far, "down").CombinedOutput(); err != nil {
		t.Fatalf("cutting the link: %v: %s", err, out)
	}
	return time.Now()
}

// Restore brings the link back up; it may run on any goroutine (it
// reports failure instead of failing the test).
func (p *Path) Restore() error {
	if out, err := exec.Command("ip", "-n", p.NS, "link", "set", p.far, "up").CombinedOutput(); err != nil {
		return fmt.Errorf("restoring the link: %v: %s", err, out)
	}
	return nil
}

// Prefix is the far host's address as a one-address prefix, for an
// address policy's allow list.
func (p *Path) Prefix() netip.Prefix { return netip.MustParsePrefix(p.FarIP + "/32") }
