package cache

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/fairqueue"
)

// statusError is what platform_limit returns on a rejection
// (caddyhttp.HandlerError: a status and the wrapped *fairqueue.Rejection).
type statusError struct {
	status int
	err    error
}

func (e statusError) Error() string { return e.err.Error() }
func (e statusError) Unwrap() error { return e.err }

// fakeBudget stands in for platform_limit: per session (the
// Besluitbron-Session header the real one's session key is made of), a gate to wait on and then either a rejection (status
// and Retry-After set on the writer before the error, as platform_limit
// does) or the platform's answer.
type fakeBudget struct {
	mu     sync.Mutex
	gates  map[string]chan struct{} // nil: go at once
	refuse map[string]int           // Retry-After seconds; absent: admitted
	calls  map[string]int
	total  atomic.Int64
}

// clientHeader names the caller in these tests: the cache hands the
// request to the budget with its headers, and the fake budget tells
// callers apart by this one (in the product, the session module's).
const clientHeader = "Test-Client"

func newFakeBudget() *fakeBudget {
	return &fakeBudget{gates: map[string]chan struct{}{}, refuse: map[string]int{}, calls: map[string]int{}}
}

func (b *fakeBudget) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	key := r.Header.Get(clientHeader)
	b.total.Add(1)
	b.mu.Lock()
	gate := b.gates[key]
	b.calls[key]++
	b.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return r.Context().Err()
		}
	}
	b.mu.Lock()
	secs, refused := b.refuse[key]
	b.mu.Unlock()
	if refused {
		w.Header().Set("Retry-After", fmt.Sprint(secs))
		return statusError{http.StatusServiceUnavailable, fmt.Errorf("platform_limit obv: %w",
			&fairqueue.Rejection{Reason: fairqueue.ReasonQueueFull, RetryAfter: time.Duration(secs) * time.Second})}
	}
	body := "answer for " + key
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	_, _ = io.WriteString(w, body)
	return nil
}

func (b *fakeBudget) callsOf(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[key]
}

// served is one caller's answer and the error Serve returned (Caddy
// writes that error's status with the writer's headers).
type served struct {
	rec *httptest.ResponseRecorder
	err error
}

func serveAs(s *Store, pol Policy, next Next, path, sess string) served {
	r := get(path)
	if sess != "" {
		r.Header.Set(clientHeader, sess)
	}
	rec := httptest.NewRecorder()
	err := s.Serve(rec, r, pol, next, nil)
	return served{rec, err}
}

// TestBudgetRejectionKeepsStatusAndRetryAfter: the caller the budget
// turned away gets the budget's error (its status) and Retry-After on its
// own writer; nothing is stored, nothing counts as a platform error.
func TestBudgetRejectionKeepsStatusAndRetryAfter(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	b := newFakeBudget()
	b.refuse["a"] = 42
	got := serveAs(s, listPolicy, b, "/api/search?q=x", "a")
	var se statusError
	if !errors.As(got.err, &se) || se.status != 503 || !isRejection(got.err) {
		t.Fatalf("error %v; want platform_limit's 503 rejection passed on", got.err)
	}
	if ra := got.rec.Header().Get("Retry-After"); ra != "42" {
		t.Fatalf("Retry-After %q, want 42", ra)
	}
	if cs := got.rec.Header().Get(cachestatus.Header); cs != "BesluitBron; fwd=miss; detail=over-budget" {
		t.Fatalf("Cache-Status %q", cs)
	}
	delete(b.refuse, "a")
	if got = serveAs(s, listPolicy, b, "/api/search?q=x", "a"); got.err != nil || got.rec.Code != 200 || got.rec.Header().Get("Retry-After") != "" {
		t.Fatalf("after the rejection: %v %d %v", got.err, got.rec.Code, got.rec.Header())
	}
	if st := s.Stats(); st.UpstreamErrors != 0 || st.Stored != 1 || b.total.Load() != 2 {
		t.Fatalf("stats %+v, budget calls %d", st, b.total.Load())
	}
}

// TestLeadersRejectionNeverHandedToOtherSessions: callers of other
// sessions waiting on a flight the budget turns away ask on their own
// account: one of them leads a new flight, the others join it, and all
// get the platform's answer; the leader alone gets the rejection.
func TestLeadersRejectionNeverHandedToOtherSessions(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	b := newFakeBudget()
	releaseA, releaseB := make(chan struct{}), make(chan struct{})
	b.gates["a"], b.gates["b"] = releaseA, releaseB
	b.refuse["a"] = 42
	const path, n = "/api/search?q=begroting", 5
	key := testKey("obv", get(path), nil)
	var leader served
	done := make(chan struct{})
	go func() { leader = serveAs(s, listPolicy, b, path, "a"); close(done) }()
	waitWaiters(t, s, key, 1)
	var wg sync.WaitGroup
	followers := make([]served, n)
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); followers[i] = serveAs(s, listPolicy, b, path, "b") }()
	}
	waitWaiters(t, s, key, n+1)
	close(releaseA)
	<-done
	if !isRejection(leader.err) || leader.rec.Header().Get("Retry-After") != "42" {
		t.Fatalf("leader: %v %v", leader.err, leader.rec.Header())
	}
	waitWaiters(t, s, key, n) // b's callers regrouped behind one of them
	close(releaseB)
	wg.Wait()
	for i, f := range followers {
		if f.err != nil || f.rec.Code != 200 || f.rec.Body.String() != "answer for b" || f.rec.Header().Get("Retry-After") != "" {
			t.Fatalf("follower %d got %v %d %q %v", i, f.err, f.rec.Code, f.rec.Body.String(), f.rec.Header())
		}
	}
	if b.callsOf("a") != 1 || b.callsOf("b") != 1 {
		t.Fatalf("budget calls a=%d b=%d; want one each", b.callsOf("a"), b.callsOf("b"))
	}
	if st := s.Stats(); st.Stored != 1 || st.UpstreamErrors != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestFollowerRefusedOnItsOwnAccount: when the budget turns the other
// session away too, it gets its own rejection and Retry-After, not the
// leader's.
func TestFollowerRefusedOnItsOwnAccount(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	b := newFakeBudget()
	releaseA := make(chan struct{})
	b.gates["a"] = releaseA
	b.refuse["a"], b.refuse["b"] = 42, 7
	const path = "/api/entities/x"
	key := testKey("obv", get(path), nil)
	done := make(chan served)
	go func() { done <- serveAs(s, listPolicy, b, path, "a") }()
	waitWaiters(t, s, key, 1)
	fdone := make(chan served)
	go func() { fdone <- serveAs(s, listPolicy, b, path, "b") }()
	waitWaiters(t, s, key, 2)
	close(releaseA)
	leader, follower := <-done, <-fdone
	if leader.rec.Header().Get("Retry-After") != "42" || !isRejection(leader.err) {
		t.Fatalf("leader: %v %v", leader.err, leader.rec.Header())
	}
	if follower.rec.Header().Get("Retry-After") != "7" || !isRejection(follower.err) || b.callsOf("b") != 1 {
		t.Fatalf("follower: %v %v, its own budget calls %d", follower.err, follower.rec.Header(), b.callsOf("b"))
	}
}

// TestPlatformsOwnRefusalSharedNeverStored: a 429 or 503 the platform
// itself sent is its answer: shared with every waiter, with its
// Retry-After, and never stored.
func TestPlatformsOwnRefusalSharedNeverStored(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			s := openStore(t, "", newClock(), "1")
			release := make(chan struct{})
			u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
				<-release
				w.Header().Set("Retry-After", "30")
				w.Header().Set("Content-Length", "4")
				w.WriteHeader(status)
				_, _ = io.WriteString(w, "busy")
				return nil
			}}
			key := testKey("obv", get("/p"), nil)
			var wg sync.WaitGroup
			out := make([]served, 3)
			for i := range out {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := get("/p")
					r.Header.Set(clientHeader, fmt.Sprint("s", i))
					rec := httptest.NewRecorder()
					out[i] = served{rec, s.Serve(rec, r, listPolicy, u, nil)}
				}()
			}
			waitWaiters(t, s, key, len(out))
			close(release)
			wg.Wait()
			for i, o := range out {
				if o.err != nil || o.rec.Code != status || o.rec.Header().Get("Retry-After") != "30" || o.rec.Body.String() != "busy" {
					t.Fatalf("caller %d: %v %d %v %q", i, o.err, o.rec.Code, o.rec.Header(), o.rec.Body.String())
				}
			}
			if u.calls.Load() != 1 || s.Stats().Stored != 0 {
				t.Fatalf("calls %d stats %+v", u.calls.Load(), s.Stats())
			}
			r := do(t, s, listPolicy, u, get("/p"))
			if u.calls.Load() != 2 || strings.Contains(r.Header().Get(cachestatus.Header), "hit") {
				t.Fatalf("refusal was stored: %q", r.Header().Get(cachestatus.Header))
			}
		})
	}
}

// TestRejectionFloodOfMadeUpSessions: a thousand callers, each under a
// made-up session name, wait on one flight while the budget turns every
// one of them away. Each gets its own rejection (its own Retry-After),
// none hangs, the budget is asked a bounded number of times, nothing is
// stored and no flight is left behind.
func TestRejectionFloodOfMadeUpSessions(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	b := newFakeBudget()
	release := make(chan struct{})
	b.gates["lead"] = release
	b.refuse["lead"] = 99
	const n = 1000
	for i := range n {
		b.refuse[fmt.Sprint("made-up-", i)] = 1 + i%50
	}
	const path = "/api/search?q=flood"
	key := testKey("obv", get(path), nil)
	go func() { _ = serveAs(s, listPolicy, b, path, "lead") }()
	waitWaiters(t, s, key, 1)
	var wg sync.WaitGroup
	out := make([]served, n)
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); out[i] = serveAs(s, listPolicy, b, path, fmt.Sprint("made-up-", i)) }()
	}
	waitWaiters(t, s, key, n+1)
	close(release)
	wg.Wait()
	for i, o := range out {
		if !isRejection(o.err) || o.rec.Header().Get("Retry-After") != fmt.Sprint(1+i%50) {
			t.Fatalf("caller %d: %v, Retry-After %q; want its own %d", i, o.err, o.rec.Header().Get("Retry-After"), 1+i%50)
		}
	}
	for i := range n {
		if c := b.callsOf(fmt.Sprint("made-up-", i)); c != 1 {
			t.Fatalf("made-up session %d asked the budget %d times", i, c)
		}
	}
	s.flightsMu.Lock()
	left := len(s.flights)
	s.flightsMu.Unlock()
	if left != 0 || s.Stats().Stored != 0 {
		t.Fatalf("%d flights left, stats %+v", left, s.Stats())
	}
}

// TestBypassedRejectionMarked: a request the cache lets by (here a kind
// with caching off) that the budget turns away says so in Cache-Status,
// with the budget's Retry-After; a platform's own 503 on that path does
// not.
func TestBypassedRejectionMarked(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	b := newFakeBudget()
	b.refuse["a"] = 5
	off := Policy{Kind: KindOther}
	got := serveAs(s, off, b, "/api/export", "a")
	if !isRejection(got.err) || got.rec.Header().Get("Retry-After") != "5" ||
		got.rec.Header().Get(cachestatus.Header) != "BesluitBron; fwd=bypass; detail="+cachestatus.DetailOverBudget {
		t.Fatalf("%v %v", got.err, got.rec.Header())
	}
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(503)
		return nil
	}}
	r := do(t, s, off, u, get("/api/export"))
	if r.Code != 503 || r.Header().Get(cachestatus.Header) != "BesluitBron; fwd=bypass; detail=uncached-kind" {
		t.Fatalf("platform's own 503: %d %q", r.Code, r.Header().Get(cachestatus.Header))
	}
}
