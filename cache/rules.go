package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/platforms"
)

// This file holds the storage rules: which answers may be stored, which of
// their headers are kept, and how long an entry lives.

// storable returns "" when the answer may be stored, else why not.
func storable(res *result, pol Policy) string {
	h := res.header
	switch {
	case res.status == http.StatusNotFound && pol.NegativeTTL > 0:
	case res.status == http.StatusPartialContent:
		return "partial"
	case res.status < 200 || res.status > 299:
		return "status"
	}
	if cl := h.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err != nil || n != int64(len(res.body)) {
			return "incomplete"
		}
	}
	switch {
	case hasDirective(h, "Cache-Control", "no-store"):
		return "no-store"
	case hasDirective(h, "Cache-Control", "private"):
		return "private"
	case hasDirective(h, "Cache-Control", "no-cache"):
		return "no-cache"
	case len(h.Values("Set-Cookie")) > 0:
		return "set-cookie"
	case h.Get("Trailer") != "":
		return "trailer"
	}
	for _, v := range h.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			name = http.CanonicalHeaderKey(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if name == "*" {
				return "vary"
			}
			keyed := false
			for _, k := range KeyHeaders {
				if k == name {
					keyed = true
				}
			}
			if !keyed {
				return "vary"
			}
		}
	}
	return ""
}

// hasDirective tells whether a comma-separated header holds a directive
// (with or without a value).
func hasDirective(h http.Header, name, directive string) bool {
	for _, v := range h.Values(name) {
		for _, d := range strings.Split(v, ",") {
			d = strings.TrimSpace(d)
			if i := strings.IndexByte(d, '='); i >= 0 {
				d = d[:i]
			}
			if strings.EqualFold(d, directive) {
				return true
			}
		}
	}
	return false
}

// Headers never stored: hop-by-hop, recomputed per answer, or private to
// one caller.
var unstoredHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade", "Date", "Age", "Content-Length", cachestatus.Header,
	"Set-Cookie", platforms.HeaderQueueWait,
	"Via", // added by reverse_proxy to a forwarded answer; a hit forwarded nothing
	"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset", "Retry-After",
}

// storedHeader returns the headers of an answer worth keeping.
func storedHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, c := range h.Values("Connection") {
		for _, name := range strings.Split(c, ",") {
			out.Del(strings.TrimSpace(name))
		}
	}
	for _, k := range unstoredHeaders {
		out.Del(k)
	}
	return out
}

// staleOnError tells whether a stale entry may stand in for a failed
// answer (an error or a 5xx) within its stale-if-error window.
func staleOnError(res *result, stale *Entry, pol Policy, now time.Time) bool {
	failed := res.err != nil || res.status >= 500
	return failed && stale.Status < 300 && now.Before(stale.Expires.Add(pol.StaleIfError))
}

// newEntry is the one constructor of an entry from a fetched answer (a
// miss's flight and a background refresh alike): a 404 lives for the
// negative TTL and is never served stale; any other answer lives for the
// kind's TTL and is kept for the longer of its stale windows.
func newEntry(res *result, pol Policy, version string, now time.Time) *Entry {
	e := &Entry{Version: version, Kind: pol.Kind, StoredAt: now, Status: res.status, Header: res.stored, Body: res.body}
	if res.status == http.StatusNotFound {
		e.Expires = now.Add(pol.NegativeTTL)
		e.KeepUntil = e.Expires
	} else {
		e.Expires = now.Add(pol.TTL)
		e.KeepUntil = e.Expires.Add(max(pol.StaleWhileRevalidate, pol.StaleIfError))
	}
	return e
}

// keep settles a fetched answer: it counts a platform failure, cleans the
// headers, and stores the answer under key when the rules allow, noting in
// res whether it was stored and, if not, why.
func (s *Store) keep(key string, res *result, pol Policy, now time.Time) {
	if res.err == nil && res.status >= 500 || res.err != nil && !res.rejected {
		s.upstreamErrors.Add(1)
	}
	if res.err != nil {
		return
	}
	res.stored = storedHeader(res.header)
	if res.detail = storable(res, pol); res.detail != "" {
		return
	}
	e := newEntry(res, pol, s.Version(), now)
	if err := s.Put(key, e); err != nil {
		res.detail = "store-failed"
		return
	}
	res.storeOK, res.ttl = true, ttlSeconds(e.Expires.Sub(now))
}
