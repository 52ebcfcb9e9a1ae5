package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/caddymodule/httpx"
	"github.com/besluitbron/besluitbron/caddymodule/platformcache/cache"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/mcp/adapters"
)

// HeaderSubrequest marks a connector's sub-request (for logs and as a
// second recursion guard next to the context mark).
const HeaderSubrequest = "Besluitbron-Subrequest"

// maxAnswerBytes bounds one platform answer held in memory.
const maxAnswerBytes = 32 << 20

// origin is what a tool call's sub-requests take over from the MCP request
// that caused them.
type origin struct {
	srv        *caddyhttp.Server
	host       string
	remoteAddr string
	key        string // session key for the fair queue
}

type originKey struct{}

func withOrigin(ctx context.Context, o origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

func originFrom(ctx context.Context) (origin, bool) {
	o, ok := ctx.Value(originKey{}).(origin)
	return o, ok && o.srv != nil
}

// answer is a platform route's answer to a sub-request.
type answer struct {
	Status      int
	Header      http.Header
	Body        []byte
	Cache       string // the Cache-Status header, as sent
	QueueWaitMS int64  // the Besluitbron-Queue-Wait header
	Took        time.Duration
}

// fromCache tells whether the Cache-Status header says the answer was
// served from the cache: a hit (fresh or stale-while-revalidate), or the
// last good copy served because the platform failed (stale-if-error).
func (a *answer) fromCache() bool {
	return cacheHit(a.Cache) || staleIfError(a.Cache)
}

func cacheHit(cs string) bool {
	for _, part := range strings.Split(cs, ";") {
		if strings.EqualFold(strings.TrimSpace(part), "hit") {
			return true
		}
	}
	return false
}

// overBudget tells whether BesluitBron's own budget turned the call away:
// platform_cache, which sees platform_limit's error and knows a rejection
// by its type, says so in Cache-Status (detail=over-budget). A 429 or 503
// the platform itself sent never carries it.
func (a *answer) overBudget() bool {
	return a.Status >= 400 && cacheDetail(a.Cache) == cache.DetailOverBudget
}

// cacheDetail returns Cache-Status's detail parameter.
func cacheDetail(cs string) string {
	for _, part := range strings.Split(cs, ";") {
		part = strings.TrimSpace(part)
		if len(part) > 7 && strings.EqualFold(part[:7], "detail=") {
			return part[7:]
		}
	}
	return ""
}

// staleIfError tells whether Cache-Status says a stale copy answered for
// a failed platform (RFC 9211 fwd=stale; the detail says it was served).
func staleIfError(cs string) bool {
	if cacheDetail(cs) != "stale-if-error" {
		return false
	}
	for _, part := range strings.Split(cs, ";") {
		if strings.EqualFold(strings.TrimSpace(part), "fwd=stale") {
			return true
		}
	}
	return false
}

// recorder is the sub-request's own ResponseWriter: its own header map,
// a bounded body buffer, no streaming.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	over   bool
}

func newRecorder() *recorder { return &recorder{header: make(http.Header)} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 && status >= 200 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.body.Len()+len(b) > maxAnswerBytes {
		r.over = true
		return 0, errAnswerTooLarge
	}
	return r.body.Write(b)
}

// Flush lets reverse_proxy flush; everything is buffered anyway.
func (r *recorder) Flush() {}

var errAnswerTooLarge = errors.New("platform answer larger than 32 MiB")

// subrequest runs req against /platforms/<key>/... by re-entering the Caddy
// server in process, as session key (marked internal so inbound limits do
// not count it twice).
func subrequest(ctx context.Context, o origin, platform string, req adapters.Request) (*answer, error) {
	if _, ok := platforms.Get(platform); !ok {
		return nil, fmt.Errorf("unknown platform %q", platform)
	}
	if !strings.HasPrefix(req.Path, "/") {
		return nil, fmt.Errorf("bad platform path %q", req.Path)
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	target := "/platforms/" + platform + req.Path
	var body *bytes.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	ctx = session.WithInternal(ctx, o.key)
	var sub *http.Request
	var err error
	if body != nil {
		sub, err = http.NewRequestWithContext(ctx, method, target, body)
	} else {
		sub, err = http.NewRequestWithContext(ctx, method, target, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("building the platform request: %v", err)
	}
	sub.RequestURI = target
	sub.Host = o.host
	sub.RemoteAddr = o.remoteAddr
	if sub.RemoteAddr == "" {
		sub.RemoteAddr = "127.0.0.1:0"
	}
	sub.Header.Set("User-Agent", "BesluitBron-MCP/"+version.Current())
	sub.Header.Set(HeaderSubrequest, "1")
	// No Accept or Accept-Encoding: the cache keys on them, and a plain
	// request (curl, most apps) sends neither, so tool calls and apps share
	// one entry.
	if req.ContentType != "" {
		sub.Header.Set("Content-Type", req.ContentType)
	}
	rec := newRecorder()
	sub = caddyhttp.PrepareRequest(sub, caddy.NewReplacer(), rec, o.srv)
	start := time.Now()
	o.srv.ServeHTTP(rec, sub)
	a := &answer{Status: rec.status, Header: rec.header, Body: rec.body.Bytes(), Took: time.Since(start)}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	a.Cache = rec.header.Get("Cache-Status")
	if v, err := strconv.ParseInt(rec.header.Get(platforms.HeaderQueueWait), 10, 64); err == nil && v >= 0 {
		a.QueueWaitMS = v
	}
	if rec.over {
		return a, errAnswerTooLarge
	}
	if err := ctx.Err(); err != nil {
		return a, err
	}
	return a, nil
}

// retryAfter reads Retry-After (httpx.RetryAfter) as whole seconds to
// tell a model, rounded up; a date already past is 0 ("now").
func retryAfter(h http.Header, now time.Time) (int, bool) {
	d, ok := httpx.RetryAfter(h.Get("Retry-After"), now)
	if !ok {
		return 0, false
	}
	return int(math.Ceil(max(d, 0).Seconds())), true
}
