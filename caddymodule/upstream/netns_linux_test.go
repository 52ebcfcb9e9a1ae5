package upstream

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
)

// netPath is a network namespace joined to this one by a veth pair: a
// platform host on the far end of a real link whose packets the test can
// drop all at once (the far end's link goes down; nothing is answered,
// nothing is reset). It needs root and iproute2.
type netPath struct {
	ns, near, far string // namespace, near and far interface names
	nearIP, farIP string
}

var netnsSeq atomic.Int64

// newNetPath builds the namespace and link, or skips the test where it
// cannot (not root, no iproute2, no namespaces). Under CI=true it fails
// instead: CI runs as root on a machine that has them.
func newNetPath(t *testing.T) *netPath {
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
	seq := netnsSeq.Add(1)
	pid := os.Getpid()
	idx := (pid*8 + int(seq)) % 16384
	p := &netPath{
		ns:     fmt.Sprintf("bbdead%d-%d", pid, seq),
		near:   fmt.Sprintf("bb%dn%d", pid%100000, seq),
		far:    fmt.Sprintf("bb%df%d", pid%100000, seq),
		nearIP: fmt.Sprintf("10.213.%d.%d", idx/64, idx%64*4+1),
		farIP:  fmt.Sprintf("10.213.%d.%d", idx/64, idx%64*4+2),
	}
	if out, err := exec.Command("ip", "netns", "add", p.ns).CombinedOutput(); err != nil {
		unavailable("ip netns add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		// Deleting the namespace deletes the far end, and with it the
		// near end of the pair.
		_ = exec.Command("ip", "netns", "del", p.ns).Run()
		_ = exec.Command("ip", "link", "del", p.near).Run()
	})
	for _, args := range [][]string{
		{"link", "add", p.near, "type", "veth", "peer", "name", p.far, "netns", p.ns},
		{"addr", "add", p.nearIP + "/30", "dev", p.near},
		{"link", "set", p.near, "up"},
		{"-n", p.ns, "addr", "add", p.farIP + "/30", "dev", p.far},
		{"-n", p.ns, "link", "set", p.far, "up"},
		{"-n", p.ns, "link", "set", "lo", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return p
}

// listen opens a TCP listener inside the namespace: the socket is created
// on a thread that joined it (a socket stays in the namespace it was
// created in, whichever thread serves it later). The thread is never
// unlocked, so it ends with its goroutine instead of going back to the
// runtime in the other namespace.
func (p *netPath) listen(t *testing.T) net.Listener {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open("/var/run/netns/" + p.ns)
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("setns: %w", err)}
			return
		}
		ln, err := net.Listen("tcp", p.farIP+":0")
		ch <- result{ln, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatalf("listening in namespace %s: %v", p.ns, r.err)
	}
	t.Cleanup(func() { r.ln.Close() })
	return r.ln
}

// cut drops every packet on the link from now on: the far end goes down,
// so the near end has no carrier and sends into nothing, and the far host
// neither answers nor resets. It returns when the link is down.
func (p *netPath) cut(t *testing.T) time.Time {
	t.Helper()
	if out, err := exec.Command("ip", "-n", p.ns, "link", "set", p.far, "down").CombinedOutput(); err != nil {
		t.Fatalf("cutting the link: %v: %s", err, out)
	}
	return time.Now()
}

// policy allows the test link's addresses and loopback.
func (p *netPath) policy() AddrPolicy {
	return AddrPolicy{Allow: []netip.Prefix{
		netip.MustParsePrefix(p.farIP + "/32"),
		netip.MustParsePrefix("127.0.0.0/8"),
	}}
}
