package site

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/replica"
)

func allKeys() []string { return platforms.Keys() }

// statusJSON is /status.json: totals only, no client address and no
// session (those stay on the admin endpoint).
type statusJSON struct {
	Version string    `json:"version"`
	Time    time.Time `json:"time"`
	// Store is "shared" (cache and budgets shared with other instances
	// through Redis), "degraded" (Redis unreachable: this instance serves
	// alone from its local tiers with conservative local budget shares)
	// or "local" (no shared store configured). Never the Redis URL or an
	// instance id.
	Store     string         `json:"store"`
	Platforms []ui.StatusRow `json:"platforms"`
	// LoadStatus is the load status of each platform that publishes
	// one (OpenBesluitvorming's Laadstatus), once fetched.
	LoadStatus []*ui.LoadView `json:"load_status,omitempty"`
	// CaseLaw is the replica named app.LegacyReplica (BesluitBron's index
	// of the rulings), when this instance keeps one: the member the page
	// has always had.
	CaseLaw *replica.Status `json:"caselaw,omitempty"`
	// Replicas are every replica this instance keeps, the case law's
	// included: the platform, the replica's name and its state.
	Replicas []replicaJSON `json:"replicas,omitempty"`
}

// replicaJSON is one replica in /status.json.
type replicaJSON struct {
	Platform string         `json:"platform"`
	Name     string         `json:"name"`
	Source   string         `json:"source"`
	Status   replica.Status `json:"status"`
}

// replicasView is every replica the app keeps, for /status.json, and for
// the page those other than the case-law index (which has its block).
func (h *Handler) replicasView() ([]replicaJSON, []ui.ReplicaView) {
	var all []replicaJSON
	var page []ui.ReplicaView
	for _, r := range h.app.ReplicaStates() {
		all = append(all, replicaJSON{Platform: r.Platform, Name: r.Name, Source: r.Source, Status: r.Status})
		if r.Name == app.LegacyReplica {
			continue
		}
		st := r.Status
		v := ui.ReplicaView{PlatformName: h.platformName(r.Platform), Source: r.Source, Unit: st.Unit, CaseLawView: *caseLawPage(&st)}
		if st.FailuresInRow > 0 {
			v.Failing = st.LastError
		}
		for _, s := range st.Sources {
			v.Sources = append(v.Sources, ui.ReplicaSourceRow{Source: s.Source, Records: s.Records, LastChange: s.LastChange,
				CaughtUpAt: s.CaughtUpAt, Lag: (time.Duration(s.LagSeconds) * time.Second).Round(time.Minute).String()})
		}
		page = append(page, v)
	}
	return all, page
}

// caseLawView is the app's replica named app.LegacyReplica as the status
// page shows it; nil when the config keeps none.
func (h *Handler) caseLawView() *replica.Status {
	if st, ok := h.app.ReplicaStatusNamed(app.LegacyReplica); ok {
		return &st
	}
	return nil
}

// caseLawPage is st as the status page shows it; nil for nil.
func caseLawPage(st *replica.Status) *ui.CaseLawView {
	if st == nil {
		return nil
	}
	return &ui.CaseLawView{Error: st.Error, Decisions: st.Records, CompleteUpTo: st.CompleteUpTo,
		Running: st.Running, PagesDone: st.PagesDone, PagesLeft: st.PagesLeft}
}

// statusRows reads every figure now, and takes a reading for the window.
func (h *Handler) statusRows(now time.Time) ([]ui.StatusRow, []*ui.LoadView) {
	cur := h.state.readings(now)
	stores := map[string]bool{}
	entries := map[string]int64{}
	for _, st := range h.state.figures.Caches() {
		stores[st.Platform] = true
		entries[st.Platform] = st.MemoryEntries
		if st.DiskEntries > st.MemoryEntries {
			// The durable tier holds everything the memory tier does.
			entries[st.Platform] = st.DiskEntries
		}
	}
	var loads []*ui.LoadView
	rows := make([]ui.StatusRow, 0, len(h.Platforms))
	for _, k := range h.Platforms {
		row := ui.StatusRow{Key: k, Name: h.platformName(k), Reachable: "unknown", P50MS: -1, P95MS: -1, HitRatio: -1}
		if b, ok := h.state.figures.Budget(k); ok {
			row.HasBudget, row.Available, row.Capacity, row.Waiting = true, b.Available, b.Capacity, b.Waiting
			row.Paused = !b.PausedUntil.IsZero()
			d := h.state.window.Since("wait:"+k, cur["wait:"+k])
			if q := d.Quantile(0.5); q >= 0 {
				row.P50MS, row.P95MS = q*1000, d.Quantile(0.95)*1000
			}
		}
		if stores[k] {
			row.HasCache, row.Entries = true, entries[k]
			d := h.state.window.Since("cache:"+k, cur["cache:"+k])
			row.HitRatio, row.Lookups = d.HitRatio(), d.Lookups
		}
		up := h.state.window.Since("up:"+k, cur["up:"+k])
		switch last, ok := h.state.lastSeen(k, now); {
		case ok && last.ok:
			row.Reachable = "yes"
		case ok:
			row.Reachable, row.ReachNote = "no", last.why
			row.ReachReason, row.ReachWhy = last.reason, last.why
		case up.Lookups > 0 && up.Hits > 0:
			row.Reachable = "yes"
		case up.Lookups > 0:
			row.Reachable, row.ReachNote = "no", fmt.Sprintf("%d upstream errors in the last hour", up.Lookups)
			row.ReachReason, row.UpstreamErrors = ui.ReasonUpstreamErrors, up.Lookups
		}
		if load := h.loadView(k); load != nil {
			loads = append(loads, load)
			if load.Known {
				row.ReachNote = joinNote(row.ReachNote, fmt.Sprintf("%s: %d/%d", load.Name, load.OK, load.Total))
				row.LoadName, row.LoadOK, row.LoadTotal = load.Name, load.OK, load.Total
				if row.Reachable == "unknown" {
					// A fresh load status is an answer of the platform.
					row.Reachable = "yes"
				}
			}
		}
		rows = append(rows, row)
	}
	for key, r := range cur {
		h.state.window.Add(key, r)
	}
	return rows, loads
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Store modes, as /status.json and the status page say them.
const (
	storeLocal    = "local"
	storeShared   = "shared"
	storeDegraded = "degraded"
)

// storeMode says whether this instance shares its cache and budgets with
// others: only the mode, read from the besluitbron app's shared store.
func (h *Handler) storeMode() string {
	if h.app == nil {
		return storeLocal
	}
	s := h.app.Shared()
	if s == nil {
		return storeLocal
	}
	if s.Status().Mode == storeDegraded {
		return storeDegraded
	}
	return storeShared
}

// loadView summarises platform k's load status as the upkeep keeps it
// (the page asks the platform nothing for it); nil for a platform that
// publishes none (adapters.LoadReporter).
func (h *Handler) loadView(k string) *ui.LoadView {
	p, _ := platforms.ProviderOf(k)
	reporter, ok := p.(adapters.LoadReporter)
	if !ok {
		return nil
	}
	v := &ui.LoadView{Platform: k, PlatformName: h.platformName(k), Name: reporter.LoadStatusName()}
	l, ok := h.state.figures.LoadStatus(k)
	if !ok {
		return v
	}
	v.Known, v.OK, v.Total = true, l.Summary.OK, l.Summary.Total
	v.Measured = l.Fetched.UTC().Format("2006-01-02 15:04 UTC")
	for _, g := range l.Summary.Groups {
		v.Groups = append(v.Groups, ui.GroupRow{Label: g.Label, State: g.State, OK: g.OK, Count: g.Count})
	}
	return v
}

func (h *Handler) serveStatus(w http.ResponseWriter, r *http.Request) error {
	now := h.clock.Now()
	rows, loads := h.statusRows(now)
	pg := h.page(r, "", "status")
	pg.Title = pg.T("status.title")
	_, replicas := h.replicasView()
	v := ui.StatusView{Page: pg, Rows: rows, Loads: loads, CaseLaw: caseLawPage(h.caseLawView()), Replicas: replicas, Store: h.storeMode(), RefreshSeconds: int(time.Duration(h.StatusRefresh).Seconds()),
		Updated: now.UTC().Format("2006-01-02 15:04:05 UTC"), UpdatedISO: now.UTC().Format(time.RFC3339)}
	return h.render(w, r, http.StatusOK, "status", v)
}

func (h *Handler) serveStatusJSON(w http.ResponseWriter, r *http.Request) error {
	now := h.clock.Now()
	rows, loads := h.statusRows(now)
	w.Header().Set("Cache-Control", "no-store")
	known := slices.DeleteFunc(loads, func(l *ui.LoadView) bool { return !l.Known })
	all, _ := h.replicasView()
	return writeJSON(w, http.StatusOK, statusJSON{Version: version.Current(), Time: now.UTC(), Store: h.storeMode(), Platforms: rows, LoadStatus: known, CaseLaw: h.caseLawView(), Replicas: all})
}
