// Package platformproxy is the platform_proxy handler: Caddy's reverse_proxy
// set up for one of the platforms, so an admin names the platform and
// (optionally) its base URLs instead of spelling out upstreams, TLS, Host
// and path prefixes.
package platformproxy

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/canonical"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/platforms"
	up "github.com/besluitbron/besluitbron/upstream"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler proxies a platform route to the platform's hosts over kept-alive
// connections. The request path below the route's prefix is appended to the
// base URL's path, the query is kept (its parameters in name order), Host and TLS server name are
// the upstream's, and every request carries a User-Agent naming BesluitBron
// and the operator's contact address. Only what a platform needs reaches
// it, the request platform_cache keys (package canonical): method, path,
// the query with its parameters in name order, Accept and
// Accept-Encoding, and for a POST its Content-Type and body in canonical
// form (a multipart form re-encoded). Every other header of the client
// (credentials, cookies, our session headers, addresses, Prefer, Range,
// conditionals, ...) stays behind: the platforms see BesluitBron, not its
// users, and no answer depends on something the key does not cover.
//
// Only GET and HEAD, and POST to the platform's read-only searches
// (SearchPaths), are passed on; any other method is answered 405 with an
// Allow header and a JSON error. A body over MaxBody is answered 413. A
// GET or HEAD with a body, a POST body that does not read as its
// Content-Type (or a form part with a Content-Transfer-Encoding, a name*
// or a header other than Content-Disposition and Content-Type), and a
// priced query parameter (OBV's limit on /api/search) that is not one
// whole number in range are answered 400 with a JSON error.
//
// Failure: when no upstream answers, the handler returns a 502 error (dial
// failure) or 503 (no upstream available) that handle_errors can shape.
// Afterwards the placeholder {http.platform_proxy.sent} holds the number of
// attempts a platform received (0: nothing of the request left us, as for
// the 405 and 413 above).
type Handler struct {
	// Platform is the platform's key (ori, obv, tk, opentk, ob,
	// rechtspraak, oa). Required.
	Platform string `json:"platform"`

	// BaseURLs are the platform's base URLs (scheme, host, optional port
	// and path prefix), tried in order. Default: the besluitbron app's
	// descriptor of the platform (its base_url, else the public address,
	// with the paths the table mounts on other hosts sent there). Set
	// here, they serve every path of the platform.
	BaseURLs []string `json:"base_urls,omitempty"`

	// Contact is the address platforms may use to reach the operator; it
	// is put in the User-Agent. Default: the besluitbron app's contact,
	// else "beheer@besluitbron.nl".
	Contact string `json:"contact,omitempty"`

	// DialTimeout bounds the TCP connect and, separately, the TLS
	// handshake of a new connection. Default: 5s.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`

	// ResponseHeaderTimeout bounds the wait for the platform's answer
	// headers after the request was sent; then the attempt fails with
	// 504 and Retry-After (or over to the next host). It never cuts a
	// body that has started: a slow full text (Rechtspraak's, OB's) that
	// answers its headers goes on as long as it sends. A duration; default
	// 60s (DefaultResponseHeaderTimeout, which says why); positive, at
	// most 10m.
	ResponseHeaderTimeout caddy.Duration `json:"response_header_timeout,omitempty"`

	// IdleTimeout is how long an idle kept-alive connection stays open.
	// Default: 30s (shorter than the 60-75 s idle timeouts of common
	// front ends, so we close first; long enough to span an assistant's
	// burst of tool calls).
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`

	// MaxIdleConnsPerHost bounds the idle connections kept per host.
	// Default: 16.
	MaxIdleConnsPerHost int `json:"max_idle_conns_per_host,omitempty"`

	// ProbeInterval is the TCP keep-alive idle time and probe interval;
	// it must be shorter than IdleTimeout, so an idle connection is
	// probed before it is reused. Three unanswered probes, or sent data
	// unacknowledged for 4 × ProbeInterval (the TCP user timeout), close
	// the connection. Default: 5s (a dead path is found within 20 s,
	// idle, while waiting for a long silent answer, or mid-request; a live
	// platform's kernel answers the probes, so a slow answer is not cut).
	ProbeInterval caddy.Duration `json:"probe_interval,omitempty"`

	// MaxBody is the largest request body passed on to the platform, in
	// bytes; a larger one is answered 413 with a JSON error. Bodies are
	// read into memory first, so they can be resent. Default: 65536
	// (64 KiB).
	MaxBody int64 `json:"max_body,omitempty"`

	// Attempts is the number of requests actually sent to the platform's
	// hosts for one incoming request, at most. A refused dial and a host
	// at its cap cost no attempt. Default: the number of base URLs.
	Attempts int `json:"attempts,omitempty"`

	// MaxRequestsPerHost caps the requests in flight on one host.
	// Default: no cap.
	MaxRequestsPerHost int `json:"max_requests_per_host,omitempty"`

	// MaxSearchesPerHost caps the searches (SearchPaths) in flight on one
	// host. Default: the platform's descriptor (OpenTK 2), else no cap.
	MaxSearchesPerHost int `json:"max_searches_per_host,omitempty"`

	// QueueWait bounds how long a request waits for a place when every
	// host is at its cap; then it is answered 503. Default: the
	// platform's descriptor (OpenTK 20s), else 15s.
	QueueWait caddy.Duration `json:"queue_wait,omitempty"`

	// SearchPaths are path.Match patterns, on the path below the base URL,
	// of the platform's read-only searches: POSTs to them may be resent
	// and failed over like GETs, and they count against
	// MaxSearchesPerHost. Default: the platform's descriptor (ORI
	// "/_search", "/_msearch", "/*/_search", "/*/_msearch"; OpenTK
	// "/search"). ["off"]: none.
	SearchPaths []string `json:"search_paths,omitempty"`

	// AllowPrivate lists address ranges (CIDR or single IP) the proxy may
	// dial although private, loopback or link-local. The besluitbron
	// app's allow_private adds to it.
	AllowPrivate []string `json:"allow_private,omitempty"`

	// RedirectPrefix replaces the base URL in a redirect's Location that
	// points into one of the platform's base URLs. Default:
	// "/platforms/<platform>"; "off" leaves such a Location untouched. A
	// redirect anywhere else is answered 502 with a JSON body naming the
	// target, whatever this is (an open redirect on our domain otherwise).
	RedirectPrefix string `json:"redirect_prefix,omitempty"`

	// TLSCA is a PEM file of extra root certificates to trust for the
	// platform's hosts (private mirrors, benchmarks). Default: the system
	// roots only.
	TLSCA string `json:"tls_ca,omitempty"`

	upstreams []*upstream
	up        *up.Proxy
	mounts    []mountProxy // paths other hosts serve (platforms.Platform.Mounts)
	rules     canonical.Rules
	state     *platformState // shared with the platform's other handlers, across reloads
	refs      []string       // keys this handler holds in pool
	logger    *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.platform_proxy",
		New: func() caddy.Module { return new(Handler) },
	}
}

// defaultQueueWait bounds the wait for a place on a platform whose
// descriptor names none.
const defaultQueueWait = 15 * time.Second

// DefaultResponseHeaderTimeout bounds the wait for a platform's answer
// headers. The slowest answers seen start within tens of seconds (the
// Tweede Kamer's OData with $count or several contains terms); full texts
// are slow in their body, which this does not bound. A minute leaves
// those room and still frees, well within a search's stale window, a
// connection and a cache flight held by a platform that accepted the
// request and never answers.
const DefaultResponseHeaderTimeout = time.Minute

// maxResponseHeaderTimeout bounds ResponseHeaderTimeout: a platform that
// has not started answering in ten minutes has stalled.
const maxResponseHeaderTimeout = 10 * time.Minute

// Provision builds the reverse proxy for the platform. It changes nothing
// the running config uses: the connection pools and in-flight counts it
// shares with that config are taken from the pool (new ones for new hosts
// or settings), and the one live setting, where dead-connection reports
// go, is staged until the config starts.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	p, ok := a.Platform(h.Platform)
	if !ok {
		return fmt.Errorf("unknown platform %q (known: %v)", h.Platform, platforms.Keys())
	}
	ownBaseURLs, mounts := len(h.BaseURLs) > 0, p.Mounts
	if !ownBaseURLs {
		h.BaseURLs = p.BaseURLs
	}
	if h.Contact == "" {
		h.Contact = a.ContactAddress()
	}
	if h.DialTimeout == 0 {
		h.DialTimeout = caddy.Duration(5 * time.Second)
	}
	if h.IdleTimeout == 0 {
		h.IdleTimeout = caddy.Duration(30 * time.Second)
	}
	if h.ResponseHeaderTimeout == 0 {
		h.ResponseHeaderTimeout = caddy.Duration(DefaultResponseHeaderTimeout)
	}
	if d := time.Duration(h.ResponseHeaderTimeout); d <= 0 || d > maxResponseHeaderTimeout {
		return fmt.Errorf("platform %s: response_header_timeout %v: want a positive duration of at most %v", h.Platform, d, maxResponseHeaderTimeout)
	}
	if h.MaxIdleConnsPerHost == 0 {
		h.MaxIdleConnsPerHost = 16
	}
	if h.ProbeInterval == 0 {
		h.ProbeInterval = caddy.Duration(up.DefaultProbeInterval)
	}
	if h.ProbeInterval >= h.IdleTimeout {
		return fmt.Errorf("platform %s: probe_interval %v must be shorter than idle_timeout %v, or an idle connection is never probed before reuse",
			h.Platform, time.Duration(h.ProbeInterval), time.Duration(h.IdleTimeout))
	}
	if h.MaxBody == 0 {
		h.MaxBody = defaultMaxBody
	}
	if h.MaxBody < 0 {
		return fmt.Errorf("platform %s: max_body must be positive, got %d", h.Platform, h.MaxBody)
	}
	if h.QueueWait == 0 {
		h.QueueWait = caddy.Duration(p.Search.QueueWait)
	}
	if h.QueueWait == 0 {
		h.QueueWait = caddy.Duration(defaultQueueWait)
	}
	searchPaths := h.SearchPaths
	switch {
	case len(searchPaths) == 0:
		searchPaths = p.Search.Paths
	case len(searchPaths) == 1 && searchPaths[0] == "off":
		searchPaths = nil
	}
	if h.MaxSearchesPerHost == 0 {
		h.MaxSearchesPerHost = p.Search.MaxPerHost
	}
	if h.RedirectPrefix == "" {
		h.RedirectPrefix = "/platforms/" + h.Platform
	}
	redirectPrefix := h.RedirectPrefix
	if redirectPrefix == "off" {
		redirectPrefix = ""
	}
	allow, err := up.ParsePrefixes(h.AllowPrivate)
	if err != nil {
		return fmt.Errorf("platform %s: allow_private: %w", h.Platform, err)
	}
	allow = append(allow, a.AllowedPrivate()...)
	var tlsConf *tls.Config
	var tlsKey string
	if h.TLSCA != "" {
		pem, err := os.ReadFile(h.TLSCA)
		if err != nil {
			return fmt.Errorf("platform %s: tls_ca: %w", h.Platform, err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("platform %s: tls_ca %s: no PEM certificate found", h.Platform, h.TLSCA)
		}
		tlsConf = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
		tlsKey = fmt.Sprintf("%s %x", h.TLSCA, sha256.Sum256(pem))
	}
	h.rules = canonical.RulesFor(p)
	userAgent := platforms.UserAgent(version.Current(), h.Contact)
	if err := h.takeState(); err != nil {
		return err
	}

	build := func(baseURLs []string) (*up.Proxy, error) {
		return h.proxyOf(baseURLs, tlsKey, up.TransportOptions{
			DialTimeout:           time.Duration(h.DialTimeout),
			ResponseHeaderTimeout: time.Duration(h.ResponseHeaderTimeout),
			IdleTimeout:           time.Duration(h.IdleTimeout),
			MaxIdleConnsPerHost:   h.MaxIdleConnsPerHost,
			ProbeInterval:         time.Duration(h.ProbeInterval),
			ProbeCount:            up.DefaultProbeCount,
			Policy:                up.AddrPolicy{Allow: allow},
			TLS:                   tlsConf,
		}, up.Options{
			Attempts:       h.Attempts,
			Caps:           up.Caps{Requests: h.MaxRequestsPerHost, Searches: h.MaxSearchesPerHost},
			QueueWait:      time.Duration(h.QueueWait),
			Places:         h.state.places,
			SearchPaths:    searchPaths,
			MaxReplayBody:  h.MaxBody,
			UserAgent:      userAgent,
			RedirectPrefix: redirectPrefix,
		})
	}
	if h.up, err = build(h.BaseURLs); err != nil {
		return err
	}
	if ownBaseURLs {
		// The handler's own base URLs serve every path; the table's
		// mounts name the public hosts only.
		mounts = nil
	}
	for _, m := range mounts {
		px, err := build(m.BaseURLs)
		if err != nil {
			return err
		}
		mp := mountProxy{prefix: m.Prefix, proxy: px}
		for _, raw := range m.BaseURLs {
			if u, err := parseBaseURL(raw); err == nil {
				mp.dials = append(mp.dials, u.dial)
			}
		}
		h.mounts = append(h.mounts, mp)
	}
	// The pools' dead-connection reports go to this config's proxy once
	// it starts; until then to the running one's.
	a.OnStart(func() { h.state.setDeadConn(h.deadConn) })
	a.UsesBaseURLs(h.Platform, h.BaseURLs)
	for _, m := range mounts {
		a.UsesBaseURLs(h.Platform, m.BaseURLs)
	}

	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	live.Store(h, struct{}{})
	h.logger.Debug("platform proxy ready",
		zap.String("platform", h.Platform),
		zap.Strings("base_urls", h.BaseURLs))
	return nil
}

// Validate checks the configuration.
func (h *Handler) Validate() error {
	if len(h.upstreams) == 0 {
		return fmt.Errorf("platform %s: no base URL", h.Platform)
	}
	return nil
}

// Cleanup gives the handler's pools back; the last config using a pool
// closes its idle connections.
func (h *Handler) Cleanup() error {
	live.Delete(h)
	return h.release()
}

// deadConn is the hook a host's pool calls when the kernel finds one of
// its connections dead: counted, and logged, since it means the path to
// the platform broke.
func (h *Handler) deadConn(dial string, err error) {
	if px := h.proxyOfDial(dial); px != nil {
		px.NoteDeadConn()
	}
	h.logger.Warn("connection to platform found dead",
		zap.String("platform", h.Platform),
		zap.String("host", dial),
		zap.Error(err))
}

// ServeHTTP proxies the request to the platform, after admit has let it
// through (method, body size) and made its canonical form.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	// Platform content is served on our origin: every answer, the
	// platform's or our own refusal, goes out inert (httpx.MakeInert).
	w = httpx.Inert(w)
	body, ok, err := h.admit(w, r)
	var out *http.Request
	if ok {
		out, ok = h.canonicalRequest(w, r, body)
	}
	if !ok {
		// Refused here (405, 413, 400, or the client gone while sending
		// its body): nothing reached a platform, so a budget in front
		// gives the unit back, and PUTs cannot drain it.
		setSent(r, 0)
		return err
	}
	ctx, outcome := up.WithOutcome(r.Context())
	r = r.WithContext(ctx)
	err = h.forward(w, out.WithContext(ctx))
	setSent(r, outcome.Sent())
	var he caddyhttp.HandlerError
	switch {
	case errors.Is(err, up.ErrNoPlace):
		// Every host stayed full for the whole queue wait: a 503 the
		// client may retry shortly, not a 502.
		w.Header().Set("Retry-After", "1")
	case errors.As(err, &he) && he.StatusCode == http.StatusGatewayTimeout:
		// The platform did not answer in time (its headers, or a
		// connect): set before the error is written, so the cache in
		// front passes it to every caller waiting on this request.
		w.Header().Set("Retry-After", httpx.StalledRetryAfter)
	}
	return err
}

// setSent sets {http.platform_proxy.sent} to the attempts a platform
// received, for the handlers around this one (a budget gives back the
// units of a call no platform received) and the logs.
func setSent(r *http.Request, n int64) {
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		repl.Set("http.platform_proxy.sent", n)
	}
}

// Stats returns the upstream counters (requests, attempts sent, stale
// resends, failovers, refusals for want of a place, dead connections).
func (h *Handler) Stats() up.Stats {
	st := h.up.Stats()
	for _, m := range h.mounts {
		ms := m.proxy.Stats()
		st.Requests += ms.Requests
		st.Sent += ms.Sent
		st.StaleResends += ms.StaleResends
		st.Failovers += ms.Failovers
		st.NoPlace += ms.NoPlace
		st.DeadConns += ms.DeadConns
	}
	return st
}

// ProxiedPlatform is the platform this handler proxies: servers whose
// routes hold it can take sub-requests for that platform
// (subrequest.ServersFor).
func (h *Handler) ProxiedPlatform() string { return h.Platform }

// Interface guards
var (
	_ subrequest.PlatformRoute    = (*Handler)(nil)
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
