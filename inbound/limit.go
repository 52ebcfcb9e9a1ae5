// Package inbound limits how often clients may call BesluitBron (docs/rules.md,
// "Inbound limits"). A request passes three layers: the whole process, its connector (a
// named zone), and its session and client address (before a session
// exists, its address alone; a session's requests count against its
// address too, so sessions divide an address's room and never multiply
// it). It passes every layer or is refused, and a refused request consumes
// nothing in any layer.
//
// Every layer is a GCRA token bucket (the generic cell rate algorithm: the
// same bucket as golang.org/x/time/rate, kept as one "theoretical arrival
// time" per key, so a key costs one int64). Time is passed in as now, as in
// x/time/rate, so the limiter is exact under test.
//
// The package knows nothing of Caddy or HTTP; caddymodule/clientlimit adapts it.
package inbound

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limit is one layer's rate: a bucket of Burst tokens, refilled with one
// token every Every. The zero Limit (Every == 0) is no limit at all.
type Limit struct {
	Every time.Duration // time to refill one token; 0 means unlimited
	Burst int           // bucket size: requests that may come at once
}

// Unlimited reports whether l limits nothing.
func (l Limit) Unlimited() bool { return l.Every <= 0 }

// String formats l the way ParseLimit reads it: "<n>/<unit> <burst>" or "off".
func (l Limit) String() string {
	if l.Unlimited() {
		return "off"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}} {
		// Rates such as 7/m do not divide into whole nanoseconds; allow
		// the rounding ParseRate did.
		n := (u.d + l.Every/2) / l.Every
		if diff := time.Duration(n)*l.Every - u.d; n > 0 && diff <= time.Duration(n) && -diff <= time.Duration(n) {
			return fmt.Sprintf("%d/%s %d", n, u.name, l.Burst)
		}
	}
	return fmt.Sprintf("1/%s %d", l.Every, l.Burst)
}

// Validate reports a limit that cannot work.
func (l Limit) Validate() error {
	if l.Unlimited() {
		return nil
	}
	if l.Burst < 1 {
		return fmt.Errorf("burst must be at least 1, got %d", l.Burst)
	}
	if l.Every < time.Microsecond {
		return fmt.Errorf("rate too high: one token every %s (at most 1,000,000/s)", l.Every)
	}
	if l.Burst > 1_000_000_000 || time.Duration(l.Burst) > math.MaxInt64/4/l.Every {
		return fmt.Errorf("burst %d too large for one token every %s", l.Burst, l.Every)
	}
	return nil
}

// ParseRate reads a rate: "<n>/s", "<n>/m", "<n>/h", "<n>/<duration>" (as
// in "3/10s") or a bare number (per second), and returns the time one
// token takes to refill.
func ParseRate(s string) (time.Duration, error) {
	num, per, found := strings.Cut(s, "/")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, fmt.Errorf("rate %q: want a positive number of requests, as in 20/s, 600/m or 3/10s", s)
	}
	window := time.Second
	if found {
		switch per {
		case "s":
			window = time.Second
		case "m":
			window = time.Minute
		case "h":
			window = time.Hour
		default:
			window, err = time.ParseDuration(per)
			if err != nil || window <= 0 {
				return 0, fmt.Errorf("rate %q: unit must be s, m, h or a positive duration such as 10s", s)
			}
		}
	}
	every := time.Duration(float64(window) / n)
	if every < time.Microsecond {
		return 0, fmt.Errorf("rate %q: too high (at most 1,000,000 requests per second)", s)
	}
	return every, nil
}

// ParseLimit reads "<rate> <burst>" (as two arguments) or the single
// argument "off".
func ParseLimit(args []string) (Limit, error) {
	if len(args) > 0 && args[0] == "off" {
		if len(args) > 1 {
			return Limit{}, fmt.Errorf("off takes no burst, got %q", strings.Join(args, " "))
		}
		return Limit{}, nil
	}
	if len(args) != 2 {
		return Limit{}, fmt.Errorf("want <rate> <burst> (as in 20/s 60) or off, got %q", strings.Join(args, " "))
	}
	every, err := ParseRate(args[0])
	if err != nil {
		return Limit{}, err
	}
	burst, err := strconv.Atoi(args[1])
	if err != nil || burst < 1 {
		return Limit{}, fmt.Errorf("burst %q: want a whole number of at least 1", args[1])
	}
	l := Limit{Every: every, Burst: burst}
	return l, l.Validate()
}

// Layer names one of the limits a request passes.
type Layer uint8

// The layers, in the order the limiter checks them.
const (
	LayerNone      Layer = iota
	LayerSession         // an MCP session the connector issued
	LayerAddress         // a client address (every request, session or not)
	LayerConnector       // the named zone: one MCP endpoint
	LayerProcess         // the whole process
)

// String returns the layer's name as used in bodies, placeholders and metrics.
func (l Layer) String() string {
	switch l {
	case LayerSession:
		return "session"
	case LayerAddress:
		return "address"
	case LayerConnector:
		return "connector"
	case LayerProcess:
		return "process"
	}
	return "none"
}

// Decision is the limiter's answer for one request.
type Decision struct {
	// Allowed is true if the request passed every layer (and was counted).
	Allowed bool
	// Layer is, for a refused request, the refusing layer with the longest
	// wait. For an allowed request it is the layer with the fewest
	// requests left, which the RateLimit-* headers describe; LayerNone if
	// every layer is unlimited.
	Layer Layer
	// Refused lists every layer that refused the request (bit 1<<Layer).
	Refused uint8
	// RetryAfter is, for a refused request, how long until every refusing
	// layer would let it pass: the longest of their waits.
	RetryAfter time.Duration
	// Limit, Remaining and Reset describe Layer's bucket after this
	// request: its size, the requests left in it now, and the time until
	// it is full again.
	Limit     int
	Remaining int
	Reset     time.Duration
	// Tier says where the session and address buckets were judged:
	// TierLocal without a shared store.
	Tier Tier
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds (at least 1
// for a refused request), for the Retry-After header.
func (d Decision) RetryAfterSeconds() int64 { return ceilSeconds(d.RetryAfter, !d.Allowed) }

// ResetSeconds is Reset rounded up to whole seconds, for RateLimit-Reset.
func (d Decision) ResetSeconds() int64 { return ceilSeconds(d.Reset, false) }

// RefusedBy reports whether layer l refused the request.
func (d Decision) RefusedBy(l Layer) bool { return d.Refused&(1<<l) != 0 }

func ceilSeconds(d time.Duration, atLeastOne bool) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 && atLeastOne {
		return 1
	}
	if s < 0 {
		return 0
	}
	return s
}
