package cache

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/httpx"
)

// The flight deadline in these tests: short, so the tests wait for it (a
// real timer) rather than for a platform that never answers, and long
// enough for identical callers started together to join one flight.
const testFlightTimeout = 300 * time.Millisecond

func openStalling(t *testing.T, c *clock) *Store {
	t.Helper()
	s, err := Open(Options{Platform: "obv", Version: "1", MemoryBytes: 8 << 20, MaxBody: 1 << 20, Clock: c.Now,
		SweepEvery: -1, FlightTimeout: testFlightTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// stallingUpstream accepts the request and never answers: it returns when
// its request is ended (the flight's deadline) or when the test ends.
// ended counts the requests that were ended by their context.
func stallingUpstream(t *testing.T) (*upstream, *sync.WaitGroup) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var ended sync.WaitGroup
	return &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		ended.Add(1)
		defer ended.Done()
		select {
		case <-r.Context().Done():
			return r.Context().Err()
		case <-release:
			return errors.New("released by the test's end")
		}
	}}, &ended
}

// serveErr runs Serve and returns the recorder and Serve's error.
func serveErr(s *Store, pol Policy, u Next, r *http.Request) (*httptest.ResponseRecorder, error) {
	rec := httptest.NewRecorder()
	err := s.Serve(rec, r, pol, u, nil)
	return rec, err
}

func flightOf(s *Store, key string) *flight {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	return s.flights[key]
}

// TestStalledFlightEndsAtItsDeadline: a platform that never answers holds
// a miss's flight until its deadline. Then the leader and every caller
// that joined get ErrFlightTimeout (the route's 504) with Retry-After,
// the upstream request is ended, and the flight is freed: the next caller
// leads a new one. Before, the flight had no deadline: every caller of
// the key waited as long as the platform did.
func TestStalledFlightEndsAtItsDeadline(t *testing.T) {
	s := openStalling(t, newClock())
	u, ended := stallingUpstream(t)
	pol := Policy{Kind: KindSearch, TTL: time.Minute}
	key := testKey("obv", get("/api/search?q=x"), nil)
	const n = 3
	var wg sync.WaitGroup
	errs := make([]error, n)
	recs := make([]*httptest.ResponseRecorder, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i], errs[i] = serveErr(s, pol, u, get("/api/search?q=x"))
		}()
	}
	wg.Wait()
	for i := range n {
		if !errors.Is(errs[i], ErrFlightTimeout) || recs[i].Header().Get("Retry-After") != httpx.StalledRetryAfter {
			t.Fatalf("caller %d of a stalled flight: %v, Retry-After %q", i, errs[i], recs[i].Header().Get("Retry-After"))
		}
	}
	if u.calls.Load() != 1 {
		t.Fatalf("%d upstream calls for %d identical callers, want one flight", u.calls.Load(), n)
	}
	ended.Wait() // the upstream request was ended, not left to the platform
	if f := flightOf(s, key); f != nil {
		t.Fatal("the stalled flight is still registered")
	}
	if _, err := serveErr(s, pol, okUpstream("fresh"), get("/api/search?q=x")); err != nil {
		t.Fatalf("the next caller after the stall: %v", err)
	}
}

// TestStalledFlightServesTheStaleEntry: within stale_if_error, callers of
// a stalled flight get the stale entry at the deadline.
func TestStalledFlightServesTheStaleEntry(t *testing.T) {
	c := newClock()
	s := openStalling(t, c)
	do(t, s, listPolicy, okUpstream("good"), get("/sources"))
	c.Advance(listPolicy.TTL + listPolicy.StaleWhileRevalidate + time.Hour) // past swr, within sie
	u, _ := stallingUpstream(t)
	rec, err := serveErr(s, listPolicy, u, get("/sources"))
	if err != nil || rec.Code != http.StatusOK || rec.Body.String() != "good" {
		t.Fatalf("stalled platform with a stale entry: %v, %d %q", err, rec.Code, rec.Body.String())
	}
	if cs := rec.Header().Get(cachestatus.Header); cs != "BesluitBron; fwd=stale; fwd-status=504; ttl=-7200; detail=stale-if-error" {
		t.Fatalf("Cache-Status %q", cs)
	}
}

// TestStalledRefreshEndsAtItsDeadline: a background refresh the platform
// never answers ends at the deadline; a caller that came once the stale
// window had ended, and joined it, gets ErrFlightTimeout with
// Retry-After, and the key is free for a new flight. Before, the refresh
// ran on a context without cancel or deadline, and the caller waited on
// it for as long as the platform stalled.
func TestStalledRefreshEndsAtItsDeadline(t *testing.T) {
	c := newClock()
	s := openStalling(t, c)
	pol := Policy{Kind: KindList, TTL: time.Hour, StaleWhileRevalidate: time.Hour, MaxBody: 1 << 20}
	do(t, s, pol, okUpstream("v1"), get("/committees"))
	key := testKey("obv", get("/committees"), nil)
	c.Advance(pol.TTL + time.Minute)
	u, _ := stallingUpstream(t)
	if rec, err := serveErr(s, pol, u, get("/committees")); err != nil || rec.Body.String() != "v1" {
		t.Fatalf("stale-while-revalidate: %v %q", err, rec.Body.String())
	}
	if flightOf(s, key) == nil {
		t.Fatal("no refresh in flight")
	}
	c.Advance(pol.StaleWhileRevalidate) // the stale window has ended
	rec, err := serveErr(s, pol, u, get("/committees"))
	if !errors.Is(err, ErrFlightTimeout) || rec.Header().Get("Retry-After") != httpx.StalledRetryAfter {
		t.Fatalf("caller joined to a stalled refresh: %v, Retry-After %q", err, rec.Header().Get("Retry-After"))
	}
	s.bg.Wait()
	if flightOf(s, key) != nil {
		t.Fatal("the stalled refresh's flight is still registered")
	}
	if u.calls.Load() != 1 {
		t.Fatalf("%d upstream calls, want the refresh's only", u.calls.Load())
	}
}
