package subcall

import (
	"net/http"
	"testing"
	"time"
)

// TestAnswerCacheStates: FromCache and OverBudget read Cache-Status the
// way platform_cache writes it (RFC 9211 with BesluitBron's details).
func TestAnswerCacheStates(t *testing.T) {
	for _, tc := range []struct {
		cs         string
		status     int
		fromCache  bool
		overBudget bool
	}{
		{"BesluitBron; hit; ttl=3541", 200, true, false},
		{"BesluitBron; hit; ttl=-60; detail=stale-while-revalidate", 200, true, false},
		{"BesluitBron; fwd=stale; fwd-status=502; ttl=-7200; detail=stale-if-error", 200, true, false},
		{"BesluitBron; fwd=stale; fwd-status=200; stored", 200, false, false},
		{"BesluitBron; fwd=miss; fwd-status=200; collapsed; stored", 200, false, false},
		{"BesluitBron; fwd=miss; detail=over-budget", 503, false, true},
		{"BesluitBron; fwd=miss; detail=over-budget", 200, false, false}, // a 2xx is never a refusal
		{"BesluitBron; fwd=miss; fwd-status=429", 429, false, false},     // the platform's own 429
		{"BesluitBron; fwd=miss; detail=hit", 200, false, false},
		{"BesluitBron; fwd=miss; hitch; stored", 200, false, false},
		{"", 200, false, false},
	} {
		a := &Answer{Cache: tc.cs, Status: tc.status}
		if got := a.FromCache(); got != tc.fromCache {
			t.Errorf("FromCache(%q) = %v, want %v", tc.cs, got, tc.fromCache)
		}
		if got := a.OverBudget(); got != tc.overBudget {
			t.Errorf("OverBudget(%q, %d) = %v, want %v", tc.cs, tc.status, got, tc.overBudget)
		}
	}
}

// TestRetryAfter: seconds round up, a date in the past is 0, junk is no
// answer.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]int{
		"7":                             7,
		"0":                             0,
		"Sat, 01 Mar 2025 12:00:30 GMT": 30,
		"Sat, 01 Mar 2025 11:00:00 GMT": 0,
	} {
		got, ok := RetryAfter(http.Header{"Retry-After": {v}}, now)
		if !ok || got != want {
			t.Errorf("RetryAfter(%q) = %d, %v; want %d", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "soon", "-3"} {
		if _, ok := RetryAfter(http.Header{"Retry-After": {v}}, now); ok {
			t.Errorf("RetryAfter(%q) gave an answer", v)
		}
	}
}

// A resource read passes the cache's lifetime on as its ttlMs, and every
// result says when the platform gave its answer: both read what the cache
// wrote, and say nothing rather than something wrong.
func TestFreshForAndFetchedAt(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		cs, age string
		fresh   time.Duration
		known   bool
		fetched time.Time
	}{
		{"BesluitBron; hit; ttl=3600", "120", time.Hour, true, now.Add(-2 * time.Minute)},
		{"BesluitBron; fwd=miss; fwd-status=200; stored; ttl=86400", "", 24 * time.Hour, true, now},
		{"BesluitBron; hit; ttl=-5; detail=stale-while-revalidate", "9", 0, true, now.Add(-9 * time.Second)},
		{"BesluitBron; fwd=bypass; detail=no-store", "", 0, false, now},
		{"BesluitBron; fwd=miss; fwd-status=200; detail=too-large", "junk", 0, false, now},
		{"BesluitBron; hit; ttl=abc", "-3", 0, false, now},
	} {
		a := &Answer{Cache: tc.cs, Header: http.Header{}}
		if tc.age != "" {
			a.Header.Set("Age", tc.age)
		}
		fresh, known := a.FreshFor()
		if fresh != tc.fresh || known != tc.known {
			t.Errorf("%q: FreshFor %v %v, want %v %v", tc.cs, fresh, known, tc.fresh, tc.known)
		}
		if got := a.FetchedAt(now); !got.Equal(tc.fetched) {
			t.Errorf("%q Age %q: FetchedAt %v, want %v", tc.cs, tc.age, got, tc.fetched)
		}
	}
}
