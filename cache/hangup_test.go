package cache

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/besluitbron/besluitbron/cachestatus"
)

// Callers of one flight hanging up: the flight serves those who stay, and
// the last one to go ends the upstream request.

func TestLeaderHangingUpSpoilsNothing(t *testing.T) {
	s := openStore(t, t.TempDir(), newClock(), "1")
	body := strings.Repeat("abcdefghij", 500)
	release := make(chan struct{})
	u := blockingUpstream(body, release)
	key := testKey("obv", get("/doc"), nil)

	leaderCtx, hangUp := context.WithCancel(context.Background())
	leaderDone := make(chan error, 1)
	leaderRec := httptest.NewRecorder()
	go func() {
		leaderDone <- s.Serve(leaderRec, get("/doc").WithContext(leaderCtx), listPolicy, u, nil)
	}()
	waitWaiters(t, s, key, 1)
	const n = 10
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); recs[i] = do(t, s, listPolicy, u, get("/doc")) }(i)
	}
	waitWaiters(t, s, key, n+1)
	hangUp()
	waitWaitersBelow(t, s, key, n+1)
	close(release)
	wg.Wait()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	if leaderRec.Body.Len() != 0 {
		t.Fatal("a gone client was written to")
	}
	for i, r := range recs {
		if r.Code != 200 || r.Body.String() != body {
			t.Fatalf("follower %d spoiled: %d, %d bytes", i, r.Code, r.Body.Len())
		}
	}
	if u.calls.Load() != 1 {
		t.Fatalf("upstream calls %d", u.calls.Load())
	}
	r := do(t, s, listPolicy, u, get("/doc"))
	if r.Body.String() != body || !strings.Contains(r.Header().Get(cachestatus.Header), "hit") {
		t.Fatalf("stored entry spoiled: %d bytes, %q", r.Body.Len(), r.Header().Get(cachestatus.Header))
	}
}

func waitWaitersBelow(t *testing.T, s *Store, key string, n int) {
	t.Helper()
	for i := 0; ; i++ {
		s.flightsMu.Lock()
		w := 0
		if f := s.flights[key]; f != nil {
			w = f.waiters
		}
		s.flightsMu.Unlock()
		if w < n {
			return
		}
		if i > 50_000_000 {
			t.Fatal("waiter did not leave")
		}
		runtime.Gosched()
	}
}

func TestEveryoneHangingUpEndsTheUpstreamRequestStoresNothing(t *testing.T) {
	s := openStore(t, t.TempDir(), newClock(), "1")
	upstreamEnded := make(chan error, 1)
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, strings.Repeat("p", 300)) // part of the body, then silence
		<-r.Context().Done()
		upstreamEnded <- r.Context().Err()
		panic(http.ErrAbortHandler)
	}}
	key := testKey("obv", get("/slow"), nil)
	var wg sync.WaitGroup
	cancels := make([]context.CancelFunc, 3)
	errs := make([]error, 3)
	for i := range cancels {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.Serve(httptest.NewRecorder(), get("/slow").WithContext(ctx), listPolicy, u, nil)
		}(i)
		waitWaiters(t, s, key, i+1)
	}
	for _, c := range cancels {
		c()
	}
	if err := <-upstreamEnded; !errors.Is(err, context.Canceled) {
		t.Fatalf("upstream request not ended: %v", err)
	}
	wg.Wait()
	if st := s.Stats(); st.Stored != 0 || st.DiskEntries != 0 {
		t.Fatalf("a cut-off body was stored: %+v", st)
	}
	// The next caller starts afresh and gets a whole body.
	u.handler = okUpstream(strings.Repeat("p", 1000)).handler
	r := do(t, s, listPolicy, u, get("/slow"))
	if r.Body.Len() != 1000 || !strings.Contains(r.Header().Get(cachestatus.Header), "stored") {
		t.Fatalf("after: %d bytes %q", r.Body.Len(), r.Header().Get(cachestatus.Header))
	}
}

// lateContext is a request context whose Done channel closes at hangUp
// while the functions context.AfterFunc registered on it run only at
// runLate. A context.WithCancel context shows its waiters that order for
// a moment (it closes Done, then starts its after functions): a caller
// can see itself gone before its own after function runs.
type lateContext struct {
	context.Context
	done chan struct{}

	mu    sync.Mutex
	funcs map[int]func()
	next  int
}

func newLateContext() *lateContext {
	return &lateContext{Context: context.Background(), done: make(chan struct{}), funcs: map[int]func(){}}
}

func (c *lateContext) Done() <-chan struct{} { return c.done }

func (c *lateContext) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

func (c *lateContext) hangUp() { close(c.done) }

// AfterFunc is what context.AfterFunc uses on a parent that has it.
func (c *lateContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.next
	c.next++
	c.funcs[id] = f
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, waiting := c.funcs[id]
		delete(c.funcs, id)
		return waiting
	}
}

// runLate runs the after functions not stopped.
func (c *lateContext) runLate() {
	c.mu.Lock()
	funcs := c.funcs
	c.funcs = map[int]func(){}
	c.mu.Unlock()
	for _, f := range funcs {
		f()
	}
}

// TestFollowerSeeingItselfGoneFirstStillLeaves: the last caller of a
// flight hangs up and sees its context done before its after function
// runs. It still leaves the flight, so the upstream request ends at once.
// Before, stopping that after function on the way out kept the caller
// counted: the flight stayed registered and its upstream request ran on
// to the flight deadline (5 minutes) with nobody waiting; under load
// TestEveryoneHangingUpEndsTheUpstreamRequestStoresNothing took 306 s.
func TestFollowerSeeingItselfGoneFirstStillLeaves(t *testing.T) {
	s := openStore(t, t.TempDir(), newClock(), "1")
	u, ended := stallingUpstream(t)
	key := testKey("obv", get("/late"), nil)

	leaderCtx, leaderHangsUp := context.WithCancel(context.Background())
	leaderDone := make(chan error, 1)
	go func() {
		leaderDone <- s.Serve(httptest.NewRecorder(), get("/late").WithContext(leaderCtx), listPolicy, u, nil)
	}()
	waitWaiters(t, s, key, 1)
	late := newLateContext()
	t.Cleanup(late.runLate)
	followerDone := make(chan error, 1)
	go func() {
		followerDone <- s.Serve(httptest.NewRecorder(), get("/late").WithContext(late), listPolicy, u, nil)
	}()
	waitWaiters(t, s, key, 2)

	leaderHangsUp()
	waitWaitersBelow(t, s, key, 2)
	late.hangUp()
	if err := <-followerDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("follower: %v", err)
	}
	if f := flightOf(s, key); f != nil {
		t.Fatalf("every caller hung up and the flight still counts %d waiting", f.waiters)
	}
	ended.Wait() // the upstream request was ended
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	late.runLate() // the follower's after function, had it not been stopped, changes nothing now
	if n := s.Waiting(); n != 0 {
		t.Fatalf("%d waiting after everyone left", n)
	}
}
