package cache

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
)

// This file says what Cache-Status (RFC 9211) tells each answer.

// hitStatus is a fresh hit's Cache-Status (also built once per hot item,
// hot.go).
func hitStatus(ttl int64) string {
	var buf [64]byte
	return string(AppendHitStatus(buf[:0], ttl))
}

// revalidateStatus is the Cache-Status of a stale entry served while one
// background request refreshes it.
func revalidateStatus(ttl int64) string {
	return fmt.Sprintf("%s; hit; ttl=%d; detail=stale-while-revalidate", cachestatus.Name, ttl)
}

// bypassStatus is the Cache-Status of a request sent on past the cache.
func bypassStatus(reason string) string {
	return cachestatus.Name + "; fwd=bypass; detail=" + reason
}

// passthroughStatus is the Cache-Status of a miss whose answer streamed
// straight through (too large to store, or an event stream).
func passthroughStatus(reason string) string {
	return cachestatus.Name + "; fwd=miss; detail=" + reason
}

// ttlSeconds is a lifetime left in whole seconds, as Cache-Status gives
// it (negative once expired, rounded away from zero).
func ttlSeconds(d time.Duration) int64 {
	if d < 0 {
		return -int64((-d + time.Second - 1) / time.Second)
	}
	return int64(d / time.Second)
}

// staleErrorStatus is the Cache-Status of a stale entry served because the
// platform failed.
func staleErrorStatus(res *result, stale *Entry, now time.Time) string {
	fs := "fwd-status=" + strconv.Itoa(res.status)
	switch {
	case errors.Is(res.err, ErrFlightTimeout):
		fs = "fwd-status=504"
	case res.err != nil:
		fs = "fwd-status=502"
	}
	return fmt.Sprintf("%s; fwd=stale; %s; ttl=%d; detail=stale-if-error", cachestatus.Name, fs, ttlSeconds(stale.Expires.Sub(now)))
}

// missStatus is the Cache-Status of an answer a flight brought back: to
// its leader, or (collapsed) to a caller that waited for it.
func missStatus(res *result, stale *Entry, dropped string, collapsed bool) string {
	var b strings.Builder
	b.WriteString(cachestatus.Name)
	if stale != nil {
		b.WriteString("; fwd=stale")
	} else {
		b.WriteString("; fwd=miss")
	}
	if res.err == nil {
		b.WriteString("; fwd-status=")
		b.WriteString(strconv.Itoa(res.status))
	}
	if collapsed {
		b.WriteString("; collapsed")
	}
	if res.storeOK {
		// ttl, as on a hit: how long the answer now stored stays fresh
		// (an MCP resource read passes it on as its ttlMs).
		b.WriteString("; stored; ttl=")
		b.WriteString(strconv.FormatInt(res.ttl, 10))
	}
	detail := res.detail
	switch {
	case res.rejected:
		detail = cachestatus.DetailOverBudget
	case res.err != nil:
		detail = "upstream-error"
	}
	if detail == "" && dropped != "" {
		detail = dropped
	}
	if detail != "" {
		b.WriteString("; detail=")
		b.WriteString(detail)
	}
	return b.String()
}
