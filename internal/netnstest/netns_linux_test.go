package netnstest

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// Listen's socket lives in the namespace (a connection over the link
// reaches it), while every thread of the process, the main one included,
// stays in the process's own namespace: a thread left in the test's
// namespace would change what /proc/self/net shows for the rest of the
// run (internal/testcaddy/oldlisteners.go).
func TestListenLeavesNoThreadInTheNamespace(t *testing.T) {
	own, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	p := New(t)
	for range 20 {
		ln := p.Listen(t)
		threadsAtHome(t, own)
		accepted := make(chan error, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				c.Close()
			}
			accepted <- err
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatalf("dialling the namespace's listener: %v", err)
		}
		c.Close()
		if err := <-accepted; err != nil {
			t.Fatal(err)
		}
	}
}

// threadsAtHome fails the test for each thread of the process that is not
// in namespace own.
func threadsAtHome(t *testing.T, own string) {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if ns, err := os.Readlink(task); err == nil && ns != own {
			t.Fatalf("thread %s is in namespace %s, the process in %s", filepath.Base(filepath.Dir(filepath.Dir(task))), ns, own)
		}
	}
}
