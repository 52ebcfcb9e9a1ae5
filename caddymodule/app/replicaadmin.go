package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// This file shows the replicas to operators: the admin routes
// GET /besluitbron/replica/<key> (and /besluitbron/caselaw, the older
// form, for the replica named LegacyReplica) and the gauges
// caddy_besluitbron_replica_* by platform (and caddy_besluitbron_caselaw_*).

func init() {
	caddy.RegisterModule(ReplicaAdmin{})
	caddy.RegisterModule(LegacyReplicaAdmin{})
}

// ReplicaAdmin is the admin API module admin.api.besluitbron_replica, on
// Caddy's admin endpoint only. It serves
//
//	GET  /besluitbron/replica/<key>
//	POST /besluitbron/replica/<key>/pause
//	POST /besluitbron/replica/<key>/resume
//	POST /besluitbron/replica/<key>/rebuild
//
// {"enabled": false} when the running config keeps no replica of
// platform key, else the replica's directory and harvest progress: its
// count of records (named after its unit: decisions), running,
// pages_done, pages_left (-1 while unknown), seconds_left,
// complete_up_to, next_pass, last_error, failures_in_row, and error (why
// the index cannot answer, with its directory and cause: the public
// status page says only the kind), and paused. GET /besluitbron/replica/
// answers every platform that keeps a replica, by key. POST .../pause
// holds the harvest before its next page (the index goes on answering;
// the pause outlives a reload that keeps the replica, not a restart),
// .../resume lets it go on, and .../rebuild stops the harvest, removes
// the index and harvests a new, empty one from the start (the platform's
// answers in the meantime: what a search of the replica would have
// answered goes to the platform, its provenance saying so); each answers
// the replica's state.
type ReplicaAdmin struct{}

// CaddyModule returns the Caddy module information.
func (ReplicaAdmin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.besluitbron_replica",
		New: func() caddy.Module { return new(ReplicaAdmin) },
	}
}

// ReplicaAdminPath is the route's prefix.
const ReplicaAdminPath = "/besluitbron/replica/"

// Routes returns the admin route.
func (ReplicaAdmin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: ReplicaAdminPath, Handler: caddy.AdminHandlerFunc(serveReplicaAdmin)}}
}

// LegacyReplicaAdmin is the admin API module
// admin.api.besluitbron_caselaw: GET /besluitbron/caselaw, the replica
// named LegacyReplica as ReplicaAdmin shows it.
type LegacyReplicaAdmin struct{}

// CaddyModule returns the Caddy module information.
func (LegacyReplicaAdmin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.besluitbron_" + LegacyReplica,
		New: func() caddy.Module { return new(LegacyReplicaAdmin) },
	}
}

// LegacyReplicaAdminPath is the older route.
const LegacyReplicaAdminPath = "/besluitbron/" + LegacyReplica

// Routes returns the admin route.
func (LegacyReplicaAdmin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: LegacyReplicaAdminPath, Handler: caddy.AdminHandlerFunc(serveLegacyReplicaAdmin)}}
}

// runningApp is the config in force; nil when none.
func runningApp() *App {
	inForce.Lock()
	defer inForce.Unlock()
	return inForce.app
}

// replicaReport is the admin routes' answer: enabled, dir and error
// (the operator's: the directory, the cause, what to do, where the
// public status page has only the kind of failure), then the status.
func replicaReport(st replica.Status, ok bool) ([]byte, error) {
	if !ok {
		return json.Marshal(struct {
			Enabled bool `json:"enabled"`
		}{})
	}
	head, err := json.Marshal(struct {
		Enabled bool   `json:"enabled"`
		Dir     string `json:"dir,omitempty"`
		Error   string `json:"error,omitempty"`
	}{true, st.Dir, st.ErrorDetail})
	if err != nil {
		return nil, err
	}
	st.Error = "" // the operator's reads in its place
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

func serveReplicaJSON(w http.ResponseWriter, r *http.Request, body func(a *App) ([]byte, error)) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed: use GET", r.Method)}
	}
	b, err := body(runningApp())
	return writeReplicaJSON(w, b, err)
}

// writeReplicaJSON writes an admin answer b (err: a 500).
func writeReplicaJSON(w http.ResponseWriter, b []byte, err error) error {
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusInternalServerError, Err: err}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, err = w.Write(append(b, '\n'))
	return err
}

func serveLegacyReplicaAdmin(w http.ResponseWriter, r *http.Request) error {
	return serveReplicaJSON(w, r, func(a *App) ([]byte, error) {
		if a == nil {
			return replicaReport(replica.Status{}, false)
		}
		return replicaReport(a.ReplicaStatusNamed(LegacyReplica))
	})
}

func serveReplicaAdmin(w http.ResponseWriter, r *http.Request) error {
	key := strings.TrimPrefix(r.URL.Path, ReplicaAdminPath)
	if k, action, ok := strings.Cut(key, "/"); ok {
		return serveReplicaAction(w, r, k, action)
	}
	if key != "" {
		if _, ok := platforms.Get(key); !ok {
			return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no platform %q (known: %v)", key, platforms.Keys())}
		}
	}
	return serveReplicaJSON(w, r, func(a *App) ([]byte, error) {
		if key != "" {
			if a == nil {
				return replicaReport(replica.Status{}, false)
			}
			return replicaReport(a.ReplicaStatus(key))
		}
		all := map[string]json.RawMessage{}
		if a != nil {
			for _, k := range a.ReplicaKeys() {
				b, err := replicaReport(a.ReplicaStatus(k))
				if err != nil {
					return nil, err
				}
				all[k] = b
			}
		}
		return json.Marshal(all)
	})
}

// serveReplicaAction is POST /besluitbron/replica/<key>/pause, /resume
// and /rebuild: the harvest holds before its next page, or goes on (the
// index answers throughout), or the index is built anew. The answer is
// the replica's state, as GET gives it.
func serveReplicaAction(w http.ResponseWriter, r *http.Request, key, action string) error {
	if action != "pause" && action != "resume" && action != "rebuild" {
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no action %q: use POST .../%s/pause, .../%s/resume or .../%s/rebuild", action, key, key, key)}
	}
	if r.Method != http.MethodPost {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed: use POST", r.Method)}
	}
	a := runningApp()
	done := false
	switch {
	case a == nil:
	case action == "rebuild":
		done = a.RebuildReplica(key)
	default:
		done = a.PauseReplica(key, action == "pause")
	}
	if !done {
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("the running config keeps no replica of %q", key)}
	}
	b, err := replicaReport(a.ReplicaStatus(key))
	return writeReplicaJSON(w, b, err)
}

// replicaCollector reads the running replicas' progress when scraped:
// caddy_besluitbron_replica_* by platform, and for the replica named
// LegacyReplica the older caddy_besluitbron_caselaw_* as well.
type replicaCollector struct {
	records, pagesLeft, completeUpTo, available, disk *prometheus.Desc
	// memory and memoryBudget: the decoded postings all replicas share
	// (replica_memory), for the process.
	memory, memoryBudget *prometheus.Desc
	// legacy: the same four without a label, named as before; nil when
	// no registered platform keeps the replica of that name.
	legacy *[4]*prometheus.Desc
}

var (
	replicaMetricsOnce sync.Once
	replicaMetrics     *replicaCollector
)

// theReplicaCollector builds the collector once the platforms have
// registered.
func theReplicaCollector() *replicaCollector {
	replicaMetricsOnce.Do(func() {
		label := []string{"platform"}
		c := &replicaCollector{
			records:      prometheus.NewDesc("caddy_besluitbron_replica_records", "Records in BesluitBron's replica of the platform's feed.", label, nil),
			pagesLeft:    prometheus.NewDesc("caddy_besluitbron_replica_pages_left", "Feed pages the running harvest pass has still to read; -1 while unknown.", label, nil),
			completeUpTo: prometheus.NewDesc("caddy_besluitbron_replica_complete_up_to_seconds", "Unix time up to which the replica holds every change of the feed; 0 before the first complete pass.", label, nil),
			available:    prometheus.NewDesc("caddy_besluitbron_replica_available", "1 while the replica answers, 0 while it cannot (being opened, corrupt, a failed write).", label, nil),
			disk:         prometheus.NewDesc("caddy_besluitbron_replica_disk_bytes", "Bytes the replica's folder holds (its max_disk budget, when set, holds the harvest).", label, nil),
			memory:       prometheus.NewDesc("caddy_besluitbron_replica_memory_bytes", "Bytes of common words' postings the replicas keep decoded, all replicas together.", nil, nil),
			memoryBudget: prometheus.NewDesc("caddy_besluitbron_replica_memory_budget_bytes", "The most the replicas keep decoded (replica_memory); 0: none.", nil, nil),
		}
		for _, p := range platforms.Each[replica.Provider]() {
			spec := p.Replica()
			if spec.Name != LegacyReplica {
				continue
			}
			name := "caddy_besluitbron_" + LegacyReplica + "_"
			c.legacy = &[4]*prometheus.Desc{
				prometheus.NewDesc(name+spec.Units(), fmt.Sprintf("%s in %s.", capitalized(spec.Units()), spec.Source), nil, nil),
				prometheus.NewDesc(name+"pages_left", "Feed pages the running harvest pass has still to read; -1 while unknown.", nil, nil),
				prometheus.NewDesc(name+"complete_up_to_seconds", "Unix time up to which the index holds every change of the feed; 0 before the first complete pass.", nil, nil),
				prometheus.NewDesc(name+"available", "1 while the index answers, 0 while it cannot (being opened, corrupt, a failed write).", nil, nil),
			}
		}
		replicaMetrics = c
	})
	return replicaMetrics
}

func capitalized(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func (c *replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.records
	ch <- c.pagesLeft
	ch <- c.completeUpTo
	ch <- c.available
	ch <- c.disk
	ch <- c.memory
	ch <- c.memoryBudget
	if c.legacy != nil {
		for _, d := range c.legacy {
			ch <- d
		}
	}
}

func (c *replicaCollector) Collect(ch chan<- prometheus.Metric) {
	a := runningApp()
	if a == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.memory, prometheus.GaugeValue, float64(bleveindex.DecodedBytes()))
	ch <- prometheus.MustNewConstMetric(c.memoryBudget, prometheus.GaugeValue, float64(bleveindex.DecodedBudget()))
	for _, r := range a.replicas {
		st, ok := a.ReplicaStatus(r.platform)
		if !ok {
			continue
		}
		up, avail := 0.0, 1.0
		if !st.CompleteUpToTime.IsZero() {
			up = float64(st.CompleteUpToTime.Unix())
		}
		if !st.Available() {
			avail = 0
		}
		values := [4]float64{float64(st.Records), float64(st.PagesLeft), up, avail}
		for i, d := range [4]*prometheus.Desc{c.records, c.pagesLeft, c.completeUpTo, c.available} {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, values[i], r.platform)
		}
		ch <- prometheus.MustNewConstMetric(c.disk, prometheus.GaugeValue, float64(st.DiskBytes), r.platform)
		if c.legacy != nil && r.spec.Name == LegacyReplica {
			for i, d := range c.legacy {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, values[i])
			}
		}
	}
}

// registerReplicaMetrics registers the replicas' collector in the
// config's registry (each config has its own; the collector reads the
// config in force).
func registerReplicaMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	registerOnce.Lock()
	defer registerOnce.Unlock()
	if err := reg.Register(theReplicaCollector()); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.AdminRouter = ReplicaAdmin{}
	_ caddy.AdminRouter = LegacyReplicaAdmin{}
)
