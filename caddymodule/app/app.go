// Package app is the besluitbron Caddy app: one descriptor per platform
// (the defaults table of platforms with the configuration laid
// over it) and the global settings every BesluitBron handler reads. The
// handlers (platform_cache, platform_limit, platform_proxy, client_limit
// and the mcp connector) find it with ctx.App("besluitbron"); a config
// that names no besluitbron block gets the table's defaults.
//
// The app is also where a config's changes to shared, reload-surviving
// state wait until the config starts: handlers stage them with OnStart in
// Provision, and Start applies them. A config that fails to provision or
// start never changes what the running one uses.
package app

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
	"github.com/besluitbron/besluitbron/sharedstore"
	up "github.com/besluitbron/besluitbron/upstream"
)

// ID is the app's module ID and its name for ctx.App.
const ID = "besluitbron"

func init() {
	caddy.RegisterModule(App{})
}

// App holds the platforms' descriptors and BesluitBron's global settings.
// Every field is optional; what is left out comes from the defaults table
// (platforms).
type App struct {
	// Platforms overrides the defaults table, by platform key (ori, obv,
	// tk, opentk, ob, rechtspraak, oa). A key missing here keeps its
	// defaults.
	Platforms map[string]*PlatformConfig `json:"platforms,omitempty"`

	// Contact is the address platforms may use to reach the operator; it
	// is put in every platform request's User-Agent. Default:
	// "beheer@besluitbron.nl".
	Contact string `json:"contact,omitempty"`

	// AllowPrivate lists address ranges (CIDR or single IP) the platform
	// proxies may dial although private, loopback or link-local (a
	// private mirror, the offline emulators). Default: none.
	AllowPrivate []string `json:"allow_private,omitempty"`

	// TrustedSources are client addresses (CIDR ranges or single
	// addresses) whose sessions each count as a client of their own, in
	// client_limit and platform_limit alike (a hosted assistant's egress
	// range). A handler's own trusted_sources replaces it for that
	// handler. Default: none.
	TrustedSources []string `json:"trusted_sources,omitempty"`

	// CacheDir holds the platform caches' durable files. Default:
	// caddy.AppDataDir()/besluitbron/cache; "off" keeps memory only. A
	// platform_cache's own dir replaces it for that platform.
	CacheDir string `json:"cache_dir,omitempty"`

	// ProcessLimit bounds the requests the whole process accepts
	// (client_limit's process layer). A client_limit's own process
	// setting replaces it. Default: 1000/s, burst 2000.
	ProcessLimit *Limit `json:"process_limit,omitempty"`

	// Store names where shared state (cache tier, budgets, sessions,
	// inbound limits by session and address) lives: "local" (the
	// default: this process alone, embedded stores) or a Redis URL
	// (redis://host:port/db, rediss://..., redis+cluster://host:port?addr=
	// host2:port) that several instances share (docs/scaling.md).
	Store string `json:"store,omitempty"`

	// Instances is how many instances share the store. While Redis is
	// unreachable each keeps 1/Instances of every platform budget, so
	// together they stay within the platform's limit. Default 1; only
	// used with a Redis store.
	Instances int `json:"instances,omitempty"`

	// StoreTimeout bounds every Redis call; past it the instance serves
	// from its local tiers and budgets (degraded mode) until Redis
	// answers again. Default 150ms.
	StoreTimeout caddy.Duration `json:"store_timeout,omitempty"`

	// StorePrefix starts every Redis key, so several BesluitBron
	// deployments may share one Redis. Default "bb".
	StorePrefix string `json:"store_prefix,omitempty"`

	// ReplicaConfigs turns on, by platform key, BesluitBron's own replica of a
	// platform's feed, for the platforms that keep one (replica.go).
	// Default: off, since a replica takes disk (see docs/caselaw.md) and
	// its first harvest hours; the default Caddyfile turns case law's on.
	ReplicaConfigs map[string]*ReplicaConfig `json:"replicas,omitempty"`
	// ReplicaMemory is how many bytes of memory the replicas' searches
	// may keep of common words' postings, decoded once so that a search
	// of common words does not decode them again (docs/operations.md,
	// "Replica memory"); all replicas together, least recently used
	// leaving first. Default 268435456 (256 MiB); 0 keeps none; at least 0.
	ReplicaMemory *int64 `json:"replica_memory,omitempty"`

	// CaseLaw is the replica named LegacyReplica, as configurations
	// gave it before replicas were generic (the case-law index): the
	// same as ReplicaConfigs under its platform's key. Give one or the other.
	CaseLaw *ReplicaConfig `json:"caselaw,omitempty"`

	resolved map[string]platforms.Platform
	// settings are the platforms' own settings, read from Options at
	// Provision (platforms.AllSettings).
	settings map[string]any
	replicas []hostedReplica // resolved at Provision (replica.go)
	allow    []netip.Prefix
	trusted  []netip.Prefix

	sessions *session.Registry  // shared by every config (sessionsKey in pool); nil once released
	figures  *Figures           // shared by every config (figuresKey in pool); nil once released
	shared   *sharedstore.Store // the Redis store (storeKey in pool); nil when local
	logger   *zap.Logger
	// clock is the time of the replicas' harvests and their leases:
	// clock.Wall unless a test set its own before Provision.
	clock clock.Clock
	// loadFetch fetches a platform's load status for a keeper this
	// config makes (tests); nil: through the running servers' route.
	loadFetch func(ctx context.Context, platform string) (adapters.KeptLoadStatus, error)
	storeKey  string

	staged *staged
	prev   *App // the app in force when this one started (guarded by inForce)
	// stopped is set by Stop (guarded by inForce).
	stopped bool
}

// staged holds the changes a config's handlers staged (OnStart).
type staged struct {
	mu        sync.Mutex
	commits   []func()
	bases     map[string][]string          // base URLs handlers use beside the descriptors' (LinkBaseURLs)
	cleanups  []func()                     // run when the config is unloaded (Cleanup)
	loadEvery map[string]time.Duration     // per platform, the shortest load status interval a module wants (WantLoadStatus)
	load      map[string]*LoadStatusKeeper // held from Start to Stop (loadStatusKey in pool); none when unwanted
	replicas  map[string]*replicaKeeper    // by platform, held from Start to Stop (poolKey in pool)
}

// PlatformConfig overrides one platform's descriptor. Zero fields keep the
// table's value.
type PlatformConfig struct {
	// BaseURLs are the platform's base URLs (scheme, host, optional port
	// and path prefix), in failover order. Default: the platform's public
	// address(es). They serve every path of the platform, also those the
	// table sends to other hosts (the laws' and local regulations' SRU
	// search, platforms.Platform.Mounts).
	BaseURLs []string `json:"base_urls,omitempty"`
	// Capacity is the budget's bucket size in units. Default: the
	// table's (platforms/defaults.go, with each reason).
	Capacity float64 `json:"capacity,omitempty"`
	// Window is the time the empty bucket takes to refill. Default: the
	// table's.
	Window caddy.Duration `json:"window,omitempty"`
	// MaxQueue bounds the requests waiting on the budget. Default: 1000.
	MaxQueue int `json:"max_queue,omitempty"`
	// MaxWait bounds one request's wait for the budget. Default: twice
	// the window, at least 30s.
	MaxWait caddy.Duration `json:"max_wait,omitempty"`
	// SearchPaths are path.Match patterns of the platform's read-only
	// searches. ["off"]: none. Default: the table's (ori the _search and
	// _msearch paths, opentk /search).
	SearchPaths []string `json:"search_paths,omitempty"`
	// MaxSearchesPerHost caps the searches in flight on one host.
	// Default: the table's (opentk 2, else no cap).
	MaxSearchesPerHost int `json:"max_searches_per_host,omitempty"`
	// QueueWait bounds the wait for a place when every host is at its
	// cap. Default: the table's (opentk 20s), else 15s.
	QueueWait caddy.Duration `json:"queue_wait,omitempty"`
	// Options are the platform's own settings, by option name, read by
	// the platform (platforms.Configurable), e.g. tk {"odata_root":
	// ["/OData/v4/2.0"]} (default /OData/v5) and oa's endpoints
	// ({"search_path": ["/zoek"]}, default the assumption platforms/oa
	// writes down). An option the platform does not take is refused at
	// Provision. An mcp connector's or the site's own <key>_<option>
	// replaces one for that handler.
	Options platforms.Options `json:"options,omitempty"`
}

// Limit is a request rate: Burst requests at once, refilled at Rate
// ("1000/s", "600/m", a bare number per second, or "off").
type Limit struct {
	Rate  string `json:"rate"`
	Burst int    `json:"burst,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  ID,
		New: func() caddy.Module { return new(App) },
	}
}

// pool holds the state every config's app shares, so it survives a
// reload: each app loads it in Provision and releases it in Cleanup.
var pool = caddy.NewUsagePool()

// sessionsKey is the pool's key of the MCP session registry.
const sessionsKey = "besluitbron.sessions"

// figuresKey is the pool's key of the figures the modules publish.
const figuresKey = "besluitbron.figures"

// Provision lays the configuration over the defaults table and takes a
// reference to the shared session registry. It changes nothing outside
// the app.
func (a *App) Provision(ctx caddy.Context) error {
	a.staged = new(staged)
	a.logger = ctx.Logger()
	a.clock = clock.Or(a.clock)
	known := map[string]bool{}
	for _, k := range platforms.Keys() {
		known[k] = true
	}
	for k := range a.Platforms {
		if !known[k] {
			return fmt.Errorf("besluitbron: unknown platform %q (known: %v)", k, platforms.Keys())
		}
	}
	if a.Instances < 0 || a.StoreTimeout < 0 {
		return fmt.Errorf("besluitbron: instances and store_timeout must not be negative")
	}
	if a.ReplicaMemory != nil && *a.ReplicaMemory < 0 {
		return fmt.Errorf("besluitbron: replica_memory %d: give a size of 0 (keep none) or more", *a.ReplicaMemory)
	}
	memory := int64(bleveindex.DefaultDecodedBudget)
	if a.ReplicaMemory != nil {
		memory = *a.ReplicaMemory
	}
	a.OnStart(func() { bleveindex.SetDecodedBudget(memory) })
	var err error
	if err = a.loadStore(ctx); err != nil {
		return err
	}
	if a.shared != nil {
		if err := registerStoreMetrics(ctx.GetMetricsRegistry()); err != nil {
			return fmt.Errorf("besluitbron: store metrics: %w", err)
		}
	}
	if a.allow, err = up.ParsePrefixes(a.AllowPrivate); err != nil {
		return fmt.Errorf("besluitbron: allow_private: %w", err)
	}
	if a.trusted, err = up.ParsePrefixes(a.TrustedSources); err != nil {
		return fmt.Errorf("besluitbron: trusted_sources: %w", err)
	}
	if err := a.resolveReplicas(); err != nil {
		return err
	}
	if len(a.replicas) > 0 {
		if err := registerReplicaMetrics(ctx.GetMetricsRegistry()); err != nil {
			return fmt.Errorf("besluitbron: replica metrics: %w", err)
		}
	}
	if a.settings, err = platforms.AllSettings(a.PlatformOptions()); err != nil {
		return fmt.Errorf("besluitbron: %w", err)
	}
	a.resolved = map[string]platforms.Platform{}
	for _, p := range platforms.All() {
		if err := apply(&p, a.Platforms[p.Key]); err != nil {
			return fmt.Errorf("besluitbron: platform %s: %w", p.Key, err)
		}
		a.resolved[p.Key] = p
	}
	v, _, err := pool.LoadOrNew(sessionsKey, func() (caddy.Destructor, error) {
		return session.NewRegistry(session.DefaultMaxIDs, session.DefaultIdle, nil), nil
	})
	if err != nil {
		return fmt.Errorf("besluitbron: loading the session registry: %w", err)
	}
	a.sessions = v.(*session.Registry)
	v, _, err = pool.LoadOrNew(figuresKey, func() (caddy.Destructor, error) { return new(Figures), nil })
	if err != nil {
		return fmt.Errorf("besluitbron: loading the figures: %w", err)
	}
	a.figures = v.(*Figures)
	// With a shared store the sessions are valid on every instance
	// (issue 13); this config's store takes over when it starts.
	// A trusted source's sessions are clients of their own: they count
	// against no address's share of the registry.
	reg, store, trusted := a.sessions, a.shared, a.trusted
	a.OnStart(func() { reg.Share(store); reg.SetTrusted(trusted) })
	return nil
}

// apply lays c over p.
func apply(p *platforms.Platform, c *PlatformConfig) error {
	if c == nil {
		return nil
	}
	if len(c.BaseURLs) > 0 {
		for _, u := range c.BaseURLs {
			if _, err := up.ParseBaseURL(u); err != nil {
				return err
			}
		}
		p.BaseURLs = append([]string(nil), c.BaseURLs...)
		// One mirror or emulator serves every path of the platform
		// (platforms.Platform.Mounts).
		p.Mounts = nil
	}
	if c.Capacity < 0 || c.Window < 0 || c.MaxQueue < 0 || c.MaxWait < 0 || c.MaxSearchesPerHost < 0 || c.QueueWait < 0 {
		return fmt.Errorf("negative capacity, window, max_queue, max_wait, max_searches_per_host or queue_wait")
	}
	if c.Capacity != 0 || c.Window != 0 || c.MaxQueue != 0 || c.MaxWait != 0 {
		if p.Budget == nil {
			if c.Capacity == 0 || c.Window == 0 {
				return fmt.Errorf("BesluitBron keeps no budget for this platform: set capacity and window together")
			}
			p.Budget = &platforms.Budget{}
		}
		if c.Capacity != 0 {
			p.Budget.Capacity = c.Capacity
		}
		if c.Window != 0 {
			p.Budget.Window = time.Duration(c.Window)
		}
		if c.MaxQueue != 0 {
			p.Budget.MaxQueue = c.MaxQueue
		}
		if c.MaxWait != 0 {
			p.Budget.MaxWait = time.Duration(c.MaxWait)
		}
	}
	switch {
	case len(c.SearchPaths) == 1 && c.SearchPaths[0] == "off":
		p.Search.Paths = nil
	case len(c.SearchPaths) > 0:
		p.Search.Paths = append([]string(nil), c.SearchPaths...)
	}
	if c.MaxSearchesPerHost != 0 {
		p.Search.MaxPerHost = c.MaxSearchesPerHost
	}
	if c.QueueWait != 0 {
		p.Search.QueueWait = time.Duration(c.QueueWait)
	}
	return nil
}

// Load returns the config's besluitbron app (provisioned with the defaults
// when the config has none). A context that belongs to no config (handlers
// provisioned on their own, as unit tests do; Caddy's ctx.App panics
// there) gets an app of defaults, one per context, which starts only when
// its caller calls Start and is cleaned up when the context is cancelled.
func Load(ctx caddy.Context) (a *App, err error) {
	defer func() {
		if recover() != nil {
			a, err = standaloneApp(ctx)
		}
	}()
	v, err := ctx.App(ID)
	if err != nil {
		return nil, fmt.Errorf("loading the besluitbron app: %w", err)
	}
	return v.(*App), nil
}

// standalone holds the apps of contexts that belong to no config.
var standalone struct {
	sync.Mutex
	byDone map[<-chan struct{}]*App
	// cleaning counts the apps whose context ended and whose Cleanup has
	// not finished yet (tests wait for it before counting references).
	cleaning sync.WaitGroup
}

func standaloneApp(ctx caddy.Context) (*App, error) {
	done := ctx.Done()
	standalone.Lock()
	defer standalone.Unlock()
	if a, ok := standalone.byDone[done]; ok {
		return a, nil
	}
	a := new(App)
	if err := a.Provision(ctx); err != nil {
		return nil, err
	}
	if standalone.byDone == nil {
		standalone.byDone = map[<-chan struct{}]*App{}
	}
	standalone.byDone[done] = a
	standalone.cleaning.Add(1)
	go func() {
		defer standalone.cleaning.Done()
		<-done
		standalone.Lock()
		delete(standalone.byDone, done)
		standalone.Unlock()
		_ = a.Cleanup()
	}()
	return a, nil
}

// onCleanup registers f to run when the config is unloaded.
func (a *App) onCleanup(f func()) {
	a.staged.mu.Lock()
	a.staged.cleanups = append(a.staged.cleanups, f)
	a.staged.mu.Unlock()
}

// Cleanup runs when the config is unloaded, whether it ran or failed to
// load: what was staged for it is forgotten, and its reference to the
// session registry released.
func (a *App) Cleanup() error {
	if a.shared != nil {
		a.shared = nil
		_, _ = pool.Delete(a.storeKey)
	}
	if a.sessions != nil {
		a.sessions = nil
		_, _ = pool.Delete(sessionsKey)
	}
	if a.staged != nil {
		a.staged.mu.Lock()
		fs := a.staged.cleanups
		a.staged.cleanups = nil
		a.staged.mu.Unlock()
		for _, f := range fs {
			f()
		}
	}
	if a.figures != nil {
		// After the cleanups above, which end this config's publications.
		a.figures = nil
		_, _ = pool.Delete(figuresKey)
	}
	return nil
}

// Sessions returns the registry of the MCP session ids the connectors
// issued. It is the same registry in every config's app while any config
// holds it, so sessions survive a reload.
func (a *App) Sessions() *session.Registry { return a.sessions }

// Platform returns the platform's descriptor: the table's defaults with
// this config laid over them (a copy the caller may change).
func (a *App) Platform(key string) (platforms.Platform, bool) {
	p, ok := a.resolved[key]
	if !ok {
		return platforms.Platform{}, false
	}
	return p.Clone(), true
}

// LinkBaseURLs returns the base URLs a link into the platform that came
// from outside the configuration (an Officiële Bekendmakingen itemUrl) may
// point into, for upstream.CheckURL: the descriptor's, those this
// config's handlers send the platform's requests to (UsesBaseURLs), and
// the table's public ones, since a mirror's answers keep the platform's
// own links (they are fetched through the platform's route all the same).
// Each config's app answers for that config alone, so a reload's new
// base URLs count from the requests its handlers serve on, and a config
// that failed to load counts for nothing.
func (a *App) LinkBaseURLs(key string) []string {
	p, ok := a.resolved[key]
	if !ok {
		return nil
	}
	out := append([]string(nil), p.BaseURLs...)
	a.staged.mu.Lock()
	out = append(out, a.staged.bases[key]...)
	a.staged.mu.Unlock()
	if def, ok := platforms.Get(key); ok {
		out = append(out, def.BaseURLs...)
	}
	return out
}

// BaseURLSet tells whether the configuration names the platform's base
// URLs (ORI's route works only then: its public address is switched off).
func (a *App) BaseURLSet(key string) bool {
	c := a.Platforms[key]
	return c != nil && len(c.BaseURLs) > 0
}

// ContactAddress returns the operator's contact address.
func (a *App) ContactAddress() string {
	if a.Contact != "" {
		return a.Contact
	}
	return platforms.DefaultContact
}

// AllowedPrivate returns the allow_private ranges.
func (a *App) AllowedPrivate() []netip.Prefix { return append([]netip.Prefix(nil), a.allow...) }

// Trusted returns the trusted_sources ranges.
func (a *App) Trusted() []netip.Prefix { return append([]netip.Prefix(nil), a.trusted...) }

// CacheDirectory returns the directory of the caches' durable files, ""
// for memory only.
func (a *App) CacheDirectory() string {
	switch a.CacheDir {
	case "":
		return filepath.Join(caddy.AppDataDir(), "besluitbron", "cache")
	case "off":
		return ""
	}
	return a.CacheDir
}

// OnStart stages a change to shared state: f runs when this config starts
// (Start), after every module of it provisioned and before the config it
// replaces stops. A config that fails to load never runs it. Changes are
// applied in the order staged; f must be idempotent, since a config that
// is put back in force (see Stop) applies its changes again.
func (a *App) OnStart(f func()) {
	a.staged.mu.Lock()
	a.staged.commits = append(a.staged.commits, f)
	a.staged.mu.Unlock()
}

// UsesBaseURLs records base URLs a handler of this config sends the
// platform's requests to (platform_proxy's own base URLs), so that links
// into them pass as well (LinkBaseURLs).
func (a *App) UsesBaseURLs(key string, urls []string) {
	a.staged.mu.Lock()
	defer a.staged.mu.Unlock()
	if a.staged.bases == nil {
		a.staged.bases = map[string][]string{}
	}
	a.staged.bases[key] = append(a.staged.bases[key], urls...)
}

// inForce is the app whose staged changes were applied last.
var inForce struct {
	sync.Mutex
	app *App
}

// Start applies the changes this config's handlers staged.
func (a *App) Start() error {
	// Before the staged changes, which hand the keeper to the modules.
	if err := a.startLoadStatus(); err != nil {
		return err
	}
	if err := a.startReplicas(); err != nil {
		a.stopLoadStatus()
		return err
	}
	inForce.Lock()
	defer inForce.Unlock()
	a.prev = inForce.app
	a.applyAll()
	inForce.app = a
	return nil
}

func (a *App) applyAll() {
	a.staged.mu.Lock()
	commits := append([]func(){}, a.staged.commits...)
	a.staged.mu.Unlock()
	for _, f := range commits {
		f()
	}
}

// Stop is called when the config is unloaded: after a newer config
// started, at shutdown, or when another app of this same config failed to
// start. In that last case the config before this one is still running,
// so its changes are put back in force.
func (a *App) Stop() error {
	a.stopLoadStatus()
	a.stopReplicas()
	inForce.Lock()
	defer inForce.Unlock()
	a.stopped = true
	if inForce.app != a {
		// Replaced: the app in force no longer needs to remember us.
		if cur := inForce.app; cur != nil && cur.prev == a {
			cur.prev = nil
		}
		a.prev = nil
		return nil
	}
	prev := a.prev
	a.prev = nil
	if prev != nil && !prev.stopped {
		prev.applyAll()
		inForce.app = prev
		return nil
	}
	inForce.app = nil
	return nil
}

// Interface guards
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)
