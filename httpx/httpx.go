// Package httpx holds the small HTTP mechanisms several handlers share:
// buffering a request body so it can be read again, reading
// Retry-After, and which of JSON and HTML an Accept header prefers. It
// does not import Caddy, so each can be tested on its own.
package httpx

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BufferBody reads r's body into memory when it holds at most max bytes,
// and gives r a body that can be read again: an in-memory reader, GetBody,
// and the exact ContentLength (the body is no longer chunked). It returns
// the bytes ([]byte{} when r has no body, and r is then left as it is).
//
// A body over max is not buffered: over is true and r's body is left
// streaming, whole (what was read is put back in front of the rest), so a
// caller may still pass it on; a Content-Length over max is refused before
// a byte is read. A read error is returned as it came (the body is then
// spent): the caller decides what a client that hung up, or a
// MaxBytesReader's limit, means to it.
func BufferBody(r *http.Request, max int64) (body []byte, over bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return []byte{}, false, nil
	}
	if r.ContentLength > max {
		return nil, true, nil
	}
	orig := r.Body
	// A chunked body has no length up front: read one byte past the cap.
	body, err = io.ReadAll(io.LimitReader(orig, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) > max {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), orig), orig}
		return nil, true, nil
	}
	_ = orig.Close()
	r.TransferEncoding = nil
	SetBody(r, body)
	return body, false, nil
}

// SetBody gives r its own reader over body, replayable through GetBody,
// and body's length as ContentLength. The bytes are shared, never written.
func SetBody(r *http.Request, body []byte) {
	r.ContentLength = int64(len(body))
	if len(body) == 0 {
		r.Body, r.GetBody = http.NoBody, nil
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}

// StalledRetryAfter is the Retry-After of a 504 for a platform that did
// not answer in time (platform_proxy's header timeout, the cache's flight
// deadline): the minute the tools suggest after a platform failure, time
// for a stalled platform to recover before it is asked again.
const StalledRetryAfter = "60"

// MaxRetryAfter is the longest wait RetryAfter accepts: a platform asking
// for more than a day has sent a mistake (say "1e9"), not a plan.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter reads a Retry-After value (RFC 9110 §10.2.3: delay-seconds or
// an HTTP-date) as the wait from now. A date already past gives a negative
// wait: "now" to a caller telling a person when to retry, no usable pause
// to the budget, which then empties its bucket as for a bare 429. Seconds
// with a fraction are taken as written (some servers send them). ok is
// false for an empty or malformed value, negative seconds, or a wait
// further out than MaxRetryAfter.
func RetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > MaxRetryAfter.Seconds() {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	wait = t.Sub(now)
	if wait > MaxRetryAfter {
		return 0, false
	}
	return wait, true
}
