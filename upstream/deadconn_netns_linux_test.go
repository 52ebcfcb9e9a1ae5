package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/netnstest"
)

// The bounds these tests hold the pool to, with the platform_proxy
// defaults: the kernel declares a dead path after 20 s (TCP user timeout
// and probes), a resend on the same dead path adds at most the 5 s dial
// timeout. Without the user timeout and the early probes, the caller
// waited about 15 minutes (Linux's retransmission limit) or for ever.
const (
	deadBound   = 30 * time.Second // cut → connection reported dead
	answerBound = 35 * time.Second // cut → the caller has its answer
)

// platformInNetns is a platform host behind a netPath: /warm answers at
// once, the first /hang reports that it arrived and then stays silent until
// the test ends (later ones answer), /slow stays silent for the given time and then answers.
type platformInNetns struct {
	path    *netnstest.Path
	url     string
	conns   atomic.Int64
	hung    atomic.Int64
	arrived chan struct{}
}

func newPlatformInNetns(t *testing.T, slow time.Duration) *platformInNetns {
	pl := &platformInNetns{path: netnstest.New(t), arrived: make(chan struct{}, 4)}
	ln := pl.path.Listen(t)
	release := make(chan struct{})
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/hang":
				if pl.hung.Add(1) > 1 {
					break // a resend on a new connection: answered
				}
				pl.arrived <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			case "/slow":
				select {
				case <-time.After(slow): // the platform thinking, silent
				case <-release:
				}
			}
			io.WriteString(w, "from the netns host")
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				pl.conns.Add(1)
			}
		},
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	pl.url = "http://" + ln.Addr().String()
	return pl
}

// deadRun is what the caller saw after the link was cut mid-request.
type deadRun struct {
	detected time.Duration // cut → the kernel reported the pooled connection dead
	answered time.Duration // cut → the caller had its answer
	status   int
	body     string
	err      error
	stats    Stats
}

// runDeadMidRequest warms a pooled connection to a platform host in a
// namespace, sends GET /hang on it, cuts the link once the host has the
// request, and waits for the caller's answer. restore brings the link
// back as soon as the kernel reports the connection dead; second, when
// set, is another host of the platform (on loopback).
func runDeadMidRequest(t *testing.T, restore bool, second string) (deadRun, *platformInNetns) {
	t.Helper()
	pl := newPlatformInNetns(t, 0)
	var p *Proxy
	var detected atomic.Int64
	var restoreErr atomic.Value
	opt := TransportOptions{
		DialTimeout:         5 * time.Second,
		IdleTimeout:         30 * time.Second,
		MaxIdleConnsPerHost: 16,
		ProbeInterval:       DefaultProbeInterval,
		ProbeCount:          DefaultProbeCount,
		Policy:              policyFor(pl.path),
		OnDeadConn: func(error) {
			p.NoteDeadConn()
			if detected.CompareAndSwap(0, time.Now().UnixNano()) && restore {
				// Before net/http decides on the resend: it will
				// find the path alive again.
				if err := pl.path.Restore(); err != nil {
					restoreErr.Store(err.Error())
				}
			}
		},
	}
	h1, _ := ParseBaseURL(pl.url)
	h1.Transport = NewTransport(opt)
	t.Cleanup(h1.Transport.(*http.Transport).CloseIdleConnections)
	hosts := []*Host{h1}
	if second != "" {
		h2, _ := ParseBaseURL(second)
		opt.OnDeadConn = nil
		h2.Transport = NewTransport(opt)
		hosts = append(hosts, h2)
	}
	var err error
	p, err = NewProxy(hosts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, body, err := do(t, p, context.Background(), "GET", "/warm", ""); err != nil {
		t.Fatalf("warm-up: %q %v", body, err)
	}
	// A generous caller deadline, so a regression fails instead of
	// hanging the run for the kernel's 15 minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 3*answerBound)
	defer cancel()
	done := make(chan deadRun, 1)
	go func() {
		resp, body, err := do(t, p, ctx, "GET", "/hang", "")
		r := deadRun{body: body, err: err}
		if resp != nil {
			r.status = resp.StatusCode
		}
		done <- r
	}()
	<-pl.arrived
	cut := pl.path.Cut(t)
	r := <-done
	r.answered = time.Since(cut)
	if d := detected.Load(); d != 0 {
		r.detected = time.Duration(d - cut.UnixNano())
	}
	r.stats = p.Stats()
	if e := restoreErr.Load(); e != nil {
		t.Error(e)
	}
	return r, pl
}

func TestDeadPooledConnectionInNetns(t *testing.T) {
	t.Parallel() // its subtests wait on the kernel's timers; the others overlap them
	t.Run("resent on a new connection when the path is back", func(t *testing.T) {
		t.Parallel()
		r, pl := runDeadMidRequest(t, true, "")
		t.Logf("dead after %v, answered after %v: %d %q %v, stats %+v", r.detected, r.answered, r.status, r.body, r.err, r.stats)
		if r.err != nil || r.status != 200 || r.body != "from the netns host" {
			t.Errorf("caller got %d %q %v, want the answer of the resend", r.status, r.body, r.err)
		}
		checkBounds(t, r)
		if n := pl.conns.Load(); n != 2 {
			t.Errorf("host saw %d connections, want 2 (the dead pooled one, one new)", n)
		}
		if s := r.stats; s.DeadConns != 1 || s.StaleResends != 1 || s.Failovers != 0 {
			t.Errorf("stats %+v, want 1 dead connection, 1 resend, no failover", s)
		}
	})
	t.Run("fails over to the next host when the path stays dead", func(t *testing.T) {
		t.Parallel()
		second := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the second host") })
		r, _ := runDeadMidRequest(t, false, second.URL)
		t.Logf("dead after %v, answered after %v: %d %q %v, stats %+v", r.detected, r.answered, r.status, r.body, r.err, r.stats)
		if r.err != nil || r.status != 200 || r.body != "from the second host" {
			t.Errorf("caller got %d %q %v, want the second host's answer", r.status, r.body, r.err)
		}
		checkBounds(t, r)
		if s := r.stats; s.DeadConns != 1 || s.Failovers != 1 || s.Sent != 3 {
			t.Errorf("stats %+v, want 1 dead connection, 1 failover, 3 sent (warm-up, dead, second host)", s)
		}
	})
	t.Run("answers an error when the only host stays dead", func(t *testing.T) {
		t.Parallel()
		r, _ := runDeadMidRequest(t, false, "")
		t.Logf("dead after %v, answered after %v: %v, stats %+v", r.detected, r.answered, r.err, r.stats)
		if r.err == nil {
			t.Errorf("caller got %d %q, want an error", r.status, r.body)
		}
		checkBounds(t, r)
		if s := r.stats; s.DeadConns != 1 {
			t.Errorf("stats %+v, want 1 dead connection", s)
		}
	})
	t.Run("a live platform silent for longer than the user timeout is not cut", func(t *testing.T) {
		t.Parallel()
		silence := 25 * time.Second // > the 20 s user timeout and the probes' 5 s
		pl := newPlatformInNetns(t, silence)
		h, _ := ParseBaseURL(pl.url)
		h.Transport = NewTransport(TransportOptions{
			DialTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second, MaxIdleConnsPerHost: 16,
			ProbeInterval: DefaultProbeInterval, ProbeCount: DefaultProbeCount, Policy: policyFor(pl.path),
		})
		t.Cleanup(h.Transport.(*http.Transport).CloseIdleConnections)
		p, _ := NewProxy([]*Host{h}, Options{})
		if _, _, err := do(t, p, context.Background(), "GET", "/warm", ""); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, body, err := do(t, p, context.Background(), "GET", "/slow", "")
		if err != nil || body != "from the netns host" {
			t.Fatalf("after %v: %q %v, want the slow answer", time.Since(start), body, err)
		}
		if s := p.Stats(); s.DeadConns != 0 || s.StaleResends != 0 || s.Sent != 2 {
			t.Errorf("stats %+v, want nothing dead or resent", s)
		}
	})
}

// policyFor allows the netns host and loopback.
func policyFor(p *netnstest.Path) AddrPolicy {
	return AddrPolicy{Allow: []netip.Prefix{p.Prefix(), netip.MustParsePrefix("127.0.0.0/8")}}
}

func checkBounds(t *testing.T, r deadRun) {
	t.Helper()
	if r.detected <= 0 || r.detected > deadBound {
		t.Errorf("pooled connection reported dead %v after the cut, want within %v", r.detected, deadBound)
	}
	if r.answered > answerBound {
		t.Errorf("caller answered %v after the cut, want within %v", r.answered, answerBound)
	}
}

// TestDeadPooledConnectionDetectionFigure measures, for docs/benchmarks.md,
// the time from the cut to the kernel reporting the pooled connection
// dead and to the caller's answer (resend on a restored path), over
// BESLUITBRON_NETNS_RUNS runs side by side. Off unless that is set.
func TestDeadPooledConnectionDetectionFigure(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("BESLUITBRON_NETNS_RUNS"))
	if n <= 0 {
		t.Skip("set BESLUITBRON_NETNS_RUNS=N to measure the detection time over N runs")
	}
	results := make(chan deadRun, n)
	t.Run("runs", func(t *testing.T) {
		for i := 0; i < n; i++ {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				r, _ := runDeadMidRequest(t, true, "")
				if r.err != nil {
					t.Errorf("run %d: %v", i, r.err)
				}
				results <- r
			})
		}
	})
	close(results)
	var det, ans []time.Duration
	for r := range results {
		det = append(det, r.detected)
		ans = append(ans, r.answered)
	}
	slices.Sort(det)
	slices.Sort(ans)
	t.Logf("%d runs, probes %v ×%d, user timeout %v", len(det), DefaultProbeInterval, DefaultProbeCount,
		TransportOptions{ProbeInterval: DefaultProbeInterval, ProbeCount: DefaultProbeCount}.DeadAfter())
	t.Logf("detected dead: min %v median %v max %v", det[0], det[len(det)/2], det[len(det)-1])
	t.Logf("caller answered (resend on a new connection): min %v median %v max %v", ans[0], ans[len(ans)/2], ans[len(ans)-1])
}
