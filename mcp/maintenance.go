package mcp

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters/obv"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
)

// The load status ("Laadstatus") of OpenBesluitvorming is kept fresh by
// one process-wide maintainer, shared by every connector that offers obv
// (reference-counted in a UsagePool, so it survives reloads and stops when
// the last such connector goes). It refreshes /api/status through the same
// platform route as every tool call, as the shared session, whose usage the
// fair queue does not count.

const maintainerKey = "obv-laadstatus"

var maintainers = caddy.NewUsagePool()

// firstRefresh is the delay before the first refresh after start, giving
// the config time to start serving.
const firstRefresh = 3 * time.Second

type statusSnapshot struct {
	status  obv.Status
	fetched time.Time
	cache   string
	waitMS  int64
}

type maintainer struct {
	interval atomic.Int64 // time.Duration
	logger   *zap.Logger
	stop     chan struct{}
	done     chan struct{}
	kick     chan struct{}
	// refreshed receives a value after every refresh attempt (tests).
	refreshed chan error

	mu   sync.Mutex
	srv  *caddyhttp.Server
	host string
	snap *statusSnapshot
}

func acquireMaintainer(interval time.Duration, logger *zap.Logger) (*maintainer, error) {
	v, _, err := maintainers.LoadOrNew(maintainerKey, func() (caddy.Destructor, error) {
		m := &maintainer{logger: logger, stop: make(chan struct{}), done: make(chan struct{}),
			kick: make(chan struct{}, 1), refreshed: make(chan error, 1)}
		m.interval.Store(int64(interval))
		go m.loop()
		return m, nil
	})
	if err != nil {
		return nil, err
	}
	// An existing maintainer serves the running config: its interval
	// changes only when this config starts (the caller stages
	// setInterval), so a config that fails to load changes nothing.
	return v.(*maintainer), nil
}

// setInterval sets the time between refreshes; the loop reads it before
// each wait.
func (m *maintainer) setInterval(d time.Duration) { m.interval.Store(int64(d)) }

func releaseMaintainer() { _, _ = maintainers.Delete(maintainerKey) }

// Destruct stops the refresh loop and waits for it to end.
func (m *maintainer) Destruct() error {
	close(m.stop)
	<-m.done
	return nil
}

// seen records the server and Host of a request a connector served: the
// refresh goes through the same server and site.
func (m *maintainer) seen(srv *caddyhttp.Server, host string) {
	m.mu.Lock()
	m.srv, m.host = srv, host
	m.mu.Unlock()
}

func (m *maintainer) snapshot() *statusSnapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snap
}

func (m *maintainer) loop() {
	defer close(m.done)
	t := time.NewTimer(firstRefresh)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		case <-m.kick:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		go func() {
			select {
			case <-m.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := m.refresh(ctx)
		cancel()
		select {
		case m.refreshed <- err:
		default:
		}
		next := time.Duration(m.interval.Load())
		if err != nil {
			if m.logger != nil {
				m.logger.Debug("refreshing the OpenBesluitvorming load status", zap.Error(err))
			}
			if next > 30*time.Second {
				next = 30 * time.Second
			}
		}
		t.Reset(next)
	}
}

// refresh fetches /api/status once as the shared session.
func (m *maintainer) refresh(ctx context.Context) error {
	m.mu.Lock()
	seenSrv, host := m.srv, m.host
	m.mu.Unlock()
	// The servers that carry OBV's platform route: the others (the offline
	// emulators' own sites, an admin's other sites) would answer 404 to a
	// request that never was theirs.
	servers := subrequest.ServersFor(platforms.OBV)
	var targets []*caddyhttp.Server
	for _, s := range servers {
		if s == seenSrv {
			targets = append(targets, s)
		}
	}
	if len(targets) == 0 {
		targets = servers
	}
	if len(targets) == 0 {
		return fmt.Errorf("no running HTTP server")
	}
	if host == "" {
		host = "localhost"
	}
	var last error
	for _, srv := range targets {
		o := subrequest.Origin{Server: srv, Host: host, RemoteAddr: "127.0.0.1:0", Key: session.Shared}
		a, err := subrequest.Do(ctx, o, platforms.OBV, obv.StatusRequest())
		if err != nil {
			last = err
			continue
		}
		if a.Status != http.StatusOK {
			last = fmt.Errorf("platform route answered HTTP %d", a.Status)
			continue
		}
		st, err := obv.ParseStatus(a.Body)
		if err != nil {
			last = err
			continue
		}
		m.mu.Lock()
		m.snap = &statusSnapshot{status: st, fetched: time.Now(), cache: a.Cache, waitMS: a.QueueWaitMS}
		m.mu.Unlock()
		return nil
	}
	return last
}

// store keeps a status a tool fetched itself (also as the shared session).
func (m *maintainer) store(st obv.Status, a *subrequest.Answer, now time.Time) {
	m.mu.Lock()
	m.snap = &statusSnapshot{status: st, fetched: now, cache: a.Cache, waitMS: a.QueueWaitMS}
	m.mu.Unlock()
}
