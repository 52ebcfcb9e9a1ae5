package mcp

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/platforms"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Defaults.
const (
	DefaultMaxBody       = 1 << 20
	DefaultMaxTextChars  = 50000
	DefaultSessionIdle   = time.Hour
	DefaultStatusRefresh = 10 * time.Minute
)

// Handler is one MCP connector. It answers every request routed to it and
// never calls the next handler.
type Handler struct {
	// Name identifies the connector (in the server's name, in logs, and as
	// the key that keeps its sessions across reloads). Required.
	Name string `json:"name"`
	// Platforms whose tools the connector offers. Default: every platform
	// whose tools come on by default in the platforms table (those with
	// live, documented public APIs), plus the experimental ones this
	// connector turns on. An opt-in platform (ori: ORI Classic was
	// switched off on 2026-11-01; docs/migration-ori.md) is offered only
	// when listed, an experimental one only when turned on too.
	Platforms []string `json:"platforms,omitempty"`
	// Experimental turns on the tools of these experimental platforms (in
	// the Caddyfile experimental_<key>, e.g. experimental_oa): a platform
	// that publishes no API description, whose tools rest on assumed
	// endpoints (docs/emulators.md), so an operator has to ask for them.
	// Default none.
	Experimental []string `json:"experimental,omitempty"`
	// MaxBodyBytes caps a request body; larger gets 413. Default 1 MiB.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// MaxTextChars caps the text one fetch call returns. Default 50000.
	MaxTextChars int `json:"max_text_chars,omitempty"`
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed
	// besides same-origin requests; "*" allows any.
	AllowedOrigins []string `json:"allowed_origins,omitempty"`
	// AllowedHosts are Host values accepted on a loopback listener besides
	// localhost and loopback addresses (DNS-rebinding protection).
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	// SessionIdle ends a 2025-era session after this long without a
	// request. Default 1h. Read when the connector is first created.
	SessionIdle caddy.Duration `json:"session_idle,omitempty"`
	// StatusRefresh is how often BesluitBron's maintenance refreshes the
	// load status of each platform of this connector that publishes one
	// (OpenBesluitvorming's Laadstatus), as the shared session. Default
	// 10m; negative turns it off.
	StatusRefresh caddy.Duration `json:"status_refresh,omitempty"`
	// SearchDeadline is how long search_all waits for the platforms
	// before it answers with what came, the others named as timed out
	// (their calls go on in the background and fill the cache). Default
	// 8s (fanout.DefaultDeadline), from 1s to 2m.
	SearchDeadline caddy.Duration `json:"search_deadline,omitempty"`
	// PlatformOptions are platforms' own settings for this connector, by
	// key and option (in the Caddyfile <key>_<option>, e.g. tk_odata_root
	// /OData/v4/2.0 or oa_search_path /zoek), each laid over the
	// besluitbron app's (its platform blocks), which it replaces for this
	// connector only. Default: the app's. The platform reads and checks
	// them (platforms.Configurable).
	PlatformOptions map[string]platforms.Options `json:"platform_options,omitempty"`

	conn   *connector
	pooled bool
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.mcp",
		New: func() caddy.Module { return new(Handler) },
	}
}

// connectors keeps each named connector across reloads.
var connectors = caddy.NewUsagePool()

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Provision gets (or creates) the named connector and applies this config.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := h.validate(); err != nil {
		return err
	}
	if len(h.Platforms) == 0 {
		h.Platforms = DefaultPlatforms(h.Experimental)
	}
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	for _, p := range platforms.All() {
		if p.Tools == platforms.ToolsOptIn && h.offersPlatform(p.Key) && !a.BaseURLSet(p.Key) {
			// An opt-in platform is one the operator points at a service
			// (ORI, whose public address is switched off): the default
			// Caddyfile's route answers 410 without it. Say so at start,
			// not only when a model calls its tools.
			h.logger.Warn("connector offers the tools of an opt-in platform, but the besluitbron app names no base_url for it: its route answers 410 unless its platform_proxy names a base URL",
				zap.String("connector", h.Name), zap.String("platform", p.Key), zap.String("name", p.Name))
		}
	}
	if h.MaxBodyBytes <= 0 {
		h.MaxBodyBytes = DefaultMaxBody
	}
	if h.MaxTextChars <= 0 {
		h.MaxTextChars = DefaultMaxTextChars
	}
	idle := time.Duration(h.SessionIdle)
	if idle <= 0 {
		idle = DefaultSessionIdle
	}
	val, loaded, err := connectors.LoadOrNew(h.Name, func() (caddy.Destructor, error) {
		return newConnector(h.Name, idle, a.Sessions()), nil
	})
	if err != nil {
		return err
	}
	h.pooled = true
	h.conn = val.(*connector)
	// Links in answers (OB's itemUrl) are checked against this config's
	// base URLs, asked of its app at each call: a platform_proxy
	// provisioned after this handler adds its own.
	// The platforms' settings are the app's (its platform blocks) with
	// this connector's own laid over them.
	values, err := a.SettingsOver(h.PlatformOptions)
	if err != nil {
		return fmt.Errorf("mcp %s: %w", h.Name, err)
	}
	s := settings{platforms: h.Platforms, maxTextChars: h.MaxTextChars, linkBases: a.LinkBaseURLs,
		values: values, replicas: a.Replicas(), searchDeadline: time.Duration(h.SearchDeadline)}

	refresh := time.Duration(h.StatusRefresh)
	if refresh == 0 {
		refresh = DefaultStatusRefresh
	}
	if refresh > 0 {
		// The app keeps it fresh; this config's interval and keeper take
		// over when it starts.
		for _, key := range h.Platforms {
			a.WantLoadStatus(key, refresh) // where it publishes one (adapters.LoadReporter)
		}
	}
	// The connector (its tools, settings, base URLs) may serve the
	// running config: this config's settings take over when it starts,
	// and a config that fails to load changes nothing. A connector new
	// in this config serves no running one and is configured at once.
	conn := h.conn
	if !loaded {
		conn.configure(s)
	}
	// The keeper is the app's once it starts, which it does before it runs
	// this.
	a.OnStart(func() {
		s.loadStatus = a.LoadStatusKeepers()
		conn.configure(s)
	})
	return nil
}

// DefaultPlatforms are the platforms a connector offers when its config
// lists none: every platform whose tools come on by default, with the
// experimental platforms turned on; never an opt-in platform.
func DefaultPlatforms(experimental []string) []string {
	var out []string
	for _, k := range platforms.Keys() {
		switch optInOf(k) { // the platforms table says how each platform comes on
		case platforms.ToolsOptIn:
			continue
		case platforms.ToolsExperimental:
			if !slices.Contains(experimental, k) {
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

func (h *Handler) offersPlatform(key string) bool {
	for _, p := range h.Platforms {
		if p == key {
			return true
		}
	}
	return false
}

// checkExperimental holds the experimental platforms (Tools:
// ToolsExperimental) to the operator's explicit yes: listed only with
// experimental_<key>, which turns on only a listed one (or any, when the
// connector lists none), and their options only when turned on.
func (h *Handler) checkExperimental(listed map[string]bool) error {
	for _, p := range platforms.All() {
		if p.Tools != platforms.ToolsExperimental || slices.Contains(h.Experimental, p.Key) {
			continue
		}
		if listed[p.Key] {
			return fmt.Errorf("mcp %s: platform %s needs experimental_%s: %s publishes no API, its tools use assumed endpoints (docs/emulators.md)", h.Name, p.Key, p.Key, p.Name)
		}
		if len(h.PlatformOptions[p.Key]) > 0 {
			return fmt.Errorf("mcp %s: %s_* options configure the %s tools, which are off: add experimental_%s", h.Name, p.Key, p.Name, p.Key)
		}
	}
	for _, key := range h.Experimental {
		p, ok := platforms.Get(key)
		switch {
		case !ok || p.Tools != platforms.ToolsExperimental:
			return fmt.Errorf("mcp %s: experimental_%s: %s is no experimental platform", h.Name, key, key)
		case len(h.Platforms) > 0 && !listed[key]:
			return fmt.Errorf("mcp %s: experimental_%s enables the %s tools: add %s to platforms, or drop experimental_%s", h.Name, key, p.Name, key, key)
		}
	}
	return nil
}

// Validate checks the config.
func (h *Handler) Validate() error { return h.validate() }

func (h *Handler) validate() error {
	if !nameRE.MatchString(h.Name) {
		return fmt.Errorf("mcp: connector name %q must be 1-64 letters, digits, '-' or '_'", h.Name)
	}
	seen := map[string]bool{}
	for _, p := range h.Platforms {
		if _, ok := platforms.Get(p); !ok {
			return fmt.Errorf("mcp %s: unknown platform %q; use %s", h.Name, p, strings.Join(platforms.Keys(), ", "))
		}
		if seen[p] {
			return fmt.Errorf("mcp %s: platform %q listed twice", h.Name, p)
		}
		seen[p] = true
	}
	if err := h.checkExperimental(seen); err != nil {
		return err
	}
	for key, o := range h.PlatformOptions {
		if _, err := platforms.SettingsOf(key, o); err != nil {
			return fmt.Errorf("mcp %s: %s options: %v", h.Name, key, err)
		}
	}
	if d := time.Duration(h.SearchDeadline); d != 0 && (d < time.Second || d > fanout.MaxDeadline) {
		return fmt.Errorf("mcp %s: search_deadline must be from 1s to %v, got %v", h.Name, fanout.MaxDeadline, d)
	}
	if h.MaxBodyBytes < 0 || h.MaxTextChars < 0 {
		return fmt.Errorf("mcp %s: max_body and max_text_chars must be positive", h.Name)
	}
	for _, o := range h.AllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("mcp %s: allowed origin %q must look like https://example.org", h.Name, o)
		}
	}
	return nil
}

// Cleanup releases this config's references.
func (h *Handler) Cleanup() error {
	if h.pooled {
		h.pooled = false
		_, err := connectors.Delete(h.Name)
		return err
	}
	return nil
}

// ServeHTTP serves the MCP endpoint.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	// Recursion guard: a connector's sub-request must never reach a
	// connector again (a platform route that loops back to /mcp).
	if _, internal := session.Internal(r.Context()); internal || r.Header.Get(subrequest.Header) != "" {
		http.Error(w, "MCP connectors do not accept BesluitBron's own sub-requests", http.StatusLoopDetected)
		return nil
	}
	if msg := h.checkHostOrigin(r); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return nil
	}
	if h.conn.refuseUnknownSession(w, r) {
		return nil
	}
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	o := subrequest.Origin{Server: srv, Host: r.Host, RemoteAddr: clientRemoteAddr(r), Key: h.conn.ids.reg.Key(r)}
	if srv != nil {
		h.conn.settings().seen(srv, r.Host)
	}
	r = r.WithContext(subrequest.WithOrigin(r.Context(), o))
	var readID json.RawMessage
	var readURI string
	if r.Method == http.MethodPost {
		body, over, err := httpx.BufferBody(r, h.MaxBodyBytes)
		if err != nil {
			http.Error(w, "could not read the request body", http.StatusBadRequest)
			return nil
		}
		if over {
			writeTooLarge(w, h.MaxBodyBytes)
			return nil
		}
		// A cached tools/call it fully recognises is answered here;
		// anything else goes on to mcp-go untouched (fastpath.go).
		if h.conn.fast.serve(w, r, body) {
			return nil
		}
		var uri, method string
		var ok bool
		if readID, method, uri, ok = heldRequest(body); ok && method == string(mcpgo.MethodResourcesRead) {
			readURI = uri
			if enc := encodeColons(uri); enc != uri {
				if b, err := withURI(body, enc); err == nil {
					httpx.SetBody(r, b)
					// 2026-07-28's Mcp-Name mirrors params.uri: it
					// names the same reference, so it follows.
					if r.Header.Get(mcpgo.HeaderName) == uri {
						r.Header.Set(mcpgo.HeaderName, enc)
					}
				}
			}
		}
	}
	if readID != nil {
		ctx, outcome := withOutcome(r.Context())
		rw := newHeldWriter(flushWriter{w})
		h.conn.http.ServeHTTP(rw, r.WithContext(ctx))
		rw.finish(outcome, readID, readURI)
		return nil
	}
	h.conn.http.ServeHTTP(flushWriter{w}, r)
	return nil
}

func writeTooLarge(w http.ResponseWriter, max int64) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body larger than %d bytes"}}`, max)
}

// checkHostOrigin is the DNS-rebinding and cross-origin guard mcp-go's own
// check would give, made aware of Caddy's configuration: on a loopback
// listener the Host must be a loopback name (or allowed); a browser Origin
// must match the Host (or be allowed).
func (h *Handler) checkHostOrigin(r *http.Request) string {
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && isLoopback(local.String()) {
		if !isLoopback(r.Host) && !h.hostAllowed(r.Host) {
			return fmt.Sprintf("Forbidden: Host %q is not a local name on a local listener (DNS rebinding protection); add it to allowed_hosts", r.Host)
		}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	for _, o := range h.AllowedOrigins {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return ""
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("Forbidden: Origin %q is not allowed", origin)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return ""
	}
	if isLoopback(u.Host) && isLoopback(r.Host) {
		return ""
	}
	return fmt.Sprintf("Forbidden: Origin %q is not allowed for this connector; add it to allowed_origins", origin)
}

func (h *Handler) hostAllowed(host string) bool {
	name := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		name = hh
	}
	for _, a := range h.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// flushWriter gives mcp-go an http.Flusher over Caddy's wrapped writers
// (which offer FlushError/Unwrap only), so SSE streams work.
type flushWriter struct{ http.ResponseWriter }

func (f flushWriter) Flush() { _ = http.NewResponseController(f.ResponseWriter).Flush() }

func (f flushWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddy.Destructor            = (*connector)(nil)
)

// clientRemoteAddr is the RemoteAddr of r's sub-requests: the client's own
// address (Caddy's client IP, which honours trusted_proxies), not the
// connection's, so behind a front proxy the fair queue and the inbound
// limits see the client, not the proxy.
func clientRemoteAddr(r *http.Request) string {
	return net.JoinHostPort(session.ClientIP(r), "0")
}
