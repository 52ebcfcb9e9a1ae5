// Package subrequest runs a request against BesluitBron's own platform
// routes (/platforms/<key>/...) by re-entering the Caddy server in process:
// no network, no second connection, and the same cache, budget and proxy
// as any app's request. The MCP connectors, the fan-out search and the
// search page all reach the platforms through Do, so they share cache
// entries with each other and with apps.
package subrequest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/subcall"
)

// Header marks BesluitBron's own sub-request (for logs, and as a second
// recursion guard next to the context mark session.WithInternal).
const Header = "Besluitbron-Subrequest"

// DoFromContext is Do through the Origin WithOrigin put in ctx: what the
// MCP tools, the fan-out and the site's reader ask through (a
// subcall.Doer).
func DoFromContext(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
	o, ok := OriginFrom(ctx)
	if !ok {
		return nil, errors.New("no Caddy server to send the platform request to")
	}
	return Do(ctx, o, platform, req)
}

// Origin is what a sub-request takes over from the request that caused it.
type Origin struct {
	// Server is the Caddy server to re-enter (the one serving the
	// causing request: caddyhttp.ServerCtxKey).
	Server *caddyhttp.Server
	// Host is the Host header, so the sub-request matches the same site.
	Host string
	// RemoteAddr is the caller's address, for the budget's fairness
	// between clients; empty means 127.0.0.1:0.
	RemoteAddr string
	// Key is the session key the budget's fair queue files the call
	// under (session.Shared for the page and the maintenance).
	Key string
	// Agent is the User-Agent product of the sub-request, for logs
	// (default "BesluitBron-MCP"); the platform sees platform_proxy's own.
	Agent string
}

type originKey struct{}

// WithOrigin puts o in ctx, for code further down that makes sub-requests.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginFrom returns the Origin WithOrigin put in ctx; false when there
// is none or it names no server.
func OriginFrom(ctx context.Context) (Origin, bool) {
	o, ok := ctx.Value(originKey{}).(Origin)
	return o, ok && o.Server != nil
}

// Do runs req against /platforms/<platform>/... by re-entering o.Server in
// process, as session o.Key (marked internal so inbound limits do not
// count it twice: the causing request was counted).
func Do(ctx context.Context, o Origin, platform string, req adapters.Request) (*subcall.Answer, error) {
	if o.Server == nil {
		return nil, errors.New("no Caddy server to send the platform request to")
	}
	if !platforms.Known(platform) {
		return nil, fmt.Errorf("unknown platform %q", platform)
	}
	target, err := adapters.RouteTarget(platform, req)
	if err != nil {
		return nil, err
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx = session.WithInternal(ctx, o.Key)
	var sub *http.Request
	if req.Body != nil {
		sub, err = http.NewRequestWithContext(ctx, method, target, bytes.NewReader(req.Body))
	} else {
		sub, err = http.NewRequestWithContext(ctx, method, target, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("building the platform request: %v", err)
	}
	sub.RequestURI = target
	sub.Host = o.Host
	sub.RemoteAddr = o.RemoteAddr
	if sub.RemoteAddr == "" {
		sub.RemoteAddr = "127.0.0.1:0"
	}
	agent := o.Agent
	if agent == "" {
		agent = "BesluitBron-MCP"
	}
	sub.Header.Set("User-Agent", agent+"/"+version.Current())
	sub.Header.Set(Header, "1")
	// No Accept or Accept-Encoding: the cache keys on them, and a plain
	// request (curl, most apps) sends neither, so tool calls, the page
	// and apps share one entry.
	if req.ContentType != "" {
		sub.Header.Set("Content-Type", req.ContentType)
	}
	rec := newRecorder()
	sub = caddyhttp.PrepareRequest(sub, caddy.NewReplacer(), rec, o.Server)
	start := time.Now()
	if err := serve(o.Server, rec, sub); err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, subcall.ErrAborted) {
			// The caller went (a search's deadline): that cut it off,
			// not the platform, and callers tell the two apart.
			return nil, fmt.Errorf("%w: %w", cerr, err)
		}
		return nil, err
	}
	a := &subcall.Answer{Status: rec.status, Header: rec.header, Body: rec.body.Bytes(), Took: time.Since(start)}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	a.Cache = rec.header.Get("Cache-Status")
	if v, err := strconv.ParseInt(rec.header.Get(platforms.HeaderQueueWait), 10, 64); err == nil && v >= 0 {
		a.QueueWaitMS = v
	}
	if rec.over {
		return a, subcall.ErrAnswerTooLarge
	}
	if err := ctx.Err(); err != nil {
		return a, err
	}
	return a, nil
}

// serve runs the route. A handler ends an answer it cannot finish by
// panicking with http.ErrAbortHandler (platform_proxy does when a body
// copy fails, as on the recorder's cap); net/http recovers that for a
// connection, but here nothing would, and a sub-request runs in the
// fan-out's and the maintenance's own goroutines, where the panic would
// end the process. So it, and any other panic, is this call's error only.
func serve(srv *caddyhttp.Server, rec *recorder, sub *http.Request) (err error) {
	defer func() {
		p := recover()
		switch {
		case p == nil:
		case rec.over:
			err = subcall.ErrAnswerTooLarge
		case p == http.ErrAbortHandler: //nolint:errorlint // a sentinel panic value
			err = subcall.ErrAborted
		default:
			caddy.Log().Error("platform route panicked in a sub-request",
				zap.String("path", sub.URL.Path), zap.Any("panic", p), zap.Stack("stack"))
			err = fmt.Errorf("%w: %v", subcall.ErrAborted, p)
		}
	}()
	srv.ServeHTTP(rec, sub)
	return nil
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
	if r.body.Len()+len(b) > subcall.MaxAnswerBytes {
		r.over = true
		return 0, subcall.ErrAnswerTooLarge
	}
	return r.body.Write(b)
}

// Flush lets reverse_proxy flush; everything is buffered anyway.
func (r *recorder) Flush() {}
