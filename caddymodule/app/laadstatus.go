package app

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
)

// OpenBesluitvorming's load status ("Laadstatus") is kept fresh by one
// LaadstatusKeeper per process. The app holds it from Start to Stop of
// every config one of whose modules wants it (WantLaadstatus), counted
// in the pool, so it and its last status survive a reload and stop with
// the last such config. It refreshes /api/status through the same
// platform route as every tool call, as the shared session, whose usage
// the fair queue does not count.

// laadstatusKey is the pool's key of the keeper.
const laadstatusKey = "obv-laadstatus"

// firstRefresh is the delay before the first refresh after start, giving
// the config time to start serving.
const firstRefresh = 3 * time.Second

// failedRefreshRetry bounds the wait after a failed refresh.
const failedRefreshRetry = 30 * time.Second

// Laadstatus is OpenBesluitvorming's load status as BesluitBron fetched
// it: when, from the cache or not, and how long it waited in the queue.
type Laadstatus struct {
	Status      obv.Status
	Fetched     time.Time
	Cache       string // the cache's answer (hit, miss, ...)
	QueueWaitMS int64
}

// LaadstatusKeeper refreshes OpenBesluitvorming's load status in the
// background and keeps the last one.
type LaadstatusKeeper struct {
	interval atomic.Int64 // time.Duration
	logger   *zap.Logger
	fetch    func(ctx context.Context) (Laadstatus, error)
	stop     chan struct{}
	done     chan struct{}
	kick     chan struct{}
	// refreshed receives a value after every refresh attempt (tests).
	refreshed chan error

	route *routeCaller // the process's, from Figures
	clock clock.Clock  // when to refresh, and a status's time

	mu   sync.Mutex
	last *Laadstatus
}

// newLaadstatusKeeper starts a keeper that refreshes every interval on
// clk with fetch (nil: through the servers' OBV route).
func newLaadstatusKeeper(interval time.Duration, logger *zap.Logger, route *routeCaller, fetch func(context.Context) (Laadstatus, error), clk clock.Clock) *LaadstatusKeeper {
	k := &LaadstatusKeeper{logger: logger, route: route, clock: clock.Or(clk), stop: make(chan struct{}), done: make(chan struct{}),
		kick: make(chan struct{}, 1), refreshed: make(chan error, 1)}
	k.fetch = fetch
	if k.fetch == nil {
		k.fetch = k.fetchThroughRoute
	}
	k.interval.Store(int64(interval))
	go k.loop()
	return k
}

// WantLaadstatus tells the app that a module of this config shows
// OpenBesluitvorming's load status, refreshed every interval at least;
// the keeper refreshes at the shortest interval wanted.
func (a *App) WantLaadstatus(interval time.Duration) {
	if interval <= 0 {
		return
	}
	a.staged.mu.Lock()
	if a.staged.laadEvery == 0 || interval < a.staged.laadEvery {
		a.staged.laadEvery = interval
	}
	a.staged.mu.Unlock()
}

// Laadstatus is the keeper this config holds: nil before it started and
// when none of its modules wants the load status.
func (a *App) Laadstatus() *LaadstatusKeeper {
	a.staged.mu.Lock()
	defer a.staged.mu.Unlock()
	return a.staged.laad
}

// startLaadstatus takes the keeper from the pool when a module wants it,
// and sets this config's interval.
func (a *App) startLaadstatus() error {
	a.staged.mu.Lock()
	every := a.staged.laadEvery
	a.staged.mu.Unlock()
	if every == 0 {
		return nil
	}
	v, _, err := pool.LoadOrNew(laadstatusKey, func() (caddy.Destructor, error) {
		return newLaadstatusKeeper(every, a.logger, &a.figures.route, a.laadFetch, a.clock), nil
	})
	if err != nil {
		return fmt.Errorf("besluitbron: the load status keeper: %w", err)
	}
	k := v.(*LaadstatusKeeper)
	k.interval.Store(int64(every))
	a.staged.mu.Lock()
	a.staged.laad = k
	a.staged.mu.Unlock()
	publish(a, func(f *Figures) *publications[func() (obv.Status, time.Time, bool)] { return &f.laadstatus }, "", k.status)
	return nil
}

// stopLaadstatus releases this config's hold on the keeper.
func (a *App) stopLaadstatus() {
	a.staged.mu.Lock()
	held := a.staged.laad != nil
	a.staged.laad = nil
	a.staged.mu.Unlock()
	if held {
		_, _ = pool.Delete(laadstatusKey)
	}
}

// Destruct stops the refresh loop and waits for it to end.
func (k *LaadstatusKeeper) Destruct() error {
	close(k.stop)
	<-k.done
	return nil
}

// Interval is the time between refreshes.
func (k *LaadstatusKeeper) Interval() time.Duration { return time.Duration(k.interval.Load()) }

// Seen records the server and Host of a request a module served:
// BesluitBron's own requests (this refresh, the case-law harvest) go
// through the same server and site.
func (k *LaadstatusKeeper) Seen(srv *caddyhttp.Server, host string) { k.route.seen(srv, host) }

// Last is the last load status, false before the first.
func (k *LaadstatusKeeper) Last() (Laadstatus, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.last == nil {
		return Laadstatus{}, false
	}
	return *k.last, true
}

// Store keeps a load status a module fetched itself (as the shared
// session too), so the next reader need not ask again.
func (k *LaadstatusKeeper) Store(l Laadstatus) {
	k.mu.Lock()
	k.last = &l
	k.mu.Unlock()
}

// status is Last as the status page reads it.
func (k *LaadstatusKeeper) status() (obv.Status, time.Time, bool) {
	l, ok := k.Last()
	return l.Status, l.Fetched, ok
}

// Refresh fetches the load status now and keeps it.
func (k *LaadstatusKeeper) Refresh(ctx context.Context) error {
	l, err := k.fetch(ctx)
	if err == nil {
		k.Store(l)
	}
	return err
}

func (k *LaadstatusKeeper) loop() {
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
				k.logger.Debug("refreshing the OpenBesluitvorming load status", zap.Error(err))
			}
			next = min(next, failedRefreshRetry)
		}
		t = arm(next)
	}
}

// fetchThroughRoute fetches /api/status once as the shared session,
// through the OBV route (routeCaller).
func (k *LaadstatusKeeper) fetchThroughRoute(ctx context.Context) (Laadstatus, error) {
	a, err := k.route.do(ctx, platforms.OBV, obv.StatusRequest())
	if err != nil {
		return Laadstatus{}, err
	}
	st, err := obv.ParseStatus(a.Body)
	if err != nil {
		return Laadstatus{}, err
	}
	return Laadstatus{Status: st, Fetched: k.clock.Now(), Cache: a.Cache, QueueWaitMS: a.QueueWaitMS}, nil
}
