// Package subcall is one call to a platform route and its answer, as the
// platform packages' getter sees it: the answer's status, body and what the
// cache and budget said of it (Answer), and the getter that turns answers
// into bodies and typed errors (Calls). It knows nothing of how the call
// is sent: caddymodule/subrequest re-enters the Caddy server, and the
// fan-out's tests hand it a function.
package subcall

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/httpx"
)

// Answer is a platform route's answer to a sub-request.
type Answer struct {
	Status      int
	Header      http.Header
	Body        []byte
	Cache       string // the Cache-Status header, as sent
	QueueWaitMS int64  // the Besluitbron-Queue-Wait header
	Took        time.Duration
}

// FromCache tells whether the Cache-Status header says the answer was
// served from the cache: a hit (fresh or stale-while-revalidate), or the
// last good copy served because the platform failed (stale-if-error).
func (a *Answer) FromCache() bool {
	return cachestatus.Hit(a.Cache) || cachestatus.StaleIfError(a.Cache)
}

// OverBudget tells whether BesluitBron's own budget turned the call away:
// platform_cache, which sees platform_limit's error and knows a rejection
// by its type, says so in Cache-Status (detail=over-budget). A 429 or 503
// the platform itself sent never carries it.
func (a *Answer) OverBudget() bool {
	return a.Status >= 400 && cachestatus.Detail(a.Cache) == cachestatus.DetailOverBudget
}

// OK tells whether the platform route answered 2xx.
func (a *Answer) OK() bool { return a.Status >= 200 && a.Status < 300 }

// FreshFor is how long the cache keeps the answer fresh from now
// (Cache-Status ttl=, on a hit and on an answer just stored; 0 once
// stale); ok is false when the cache says nothing of it (bypassed, not
// stored).
func (a *Answer) FreshFor() (time.Duration, bool) {
	ttl, err := strconv.ParseInt(cachestatus.Param(a.Cache, "ttl="), 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(max(ttl, 0)) * time.Second, true
}

// FetchedAt is when the platform gave the answer: now less its Age (the
// cache's age of a stored answer; 0 for one fetched now).
func (a *Answer) FetchedAt(now time.Time) time.Time {
	age, err := strconv.ParseInt(a.Header.Get("Age"), 10, 64)
	if err != nil || age < 0 {
		return now
	}
	return now.Add(-time.Duration(age) * time.Second)
}

// RetryAfter reads Retry-After (httpx.RetryAfter) as whole seconds to
// tell a person or a model, rounded up; a date already past is 0 ("now").
func RetryAfter(h http.Header, now time.Time) (int, bool) {
	d, ok := httpx.RetryAfter(h.Get("Retry-After"), now)
	if !ok {
		return 0, false
	}
	return int(math.Ceil(max(d, 0).Seconds())), true
}

// Err is the answer as the platform packages see it: nil for a 2xx, else
// the one classification of a route's answer (adapters.Classify).
func (a *Answer) Err(platform string, now time.Time) *adapters.RouteError {
	if a.OK() {
		return nil
	}
	retry, known := RetryAfter(a.Header, now)
	return adapters.Classify(platform, a.Status, a.OverBudget(), retry, known, a.Body)
}
