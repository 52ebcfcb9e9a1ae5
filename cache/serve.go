package cache

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/canonical"
	"github.com/besluitbron/besluitbron/httpx"
)

// This file answers a request: from the cache (a hit, or a stale entry
// while one refresh runs), through a coalesced fetch (coalesce.go), or past
// the cache. What may be stored is decided in rules.go, what Cache-Status
// says in status.go.

// Kinds of requests; each has its own lifetimes (docs/rules.md, "Cache" rule 2).
const (
	KindList     = "list"
	KindSearch   = "search"
	KindDocument = "document"
	KindOther    = "other"
)

// Kinds lists the kinds in a fixed order.
var Kinds = []string{KindList, KindSearch, KindDocument, KindOther}

// Policy is how one request is cached: its kind's lifetimes and limits.
type Policy struct {
	Kind string
	// TTL is the fresh lifetime; 0 means requests of this kind bypass the
	// cache.
	TTL time.Duration
	// StaleWhileRevalidate: for this long after expiry a stale entry is
	// served at once while one background request refreshes it.
	StaleWhileRevalidate time.Duration
	// StaleIfError: for this long after expiry a stale entry is served
	// when the platform fails (an error or a 5xx).
	StaleIfError time.Duration
	// NegativeTTL, when > 0, stores 404 answers that long.
	NegativeTTL time.Duration
	// MaxBody is the largest body stored (and buffered for coalescing);
	// larger answers stream through.
	MaxBody int64
	// AllowPOST makes POST requests cacheable, keyed by a hash of their
	// body (searches such as ORI's _search and OpenTK's multipart search).
	AllowPOST bool
	// MaxRequestBody is the largest POST body hashed into a key; larger
	// ones bypass the cache.
	MaxRequestBody int64
	// Rules are the platform's rules of its canonical requests (its priced
	// parameters); the key is that of the request the proxy sends under
	// the same rules. Zero: none.
	Rules canonical.Rules
}

// Next is the rest of the handler chain (caddyhttp.Handler satisfies it).
type Next interface {
	ServeHTTP(w http.ResponseWriter, r *http.Request) error
}

// NextFunc adapts a function to Next.
type NextFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP calls f.
func (f NextFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) error { return f(w, r) }

// Detach returns a copy of r to run after r's own request has ended (a
// background refresh): a context that is not cancelled with r's and, in
// Caddy, fresh per-request state. Nil means r.Clone with
// context.WithoutCancel.
type Detach func(r *http.Request) *http.Request

// ErrIncomplete is returned (to the callers that were not streamed to)
// when the platform's answer was cut off.
var ErrIncomplete = errors.New("upstream answer cut off")

// Serve answers r from the cache or through next, storing what may be
// stored. It sets Cache-Status on every answer and Age on hits. A request
// without a canonical form gets the *canonical.Error, unanswered: the
// caller answers it 400 (canonical.RefusalOf).
func (s *Store) Serve(w http.ResponseWriter, r *http.Request, pol Policy, next Next, detach Detach) error {
	rec := hitRecorderOf(r.Context())
	if rec != nil {
		rec.request() // a hit on the hot set adds its Hit below
	}
	if pol.MaxBody <= 0 {
		pol.MaxBody = DefaultMaxBody
	}
	if pol.MaxRequestBody <= 0 {
		pol.MaxRequestBody = 1 << 20
	}
	if r.Method != http.MethodPost && r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		// A read with a body: the platform could read what the key does
		// not cover. Refused here, before any budget queues it.
		return canonical.ErrBodyOnRead(r.Method)
	}
	if reason := bypassReason(r, pol); reason != "" {
		if StoredOnly(r.Context()) {
			return notStored(w)
		}
		return s.passBy(w, r, pol, next, reason)
	}
	// Conditional requests: the platform is asked for the whole answer
	// (it is what gets stored and shared with waiters); the caller's
	// If-None-Match is answered here.
	inm := ""
	if v := r.Header["If-None-Match"]; len(v) > 0 {
		inm = strings.Join(v, ",")
		delete(r.Header, "If-None-Match")
	}
	delete(r.Header, "If-Modified-Since")
	var body []byte
	if r.Method == http.MethodPost {
		var tooLarge bool
		var err error
		body, tooLarge, err = httpx.BufferBody(r, pol.MaxRequestBody)
		if err != nil {
			return err
		}
		if tooLarge {
			return s.passBy(w, r, pol, next, "request-too-large")
		}
	}
	// The key is that of the request the platform would receive: the
	// canonical form platform_proxy makes of r. A request without one
	// (package canonical says why) is refused here, as the proxy would,
	// before any budget queues it.
	c, err := canonical.Build(r, body, pol.Rules)
	if err != nil {
		return err
	}
	now := s.clock()
	bp := keyBufs.Get().(*[]byte)
	raw := c.AppendKey((*bp)[:0], s.platform)
	if it := s.hot.getRaw(raw); it != nil && it.e.Version == s.Version() && now.Before(it.e.Expires) {
		s.note(pol.Kind, "hit")
		ttl := ttlSeconds(it.e.Expires.Sub(now))
		if rec != nil && inm == "" && r.Method != http.MethodHead {
			rec.hit(Hit{s: s, raw: string(raw), it: it, kind: pol.Kind, ttl: ttl, age: ageSeconds(it.e, now), hdr: w.Header()})
		}
		*bp = raw
		keyBufs.Put(bp)
		return s.writeEntry(w, r, inm, it.e, now, it.hitStatus(ttl), it.clen)
	}
	key, rawKey := hashKey(raw), string(raw)
	*bp = raw
	keyBufs.Put(bp)
	e, dropped := s.get(r.Context(), key, rawKey, now)
	var stale *Entry
	if e != nil {
		if now.Before(e.Expires) {
			s.note(pol.Kind, "hit")
			return s.writeEntry(w, r, inm, e, now, hitStatus(ttlSeconds(e.Expires.Sub(now))), "")
		}
		if now.Before(e.Expires.Add(pol.StaleWhileRevalidate)) && e.Status < 300 {
			s.note(pol.Kind, "stale")
			s.refresh(key, r, body, pol, next, detach)
			return s.writeEntry(w, r, inm, e, now, revalidateStatus(ttlSeconds(e.Expires.Sub(now))), "")
		}
		stale = e
	}
	if StoredOnly(r.Context()) {
		return notStored(w) // no platform request, no budget, no miss counted
	}
	if r.Method == http.MethodHead {
		return s.passBy(w, r, pol, next, "head-miss")
	}
	return s.fetch(w, r, inm, key, pol, next, stale, dropped, 0)
}

// bypassReason tells why r is not for the cache ("" when it is).
func bypassReason(r *http.Request, pol Policy) string {
	switch {
	case pol.TTL <= 0:
		return "uncached-kind"
	case r.Method == http.MethodPost && !pol.AllowPOST:
		return "method"
	case r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost:
		return "method"
	case len(r.Header["Range"]) > 0:
		return "range"
	case len(r.Header["Authorization"]) > 0:
		return "authorization"
	case len(r.Header["Upgrade"]) > 0:
		return "upgrade"
	case len(r.Header["Cache-Control"]) > 0 && hasDirective(r.Header, "Cache-Control", "no-store"):
		return "no-store"
	}
	return ""
}

// passBy sends r on without caching. A budget rejection on the way says
// so in Cache-Status, as on a miss.
func (s *Store) passBy(w http.ResponseWriter, r *http.Request, pol Policy, next Next, reason string) error {
	s.note(pol.Kind, "bypass")
	w.Header().Set(cachestatus.Header, bypassStatus(reason))
	err := next.ServeHTTP(w, r)
	if err != nil && isRejection(err) {
		w.Header().Set(cachestatus.Header, bypassStatus(cachestatus.DetailOverBudget))
	}
	return err
}

// budgetRefusal is the error of a call BesluitBron's own budget turned
// away: fairqueue's *Rejection, which platform_limit wraps in Caddy's
// HandlerError. The cache knows it by this method, not by its type, so
// the two mechanisms import neither each other.
type budgetRefusal interface {
	error
	BudgetRefusal()
}

// isRejection tells whether err is the budget's refusal.
func isRejection(err error) bool {
	var rej budgetRefusal
	return errors.As(err, &rej)
}

// writeEntry answers from a stored entry: its headers, a known
// Content-Length, Age, Cache-Status, and the stored bytes as they are.
func (s *Store) writeEntry(w http.ResponseWriter, r *http.Request, inm string, e *Entry, now time.Time, status, clen string) error {
	if clen == "" {
		clen = strconv.Itoa(len(e.Body))
	}
	h := w.Header()
	copyHeader(h, e.Header)
	age := ageSeconds(e, now)
	// Canonical names set directly: no canonicalisation per hit.
	h["Content-Length"] = []string{clen}
	h["Age"] = []string{strconv.FormatInt(age, 10)}
	h[cachestatus.Header] = []string{status}
	finish(w, r, inm, e.Status, e.Body)
	return nil
}

// writeResult writes a flight's buffered answer to one caller.
func (s *Store) writeResult(w http.ResponseWriter, r *http.Request, inm string, res *result, header http.Header, status string) error {
	if res.err != nil {
		w.Header().Set(cachestatus.Header, status)
		if res.retryAfter != "" {
			// platform_limit set it on the flight's writer: Caddy writes
			// the error's status with the caller's headers.
			w.Header().Set("Retry-After", res.retryAfter)
		}
		return res.err
	}
	h := w.Header()
	copyHeader(h, header)
	h.Del("Transfer-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(res.body)))
	h.Set(cachestatus.Header, status)
	if res.retryAfter != "" {
		h.Set("Retry-After", res.retryAfter) // the stored copy has none
	}
	finish(w, r, inm, res.status, res.body)
	return nil
}

// finish ends an answer whose headers are set: 304 Not Modified when the
// caller's If-None-Match matches a 200's ETag, else the status and, but to
// HEAD, the body.
func finish(w http.ResponseWriter, r *http.Request, inm string, status int, body []byte) {
	h := w.Header()
	if inm != "" && status == http.StatusOK && etagMatches(inm, h.Get("Etag")) {
		delete(h, "Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// copyHeader sets src's fields in dst with values copied into one new
// backing array: later handlers may append to or even rewrite values in
// place (Caddy's header replace does), and stored entries are shared.
func copyHeader(dst, src http.Header) {
	n := 0
	for _, vs := range src {
		n += len(vs)
	}
	buf := make([]string, n)
	for k, vs := range src {
		c := copy(buf, vs)
		dst[k] = buf[:c:c]
		buf = buf[c:]
	}
}

// etagMatches is If-None-Match's weak comparison.
func etagMatches(inm, etag string) bool {
	if etag == "" {
		return false
	}
	etag = strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
