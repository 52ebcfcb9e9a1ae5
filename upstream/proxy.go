// Package upstream is how BesluitBron talks to a platform's hosts: a kept-
// alive HTTP/1.1 connection pool per host, failover in a fixed host order
// with a fixed number of attempts that counts only requests actually sent,
// per-host concurrency caps that are passed over without cost (and waited
// on, bounded, when every host is full), the one resend of a request whose
// pooled connection turned out closed, and the address policy that keeps
// the proxy from being an open one. It is Caddy-free; the platform_proxy
// Caddy module wires it up.
package upstream

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/httpx"
)

// Host is one base URL of a platform.
type Host struct {
	Scheme string // http or https
	Host   string // Host header and TLS server name, as in the base URL (no default port)
	Dial   string // host:port
	Prefix string // escaped path prefix of the base URL, without a trailing slash
	// Transport is the host's own connection pool.
	Transport http.RoundTripper
}

// ParseBaseURL parses a platform base URL: http or https, a host, an
// optional path prefix; no query, fragment or user info.
func ParseBaseURL(raw string) (*Host, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("base URL %q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("base URL %q: must not carry a query, fragment or user info", raw)
	}
	return &Host{
		Scheme: u.Scheme,
		Host:   u.Host,
		Dial:   net.JoinHostPort(u.Hostname(), portOf(u)),
		Prefix: strings.TrimSuffix(u.EscapedPath(), "/"),
	}, nil
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// Options configure a Proxy.
type Options struct {
	// Attempts is the number of requests actually sent to hosts, at most,
	// for one incoming request (a refused dial is not sent and costs
	// nothing; a full host costs nothing). Default: the number of hosts.
	Attempts int
	// Caps are the per-host concurrency caps.
	Caps Caps
	// QueueWait bounds the wait for a place when every host is at its
	// cap. Zero: refuse at once with ErrNoPlace.
	QueueWait time.Duration
	// SearchPaths are path.Match patterns (on the path below the base
	// URL) of the platform's read-only searches: a POST to one of them
	// may be resent and failed over like a GET, and they count against
	// Caps.Searches.
	SearchPaths []string
	// MaxReplayBody is the largest request body buffered so it can be
	// resent. Larger bodies are streamed and never resent. Default 64 KiB.
	MaxReplayBody int64
	// UserAgent replaces the client's User-Agent.
	UserAgent string
	// Places, when set, holds the hosts' in-flight counts, shared with
	// the other proxies of the platform (a reload's old and new one), so
	// Caps hold across them. Default: counts of the proxy's own.
	Places *Places
	// RedirectPrefix, when set, replaces the base URL of a redirect's
	// Location that points into one of the platform's hosts, so the
	// client follows it through the proxy (e.g. "/platforms/opentk");
	// empty leaves such a Location as it is. A redirect anywhere else is
	// refused (OffPlatformRedirect), whatever this is. Redirects are never
	// followed by the proxy itself.
	RedirectPrefix string
}

// Stats are the proxy's counters.
type Stats struct {
	Requests     int64 // incoming requests
	Sent         int64 // attempts actually sent to a host (what the platform saw, stale resends excluded)
	StaleResends int64 // resends on a new connection after a pooled one turned out closed
	Failovers    int64 // moves to the next host after a failure
	NoPlace      int64 // requests refused after waiting for a place
	DeadConns    int64 // connections the kernel found dead (NoteDeadConn)
}

// Proxy is an http.RoundTripper that sends a request to a platform's hosts.
// The incoming request's URL path is the path below the base URL; its
// scheme and host are ignored.
type Proxy struct {
	hosts []*Host
	opt   Options
	sel   *Selector

	requests, sent, stale, failovers, noPlace, dead atomic.Int64
}

// NewProxy returns a proxy over hosts, tried in order.
func NewProxy(hosts []*Host, opt Options) (*Proxy, error) {
	if len(hosts) == 0 {
		return nil, errors.New("no host")
	}
	for _, h := range hosts {
		if h.Transport == nil {
			return nil, fmt.Errorf("host %s: no transport", h.Host)
		}
	}
	for _, p := range opt.SearchPaths {
		if _, err := path.Match(p, "/"); err != nil {
			return nil, fmt.Errorf("search path pattern %q: %v", p, err)
		}
	}
	if opt.Attempts <= 0 {
		opt.Attempts = len(hosts)
	}
	if opt.MaxReplayBody <= 0 {
		opt.MaxReplayBody = 64 << 10
	}
	places := opt.Places
	if places == nil {
		places = NewPlaces()
	}
	dials := make([]string, len(hosts))
	for i, h := range hosts {
		dials[i] = h.Dial
	}
	return &Proxy{hosts: hosts, opt: opt, sel: places.Selector(dials, opt.Caps)}, nil
}

// Selector returns the proxy's place keeper (for metrics and tests).
func (p *Proxy) Selector() *Selector { return p.sel }

// Stats returns the counters.
func (p *Proxy) Stats() Stats {
	return Stats{
		Requests:     p.requests.Load(),
		Sent:         p.sent.Load(),
		StaleResends: p.stale.Load(),
		Failovers:    p.failovers.Load(),
		NoPlace:      p.noPlace.Load(),
		DeadConns:    p.dead.Load(),
	}
}

// NoteDeadConn counts a connection the kernel found dead; the hosts'
// transports call it through TransportOptions.OnDeadConn.
func (p *Proxy) NoteDeadConn() { p.dead.Add(1) }

// IsSearch tells whether the request path is one of the platform's
// searches.
func (p *Proxy) IsSearch(r *http.Request) bool {
	for _, pat := range p.opt.SearchPaths {
		if ok, _ := path.Match(pat, r.URL.Path); ok {
			return true
		}
	}
	return false
}

// attempt records what happened to one attempt on the wire.
type attempt struct {
	mu        sync.Mutex
	conns     int  // connections the request was written to (2: a stale resend)
	reused    bool // the first connection came from the pool
	wrote     bool // request headers reached a connection
	firstByte bool // a response byte arrived
	onSent    func()
}

func (a *attempt) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			a.mu.Lock()
			if a.conns == 0 {
				a.reused = info.Reused
			}
			a.conns++
			a.mu.Unlock()
		},
		WroteHeaders: func() {
			a.mu.Lock()
			first := !a.wrote
			a.wrote = true
			a.mu.Unlock()
			if first && a.onSent != nil {
				a.onSent()
			}
		},
		GotFirstResponseByte: func() {
			a.mu.Lock()
			a.firstByte = true
			a.mu.Unlock()
		},
	}
}

func (a *attempt) snapshot() attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return attempt{conns: a.conns, reused: a.reused, wrote: a.wrote, firstByte: a.firstByte}
}

// safeMethod: methods without side effects, resent by HTTP clients anyway.
func safeMethod(m string) bool {
	switch m {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// failoverStatus are answers that say "this host cannot serve you now".
func failoverStatus(code int) bool {
	return code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// RoundTrip sends the request to the first host with room, failing over
// to the next on a failure before any response byte arrived, while
// attempts remain.
func (p *Proxy) RoundTrip(req *http.Request) (*http.Response, error) {
	p.requests.Add(1)
	ctx := req.Context()
	outcome := outcomeFrom(ctx)
	search := p.IsSearch(req)
	replayable := safeMethod(req.Method) || (req.Method == http.MethodPost && search)

	if err := p.bufferBody(req); err != nil {
		return nil, err
	}
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	replayable = replayable && rewindable

	excluded := make([]bool, len(p.hosts))
	sent := 0
	var lastErr error
	for {
		i, release, err := p.sel.Acquire(ctx, search, excluded, p.opt.QueueWait)
		if errors.Is(err, errNoHost) {
			if lastErr == nil {
				lastErr = err
			}
			return nil, lastErr
		}
		if err != nil {
			if errors.Is(err, ErrNoPlace) {
				p.noPlace.Add(1)
			}
			return nil, err
		}
		h := p.hosts[i]
		excluded[i] = true
		out, err := p.outgoing(req, h, search && replayable)
		if err != nil {
			release()
			return nil, err
		}
		at := attempt{onSent: func() {
			p.sent.Add(1)
			if outcome != nil {
				outcome.sent.Add(1)
			}
		}}
		out = out.WithContext(httptrace.WithClientTrace(out.Context(), at.trace()))
		resp, err := h.Transport.RoundTrip(out)
		a := at.snapshot()
		if a.wrote {
			sent++
		}
		if a.conns > 1 {
			p.stale.Add(int64(a.conns - 1))
		}
		more := sent < p.opt.Attempts && anyLeft(excluded)
		if err == nil {
			if failoverStatus(resp.StatusCode) && replayable && more {
				// Nothing of this answer has gone to the client yet.
				_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
				resp.Body.Close()
				release()
				p.failovers.Add(1)
				lastErr = fmt.Errorf("host %s answered %d", h.Host, resp.StatusCode)
				continue
			}
			if err := p.rewriteLocation(resp, out.URL); err != nil {
				// Nothing of this answer has gone to the client: it is
				// dropped whole, and the platform's connection kept.
				_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
				resp.Body.Close()
				release()
				return nil, err
			}
			resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
			return resp, nil
		}
		release()
		lastErr = err
		if ctx.Err() != nil {
			return nil, err
		}
		switch {
		case a.firstByte:
			// Never resend once the platform started answering.
			return nil, err
		case a.wrote && !replayable:
			return nil, err
		case !rewindable:
			// The transport may have consumed or closed the body.
			return nil, err
		case !more && a.wrote:
			return nil, err
		}
		if !anyLeft(excluded) {
			return nil, err
		}
		p.failovers.Add(1)
	}
}

func anyLeft(excluded []bool) bool {
	for _, e := range excluded {
		if !e {
			return true
		}
	}
	return false
}

// bufferBody reads a small request body into memory and sets GetBody, so
// the request can be resent; a larger body is left streaming. A body
// already replayable (platform_cache buffered it) is left as it is.
func (p *Proxy) bufferBody(req *http.Request) error {
	if req.GetBody != nil {
		return nil
	}
	if _, _, err := httpx.BufferBody(req, p.opt.MaxReplayBody); err != nil {
		return fmt.Errorf("reading request body: %w", err)
	}
	return nil
}

// outgoing builds the request for host h.
func (p *Proxy) outgoing(req *http.Request, h *Host, markReplayable bool) (*http.Request, error) {
	out := req.Clone(req.Context())
	if req.GetBody != nil && req.Body != http.NoBody {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		out.Body = b
	}
	out.URL.Scheme = h.Scheme
	out.URL.Host = h.Dial
	out.URL.User = nil
	out.Host = h.Host
	out.RequestURI = ""
	if h.Prefix != "" {
		escaped := req.URL.EscapedPath()
		if !strings.HasPrefix(escaped, "/") {
			escaped = "/" + escaped
		}
		joined := h.Prefix + escaped
		p, err := url.PathUnescape(joined)
		if err != nil {
			return nil, fmt.Errorf("request path %q: %v", escaped, err)
		}
		out.URL.Path = p
		out.URL.RawPath = ""
		if out.URL.EscapedPath() != joined {
			out.URL.RawPath = joined
		}
	}
	// Clone shares nothing with req's header map, so this leaves the
	// incoming request (and the next attempt's copy) intact.
	stripHeaders(out.Header)
	out.Trailer = nil
	if p.opt.UserAgent != "" {
		out.Header.Set("User-Agent", p.opt.UserAgent)
	}
	if markReplayable {
		// A read-only search: net/http resends it on a fresh connection
		// when a pooled one turns out closed, as it does a GET. A nil
		// value marks the request without sending the header.
		out.Header["Idempotency-Key"] = nil
	}
	return out, nil
}

// OffPlatformRedirect is RoundTrip's error for a platform answer that
// redirects outside the platform's base URLs: passed on, it would make
// our domain an open redirect to any host the platform (or an attacker
// who can steer it) names.
type OffPlatformRedirect struct {
	Status   int    // the platform's 3xx
	Location string // the target, resolved against the platform's URL
}

func (e *OffPlatformRedirect) Error() string {
	return fmt.Sprintf("platform redirected (%d) to %s, outside its base URLs", e.Status, e.Location)
}

// rewriteLocation checks a redirect's Location: one into one of the
// platform's base URLs is pointed at the proxy's own prefix (or left as
// it is without a RedirectPrefix); any other (another host, the
// platform's host outside the base URL's path, a Location that does not
// parse) is an *OffPlatformRedirect. Redirects are never followed.
func (p *Proxy) rewriteLocation(resp *http.Response, reqURL *url.URL) error {
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil
	}
	target, err := reqURL.Parse(loc)
	if err != nil {
		return &OffPlatformRedirect{Status: resp.StatusCode, Location: loc}
	}
	for _, h := range p.hosts {
		if rest, ok := h.below(target); ok {
			if p.opt.RedirectPrefix != "" {
				resp.Header.Set("Location", strings.TrimSuffix(p.opt.RedirectPrefix, "/")+rest)
			}
			return nil
		}
	}
	return &OffPlatformRedirect{Status: resp.StatusCode, Location: target.String()}
}

// below returns the part of u below the host's base URL (path, query),
// when u points into it. A scheme upgrade from http to https on default
// ports counts as the same host.
func (h *Host) below(u *url.URL) (string, bool) {
	if u.User != nil || !strings.EqualFold(u.Hostname(), hostnameOf(h.Host)) {
		return "", false
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", false
	}
	if u.Scheme == h.Scheme {
		if portOf(u) != portOf(&url.URL{Scheme: h.Scheme, Host: h.Host}) {
			return "", false
		}
	} else if u.Port() != "" || hasPort(h.Host) {
		return "", false
	}
	clean := path.Clean("/" + u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	prefix, err := url.PathUnescape(h.Prefix)
	if err != nil {
		return "", false
	}
	if prefix != "" && clean != prefix && !strings.HasPrefix(clean, prefix+"/") {
		return "", false
	}
	rest := strings.TrimPrefix(clean, prefix)
	if rest == "" {
		rest = "/"
	}
	ru := url.URL{Path: rest, RawQuery: u.RawQuery}
	return ru.RequestURI(), true
}

func hostnameOf(hostport string) string {
	return (&url.URL{Host: hostport}).Hostname()
}

func hasPort(hostport string) bool {
	return (&url.URL{Host: hostport}).Port() != ""
}

// releasingBody gives the host place back when the body is closed (the
// reverse proxy always closes it, also when the caller hung up).
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
