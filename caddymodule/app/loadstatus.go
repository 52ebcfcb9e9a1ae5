package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
)

// A platform's load status (adapters.LoadReporter: OpenBesluitvorming's
// Laadstatus) is kept fresh by one LoadStatusKeeper per platform and
// process. The app holds it from Start to Stop of every config one of
// whose modules wants it (WantLoadStatus), counted in the pool, so it and
// its last status survive a reload and stop with the last such config.
// It refreshes the status through the same platform route as every tool
// call, as the shared session, whose usage the fair queue does not count.

// loadStatusKey is the pool's key of platform's keeper.
func loadStatusKey(platform string) string { return "loadstatus:" + platform }

// firstRefresh is the delay before the first refresh after start, giving
// the config time to start serving.
const firstRefresh = 3 * time.Second

// failedRefreshRetry bounds the wait after a failed refresh.
const failedRefreshRetry = 30 * time.Second

// LoadStatusKeeper refreshes a platform's load status in the background
// and keeps the last one.
type LoadStatusKeeper struct {
	platform string
	interval atomic.Int64 // time.Duration
	logger   *zap.Logger
	fetch    func(ctx context.Context) (adapters.KeptLoadStatus, error)
	stop     chan struct{}
	done     chan struct{}
	kick     chan struct{}
	// refreshed receives a value after every refresh attempt (tests).
	refreshed chan error

	route *routeCaller // the process's, from Figures
	clock clock.Clock  // when to refresh, and a status's time

	mu   sync.Mutex
	last *adapters.KeptLoadStatus
}

// newLoadStatusKeeper starts a keeper of platform's load status that
// refreshes every interval on clk with fetch (nil: through the servers'
// route of the platform).
func newLoadStatusKeeper(platform string, interval time.Duration, logger *zap.Logger, route *routeCaller, fetch func(context.Context, string) (adapters.KeptLoadStatus, error), clk clock.Clock) *LoadStatusKeeper {
	k := &LoadStatusKeeper{platform: platform, logger: logger, route: route, clock: clock.Or(clk), stop: make(chan struct{}), done: make(chan struct{}),
		kick: make(chan struct{}, 1), refreshed: make(chan error, 1)}
	k.fetch = k.fetchThroughRoute
	if fetch != nil {
		k.fetch = func(ctx context.Context) (adapters.KeptLoadStatus, error) { return fetch(ctx, platform) }
	}
	k.interval.Store(int64(interval))
	go k.loop()
	return k
}

// WantLoadStatus tells the app that a module of this config shows
// platform's load status, refreshed every interval at least; the keeper
// refreshes at the shortest interval wanted. A platform that publishes
// none (no adapters.LoadReporter) is not kept.
func (a *App) WantLoadStatus(platform string, interval time.Duration) {
	if interval <= 0 {
		return
	}
	if p, _ := platforms.ProviderOf(platform); p == nil {
		return
	} else if _, ok := p.(adapters.LoadReporter); !ok {
		return
	}
	a.staged.mu.Lock()
	if a.staged.loadEvery == nil {
		a.staged.loadEvery = map[string]time.Duration{}
	}
	if every := a.staged.loadEvery[platform]; every == 0 || interval < every {
		a.staged.loadEvery[platform] = interval
	}
	a.staged.mu.Unlock()
}

// LoadStatusKeepers are the keepers this config holds, by platform: none
// before it started, nor for a platform none of its modules wants.
func (a *App) LoadStatusKeepers() map[string]*LoadStatusKeeper {
	a.staged.mu.Lock()
	defer a.staged.mu.Unlock()
	return maps.Clone(a.staged.load)
}

// startLoadStatus takes from the pool the keeper of each platform a
// module wants, and sets this config's interval.
func (a *App) startLoadStatus() error {
	a.staged.mu.Lock()
	wanted := maps.Clone(a.staged.loadEvery)
	a.staged.mu.Unlock()
	for _, platform := range slices.Sorted(maps.Keys(wanted)) {
		every := wanted[platform]
		v, _, err := pool.LoadOrNew(loadStatusKey(platform), func() (caddy.Destructor, error) {
			return newLoadStatusKeeper(platform, every, a.logger, &a.figures.route, a.loadFetch, a.clock), nil
		})
		if err != nil {
			a.stopLoadStatus()
			return fmt.Errorf("besluitbron: the load status keeper of %s: %w", platform, err)
		}
		k := v.(*LoadStatusKeeper)
		k.interval.Store(int64(every))
		a.staged.mu.Lock()
		if a.staged.load == nil {
			a.staged.load = map[string]*LoadStatusKeeper{}
		}
		a.staged.load[platform] = k
		a.staged.mu.Unlock()
		publish(a, func(f *Figures) *publications[func() (adapters.KeptLoadStatus, bool)] { return &f.loadStatus }, platform, k.Last)
	}
	return nil
}

// stopLoadStatus releases this config's hold on its keepers.
func (a *App) stopLoadStatus() {
	a.staged.mu.Lock()
	held := a.staged.load
	a.staged.load = nil
	a.staged.mu.Unlock()
	for platform := range held {
		_, _ = pool.Delete(loadStatusKey(platform))
	}
}

// Destruct stops the refresh loop and waits for it to end.
func (k *LoadStatusKeeper) Destruct() error {
	close(k.stop)
	<-k.done
	return nil
}

// Interval is the time between refreshes.
func (k *LoadStatusKeeper) Interval() time.Duration { return time.Duration(k.interval.Load()) }

// Seen records the server and Host of a request a module served:
// BesluitBron's own requests (this refresh, the case-law harvest) go
// through the same server and site.
func (k *LoadStatusKeeper) Seen(srv *caddyhttp.Server, host string) { k.route.seen(srv, host) }

// Last is the last load status, false before the first.
func (k *LoadStatusKeeper) Last() (adapters.KeptLoadStatus, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.last == nil {
		return adapters.KeptLoadStatus{}, false
	}
	return *k.last, true
}

// Store keeps a load status a module fetched itself (as the shared
// session too), so the next reader need not ask again.
func (k *LoadStatusKeeper) Store(l adapters.KeptLoadStatus) {
	k.mu.Lock()
	k.last = &l
	k.mu.Unlock()
}

// Refresh fetches the load status now and keeps it.
func (k *LoadStatusKeeper) Refresh(ctx context.Context) error {
	l, err := k.fetch(ctx)
	if err == nil {
		k.Store(l)
	}
	return err
}

func (k *LoadStatusKeeper) loop() {
	defer close(k.done)
	due := make(chan struct{}, 1)
	arm := func(d time.Duration) clock.Timer {
		return k.clock.AfterFunc(d, func() {
			select {
			case due <- struct{}{}:
			default:
			}
		})
	}
	t := arm(firstRefresh)
	for {
		select {
		case <-k.stop:
			t.Stop()
			return
		case <-due:
		case <-k.kick:
			t.Stop()
			select {
			case <-due: // it fell due meanwhile: this refresh is that one
			default:
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		go func() {
			select {
			case <-k.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := k.Refresh(ctx)
		cancel()
		select {
		case k.refreshed <- err:
		default:
		}
		next := k.Interval()
		if err != nil {
			if k.logger != nil {
				k.logger.Debug("refreshing a platform's load status", zap.String("platform", k.platform), zap.Error(err))
			}
			next = min(next, failedRefreshRetry)
		}
		t = arm(next)
	}
}

// fetchThroughRoute fetches the load status once as the shared session,
// through the platform's route (routeCaller).
func (k *LoadStatusKeeper) fetchThroughRoute(ctx context.Context) (adapters.KeptLoadStatus, error) {
	p, _ := platforms.ProviderOf(k.platform)
	reporter, ok := p.(adapters.LoadReporter)
	if !ok {
		return adapters.KeptLoadStatus{}, fmt.Errorf("platform %s publishes no load status", k.platform)
	}
	a, err := k.route.do(ctx, k.platform, reporter.LoadStatusRequest())
	if err != nil {
		return adapters.KeptLoadStatus{}, err
	}
	st, err := reporter.ParseLoadStatus(a.Body)
	if err != nil {
		return adapters.KeptLoadStatus{}, err
	}
	return adapters.KeptLoadStatus{LoadStatus: st, Fetched: k.clock.Now(), Cache: a.Cache, QueueWaitMS: a.QueueWaitMS}, nil
}
