// Package platformproxy is the platform_proxy handler: Caddy's reverse_proxy
// set up for one of the seven platforms, so an admin names the platform and
// (optionally) its base URLs instead of spelling out upstreams, TLS, Host
// and path prefixes.
package platformproxy

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/caddymodule/version"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler proxies a platform route to the platform's hosts over kept-alive
// connections. The request path below the route's prefix is appended to the
// base URL's path, the query string is kept, Host and TLS server name are
// the upstream's, and every request carries a User-Agent naming BesluitBron
// and the operator's contact address. The client's X-Forwarded-* headers
// and address are not passed on: the platforms see BesluitBron, not its
// users.
//
// Failure: when no upstream answers, the handler returns a 502 error (dial
// failure) or 503 (no upstream available) that handle_errors can shape.
type Handler struct {
	// Platform is the platform's key (ori, obv, tk, opentk, ob,
	// rechtspraak, oa). Required.
	Platform string `json:"platform"`

	// BaseURLs are the platform's base URLs (scheme, host, optional port
	// and path prefix), tried in order. Default: the platform's
	// BESLUITBRON_<KEY>_URL environment variable (space-separated), else
	// its public address.
	BaseURLs []string `json:"base_urls,omitempty"`

	// Contact is the address platforms may use to reach the operator; it
	// is put in the User-Agent. Default: the BESLUITBRON_CONTACT
	// environment variable, else "beheer@besluitbron.nl".
	Contact string `json:"contact,omitempty"`

	// DialTimeout bounds the time to open a connection. Default: 5s.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`

	// IdleTimeout is how long an idle kept-alive connection stays open.
	// Default: 90s.
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`

	// MaxIdleConnsPerHost bounds the idle connections kept per host.
	// Default: 16.
	MaxIdleConnsPerHost int `json:"max_idle_conns_per_host,omitempty"`

	upstreams []*upstream
	proxy     *reverseproxy.Handler
	logger    *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.platform_proxy",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision builds the reverse proxy for the platform.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	p, ok := platforms.Get(h.Platform)
	if !ok {
		return fmt.Errorf("unknown platform %q (known: %v)", h.Platform, platforms.Keys())
	}
	if len(h.BaseURLs) == 0 {
		h.BaseURLs = p.URLs()
	}
	if h.Contact == "" {
		h.Contact = os.Getenv("BESLUITBRON_CONTACT")
		if h.Contact == "" {
			h.Contact = "beheer@besluitbron.nl"
		}
	}
	if h.DialTimeout == 0 {
		h.DialTimeout = caddy.Duration(5 * time.Second)
	}
	if h.IdleTimeout == 0 {
		h.IdleTimeout = caddy.Duration(90 * time.Second)
	}
	if h.MaxIdleConnsPerHost == 0 {
		h.MaxIdleConnsPerHost = 16
	}
	userAgent := fmt.Sprintf("BesluitBron/%s (+https://besluitbron.nl; %s)", version.Current(), h.Contact)

	rt := &hostTransport{byDial: make(map[string]*upstream), userAgent: userAgent}
	var ups reverseproxy.UpstreamPool
	for _, raw := range h.BaseURLs {
		u, err := parseBaseURL(raw)
		if err != nil {
			return fmt.Errorf("platform %s: %w", h.Platform, err)
		}
		if _, dup := rt.byDial[u.dial]; dup {
			return fmt.Errorf("platform %s: base URL %s repeats host %s", h.Platform, raw, u.dial)
		}
		u.transport, err = h.newTransport(ctx, u.scheme == "https")
		if err != nil {
			return fmt.Errorf("platform %s: transport for %s: %w", h.Platform, raw, err)
		}
		rt.byDial[u.dial] = u
		h.upstreams = append(h.upstreams, u)
		ups = append(ups, &reverseproxy.Upstream{Dial: u.dial})
	}

	h.proxy = &reverseproxy.Handler{
		Upstreams: ups,
		Transport: rt,
		LoadBalancing: &reverseproxy.LoadBalancing{
			SelectionPolicy: reverseproxy.FirstSelection{},
		},
	}
	if err := h.proxy.Provision(ctx); err != nil {
		return fmt.Errorf("provisioning reverse proxy: %w", err)
	}
	h.logger.Debug("platform proxy ready",
		zap.String("platform", h.Platform),
		zap.Strings("base_urls", h.BaseURLs))
	return nil
}

func (h *Handler) newTransport(ctx caddy.Context, useTLS bool) (*reverseproxy.HTTPTransport, error) {
	enabled := true
	t := &reverseproxy.HTTPTransport{
		DialTimeout: h.DialTimeout,
		KeepAlive: &reverseproxy.KeepAlive{
			Enabled:             &enabled,
			IdleConnTimeout:     h.IdleTimeout,
			MaxIdleConnsPerHost: h.MaxIdleConnsPerHost,
			ProbeInterval:       caddy.Duration(15 * time.Second),
		},
	}
	if useTLS {
		t.TLS = new(reverseproxy.TLSConfig)
	}
	if err := t.Provision(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate checks the configuration.
func (h *Handler) Validate() error {
	if len(h.upstreams) == 0 {
		return fmt.Errorf("platform %s: no base URL", h.Platform)
	}
	return nil
}

// Cleanup closes the upstream connection pools.
func (h *Handler) Cleanup() error {
	if h.proxy != nil {
		_ = h.proxy.Cleanup()
	}
	for _, u := range h.upstreams {
		if u.transport != nil {
			_ = u.transport.Cleanup()
		}
	}
	return nil
}

// ServeHTTP proxies the request to the platform.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return h.proxy.ServeHTTP(w, r, next)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
