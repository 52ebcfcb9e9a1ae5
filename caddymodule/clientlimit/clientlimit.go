// Package clientlimit is the Caddy handler http.handlers.client_limit: the
// inbound limits of docs/rules.md, "Inbound limits". The limiter itself is the Caddy-free
// package inbound.
package clientlimit

import (
	"fmt"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/inbound"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Defaults: generous, so that normal use never meets them.
var (
	defaultProcess    = inbound.Limit{Every: time.Second / 1000, Burst: 2000} // 1000/s 2000
	defaultConnector  = inbound.Limit{Every: time.Second / 300, Burst: 600}   // 300/s 600
	defaultSession    = inbound.Limit{Every: time.Second / 20, Burst: 60}     // 20/s 60
	defaultAddress    = inbound.Limit{Every: time.Second / 50, Burst: 150}    // 50/s 150
	defaultMaxKeys    = 1_000_000                                             // about 40 MB at most per zone
	defaultZone       = "default"
	defaultIPv6Prefix = session.IPv6ClientBits
)

// Handler limits how often clients call BesluitBron. Every request passes
// three layers, each a token bucket:
//
//   - process: the whole process, one bucket shared by every client_limit
//     handler of every site and every config;
//   - connector: the zone named by zone (one per MCP endpoint), so load on
//     one connector never crowds out another; handlers with the same zone
//     share it;
//   - session and address: per MCP session id the connectors issued
//     (the besluitbron app's Sessions), and per client address, which is Caddy's client IP
//     and so honours the server's trusted_proxies, with IPv6 addresses
//     grouped per ipv6_prefix (/64). A request with a session passes both
//     its session's bucket and its address's, so an address's sessions
//     divide its room and never multiply it: one address opening many
//     sessions still gets one address's rate, which is set above one
//     session's. A request without a session (before initialize, a client
//     of the stateless protocol era, an app, or a made-up Mcp-Session-Id)
//     passes its address's bucket alone. The Besluitbron-Session header an
//     app may send is not trusted here. From a trusted source
//     (trusted_sources: a hosted assistant's egress range) each issued
//     session passes its session's bucket alone, as a client of its own.
//
// A request passes all layers or none: a refused request consumes nothing
// in any layer.
//
// With a shared store (the besluitbron app's store setting, for several
// instances on one Redis) the session and address buckets are global: a
// client spreading its requests over the instances meets the same limits
// as on one. The process and connector layers stay per process. While the
// store is degraded each instance judges sessions and addresses on a
// local share of the limits (rate and burst ÷ the app's instances) and
// rejoins by itself; no request fails because Redis did
// (docs/inbound-limits.md). In-process sub-requests (MCP tool calls, marked with
// session.WithInternal) pass uncounted: the tool call was counted already.
//
// Every answer that passed carries RateLimit-Limit, RateLimit-Remaining
// and RateLimit-Reset for the layer with the fewest requests left: its
// bucket size, the requests left in it, and the whole seconds until it is
// full again.
//
// Over a limit the client gets 429 Too Many Requests with Retry-After: the
// whole seconds (rounded up) until every refusing layer lets it pass,
// computed from the buckets. If the server has error routes
// (handle_errors), the handler returns a caddyhttp.Error with status 429
// for them to shape; the headers are already set and these placeholders
// hold the rest:
//
//	Placeholder                        | Value
//	-----------------------------------|------------------------------------------------
//	{http.client_limit.layer}          | process, connector, session or address
//	{http.client_limit.zone}           | the zone name
//	{http.client_limit.retry_after}    | the Retry-After seconds
//	{http.client_limit.body}           | the JSON body described below
//
// Without error routes it writes the 429 itself with a short JSON body
// (Content-Type application/json):
//
//	{"error":"rate_limited","layer":"session","zone":"raad","retry_after":3,
//	 "message":"too many requests for this session; retry after 3 s"}
//
// or, to a browser navigating to a page (its Accept ranks text/html above
// application/json), a short page in Dutch and English that says the same
// and links to the same address to try again.
//
// State lives in a caddy.UsagePool keyed by zone name, so a config reload
// keeps every bucket's fill and changes only the limits.
type Handler struct {
	// Zone names the connector layer. Handlers with the same zone share
	// one connector bucket and one set of session and address buckets,
	// and must have the same connector, session, address and max_keys
	// settings. Letters, digits, '.', '_' and '-'. Default: "default".
	Zone string `json:"zone,omitempty"`

	// Process limits the whole process. It is one bucket for every
	// client_limit handler; set it in one handler (or the same in all);
	// two different values in one config are an error. A config where no
	// handler sets it uses the besluitbron app's process_limit, else the
	// default: 1000/s, burst 2000.
	Process *LimitConfig `json:"process,omitempty"`

	// Connector limits the zone as a whole. Default: 300/s, burst 600.
	Connector *LimitConfig `json:"connector,omitempty"`

	// Session limits each MCP session the connectors issued.
	// Default: 20/s, burst 60.
	Session *LimitConfig `json:"session,omitempty"`

	// Address limits each client address: every request from it, with an
	// issued session or without. It must be at least the session limit
	// (rate and burst) and is higher by default, because several clients
	// can share one address (NAT) and every session starts without one;
	// it is well below the connector limit, so no one address can take a
	// connector however many sessions it opens. Default: 50/s, burst 150.
	Address *LimitConfig `json:"address,omitempty"`

	// MaxKeys caps the sessions and addresses the zone remembers (each
	// costs about 40 bytes). Keys whose bucket is full again are dropped
	// every minute; past the cap the keys nearest to a full bucket are
	// dropped first. Default: 1000000.
	MaxKeys int `json:"max_keys,omitempty"`

	// IPv6Prefix groups IPv6 client addresses by this many leading bits
	// for the address layer: one client usually holds a whole /64, so
	// counting each address apart would let it pick a fresh one for every
	// request. 128 counts every address apart. IPv4 addresses are always
	// counted apart, an IPv4-mapped IPv6 address as its IPv4 address.
	// Default: 64 (session.IPv6ClientBits, as the fair queue and the
	// session registry count).
	IPv6Prefix int `json:"ipv6_prefix,omitempty"`

	// TrustedSources are client addresses (CIDR ranges or single
	// addresses) whose issued MCP sessions each count as a client of
	// their own: their requests pass their session's bucket but not the
	// address's. Name a hosted assistant's egress range here, whose one
	// address carries many users. A front proxy belongs in the server's
	// trusted_proxies instead, so that the real client address counts.
	// Requests from these addresses without an issued session still pass
	// the address's bucket. Default: the besluitbron app's
	// trusted_sources (none unless set there).
	TrustedSources []string `json:"trusted_sources,omitempty"`

	zoneCfg       inbound.Config
	trusted       []netip.Prefix
	sessions      *session.Registry // the issued MCP sessions (the app's)
	processLimit  inbound.Limit
	process       *processState
	zone          *zoneState
	processRef    bool
	zoneRef       bool
	logger        *zap.Logger
	clock         clock.Clock // clock.Wall unless a test set its own before Provision
	requests      [3]counter  // allowed, rejected, internal
	rejectedLayer [5]counter  // by inbound.Layer
	tier          [3]counter  // by inbound.Tier (shared store only)
}

// LimitConfig is one layer's limit: a bucket of Burst requests refilled at
// Rate. Rate "off" removes the layer.
type LimitConfig struct {
	// Rate is requests per time unit: "20/s", "600/m", "100/h", "3/10s",
	// a bare number (per second), or "off" for no limit.
	Rate string `json:"rate"`
	// Burst is how many requests may come at once (the bucket size);
	// required unless Rate is "off".
	Burst int `json:"burst,omitempty"`
}

func (c *LimitConfig) limit(def inbound.Limit) (inbound.Limit, error) {
	if c == nil {
		return def, nil
	}
	if c.Rate == "off" {
		if c.Burst != 0 {
			return inbound.Limit{}, fmt.Errorf("rate off takes no burst")
		}
		return inbound.Limit{}, nil
	}
	return inbound.ParseLimit([]string{c.Rate, strconv.Itoa(c.Burst)})
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.client_limit",
		New: func() caddy.Module { return new(Handler) },
	}
}

var zoneName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Provision parses the limits and takes the shared state from the pool.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.clock = clock.Or(h.clock)
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	h.sessions = a.Sessions()
	if h.Zone == "" {
		h.Zone = defaultZone
	}
	if !zoneName.MatchString(h.Zone) {
		return fmt.Errorf("zone %q: use 1 to 64 letters, digits, '.', '_' or '-'", h.Zone)
	}
	process := h.Process
	if process == nil && a.ProcessLimit != nil {
		process = &LimitConfig{Rate: a.ProcessLimit.Rate, Burst: a.ProcessLimit.Burst}
	}
	if h.processLimit, err = process.limit(defaultProcess); err != nil {
		return fmt.Errorf("process: %w", err)
	}
	if h.zoneCfg.Connector, err = h.Connector.limit(defaultConnector); err != nil {
		return fmt.Errorf("connector: %w", err)
	}
	if h.zoneCfg.Session, err = h.Session.limit(defaultSession); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if h.zoneCfg.Address, err = h.Address.limit(defaultAddress); err != nil {
		return fmt.Errorf("address: %w", err)
	}
	h.zoneCfg.MaxKeys = h.MaxKeys
	if h.IPv6Prefix == 0 {
		h.IPv6Prefix = defaultIPv6Prefix
	}
	if h.IPv6Prefix < 1 || h.IPv6Prefix > 128 {
		return fmt.Errorf("ipv6_prefix: must be between 1 and 128, got %d", h.IPv6Prefix)
	}
	if h.MaxKeys == 0 {
		h.zoneCfg.MaxKeys = defaultMaxKeys
	}
	if h.MaxKeys < 0 {
		return fmt.Errorf("max_keys: must be positive, got %d", h.MaxKeys)
	}
	// A session's requests count against its address too: an address
	// limit below the session limit would cut every session short.
	if s, a := h.zoneCfg.Session, h.zoneCfg.Address; !s.Unlimited() && !a.Unlimited() && (a.Every > s.Every || a.Burst < s.Burst) {
		return fmt.Errorf("address %s is below session %s: a session's requests count against its address too, so the address limit needs at least the session's rate and burst", a, s)
	}
	if h.trusted, err = session.ParsePrefixes(h.TrustedSources); err != nil {
		return fmt.Errorf("trusted_sources: %v; want CIDR ranges or addresses", err)
	}
	if h.TrustedSources == nil {
		h.trusted = a.Trusted()
	}

	v, _, err := pool.LoadOrNew(processKey, func() (caddy.Destructor, error) { return newProcessState(), nil })
	if err != nil {
		return fmt.Errorf("loading process limiter: %w", err)
	}
	h.process, h.processRef = v.(*processState), true
	v, _, err = pool.LoadOrNew(zoneKey(h.Zone), func() (caddy.Destructor, error) { return newZoneState(h.Zone, h.clock), nil })
	if err != nil {
		return fmt.Errorf("loading zone %s: %w", h.Zone, err)
	}
	h.zone, h.zoneRef = v.(*zoneState), true
	// A zone that outlives a reload keeps the clock it was made with, and
	// its handlers judge on it.
	h.clock = h.zone.clock

	if err := h.process.settings.Stage(a, h.processLimit, h.Process != nil, inbound.Limit.String); err != nil {
		return fmt.Errorf("process limit: %w", err)
	}
	describe := func(c inbound.Config) string {
		return fmt.Sprintf("connector %s, session %s, address %s, max_keys %d", c.Connector, c.Session, c.Address, c.MaxKeys)
	}
	if err := h.zone.settings.Stage(a, h.zoneCfg, true, describe); err != nil {
		return fmt.Errorf("zone %s: %w", h.Zone, err)
	}

	for i, r := range []string{"allowed", "rejected", "internal"} {
		h.requests[i] = requestsTotal.WithLabelValues(h.Zone, r)
	}
	for _, l := range []inbound.Layer{inbound.LayerSession, inbound.LayerAddress, inbound.LayerConnector, inbound.LayerProcess} {
		h.rejectedLayer[l] = rejectedTotal.WithLabelValues(h.Zone, l.String())
	}
	for _, t := range []inbound.Tier{inbound.TierShared, inbound.TierShare} {
		h.tier[t] = tierTotal.WithLabelValues(h.Zone, t.String())
	}
	// With a shared store the session and address buckets are global;
	// the store in force is the running config's (staged like the limits).
	if err := h.zone.store.Stage(a, a.Shared(), true, describeStore); err != nil {
		return fmt.Errorf("zone %s: %w", h.Zone, err)
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	return nil
}

// Cleanup releases this handler's references to the shared state.
func (h *Handler) Cleanup() error {
	if h.zoneRef {
		h.zoneRef = false
		if _, err := pool.Delete(zoneKey(h.Zone)); err != nil {
			return err
		}
	}
	if h.processRef {
		h.processRef = false
		if _, err := pool.Delete(processKey); err != nil {
			return err
		}
	}
	return nil
}

type counter interface{ Inc() }

// ServeHTTP judges the request and either passes it on or refuses it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if _, ok := session.Internal(r.Context()); ok {
		h.requests[2].Inc()
		return next.ServeHTTP(w, r)
	}

	sess, addr := h.sessions.TrustedKeys(r)
	c := inbound.Client{Session: sess, Address: h.groupIPv6(addr)}
	kind := inbound.LayerAddress
	if sess != "" {
		kind = inbound.LayerSession
		if len(h.trusted) > 0 && session.Trusted(addr[len("addr:"):], h.trusted) {
			c.Address = "" // a trusted source's session is a client of its own
		}
	}
	d := h.zone.zone.AllowContext(r.Context(), h.clock.Now(), h.process.bucket, c)
	if d.Tier != inbound.TierLocal {
		h.tier[d.Tier].Inc()
	}
	if d.Layer != inbound.LayerNone {
		// Canonical keys set directly, with one allocation for the three
		// values: this runs on every request.
		vals := make([]string, 3)
		vals[0], vals[1], vals[2] = strconv.Itoa(d.Limit), strconv.Itoa(d.Remaining), strconv.FormatInt(d.ResetSeconds(), 10)
		hdr := w.Header()
		hdr[hdrLimit], hdr[hdrRemaining], hdr[hdrReset] = vals[0:1:1], vals[1:2:2], vals[2:3:3]
	}
	if d.Allowed {
		h.requests[0].Inc()
		return next.ServeHTTP(w, r)
	}
	h.requests[1].Inc()
	h.rejectedLayer[d.Layer].Inc()
	return h.refuse(w, r, d, kind)
}

// groupIPv6 turns "addr:<ipv6>" into "addr:<prefix>" for the address
// layer, by the rule the session registry and the fair queue share
// (session.AddrGroup: an IPv4-mapped address counts as its IPv4 address);
// other keys come back as they are.
func (h *Handler) groupIPv6(key string) string {
	addr, ok := strings.CutPrefix(key, "addr:")
	if !ok {
		return key
	}
	if g := session.AddrGroup(addr, h.IPv6Prefix); g != addr {
		return "addr:" + g
	}
	return key
}

// The RateLimit headers in Go's canonical form (net/http would turn
// "RateLimit-Limit" into this anyway; header names are case-insensitive).
const (
	hdrLimit     = "Ratelimit-Limit"
	hdrRemaining = "Ratelimit-Remaining"
	hdrReset     = "Ratelimit-Reset"
)

// rejection is the JSON body of a 429 (the handler builds it by hand; the
// type documents it and the tests decode into it).
type rejection struct {
	Error      string `json:"error"`
	Layer      string `json:"layer"`
	Zone       string `json:"zone"`
	RetryAfter int64  `json:"retry_after"`
	Message    string `json:"message"`
}

var layerWords = [...]string{
	inbound.LayerSession:   "this session",
	inbound.LayerAddress:   "this client address",
	inbound.LayerConnector: "this connector",
	inbound.LayerProcess:   "this server",
}

func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, d inbound.Decision, kind inbound.Layer) error {
	secs := d.RetryAfterSeconds()
	w.Header()["Retry-After"] = []string{strconv.FormatInt(secs, 10)}
	// No escaping needed: zone names are [A-Za-z0-9._-], the rest is ours.
	body := make([]byte, 0, 192)
	body = append(body, `{"error":"rate_limited","layer":"`...)
	body = append(body, d.Layer.String()...)
	body = append(body, `","zone":"`...)
	body = append(body, h.Zone...)
	body = append(body, `","retry_after":`...)
	body = strconv.AppendInt(body, secs, 10)
	body = append(body, `,"message":"too many requests for `...)
	body = append(body, layerWords[d.Layer]...)
	body = append(body, `; retry after `...)
	body = strconv.AppendInt(body, secs, 10)
	body = append(body, ` s"}`...)
	if c := h.logger.Check(zapcore.DebugLevel, "rate limited"); c != nil {
		c.Write(zap.String("zone", h.Zone), zap.String("layer", d.Layer.String()),
			zap.String("key_kind", kind.String()), zap.Duration("wait", d.RetryAfter))
	}

	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if srv != nil && srv.Errors != nil && len(srv.Errors.Routes) > 0 {
		if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
			repl.Set("http.client_limit.layer", d.Layer.String())
			repl.Set("http.client_limit.zone", h.Zone)
			repl.Set("http.client_limit.retry_after", secs)
			repl.Set("http.client_limit.body", string(body))
		}
		return caddyhttp.Error(http.StatusTooManyRequests, fmt.Errorf("client_limit: %s limit of zone %s exceeded; retry after %d s", d.Layer, h.Zone, secs))
	}
	if httpx.PrefersHTML(r.Header.Get("Accept")) {
		writeRefusalPage(w, r, d.Layer, secs)
		return nil
	}
	hdr := w.Header()
	hdr["Content-Type"] = []string{"application/json"}
	hdr["Content-Length"] = []string{strconv.Itoa(len(body) + 1)}
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(append(body, '\n'))
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
