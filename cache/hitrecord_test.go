package cache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// recorded serves r with a hit recorder and returns what it recorded.
func recorded(t *testing.T, s *Store, u *upstream, path string) ([]Hit, bool) {
	t.Helper()
	rec := &HitRecorder{}
	r := get(path)
	r = r.WithContext(WithHitRecorder(r.Context(), rec))
	if w := do(t, s, listPolicy, u, r); w.Code != http.StatusOK {
		t.Fatalf("%s: %d", path, w.Code)
	}
	return rec.Hits()
}

// A recorded hit holds exactly while Serve would answer the same request
// with the same bytes and headers from the hot set: not after a second
// changes its ttl or Age, a Put replaces the entry, a purge, expiry, or a
// new version.
func TestHitHoldsWhileTheAnswerWouldBeTheSame(t *testing.T) {
	c := newClock()
	s := openStore(t, "", c, "1")
	u := okUpstream(`{"sources":[]}`)
	if hits, all := recorded(t, s, u, "/api/sources"); len(hits) != 0 || all {
		t.Fatalf("a miss recorded %d hits, all=%v", len(hits), all)
	}
	// The first hit after the store comes from the memory tier (then
	// joins the hot set): recorded as a request without a hit.
	if hits, all := recorded(t, s, u, "/api/sources"); len(hits) != 0 || all {
		t.Fatalf("a memory-tier hit recorded %d hits, all=%v", len(hits), all)
	}
	hitOf := func() *Hit {
		t.Helper()
		hits, all := recorded(t, s, u, "/api/sources")
		if len(hits) != 1 || !all {
			t.Fatalf("a hot hit recorded %d hits, all=%v", len(hits), all)
		}
		if hits[0].Platform() != "obv" || hits[0].Status() != 200 || !strings.HasPrefix(hits[0].CacheStatus(), "BesluitBron; hit; ttl=") {
			t.Fatalf("hit %s %d %q", hits[0].Platform(), hits[0].Status(), hits[0].CacheStatus())
		}
		return &hits[0]
	}
	c.Advance(time.Millisecond) // ttl 86399 from here to a second after the store
	h := hitOf()
	if !h.Holds() {
		t.Fatal("a hit does not hold at once")
	}
	before := s.Stats().Hits
	h.Count()
	if s.Stats().Hits != before+1 {
		t.Fatal("Count did not count a hit")
	}
	c.Advance(998 * time.Millisecond)
	if !h.Holds() {
		t.Fatal("a hit does not hold within its second")
	}
	c.Advance(time.Millisecond) // Age 1
	if h.Holds() {
		t.Fatal("a hit holds with another Age")
	}
	c.Advance(time.Millisecond) // ttl 86398 as well
	if h.Holds() {
		t.Fatal("a hit holds with another ttl and Age")
	}

	key := func() string {
		t.Helper()
		for _, it := range s.hot.m {
			return it.sum
		}
		t.Fatal("nothing in the hot set")
		return ""
	}()
	e, _ := s.Get(key)
	if err := s.Put(key, e); err != nil {
		t.Fatal(err)
	}
	if h.Holds() {
		t.Fatal("a hit holds after its entry was stored anew")
	}

	recorded(t, s, u, "/api/sources") // back into the hot set
	h = hitOf()
	if err := s.Purge(); err != nil {
		t.Fatal(err)
	}
	if h.Holds() {
		t.Fatal("a hit holds after a purge")
	}

	recorded(t, s, u, "/api/sources") // a miss: stored again
	recorded(t, s, u, "/api/sources")
	h = hitOf()
	s.SetVersion("2")
	if h.Holds() {
		t.Fatal("a hit holds under another version")
	}
	s.SetVersion("1")
	if !h.Holds() {
		t.Fatal("a hit does not hold back under its version")
	}
	c.Advance(24 * time.Hour)
	if h.Holds() {
		t.Fatal("a hit holds past its entry's freshness")
	}
}
