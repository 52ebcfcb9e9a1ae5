package testcaddy

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// caddy.Load returns once the old config's HTTP servers have started to
// shut down, not once their listeners are closed (caddyhttp's App.Stop
// says as much: the scheduler may pause a server right before Shutdown).
// On Linux each config listens on its own SO_REUSEPORT socket, so until
// the old one closes the kernel may hand a new connection to the old
// config, and a test that reloads and asks at once can get the old
// config's answer. Reload waits for the old sockets to close: it notes
// this process's listening sockets on the old servers' ports before the
// load and waits until their file descriptors are gone.

// oldListenerWait bounds that wait; the old servers close their
// listeners first thing in Shutdown, so it ends in milliseconds.
const oldListenerWait = 10 * time.Second

// runningListenerSockets returns the socket inodes of this process that
// listen on the TCP ports of the running config's HTTP servers, and on
// the extra ports (an admin endpoint's); nil where /proc does not tell.
func runningListenerSockets(extra ...int) map[string]bool {
	ports := runningHTTPPorts()
	if len(ports) > 0 {
		for _, p := range extra {
			ports[p] = true
		}
	}
	if len(ports) == 0 {
		return nil
	}
	listening := map[string]bool{}
	// The calling thread's view: /proc/net is the main thread's, which a
	// test's network namespace may hold (internal/netnstest).
	for _, table := range []string{"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local_address(hex ip:hex port) rem_address st(0A: LISTEN) ... inode (the tenth field)
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil && ports[int(port)] {
				listening[fields[9]] = true
			}
		}
		_ = f.Close()
	}
	mine := map[string]bool{}
	for inode := range ownSockets() {
		if listening[inode] {
			mine[inode] = true
		}
	}
	return mine
}

// runningHTTPPorts returns the TCP ports the running config's HTTP
// servers listen on.
func runningHTTPPorts() map[int]bool {
	ctx := caddy.ActiveContext()
	if ctx.Context == nil {
		return nil // nothing running
	}
	a, err := ctx.AppIfConfigured("http")
	app, ok := a.(*caddyhttp.App)
	if err != nil || !ok {
		return nil
	}
	ports := map[int]bool{}
	for _, srv := range app.Servers {
		for _, ln := range srv.Listeners() {
			if addr, ok := ln.Addr().(*net.TCPAddr); ok {
				ports[addr.Port] = true
			}
		}
	}
	return ports
}

// adminPort is the TCP port of cfg's admin endpoint (JSON; Caddy's
// default when it names none), or none when it is off or not TCP. Caddy
// starts a new config's admin endpoint on its SO_REUSEPORT socket beside
// the old one and stops the old one in the background ("stopped previous
// server"), so a request sent right after the load could be queued on the
// old socket and reset when it closes.
func adminPort(cfg []byte) []int {
	var c struct {
		Admin *struct {
			Disabled bool   `json:"disabled"`
			Listen   string `json:"listen"`
		} `json:"admin"`
	}
	if json.Unmarshal(cfg, &c) != nil {
		return nil
	}
	listen := caddy.DefaultAdminListen
	if c.Admin != nil {
		if c.Admin.Disabled {
			return nil
		}
		if c.Admin.Listen != "" {
			listen = c.Admin.Listen
		}
	}
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return nil
	}
	return []int{n}
}

// ownSockets returns the inodes of the sockets this process holds open.
func ownSockets() map[string]bool {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	socks := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err != nil {
			continue
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			socks[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return socks
}

// waitClosed waits until none of the sockets old is open in this process.
func waitClosed(t testing.TB, old map[string]bool) {
	t.Helper()
	deadline := time.Now().Add(oldListenerWait)
	for {
		open := 0
		for inode := range ownSockets() {
			if old[inode] {
				open++
			}
		}
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the old config still listens on %d sockets %v after the reload", open, oldListenerWait)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // a bounded poll for an event, not a wait for time to pass
	}
}
