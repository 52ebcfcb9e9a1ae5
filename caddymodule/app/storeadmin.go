package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/sharedstore"
)

// This file shows the shared store's mode to operators: the admin route
// GET /besluitbron/store and the gauges caddy_besluitbron_store_degraded,
// caddy_besluitbron_store_degradations_total and
// caddy_besluitbron_store_rejoins_total (no labels).

func init() {
	caddy.RegisterModule(StoreAdmin{})
}

// StoreAdmin is the admin API module admin.api.besluitbron_store, on
// Caddy's admin endpoint only. It serves
//
//	GET /besluitbron/store
//
// {"mode": "local"} for an instance on its own, else the Redis store's
// state: {"mode": "shared"|"degraded", "redis", "instance", "instances",
// "since", "last_error", "degradations", "rejoins"}. The URL's password is
// redacted.
type StoreAdmin struct{}

// CaddyModule returns the Caddy module information.
func (StoreAdmin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.besluitbron_store",
		New: func() caddy.Module { return new(StoreAdmin) },
	}
}

// StoreAdminPath is the route.
const StoreAdminPath = "/besluitbron/store"

// Routes returns the admin route.
func (StoreAdmin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: StoreAdminPath, Handler: caddy.AdminHandlerFunc(serveStoreAdmin)}}
}

func serveStoreAdmin(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed: use GET", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	s := runningStore()
	if s == nil {
		return json.NewEncoder(w).Encode(map[string]string{"mode": "local"})
	}
	return json.NewEncoder(w).Encode(s.Status())
}

// runningStore returns the shared store of the config in force, or nil.
func runningStore() *sharedstore.Store {
	inForce.Lock()
	defer inForce.Unlock()
	if inForce.app == nil {
		return nil
	}
	return inForce.app.shared
}

// storeCollector reads the running store's state when scraped.
type storeCollector struct{ degraded, degradations, rejoins *prometheus.Desc }

var storeMetrics = &storeCollector{
	degraded:     prometheus.NewDesc("caddy_besluitbron_store_degraded", "1 while the shared Redis store does not answer and this instance serves from its local tiers and local budget shares; 0 when it answers; absent for an instance on its own.", nil, nil),
	degradations: prometheus.NewDesc("caddy_besluitbron_store_degradations_total", "Times the shared store went from answering to degraded.", nil, nil),
	rejoins:      prometheus.NewDesc("caddy_besluitbron_store_rejoins_total", "Times the shared store answered again after being degraded.", nil, nil),
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.degraded
	ch <- c.degradations
	ch <- c.rejoins
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	s := runningStore()
	if s == nil {
		return
	}
	st := s.Status()
	d := 0.0
	if st.Mode == "degraded" {
		d = 1
	}
	ch <- prometheus.MustNewConstMetric(c.degraded, prometheus.GaugeValue, d)
	ch <- prometheus.MustNewConstMetric(c.degradations, prometheus.CounterValue, float64(st.Degradations))
	ch <- prometheus.MustNewConstMetric(c.rejoins, prometheus.CounterValue, float64(st.Rejoins))
}

var registerOnce sync.Mutex

// registerStoreMetrics registers the store's collector in the config's
// registry (each config has its own; the collector reads the store in
// force).
func registerStoreMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	registerOnce.Lock()
	defer registerOnce.Unlock()
	if err := reg.Register(storeMetrics); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	return nil
}

// Interface guards
var _ caddy.AdminRouter = StoreAdmin{}
