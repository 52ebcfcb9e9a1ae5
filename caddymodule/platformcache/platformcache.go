// Package platformcache is the Caddy adapter of cache: the
// http.handlers.platform_cache handler (one per platform route), its
// Caddyfile directive, the admin.api.platform_cache admin routes and the
// Prometheus metrics. Stores live in a caddy.UsagePool keyed by platform,
// so a config reload keeps the very same objects (and their files open).
package platformcache

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/canonical"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/platforms"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler caches one platform's answers. Which requests are which kind is
// decided by request matchers per kind (first match in the order list,
// document, search; else other); each kind has its own lifetimes. The
// matchers and lifetimes default to the platform's descriptor in the
// besluitbron app (platforms: its cache kinds over the
// generic lifetimes of docs/rules.md, "Cache" rule 2); a kind configured here replaces
// the descriptor's matchers when it names any, and each lifetime it sets.
type Handler struct {
	// Platform is the platform key (ori, obv, tk, opentk, ob, rechtspraak,
	// oa); it names the store, the durable file and the metric label.
	Platform string `json:"platform"`
	// Version stamps new entries; entries of another version are dropped
	// when asked for. Default: the running BesluitBron version.
	Version string `json:"version,omitempty"`
	// MemoryBytes bounds the platform's memory tier (default 128 MiB).
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// DiskBytes bounds the platform's durable file (default 2 GiB).
	DiskBytes int64 `json:"disk_bytes,omitempty"`
	// MaxBody is the largest answer body stored (default 8 MiB); larger
	// answers stream through uncached.
	MaxBody int64 `json:"max_body,omitempty"`
	// MaxRequestBody is the largest POST search body hashed into a key
	// (default 1 MiB); larger POSTs bypass the cache.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`
	// Dir holds the durable files. Default: the besluitbron app's
	// cache_dir, else caddy.AppDataDir()/besluitbron/cache. "off" keeps
	// memory only.
	Dir string `json:"dir,omitempty"`
	// Kinds configures list, search, document and other.
	Kinds map[string]*KindConfig `json:"kinds,omitempty"`

	store    *cache.Store
	pooled   bool
	policies map[string]cache.Policy
	matchers map[string]caddyhttp.MatcherSets
	logger   *zap.Logger
}

// KindConfig is one kind's matchers and lifetimes.
type KindConfig struct {
	// MatcherSetsRaw selects the requests of this kind (any set matches).
	// The kind "other" takes every request no other kind matched and
	// needs no matchers.
	MatcherSetsRaw caddyhttp.RawMatcherSets `json:"match,omitempty" caddy:"namespace=http.matchers"`
	// TTL is the fresh lifetime. A negative value turns caching off for
	// the kind (its requests bypass).
	TTL caddy.Duration `json:"ttl,omitempty"`
	// StaleWhileRevalidate serves an expired entry this long after expiry
	// while one background request refreshes it.
	StaleWhileRevalidate caddy.Duration `json:"stale_while_revalidate,omitempty"`
	// StaleIfError serves an expired entry this long after expiry when the
	// platform fails.
	StaleIfError caddy.Duration `json:"stale_if_error,omitempty"`
	// NegativeTTL stores 404 answers this long (0: not at all).
	NegativeTTL caddy.Duration `json:"negative_ttl,omitempty"`
	// POST makes POST requests of this kind cacheable (keyed by a hash of
	// the body). Default true for search, false otherwise.
	POST *bool `json:"post,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.platform_cache",
		New: func() caddy.Module { return new(Handler) },
	}
}

var pool = caddy.NewUsagePool()

// pooled is a store in the pool; the last config that uses it closes it.
type pooled struct{ *cache.Store }

func (p pooled) Destruct() error { return p.Close() }

// Provision sets the handler up and takes (or opens) the platform's store.
// On a reload the store is the running config's; a changed version is
// staged until this config starts.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := h.validateConfig(); err != nil {
		return err
	}
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	desc, _ := a.Platform(h.Platform) // validateConfig checked the key
	if h.Version == "" {
		h.Version = version.Current()
	}
	h.policies = map[string]cache.Policy{}
	h.matchers = map[string]caddyhttp.MatcherSets{}
	for _, kind := range cache.Kinds {
		base, err := descriptorKind(ctx, desc, kind)
		if err != nil {
			return fmt.Errorf("platform_cache %s: %s: %v", h.Platform, kind, err)
		}
		kc := base.KindConfig
		if base.matchers != nil {
			h.matchers[kind] = base.matchers
		}
		if user := h.Kinds[kind]; user != nil {
			kc = mergeKind(kc, *user)
			if user.MatcherSetsRaw != nil {
				mods, err := ctx.LoadModule(user, "MatcherSetsRaw")
				if err != nil {
					return fmt.Errorf("loading %s matchers: %v", kind, err)
				}
				var sets caddyhttp.MatcherSets
				if err := sets.FromInterface(mods); err != nil {
					return fmt.Errorf("%s matchers: %v", kind, err)
				}
				h.matchers[kind] = sets
			}
		}
		post := kind == cache.KindSearch
		if kc.POST != nil {
			post = *kc.POST
		}
		ttl := time.Duration(kc.TTL)
		if ttl < 0 {
			ttl = 0
		}
		h.policies[kind] = cache.Policy{
			Kind:                 kind,
			TTL:                  ttl,
			StaleWhileRevalidate: time.Duration(kc.StaleWhileRevalidate),
			StaleIfError:         time.Duration(kc.StaleIfError),
			NegativeTTL:          time.Duration(kc.NegativeTTL),
			MaxBody:              h.maxBody(),
			AllowPOST:            post,
			MaxRequestBody:       h.MaxRequestBody,
			// The rules platform_proxy builds the platform's request by:
			// the key is that request's.
			Rules: canonical.RulesFor(desc),
		}
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	dir := h.Dir
	switch dir {
	case "":
		dir = a.CacheDirectory()
	case "off":
		dir = ""
	}
	logger := h.logger
	val, loaded, err := pool.LoadOrNew(h.Platform, func() (caddy.Destructor, error) {
		s, err := cache.Open(cache.Options{
			Platform:    h.Platform,
			Version:     h.Version,
			Dir:         dir,
			MemoryBytes: h.MemoryBytes,
			DiskBytes:   h.DiskBytes,
			MaxBody:     h.maxBody(),
			Logger:      logger.With(zap.String("platform", h.Platform)),
			Observe:     observe(h.Platform),
			Shared:      sharedTier(a, h.Platform, nil),
		})
		if err != nil {
			return nil, err
		}
		return pooled{s}, nil
	})
	if err != nil {
		return fmt.Errorf("platform_cache %s: %v", h.Platform, err)
	}
	h.pooled = true
	h.store = val.(pooled).Store
	a.PublishCache(h.Platform, h.store.Stats)
	if loaded {
		// A reload: same store, same files; a changed version override
		// applies when this config starts (old entries then drop when
		// asked for). Memory and disk bounds apply from the next start.
		store, v := h.store, h.Version
		shared := sharedTier(a, h.Platform, store.SharedTier())
		a.OnStart(func() {
			store.SetVersion(v)
			if shared != store.SharedTier() {
				store.SetShared(shared) // the store setting changed in this reload
			}
		})
	}
	return nil
}

// sharedTier returns the platform's shared cache tier over the app's
// shared store (nil when this instance runs alone): cur when it already
// runs on that store, else a new one.
func sharedTier(a *app.App, platform string, cur cache.Shared) cache.Shared {
	ss := a.Shared()
	if ss == nil {
		return nil
	}
	if rs, ok := cur.(*cache.RedisShared); ok && rs.Backend() == ss {
		return cur
	}
	return cache.NewRedisShared(ss, platform, cache.RedisSharedOptions{})
}

func (h *Handler) maxBody() int64 {
	if h.MaxBody > 0 {
		return h.MaxBody
	}
	return cache.DefaultMaxBody
}

func mergeKind(def, user KindConfig) KindConfig {
	out := def
	out.MatcherSetsRaw = user.MatcherSetsRaw
	if user.TTL != 0 {
		out.TTL = user.TTL
	}
	if user.StaleWhileRevalidate != 0 {
		out.StaleWhileRevalidate = user.StaleWhileRevalidate
	}
	if user.StaleIfError != 0 {
		out.StaleIfError = user.StaleIfError
	}
	if user.NegativeTTL != 0 {
		out.NegativeTTL = user.NegativeTTL
	}
	if user.POST != nil {
		out.POST = user.POST
	}
	for _, d := range []*caddy.Duration{&out.StaleWhileRevalidate, &out.StaleIfError, &out.NegativeTTL} {
		if *d < 0 {
			*d = 0
		}
	}
	return out
}

func (h *Handler) validateConfig() error {
	if _, ok := platforms.Get(h.Platform); !ok {
		return fmt.Errorf("platform_cache: unknown platform %q (want one of %v)", h.Platform, platforms.Keys())
	}
	for kind := range h.Kinds {
		if _, ok := platforms.CacheLifetime(kind); !ok {
			return fmt.Errorf("platform_cache %s: unknown kind %q (want list, search, document or other)", h.Platform, kind)
		}
	}
	if k := h.Kinds[cache.KindOther]; k != nil && k.MatcherSetsRaw != nil {
		return fmt.Errorf("platform_cache %s: kind other takes what no other kind matched; it has no matchers", h.Platform)
	}
	for name, v := range map[string]int64{"memory": h.MemoryBytes, "disk": h.DiskBytes, "max_body": h.MaxBody, "max_request_body": h.MaxRequestBody} {
		if v < 0 {
			return fmt.Errorf("platform_cache %s: %s must not be negative", h.Platform, name)
		}
	}
	if h.MemoryBytes > 0 && h.MemoryBytes < 1<<20 {
		return fmt.Errorf("platform_cache %s: memory must be at least 1MiB", h.Platform)
	}
	return nil
}

// Validate checks the provisioned handler.
func (h *Handler) Validate() error { return nil }

// Cleanup gives the store back to the pool; the last user closes it.
func (h *Handler) Cleanup() error {
	if h.pooled {
		h.pooled = false
		_, err := pool.Delete(h.Platform)
		return err
	}
	return nil
}

// matchOrder is the order kinds are tried in: the narrow ones first.
var matchOrder = []string{cache.KindList, cache.KindDocument, cache.KindSearch}

// kindOf returns the kind of r.
func (h *Handler) kindOf(r *http.Request) (string, error) {
	for _, kind := range matchOrder {
		sets := h.matchers[kind]
		if len(sets) == 0 {
			continue
		}
		ok, err := sets.AnyMatchWithError(r)
		if err != nil {
			return "", err
		}
		if ok {
			return kind, nil
		}
	}
	return cache.KindOther, nil
}

// ServeHTTP answers from the platform's cache or through next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	kind, err := h.kindOf(r)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	// Hits, misses, stale answers and bypasses alike are served on our
	// origin: inert, whatever the handler behind us (reverse_proxy too)
	// or an entry stored before this rule passed on.
	iw := httpx.Inert(w)
	err = h.store.Serve(iw, r, h.policies[kind], next, detach)
	var refused *canonical.Error
	switch {
	case errors.As(err, &refused):
		httpx.WriteRefusal(iw, http.StatusBadRequest, canonical.RefusalOf(h.Platform, refused))
		return nil
	case errors.Is(err, cache.ErrIncomplete):
		return caddyhttp.Error(http.StatusBadGateway, err)
	case errors.Is(err, cache.ErrFlightTimeout):
		return caddyhttp.Error(http.StatusGatewayTimeout, err) // Retry-After is set
	}
	return err
}

// detach prepares a copy of r for a background refresh: not cancelled
// with r, with Caddy's per-request state made fresh (the original
// request's vars and replacer may be reused once it ended), and marked as
// BesluitBron's own maintenance, which the budget counts as the shared
// session. The body is not r's to share: the cache gives the copy its own
// (a POST search's body, which the key hashes).
func detach(r *http.Request) *http.Request {
	ctx := session.WithInternal(context.WithoutCancel(r.Context()), session.Shared)
	req := r.Clone(ctx)
	req.Body = nil
	req.ContentLength = 0
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	return caddyhttp.PrepareRequest(req, caddy.NewReplacer(), nil, srv)
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddy.Destructor            = pooled{}
)
