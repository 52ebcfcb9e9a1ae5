package site

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/site/reader"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/platforms"
)

// The dossier page (issue 37, point 4): a Kamerstuk dossier's way from
// bill to law in force, as a timeline that needs no script, from the
// same builder and the same platform requests (cache, budget) as the MCP
// tool dossier_timeline. /dossier?dossier=36410[&toevoeging=][&law=]
// answers HTML, or JSON when the client prefers it; without a dossier it
// is the form that asks for one.

// maxLawLen bounds the law a dossier page is asked with (a BWB id is 11
// characters; anything longer is refused before any request).
const maxLawLen = 40

// timelineJSON is the dossier page's JSON: dossier_timeline's answer
// without the MCP meta.
type timelineJSON struct {
	Dossier    string                  `json:"dossier"`
	Title      string                  `json:"title,omitempty"`
	Count      int                     `json:"count"`
	Steps      []adapters.TimelineStep `json:"steps"`
	Missing    []adapters.TimelineGap  `json:"missing"`
	Notes      []string                `json:"notes,omitempty"`
	Requests   map[string]int          `json:"requests"`
	Provenance map[string]string       `json:"provenance"`
}

// serveDossier is the dossier page.
func (h *Handler) serveDossier(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	pg := h.page(r, "", "")
	pg.Title = pg.T("timeline.title")
	view := ui.TimelineView{Page: pg, Dossier: strings.TrimSpace(q.Get("dossier")), Toevoeging: strings.TrimSpace(q.Get("toevoeging")),
		Law: strings.TrimSpace(q.Get("law"))}
	wantJSON := httpx.PrefersJSON(r.Header.Get("Accept"))
	fail := func(status int, msg string) error {
		if wantJSON {
			return writeJSON(w, status, map[string]string{"error": msg})
		}
		view.Error = msg
		return h.render(w, r, status, "dossier", view)
	}
	if !h.timeline {
		return fail(http.StatusNotFound, pg.T("timeline.notoffered"))
	}
	if view.Dossier == "" && view.Toevoeging == "" && view.Law == "" {
		if wantJSON {
			return fail(http.StatusBadRequest, "dossier is required: a Kamerstuk dossier number such as 36410 or 36200-VII")
		}
		return h.render(w, r, http.StatusOK, "dossier", view)
	}
	d, err := adapters.ParseDossier(view.Dossier, view.Toevoeging)
	if err == nil && len(view.Law) > maxLawLen {
		err = fmt.Errorf("law must be at most %d characters: a BWB id such as BWBR0045754", maxLawLen)
	}
	if err != nil {
		return fail(http.StatusBadRequest, pg.F("error.bad", err.Error()))
	}
	o, err := origin(r)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	ctx, cancel := context.WithTimeout(subrequest.WithOrigin(r.Context(), o), time.Duration(h.Deadline))
	defer cancel()
	explain := func(key string, err error) string {
		_, msg := h.readFailure(key, err)
		return h.platformName(key) + ": " + msg
	}
	t, err := h.reader.Timeline(ctx, platforms.Keys(), h.Platforms, adapters.TimelineQuery{Dossier: d, Law: view.Law, Explain: explain})
	var none *adapters.NoDossierError
	var failed *adapters.TimelineFailure
	switch {
	case errors.Is(err, reader.ErrInvalid):
		return fail(http.StatusBadRequest, pg.F("error.bad", strings.TrimPrefix(err.Error(), reader.ErrInvalid.Error()+": ")))
	case errors.As(err, &none):
		return fail(http.StatusNotFound, none.Why)
	case errors.As(err, &failed):
		status, msg := h.readFailure(failed.Platform, failed.Err)
		var re *adapters.RouteError
		if errors.As(failed.Err, &re) && re.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(re.RetryAfter))
		}
		return fail(status, pg.F("timeline.error", h.platformName(failed.Platform)+": "+msg))
	case err != nil:
		return fail(http.StatusBadGateway, pg.F("timeline.error", err.Error()))
	}
	if wantJSON {
		return writeJSON(w, http.StatusOK, timelineJSON{Dossier: d.String(), Title: t.Title, Count: len(t.Steps), Steps: t.Steps, Missing: t.Missing,
			Notes: t.Notes, Requests: t.Requests, Provenance: t.Provenance})
	}
	view.Dossier, view.Toevoeging, view.DossierTitle = d.String(), "", t.Title
	view.Page.Title = pg.F("timeline.title.dossier", d.String())
	view.Heading = view.Page.Title
	if t.Title != "" {
		view.Page.Title += ": " + t.Title
	}
	view.Shown = true
	for _, s := range t.Steps {
		view.Steps = append(view.Steps, ui.TimelineStepView{TimelineStep: s, PlatformName: h.platformName(s.Platform),
			ReadURL: h.stepReadURL(pg, s)})
	}
	for _, m := range t.Missing {
		view.Missing = append(view.Missing, ui.TimelineGapView{TimelineGap: m, PlatformName: h.platformName(m.Platform)})
	}
	view.Notes = t.Notes
	for _, k := range t.Asked {
		view.Sources = append(view.Sources, ui.TimelineSourceView{PlatformName: h.platformName(k), Provenance: t.Provenance[k], Requests: t.Requests[k]})
	}
	return h.render(w, r, http.StatusOK, "dossier", view)
}

// stepReadURL is the reader's address of a step that is a document the
// site reads (a kamerstuk, a publication) or a vote (its chart), or ""
// for a step the reader does not hold (an activity, a decision, a law's
// version): its source link stands.
func (h *Handler) stepReadURL(pg ui.Page, s adapters.TimelineStep) string {
	if s.Kind == adapters.StepVote && s.Votes != "" && h.offers(s.Platform) && h.reader.Readable(s.Platform) {
		// The reader shows what was voted on as a chart per party.
		return pg.LinkQ(pathRead, url.Values{"platform": {s.Platform}, "id": {s.Votes}})
	}
	if s.Kind != adapters.StepDocument && s.Kind != adapters.StepPublication {
		// An activity's or a decision's URI is a record of the
		// platform's, not a document the reader fetches; a law's version
		// is not the reader's either: it shows the law as in force
		// today. Their source links stand.
		return ""
	}
	if s.URI == "" || s.ID == "" || !h.offers(s.Platform) || !h.reader.Readable(s.Platform) {
		return ""
	}
	return pg.LinkQ(pathRead, url.Values{"platform": {s.Platform}, "id": {s.ID}})
}

// dossierURL is the dossier page of d, for a document that names its
// dossier; "" where the site offers no timeline.
func (h *Handler) dossierURL(pg ui.Page, d string) string {
	if d == "" || !h.timeline {
		return ""
	}
	return pg.LinkQ(pathDossier, url.Values{"dossier": {d}})
}
