// Package platformlimit is the Caddy module http.handlers.platform_limit:
// it keeps a platform's outbound budget on BesluitBron's side and shares it
// fairly between clients and their sessions (docs/rules.md, "Who a client is" and "Budgets and fair shares"). The mechanism is the Caddy-free
// fairqueue; this package is the adapter: config, Caddyfile,
// the request's cost and session, the upstream's answer, metrics and the
// admin status.
package platformlimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/globalbudget"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/sharedstore"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler makes each request wait for room in its platform's budget before
// it goes on to the next handler (the proxy), and reads the platform's
// answer for the platform's own view of its limit.
//
// While the budget has room a request goes at once. When it has none, the
// request waits. Clients share the room by usage (a share ∝
// 1/(1+used/capacity)), each waiting client gets at least one call per
// window, and within a client its sessions share the client's room by the
// same rule; a call dearer than the capacity goes at a full bucket and
// empties it. A client is its address (Caddy's client IP, which honours
// trusted_proxies; an IPv6 address counts by its /64, session.AddrGroup);
// its sessions (an issued MCP session id, the Besluitbron-Session header,
// or session_key) divide its share and never multiply it, unless the
// address is one of trusted_sources, whose sessions each count as a
// client. Usage is forgotten 30 minutes after the last call; the shared
// session (search page, maintenance) is never counted.
//
// Answers that passed the budget carry Besluitbron-Queue-Wait: the
// milliseconds waited. When a request waited max_wait, or the queue is
// full and its client holds the most queued work (a newcomer always gets a
// place: the heaviest client's newest waiting request is refused instead),
// the handler returns an error with status reject_status (503 by default)
// and sets Retry-After to the seconds after which a call of that client is
// expected to go, computed from its own backlog. A request whose client
// hangs up while it waits leaves the queue and spends nothing (status 499
// in the logs).
//
// An upstream 429 with Retry-After pauses the platform's budget for that
// long; RateLimit-Remaining and RateLimit-Reset on any answer pull the
// local bucket down when the platform has less room than the budget
// thinks.
//
// A call that got no answer from the platform gives its units back: when
// nothing of it left BesluitBron ({http.platform_proxy.sent} is 0), or
// when the path failed before any answer (a dead connection, a reset); a
// platform answer of any status is never refunded, nor a caller's
// hang-up after the request reached a platform (refund.go says why).
//
// Budgets live in the process, keyed by platform: they survive config
// reloads and are reconfigured in place when the new config starts (a
// config that fails to load never changes them); every handler of one
// platform shares one budget.
type Handler struct {
	// Platform is the platform key. Every platform of the table has a
	// budget in its descriptor (the besluitbron app over
	// platforms; docs/rules.md, "The platforms and their
	// limits"); any other key needs capacity and window.
	Platform string `json:"platform"`
	// Capacity is the bucket's size in units. Default: the platform
	// descriptor's (platforms/defaults.go, with each reason).
	Capacity float64 `json:"capacity,omitempty"`
	// Window is the time the empty bucket takes to refill completely, and
	// the starvation bound (each waiting client gets at least one call
	// per window). Default: the platform descriptor's.
	Window caddy.Duration `json:"window,omitempty"`
	// Costs price requests: the first rule whose matchers match gives the
	// cost; a request no rule matches costs 1 unit. Default: the platform
	// descriptor's prices (obv: its search and PDF-page prices).
	Costs []*CostRule `json:"costs,omitempty"`
	// MaxQueue bounds the requests waiting on the platform at once; past
	// it, new requests are rejected. Default: the platform descriptor's,
	// else 1000.
	MaxQueue int `json:"max_queue,omitempty"`
	// MaxWait bounds one request's wait. Default: the platform
	// descriptor's, else twice the window, at least 30s.
	MaxWait caddy.Duration `json:"max_wait,omitempty"`
	// SessionKey is a placeholder that names the request's session within
	// its client (for example {http.request.header.X-User}). An empty
	// expansion, or no session_key, uses BesluitBron's session: an
	// in-process MCP sub-request's session, an issued MCP session id, the
	// Besluitbron-Session header, else none (the address alone).
	SessionKey string `json:"session_key,omitempty"`
	// TrustedSources are client addresses (CIDR ranges or single
	// addresses) whose sessions each count as a client of their own: a
	// front proxy that names its users' sessions, or a hosted assistant's
	// egress range. From any other address, sessions divide the address's
	// share and never multiply it (docs/rules.md, "Who a client is"). Default: the
	// besluitbron app's trusted_sources (none unless set there).
	TrustedSources []string `json:"trusted_sources,omitempty"`
	// RejectStatus is the status of a rejected request: 503 (default) or
	// 429.
	RejectStatus int `json:"reject_status,omitempty"`

	trusted  []netip.Prefix
	sessions *session.Registry // the issued MCP sessions (the app's)
	app      *app.App          // the config's besluitbron app, which starts it
	budget   budget
	// clock is the budget's: clock.Wall unless a test set its own before
	// Provision (a budget that outlives a reload keeps the clock it was
	// made with).
	clock   clock.Clock
	poolKey string
	pooled  bool
	logger  *zap.Logger
}

// CostRule prices the requests it matches.
type CostRule struct {
	// MatcherSetsRaw selects the requests (any set may match; none means
	// every request).
	MatcherSetsRaw caddyhttp.RawMatcherSets `json:"match,omitempty" caddy:"namespace=http.matchers"`
	// Units is the cost, or with Param the units per step. Default 1 with
	// Param, else required.
	Units float64 `json:"units,omitempty"`
	// Param makes the cost Units × ceil(value/Per), value being this query
	// parameter (OpenBesluitvorming's search: limit, per 24).
	Param string `json:"param,omitempty"`
	// Per is the step of Param.
	Per float64 `json:"per,omitempty"`
	// ParamDefault is Param's value when it is missing or not a number.
	ParamDefault float64 `json:"param_default,omitempty"`
	// ParamMax caps Param's value (the platform caps it too). 0: no cap.
	ParamMax float64 `json:"param_max,omitempty"`

	matchers caddyhttp.MatcherSets
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.platform_limit",
		New: func() caddy.Module { return new(Handler) },
	}
}

// descriptorCosts turns the descriptor's prices into cost rules.
func descriptorCosts(costs []platforms.Cost) []*CostRule {
	out := make([]*CostRule, 0, len(costs))
	for _, c := range costs {
		out = append(out, &CostRule{MatcherSetsRaw: pathMatch(c.Paths...), Units: c.Units, Param: c.Param,
			Per: c.Per, ParamDefault: c.ParamDefault, ParamMax: c.ParamMax})
	}
	return out
}

func pathMatch(paths ...string) caddyhttp.RawMatcherSets {
	return caddyhttp.RawMatcherSets{caddy.ModuleMap{"path": caddyJSON(caddyhttp.MatchPath(paths))}}
}

// Provision applies the platform's defaults, loads the cost matchers and
// takes (or creates) the platform's budget.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.Platform == "" {
		return fmt.Errorf("platform_limit: platform key missing")
	}
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	h.app = a
	h.sessions = a.Sessions()
	if desc, ok := a.Platform(h.Platform); ok && desc.Budget != nil {
		def := desc.Budget
		if h.Capacity == 0 && h.Window == 0 {
			h.Capacity, h.Window = def.Capacity, caddy.Duration(def.Window)
		}
		if h.Costs == nil && len(def.Costs) > 0 {
			h.Costs = descriptorCosts(def.Costs)
		}
		if h.MaxQueue == 0 {
			h.MaxQueue = def.MaxQueue
		}
		if h.MaxWait == 0 {
			h.MaxWait = caddy.Duration(def.MaxWait)
		}
	}
	if h.RejectStatus == 0 {
		h.RejectStatus = http.StatusServiceUnavailable
	}
	for i, c := range h.Costs {
		if c == nil {
			return fmt.Errorf("platform_limit %s: cost rule %d is empty", h.Platform, i)
		}
		if c.Param != "" && c.Units == 0 {
			c.Units = 1
		}
		if c.MatcherSetsRaw != nil {
			mods, err := ctx.LoadModule(c, "MatcherSetsRaw")
			if err != nil {
				return fmt.Errorf("platform_limit %s: loading cost matchers: %w", h.Platform, err)
			}
			if err := c.matchers.FromInterface(mods); err != nil {
				return fmt.Errorf("platform_limit %s: cost matchers: %w", h.Platform, err)
			}
		}
	}
	if err := h.validate(); err != nil {
		return err
	}
	h.trusted, _ = session.ParsePrefixes(h.TrustedSources) // validated above
	if h.TrustedSources == nil {
		h.trusted = a.Trusted()
	}
	cfg, err := h.config().WithDefaults()
	if err != nil {
		return fmt.Errorf("platform_limit %s: %w", h.Platform, err)
	}
	logger := h.logger.With(zap.String("platform", h.Platform))
	// With a shared store, the budget lives in Redis and is shared by
	// every instance (globalbudget); without one, in this process.
	store := a.Shared()
	h.poolKey = h.Platform
	if store != nil {
		h.poolKey = fmt.Sprintf("%s|shared|%p", h.Platform, store)
	}
	val, _, err := budgets.LoadOrNew(h.poolKey, func() (caddy.Destructor, error) {
		return newPooledBudget(h.Platform, store, cfg, clock.Or(h.clock), logger)
	})
	if err != nil {
		return fmt.Errorf("platform_limit %s: %w", h.Platform, err)
	}
	h.pooled = true
	pb := val.(*pooledBudget)
	h.budget, h.clock = pb.budget, pb.clock
	a.PublishBudget(h.Platform, pb.Stats, func() app.WaitHistogram { return waitHistogram(h.Platform) })
	// A reload's new limits apply when its config starts; a config
	// whose handlers of one platform disagree does not load.
	describe := func(c fairqueue.Config) string {
		return fmt.Sprintf("capacity %g, window %v, max_queue %d, max_wait %v", c.Capacity, c.Window, c.MaxQueue, c.MaxWait)
	}
	if err := pb.config.Stage(a, cfg, true, describe); err != nil {
		return fmt.Errorf("platform_limit %s: %w", h.Platform, err)
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("platform_limit %s: registering metrics: %w", h.Platform, err)
	}
	return nil
}

func (h *Handler) config() fairqueue.Config {
	return fairqueue.Config{
		Capacity: h.Capacity,
		Window:   time.Duration(h.Window),
		MaxQueue: h.MaxQueue,
		MaxWait:  time.Duration(h.MaxWait),
	}
}

func sameConfig(old, cfg fairqueue.Config) bool {
	c, err := cfg.WithDefaults()
	if err != nil {
		return false
	}
	return old == c
}

// Validate checks the configuration.
func (h *Handler) Validate() error { return h.validate() }

func (h *Handler) validate() error {
	if h.Capacity == 0 && h.Window == 0 {
		return fmt.Errorf("platform_limit %s: BesluitBron keeps no limit for this platform; set capacity and window, or leave platform_limit out", h.Platform)
	}
	if !(h.Capacity > 0) || math.IsInf(h.Capacity, 0) {
		return fmt.Errorf("platform_limit %s: capacity must be a positive number of units, got %v", h.Platform, h.Capacity)
	}
	if h.Window <= 0 {
		return fmt.Errorf("platform_limit %s: window must be a positive duration, got %v", h.Platform, time.Duration(h.Window))
	}
	if h.MaxQueue < 0 {
		return fmt.Errorf("platform_limit %s: max_queue must be ≥ 1, got %d", h.Platform, h.MaxQueue)
	}
	if h.MaxWait < 0 {
		return fmt.Errorf("platform_limit %s: max_wait must be positive, got %v", h.Platform, time.Duration(h.MaxWait))
	}
	if _, err := session.ParsePrefixes(h.TrustedSources); err != nil {
		return fmt.Errorf("platform_limit %s: trusted_sources: %v", h.Platform, err)
	}
	if h.RejectStatus != 0 && h.RejectStatus != http.StatusServiceUnavailable && h.RejectStatus != http.StatusTooManyRequests {
		return fmt.Errorf("platform_limit %s: reject_status must be 503 or 429, got %d", h.Platform, h.RejectStatus)
	}
	for i, c := range h.Costs {
		if c == nil {
			return fmt.Errorf("platform_limit %s: cost rule %d is empty", h.Platform, i)
		}
		if c.Units < 0 || math.IsNaN(c.Units) || math.IsInf(c.Units, 0) {
			return fmt.Errorf("platform_limit %s: cost rule %d: units must be a finite number ≥ 0, got %v", h.Platform, i, c.Units)
		}
		if c.Param == "" && c.Units == 0 && (c.Per != 0 || c.ParamDefault != 0 || c.ParamMax != 0) {
			return fmt.Errorf("platform_limit %s: cost rule %d: per/param_default/param_max need param", h.Platform, i)
		}
		if c.Param != "" && !(c.Per > 0) {
			return fmt.Errorf("platform_limit %s: cost rule %d: param %q needs per > 0", h.Platform, i, c.Param)
		}
		if c.ParamDefault < 0 || c.ParamMax < 0 {
			return fmt.Errorf("platform_limit %s: cost rule %d: param_default and param_max must be ≥ 0", h.Platform, i)
		}
	}
	return nil
}

// Cleanup releases the handler's reference to the budget.
func (h *Handler) Cleanup() error {
	if h.pooled {
		h.pooled = false
		_, err := budgets.Delete(h.poolKey)
		return err
	}
	return nil
}

// cost returns the units a request costs.
func (h *Handler) cost(r *http.Request) (float64, error) {
	for _, c := range h.Costs {
		if len(c.matchers) > 0 {
			ok, err := c.matchers.AnyMatchWithError(r)
			if err != nil {
				return 0, err
			}
			if !ok {
				continue
			}
		}
		return c.price(r), nil
	}
	return 1, nil
}

func (c *CostRule) price(r *http.Request) float64 {
	v := math.NaN() // missing or not a number: the rule's default
	if c.Param != "" {
		if f, err := strconv.ParseFloat(strings.TrimSpace(r.URL.Query().Get(c.Param)), 64); err == nil {
			v = f
		}
	}
	// One pricing rule for the table, the tool descriptions and the budget.
	return platforms.Cost{Units: c.Units, Param: c.Param, Per: c.Per, ParamDefault: c.ParamDefault, ParamMax: c.ParamMax}.UnitsFor(v)
}

// key returns whom the request is for: its client and its session within
// the client (docs/rules.md, "Who a client is").
func (h *Handler) key(r *http.Request) fairqueue.Key {
	who := h.sessions.Identify(r)
	if h.SessionKey != "" && !who.Shared {
		if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
			if k := strings.TrimSpace(repl.ReplaceAll(h.SessionKey, "")); k != "" && len(k) <= 128 {
				who.Session = "key:" + k
			}
		}
	}
	client, sess := who.Key(h.trusted)
	return fairqueue.Key{Client: client, Session: sess}
}

// ServeHTTP waits for room in the budget, then calls next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	cost, err := h.cost(r)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, fmt.Errorf("platform_limit %s: matching cost rules: %w", h.Platform, err))
	}
	adm, err := h.budget.Acquire(r.Context(), h.key(r), cost)
	if err != nil {
		var rej *fairqueue.Rejection
		if errors.As(err, &rej) {
			secs := max(1, int(math.Ceil(rej.RetryAfter.Seconds())))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			return caddyhttp.Error(h.RejectStatus, fmt.Errorf("platform_limit %s: %w", h.Platform, err))
		}
		// The client hung up while waiting: nothing was spent.
		return caddyhttp.Error(statusClientClosed, fmt.Errorf("platform_limit %s: client gone while waiting: %w", h.Platform, err))
	}
	waitSeconds.WithLabelValues(h.Platform).Observe(adm.Wait.Seconds())
	w.Header().Set(platforms.HeaderQueueWait, strconv.FormatInt(adm.Wait.Milliseconds(), 10))
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl != nil {
		repl.Set("http.platform_limit.wait_ms", adm.Wait.Milliseconds())
		repl.Set("http.platform_limit.cost", adm.Cost)
		// Only this call's proxy may say what it sent (see refund.go).
		repl.Delete(sentPlaceholder)
	}
	wr := &watcher{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h}
	err = next.ServeHTTP(wr, r)
	h.settle(r, repl, adm, wr.answered, err)
	return err
}

// watcher reads the platform's answer headers as they are written.
type watcher struct {
	*caddyhttp.ResponseWriterWrapper
	h *Handler
	// seen: a final status was written; answered: and it was an answer,
	// not the 499 Caddy's reverse_proxy writes for a caller that hung up.
	seen, answered bool
}

// statusClientClosed is the status Caddy records for a caller that hung
// up; no platform sends it.
const statusClientClosed = 499

func (wr *watcher) WriteHeader(status int) {
	if !wr.seen && status >= 200 {
		wr.seen = true
		if status != statusClientClosed {
			wr.answered = true
			wr.h.observe(status, wr.Header())
		}
	}
	wr.ResponseWriterWrapper.WriteHeader(status)
}

func (wr *watcher) Write(b []byte) (int, error) {
	if !wr.seen {
		wr.WriteHeader(http.StatusOK)
	}
	return wr.ResponseWriterWrapper.Write(b)
}

// observe applies the platform's own word: a 429 pauses the budget for
// Retry-After (or empties it when there is none); RateLimit-Remaining and
// RateLimit-Reset pull the bucket down.
func (h *Handler) observe(status int, hdr http.Header) {
	now := h.clock.Now()
	if status == http.StatusTooManyRequests {
		upstream429.WithLabelValues(h.Platform).Inc()
		// A date already past (d < 0) is no usable pause: empty the
		// bucket as for a bare 429.
		if d, ok := httpx.RetryAfter(hdr.Get("Retry-After"), now); ok && d >= 0 {
			h.budget.Pause(now.Add(d))
			h.logger.Warn("platform answered 429: budget paused",
				zap.String("platform", h.Platform), zap.Duration("retry_after", d))
		} else {
			h.budget.PullDown(0, -1)
			h.logger.Warn("platform answered 429 without Retry-After: budget emptied", zap.String("platform", h.Platform))
		}
		return
	}
	remaining, reset := -1.0, time.Duration(-1)
	if v := hdr.Get("RateLimit-Remaining"); v != "" {
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 {
			remaining = f
		}
	}
	if v := hdr.Get("RateLimit-Reset"); v != "" {
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f < 1e7 {
			reset = time.Duration(f * float64(time.Second))
		}
	}
	if remaining >= 0 || reset >= 0 {
		h.budget.PullDown(remaining, reset)
	}
}

// budgets holds one budget per platform, across config reloads.
var budgets = caddy.NewUsagePool()

// budget is what the handler needs of a platform's budget: a
// fairqueue.Budget in one process, or a globalbudget.Budget shared by the
// instances on one Redis.
type budget interface {
	Acquire(ctx context.Context, key fairqueue.Key, cost float64) (fairqueue.Admission, error)
	Refund(a fairqueue.Admission) bool
	Pause(until time.Time)
	PullDown(remaining float64, resetIn time.Duration)
	Stats() fairqueue.Stats
	Heaviest(n int) []fairqueue.ClientUsage
	Used(client string) float64
	Config() fairqueue.Config
	SetConfig(cfg fairqueue.Config) error
}

type pooledBudget struct {
	budget
	clock    clock.Clock // the budget's
	platform string
	global   *globalbudget.Budget           // nil without a shared store
	instance string                         // the shared store's instance id
	config   *app.Setting[fairqueue.Config] // the limits of the config in force
}

// newPooledBudget makes platform's budget on clk: in store, shared by
// every instance (globalbudget), or in this process when store is nil.
func newPooledBudget(platform string, store *sharedstore.Store, cfg fairqueue.Config, clk clock.Clock, logger *zap.Logger) (*pooledBudget, error) {
	pb := &pooledBudget{platform: platform, clock: clk}
	if store != nil {
		g, err := globalbudget.New(globalbudget.Options{Platform: platform, Store: store, Config: cfg, Clock: clk, Logger: logger})
		if err != nil {
			return nil, err
		}
		pb.budget, pb.global, pb.instance = g, g, store.Instance()
	} else {
		b, err := fairqueue.New(cfg, clk)
		if err != nil {
			return nil, err
		}
		pb.budget = b
	}
	pb.config = app.NewSetting(func(cfg fairqueue.Config) { pb.reconfigure(cfg, logger) })
	return pb, nil
}

// reconfigure puts cfg (validated in Provision) in force in place: the
// queue, the spent units and every client's usage stay.
func (pb *pooledBudget) reconfigure(cfg fairqueue.Config, logger *zap.Logger) {
	if sameConfig(pb.Config(), cfg) {
		return
	}
	if err := pb.SetConfig(cfg); err != nil {
		logger.Error("platform budget not reconfigured", zap.Error(err))
		return
	}
	logger.Info("platform budget reconfigured in place",
		zap.Float64("capacity", cfg.Capacity), zap.Duration("window", cfg.Window))
}

// Destruct implements caddy.Destructor: a local budget holds only memory
// and stopped timers; a global one stops its goroutine and subscription
// (its keys in Redis lapse by their TTLs).
func (pb *pooledBudget) Destruct() error {
	if pb.global != nil {
		return pb.global.Close()
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
