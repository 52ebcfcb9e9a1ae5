package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Kind is what a platform route's non-2xx answer means for the caller.
// Every surface (the MCP tools, the fan-out, the reader) decides on the
// kind, never on a status or a message text of its own.
type Kind int

const (
	// KindOverBudget: BesluitBron's own budget for the platform has no room
	// now; the platform was not asked. RetryAfter says when there is.
	KindOverBudget Kind = iota + 1
	// KindRateLimited: the platform itself answered 429.
	KindRateLimited
	// KindNotFound: the platform knows no such thing (404, 410).
	KindNotFound
	// KindRefused: the platform refused the request as asked (400, 422 and
	// other 4xx): the input needs to change, trying again will not help.
	KindRefused
	// KindUnavailable: the platform failed or could not be reached (5xx),
	// or answered in a way BesluitBron cannot use (1xx, 3xx); trying later
	// may help.
	KindUnavailable
	// KindLoop: the platform route led back to an MCP connector (508), a
	// configuration error of BesluitBron's own.
	KindLoop
)

// String names the kind as logs and JSON outcomes do.
func (k Kind) String() string {
	switch k {
	case KindOverBudget:
		return "over_budget"
	case KindRateLimited:
		return "rate_limited"
	case KindNotFound:
		return "not_found"
	case KindRefused:
		return "refused"
	case KindUnavailable:
		return "unavailable"
	case KindLoop:
		return "loop"
	}
	return "unknown"
}

// RouteError is a platform route's answer other than 2xx, classified once
// (Classify).
type RouteError struct {
	Platform string // platform key
	Kind     Kind
	Status   int // the route's HTTP status
	// RetryAfter is the route's Retry-After in whole seconds;
	// RetryKnown tells whether it sent one.
	RetryAfter int
	RetryKnown bool
	// Detail is the platform's own short message from the body; empty for
	// BesluitBron's own refusals, whose body is not the platform's.
	Detail string
}

func (e *RouteError) Error() string {
	s := fmt.Sprintf("%s answered HTTP %d (%s)", e.Platform, e.Status, e.Kind)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Classify turns a route's non-2xx answer into a RouteError. overBudget
// says BesluitBron's own budget refused the call (the cache's
// Cache-Status detail); retry and retryKnown are its Retry-After.
func Classify(platform string, status int, overBudget bool, retry int, retryKnown bool, body []byte) *RouteError {
	e := &RouteError{Platform: platform, Status: status, RetryAfter: retry, RetryKnown: retryKnown}
	switch {
	case overBudget:
		e.Kind = KindOverBudget
		return e // the body is Caddy's, not the platform's
	case status == http.StatusTooManyRequests:
		e.Kind = KindRateLimited
	case status == http.StatusNotFound || status == http.StatusGone:
		e.Kind = KindNotFound
	case status == http.StatusLoopDetected:
		e.Kind = KindLoop
		return e
	case status >= 500 || status < 400:
		e.Kind = KindUnavailable
	default:
		e.Kind = KindRefused
	}
	e.Detail = BodyMessage(body)
	return e
}

// BodyMessage pulls a short human message out of a platform's error body:
// a JSON {"error": ..., "hint": ...} as OpenBesluitvorming and our own
// routes write it, else the start of the text.
func BodyMessage(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	var j struct {
		Error any    `json:"error"`
		Hint  string `json:"hint"`
	}
	if json.Unmarshal(b, &j) == nil && j.Error != nil {
		var s string
		switch e := j.Error.(type) {
		case string:
			s = e
		default:
			eb, _ := json.Marshal(e)
			s = string(eb)
		}
		if j.Hint != "" {
			s += " (" + j.Hint + ")"
		}
		return Cut(s, 300)
	}
	return Snippet(string(b), 200)
}

// KindOf is the kind of the RouteError in err's chain; 0 when there is
// none (the platform was not reached, or answered 2xx).
func KindOf(err error) Kind {
	var re *RouteError
	if errors.As(err, &re) {
		return re.Kind
	}
	return 0
}

// UnreachedError is a platform call that got no answer at all: the route
// could not be run, or the call was cancelled or timed out first.
type UnreachedError struct{ Err error }

func (e *UnreachedError) Error() string { return e.Err.Error() }
func (e *UnreachedError) Unwrap() error { return e.Err }

// CallFailed tells whether err is a failed platform call (the route's
// refusal, or no answer at all) rather than, say, an answer that did not
// parse.
func CallFailed(err error) bool {
	var re *RouteError
	var un *UnreachedError
	return errors.As(err, &re) || errors.As(err, &un)
}
