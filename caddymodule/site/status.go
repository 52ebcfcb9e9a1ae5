package site

import (
	"fmt"
	"net/http"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/platforms"
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
	Store      string         `json:"store"`
	Platforms  []ui.StatusRow `json:"platforms"`
	Laadstatus *ui.LaadView   `json:"laadstatus,omitempty"`
	// CaseLaw is BesluitBron's index of Rechtspraak's feed, when this
	// instance keeps one.
	CaseLaw *app.CaseLawStatus `json:"caselaw,omitempty"`
}

// caseLawView is the app's case-law index as the status page shows it;
// nil when the config keeps none.
func (h *Handler) caseLawView() *app.CaseLawStatus {
	if st, ok := h.app.CaseLawStatus(); ok {
		return &st
	}
	return nil
}

// caseLawPage is st as the status page shows it; nil for nil.
func caseLawPage(st *app.CaseLawStatus) *ui.CaseLawView {
	if st == nil {
		return nil
	}
	return &ui.CaseLawView{Error: st.Error, Decisions: st.Decisions, CompleteUpTo: st.CompleteUpTo,
		Running: st.Running, PagesDone: st.PagesDone, PagesLeft: st.PagesLeft}
}

// statusRows reads every figure now, and takes a reading for the window.
func (h *Handler) statusRows(now time.Time) ([]ui.StatusRow, *ui.LaadView) {
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
	var laad *ui.LaadView
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
		if k == platforms.OBV {
			laad = laadView(h.state.figures)
			if laad.Known {
				row.ReachNote = joinNote(row.ReachNote, fmt.Sprintf("Laadstatus: %d/%d", laad.OK, laad.Total))
				row.LaadOK, row.LaadTotal = laad.OK, laad.Total
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
	return rows, laad
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

// laadView summarises the load status the MCP maintenance keeps (the page
// asks the platform nothing for it).
func laadView(figures *app.Figures) *ui.LaadView {
	st, at, ok := figures.Laadstatus()
	if !ok {
		return &ui.LaadView{}
	}
	v := &ui.LaadView{Known: true, Measured: at.UTC().Format("2006-01-02 15:04 UTC")}
	for _, s := range st.Suppliers {
		v.OK += s.OKSourceCount
		v.Total += s.SourceCount
		v.Suppliers = append(v.Suppliers, ui.SupplierRow{Label: s.Label, State: s.State, OK: s.OKSourceCount, Count: s.SourceCount})
	}
	if len(st.Suppliers) == 0 {
		for _, s := range st.Sources {
			v.Total++
			if s.State == "ok" {
				v.OK++
			}
		}
	}
	return v
}

func (h *Handler) serveStatus(w http.ResponseWriter, r *http.Request) error {
	now := h.clock.Now()
	rows, laad := h.statusRows(now)
	pg := h.page(r, "", "status")
	pg.Title = pg.T("status.title")
	v := ui.StatusView{Page: pg, Rows: rows, Laad: laad, CaseLaw: caseLawPage(h.caseLawView()), Store: h.storeMode(), RefreshSeconds: int(time.Duration(h.StatusRefresh).Seconds()),
		Updated: now.UTC().Format("2006-01-02 15:04:05 UTC"), UpdatedISO: now.UTC().Format(time.RFC3339)}
	return h.render(w, r, http.StatusOK, "status", v)
}

func (h *Handler) serveStatusJSON(w http.ResponseWriter, r *http.Request) error {
	now := h.clock.Now()
	rows, laad := h.statusRows(now)
	w.Header().Set("Cache-Control", "no-store")
	if laad != nil && !laad.Known {
		laad = nil
	}
	return writeJSON(w, http.StatusOK, statusJSON{Version: version.Current(), Time: now.UTC(), Store: h.storeMode(), Platforms: rows, Laadstatus: laad, CaseLaw: h.caseLawView()})
}
