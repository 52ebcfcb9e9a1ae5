package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// This file shows the case-law index to operators: the admin route
// GET /besluitbron/caselaw and the gauges caddy_besluitbron_caselaw_*.

func init() {
	caddy.RegisterModule(CaseLawAdmin{})
}

// CaseLawAdmin is the admin API module admin.api.besluitbron_caselaw, on
// Caddy's admin endpoint only. It serves
//
//	GET /besluitbron/caselaw
//
// {"enabled": false} when the running config keeps no index, else the
// index's directory and harvest progress: decisions, running, pages_done,
// pages_left (-1 while unknown), seconds_left, complete_up_to, next_pass,
// last_error, failures_in_row, and error (why the index cannot answer,
// with its directory and cause: the public status page says only the kind).
type CaseLawAdmin struct{}

// CaddyModule returns the Caddy module information.
func (CaseLawAdmin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.besluitbron_caselaw",
		New: func() caddy.Module { return new(CaseLawAdmin) },
	}
}

// CaseLawAdminPath is the route.
const CaseLawAdminPath = "/besluitbron/caselaw"

// Routes returns the admin route.
func (CaseLawAdmin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: CaseLawAdminPath, Handler: caddy.AdminHandlerFunc(serveCaseLawAdmin)}}
}

// caseLawReport is the admin route's answer. Its error is the operator's
// (the directory, the cause, what to do), where the public status page
// has only the kind of failure: the shallower field wins in JSON.
type caseLawReport struct {
	Enabled bool   `json:"enabled"`
	Dir     string `json:"dir,omitempty"`
	Error   string `json:"error,omitempty"`
	*CaseLawStatus
}

// runningCaseLaw is the case-law state of the config in force.
func runningCaseLaw() (CaseLawStatus, bool) {
	inForce.Lock()
	a := inForce.app
	inForce.Unlock()
	if a == nil {
		return CaseLawStatus{}, false
	}
	return a.CaseLawStatus()
}

func serveCaseLawAdmin(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed: use GET", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	st, ok := runningCaseLaw()
	if !ok {
		return json.NewEncoder(w).Encode(caseLawReport{})
	}
	return json.NewEncoder(w).Encode(caseLawReport{Enabled: true, Dir: st.Dir, Error: st.errorDetail, CaseLawStatus: &st})
}

// caseLawCollector reads the running index's progress when scraped.
type caseLawCollector struct{ decisions, pagesLeft, completeUpTo, available *prometheus.Desc }

var caseLawMetrics = &caseLawCollector{
	decisions:    prometheus.NewDesc("caddy_besluitbron_caselaw_decisions", "Decisions in BesluitBron's index of Rechtspraak's feed.", nil, nil),
	pagesLeft:    prometheus.NewDesc("caddy_besluitbron_caselaw_pages_left", "Feed pages the running harvest pass has still to read; -1 while unknown.", nil, nil),
	completeUpTo: prometheus.NewDesc("caddy_besluitbron_caselaw_complete_up_to_seconds", "Unix time up to which the index holds every change of the feed; 0 before the first complete pass.", nil, nil),
	available:    prometheus.NewDesc("caddy_besluitbron_caselaw_available", "1 while the index answers, 0 while it cannot (being opened, corrupt, a failed write).", nil, nil),
}

func (c *caseLawCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.decisions
	ch <- c.pagesLeft
	ch <- c.completeUpTo
	ch <- c.available
}

func (c *caseLawCollector) Collect(ch chan<- prometheus.Metric) {
	st, ok := runningCaseLaw()
	if !ok {
		return
	}
	up, avail := 0.0, 1.0
	if !st.completeUpTo.IsZero() {
		up = float64(st.completeUpTo.Unix())
	}
	if st.Error != "" || st.Opening {
		avail = 0
	}
	ch <- prometheus.MustNewConstMetric(c.decisions, prometheus.GaugeValue, float64(st.Decisions))
	ch <- prometheus.MustNewConstMetric(c.pagesLeft, prometheus.GaugeValue, float64(st.PagesLeft))
	ch <- prometheus.MustNewConstMetric(c.completeUpTo, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(c.available, prometheus.GaugeValue, avail)
}

// registerCaseLawMetrics registers the index's collector in the config's
// registry (each config has its own; the collector reads the config in
// force).
func registerCaseLawMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	registerOnce.Lock()
	defer registerOnce.Unlock()
	if err := reg.Register(caseLawMetrics); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	return nil
}

// Interface guards
var _ caddy.AdminRouter = CaseLawAdmin{}
