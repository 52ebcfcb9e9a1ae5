package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/fairqueue"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

// Kinds of requests; each has its own lifetimes (design.md §4.1.2).
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

// HeaderCacheStatus is RFC 9211's header; CacheName names this cache in it.
const (
	HeaderCacheStatus = "Cache-Status"
	CacheName         = "BesluitBron"
)

// DetailOverBudget is Cache-Status's detail on an answer BesluitBron's own
// budget refused (platform_limit's *fairqueue.Rejection, known by its
// type): the MCP connectors tell it from the platform's own 429 or 503
// by it.
const DetailOverBudget = "over-budget"

// ErrIncomplete is returned (to the callers that were not streamed to)
// when the platform's answer was cut off.
var ErrIncomplete = errors.New("upstream answer cut off")

// Serve answers r from the cache or through next, storing what may be
// stored. It sets Cache-Status on every answer and Age on hits.
func (s *Store) Serve(w http.ResponseWriter, r *http.Request, pol Policy, next Next, detach Detach) error {
	if pol.MaxBody <= 0 {
		pol.MaxBody = DefaultMaxBody
	}
	if pol.MaxRequestBody <= 0 {
		pol.MaxRequestBody = 1 << 20
	}
	if reason := bypassReason(r, pol); reason != "" {
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
		body, tooLarge, err = readBody(r, pol.MaxRequestBody)
		if err != nil {
			return err
		}
		if tooLarge {
			return s.passBy(w, r, pol, next, "request-too-large")
		}
	}
	now := s.clock()
	bp := keyBufs.Get().(*[]byte)
	raw := appendRawKey((*bp)[:0], s.platform, r, body)
	if it := s.hot.getRaw(raw); it != nil && it.e.Version == s.Version() && now.Before(it.e.Expires) {
		*bp = raw
		keyBufs.Put(bp)
		s.note(pol.Kind, "hit")
		ttl := ttlSeconds(it.e.Expires.Sub(now))
		return s.writeEntry(w, r, inm, it.e, now, it.hitStatus(ttl), it.clen)
	}
	key, rawKey := hashKey(raw), string(raw)
	*bp = raw
	keyBufs.Put(bp)
	e, dropped := s.get(key, rawKey, now)
	var stale *Entry
	if e != nil {
		if now.Before(e.Expires) {
			s.note(pol.Kind, "hit")
			return s.writeEntry(w, r, inm, e, now, hitStatus(ttlSeconds(e.Expires.Sub(now))), "")
		}
		if now.Before(e.Expires.Add(pol.StaleWhileRevalidate)) && e.Status < 300 {
			s.note(pol.Kind, "stale")
			s.refresh(key, r, body, pol, next, detach)
			return s.writeEntry(w, r, inm, e, now, fmt.Sprintf("%s; hit; ttl=%d; detail=stale-while-revalidate", CacheName, ttlSeconds(e.Expires.Sub(now))), "")
		}
		stale = e
	}
	if r.Method == http.MethodHead {
		return s.passBy(w, r, pol, next, "head-miss")
	}
	return s.fetch(w, r, inm, key, pol, next, stale, dropped, 0)
}

func hitStatus(ttl int64) string {
	var buf [64]byte
	b := append(buf[:0], CacheName+"; hit; ttl="...)
	return string(strconv.AppendInt(b, ttl, 10))
}

func ttlSeconds(d time.Duration) int64 {
	if d < 0 {
		return -int64((-d + time.Second - 1) / time.Second)
	}
	return int64(d / time.Second)
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

func readBody(r *http.Request, max int64) (body []byte, tooLarge bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return []byte{}, false, nil
	}
	body, err = io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) > max {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return nil, true, nil
	}
	_ = r.Body.Close()
	setBody(r, body)
	return body, false, nil
}

// passBy sends r on without caching. A budget rejection on the way says
// so in Cache-Status, as on a miss.
func (s *Store) passBy(w http.ResponseWriter, r *http.Request, pol Policy, next Next, reason string) error {
	s.note(pol.Kind, "bypass")
	w.Header().Set(HeaderCacheStatus, CacheName+"; fwd=bypass; detail="+reason)
	err := next.ServeHTTP(w, r)
	if err != nil && isRejection(err) {
		w.Header().Set(HeaderCacheStatus, CacheName+"; fwd=bypass; detail="+DetailOverBudget)
	}
	return err
}

// isRejection tells whether err is the budget's refusal (platform_limit
// wraps the *fairqueue.Rejection in Caddy's HandlerError).
func isRejection(err error) bool {
	var rej *fairqueue.Rejection
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
	age := int64(now.Sub(e.StoredAt) / time.Second)
	if age < 0 {
		age = 0
	}
	// Canonical names set directly: no canonicalisation per hit.
	h["Content-Length"] = []string{clen}
	h["Age"] = []string{strconv.FormatInt(age, 10)}
	h[HeaderCacheStatus] = []string{status}
	if inm != "" && e.Status == http.StatusOK && etagMatches(inm, h.Get("Etag")) {
		delete(h, "Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.Body)
	}
	return nil
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

// flight is one upstream request that identical misses wait for.
type flight struct {
	done    chan struct{}
	res     *result
	waiters int             // callers still interested; guarded by Store.flightsMu
	ctx     context.Context // the upstream request's: outlives the leader
	cancel  context.CancelFunc
}

// newFlightLocked starts a flight led by r; registered, it is the one
// identical misses join. Called with flightsMu held.
func (s *Store) newFlightLocked(key string, r *http.Request, register bool) *flight {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	f := &flight{done: make(chan struct{}), waiters: 1, ctx: ctx, cancel: cancel}
	if register {
		s.flights[key] = f
	}
	return f
}

// result is what a flight brings back.
type result struct {
	err     error // nothing usable was written
	shared  bool  // false: the leader streamed it, followers ask themselves
	status  int
	header  http.Header // the leader's live headers
	stored  http.Header // cleaned copy: what followers and the store get
	body    []byte
	storeOK bool
	detail  string // why it was not stored

	// rejected: err is the budget turning the leader's session away
	// (platform_limit's *fairqueue.Rejection). It is that session's
	// answer, not the platform's: followers ask on their own account.
	rejected bool
	// retryAfter is the Retry-After of a refusal (a rejection, the
	// platform's 429 or 5xx), passed to every caller it is written to;
	// it is never stored.
	retryAfter string
}

// maxRejoins is how many more flights a caller may join after the one it
// waited for was turned away by the budget. Past it, the caller asks on
// its own (a registered flight when none is under way, else alone), so
// the waits it spends on other sessions' accounts stay bounded.
const maxRejoins = 1

// fetch makes (or joins) the one upstream request for key. rejoins counts
// the flights this caller already saw turned away by the budget.
func (s *Store) fetch(w http.ResponseWriter, r *http.Request, inm, key string, pol Policy, next Next, stale *Entry, dropped string, rejoins int) error {
	s.flightsMu.Lock()
	f := s.flights[key]
	if f != nil && rejoins <= maxRejoins {
		f.waiters++
		s.flightsMu.Unlock()
		return s.follow(w, r, inm, key, f, pol, next, stale, rejoins)
	}
	f = s.newFlightLocked(key, r, f == nil)
	s.flightsMu.Unlock()
	return s.lead(w, r, inm, key, f, pol, next, stale, dropped)
}

// lead runs flight f's upstream request for r, stores what may be stored
// and hands the result to f's followers.
func (s *Store) lead(w http.ResponseWriter, r *http.Request, inm, key string, f *flight, pol Policy, next Next, stale *Entry, dropped string) error {
	defer f.cancel()
	// The leader hanging up does not end the request while others wait
	// for it; when every waiter has gone, the upstream request is ended.
	stop := context.AfterFunc(r.Context(), func() { s.leave(key, f) })
	defer stop()

	s.note(pol.Kind, "miss")
	fw := &fetchWriter{w: w, header: http.Header{}, max: pol.MaxBody}
	fw.onPassthrough = func() {
		s.publish(key, f, &result{shared: false})
		reason := "too-large"
		if strings.HasPrefix(fw.header.Get("Content-Type"), "text/event-stream") {
			reason = "streaming"
		}
		w.Header().Set(HeaderCacheStatus, CacheName+"; fwd=miss; detail="+reason)
	}
	err, aborted := runNext(next, fw, r.WithContext(f.ctx))
	now := s.clock()
	if fw.passthrough {
		s.publish(key, f, &result{shared: false}) // no-op when already published
		if aborted {
			panic(http.ErrAbortHandler)
		}
		return err
	}
	res := fw.result(err, aborted)
	if res.err == nil && res.status >= 500 || res.err != nil && !res.rejected {
		s.upstreamErrors.Add(1)
	}
	if res.err == nil {
		res.stored = storedHeader(res.header)
		res.detail = storable(res, pol)
		if res.detail == "" {
			e := &Entry{Version: s.Version(), Kind: pol.Kind, StoredAt: now, Status: res.status, Header: res.stored, Body: res.body}
			if res.status == http.StatusNotFound {
				e.Expires = now.Add(pol.NegativeTTL)
				e.KeepUntil = e.Expires
			} else {
				e.Expires = now.Add(pol.TTL)
				e.KeepUntil = e.Expires.Add(max(pol.StaleWhileRevalidate, pol.StaleIfError))
			}
			if perr := s.Put(key, e); perr == nil {
				res.storeOK = true
			} else {
				res.detail = "store-failed"
			}
		}
	}
	s.publish(key, f, res)
	if stale != nil && staleOnError(res, stale, pol, now) {
		s.note(pol.Kind, "stale")
		return s.writeEntry(w, r, inm, stale, now, staleErrorStatus(res, stale, now), "")
	}
	if r.Context().Err() != nil {
		return r.Context().Err() // the leader is gone; the others were served
	}
	return s.writeResult(w, r, inm, res, res.header, missStatus(res, stale, dropped, false))
}

// runNext calls next and turns reverse_proxy's abort panic (a body cut off
// after the header was written) into a flag, so a flight always ends.
func runNext(next Next, w http.ResponseWriter, r *http.Request) (err error, aborted bool) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler { //nolint:errorlint // a sentinel panic value
				panic(p)
			}
			err, aborted = ErrIncomplete, true
		}
	}()
	return next.ServeHTTP(w, r), false
}

// follow waits for another caller's flight and answers from its result.
func (s *Store) follow(w http.ResponseWriter, r *http.Request, inm, key string, f *flight, pol Policy, next Next, stale *Entry, rejoins int) error {
	stop := context.AfterFunc(r.Context(), func() { s.leave(key, f) })
	defer stop()
	select {
	case <-f.done:
	case <-r.Context().Done():
		return r.Context().Err()
	}
	res := f.res
	if !res.shared {
		// The answer streamed to the leader (too large or a stream); ask
		// for ourselves, uncoalesced and unstored.
		return s.passBy(w, r, pol, next, "uncoalesced")
	}
	if res.rejected {
		// The budget turned the leader's session away: that refusal is
		// not this caller's. It asks again, so it waits or is refused on
		// its own account (at once, or after joining one more flight).
		stop()
		return s.fetch(w, r, inm, key, pol, next, stale, "", rejoins+1)
	}
	s.note(pol.Kind, "coalesced")
	now := s.clock()
	if stale != nil && staleOnError(res, stale, pol, now) {
		s.note(pol.Kind, "stale")
		return s.writeEntry(w, r, inm, stale, now, staleErrorStatus(res, stale, now), "")
	}
	return s.writeResult(w, r, inm, res, res.stored, missStatus(res, stale, "", true))
}

// leave drops one waiter; the last one to go ends the upstream request.
func (s *Store) leave(key string, f *flight) {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	f.waiters--
	if f.waiters <= 0 {
		if s.flights[key] == f {
			delete(s.flights, key)
		}
		f.cancel()
	}
}

// publish hands a flight's result to its followers, once.
func (s *Store) publish(key string, f *flight, res *result) {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	if s.flights[key] == f {
		delete(s.flights, key)
	}
	if f.res == nil {
		f.res = res
		close(f.done)
	}
}

func staleOnError(res *result, stale *Entry, pol Policy, now time.Time) bool {
	failed := res.err != nil || res.status >= 500
	return failed && stale.Status < 300 && now.Before(stale.Expires.Add(pol.StaleIfError))
}

func staleErrorStatus(res *result, stale *Entry, now time.Time) string {
	fs := "fwd-status=" + strconv.Itoa(res.status)
	if res.err != nil {
		fs = "fwd-status=502"
	}
	return fmt.Sprintf("%s; fwd=stale; %s; ttl=%d; detail=stale-if-error", CacheName, fs, ttlSeconds(stale.Expires.Sub(now)))
}

func missStatus(res *result, stale *Entry, dropped string, collapsed bool) string {
	var b strings.Builder
	b.WriteString(CacheName)
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
		b.WriteString("; stored")
	}
	detail := res.detail
	switch {
	case res.rejected:
		detail = DetailOverBudget
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

// writeResult writes a flight's buffered answer to one caller.
func (s *Store) writeResult(w http.ResponseWriter, r *http.Request, inm string, res *result, header http.Header, status string) error {
	if res.err != nil {
		w.Header().Set(HeaderCacheStatus, status)
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
	h.Set(HeaderCacheStatus, status)
	if res.retryAfter != "" {
		h.Set("Retry-After", res.retryAfter) // the stored copy has none
	}
	if inm != "" && res.status == http.StatusOK && etagMatches(inm, h.Get("Etag")) {
		h.Del("Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.WriteHeader(res.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(res.body)
	}
	return nil
}

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
	"Transfer-Encoding", "Upgrade", "Date", "Age", "Content-Length", HeaderCacheStatus,
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

// fetchWriter receives the upstream answer of a flight: buffered while it
// fits (so every waiter gets the whole body, exactly once), streamed
// straight to the leader's writer once it does not.
type fetchWriter struct {
	w             http.ResponseWriter // the leader's; nil for a background refresh
	header        http.Header
	status        int
	wroteHeader   bool
	buf           []byte
	max           int64
	passthrough   bool
	onPassthrough func()
}

func (fw *fetchWriter) Header() http.Header { return fw.header }

func (fw *fetchWriter) WriteHeader(code int) {
	if fw.wroteHeader || code < 200 {
		return // 1xx are informational; only the final answer counts
	}
	fw.wroteHeader = true
	fw.status = code
	if cl, err := strconv.ParseInt(fw.header.Get("Content-Length"), 10, 64); err == nil && cl > fw.max {
		fw.goPassthrough()
		return
	}
	if strings.HasPrefix(fw.header.Get("Content-Type"), "text/event-stream") {
		fw.goPassthrough()
	}
}

func (fw *fetchWriter) Write(p []byte) (int, error) {
	if !fw.wroteHeader {
		fw.WriteHeader(http.StatusOK)
	}
	if !fw.passthrough && int64(len(fw.buf)+len(p)) > fw.max {
		fw.goPassthrough()
	}
	if fw.passthrough {
		if fw.w == nil {
			return len(p), nil
		}
		return fw.w.Write(p)
	}
	fw.buf = append(fw.buf, p...)
	return len(p), nil
}

// FlushError lets reverse_proxy flush a streamed answer; while buffering
// it does nothing, so nothing is committed early.
func (fw *fetchWriter) FlushError() error {
	if fw.passthrough && fw.w != nil {
		return http.NewResponseController(fw.w).Flush()
	}
	return nil
}

func (fw *fetchWriter) goPassthrough() {
	fw.passthrough = true
	if fw.onPassthrough != nil {
		fw.onPassthrough()
	}
	if fw.w != nil {
		h := fw.w.Header()
		for k, vs := range fw.header {
			if k == HeaderCacheStatus {
				continue
			}
			h[k] = vs
		}
		fw.w.WriteHeader(fw.status)
		if len(fw.buf) > 0 {
			_, _ = fw.w.Write(fw.buf)
		}
	}
	fw.buf = nil
}

func (fw *fetchWriter) result(err error, aborted bool) *result {
	if aborted {
		return &result{err: err, shared: true, detail: "incomplete"}
	}
	if err != nil && !fw.wroteHeader {
		return &result{err: err, shared: true, rejected: isRejection(err), retryAfter: fw.header.Get("Retry-After")}
	}
	if err != nil {
		// Something was written and then an error came back: the body
		// may be cut off. Never store it; share it as an error.
		return &result{err: err, shared: true, detail: "incomplete"}
	}
	if !fw.wroteHeader {
		fw.status = http.StatusOK
	}
	res := &result{shared: true, status: fw.status, header: fw.header, body: fw.buf}
	if fw.status == http.StatusTooManyRequests || fw.status >= 500 {
		// The platform's own refusal: shared with every waiter (it is the
		// platform's answer), never stored, Retry-After included.
		res.retryAfter = fw.header.Get("Retry-After")
	}
	return res
}
