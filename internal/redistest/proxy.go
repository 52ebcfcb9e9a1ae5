package redistest

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP proxy in front of Redis that a test controls: Cut makes
// Redis unreachable (open connections are closed, new ones closed at
// once), Slow delays every chunk, Restore brings it back. It lets a test
// take Redis away from one instance without stopping the server others
// use.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	delay time.Duration
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to the test Redis on a loopback port; it stops
// when the test ends.
func NewProxy(t testing.TB) *Proxy {
	t.Helper()
	Require(t)
	if strings.HasPrefix(URL(), "redis+cluster://") {
		// A cluster's clients follow MOVED redirections to each node's own
		// address, past any single proxy: the fault tests run against a
		// single Redis.
		t.Skip("fault tests cut a single Redis through a proxy; BESLUITBRON_TEST_REDIS names a cluster")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: "127.0.0.1:6379", conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// URL is the Redis URL through the proxy.
func (p *Proxy) URL() string { return "redis://" + p.ln.Addr().String() + "/0" }

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Slow delays every chunk passed either way by d (0: no delay).
func (p *Proxy) Slow(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.delay = 0
	p.mu.Unlock()
}

// Close stops the proxy.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		up, err := net.DialTimeout("tcp", p.target, time.Second)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		p.conns[up] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	defer func() {
		_ = dst.Close()
		_ = src.Close()
		p.mu.Lock()
		delete(p.conns, dst)
		delete(p.conns, src)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			d, cut := p.delay, p.cut
			p.mu.Unlock()
			if cut {
				return
			}
			if d > 0 {
				time.Sleep(d) // the fault itself: a slow network, not a test waiting
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
	}
}
