package site

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/fanout"
)

// searcher is the fan-out engine as the page uses it.
type searcher interface {
	Search(ctx context.Context, q fanout.Query, progress func(fanout.Outcome, []fanout.Hit)) fanout.Result
}

// query reads the search form: q, from, to, org, platform (repeated;
// none means every platform of the site) and sort (relevance or date;
// empty for the engine's default).
func (h *Handler) query(r *http.Request) (fanout.Query, bool) {
	v := r.URL.Query()
	q := fanout.Query{
		Words:        strings.TrimSpace(v.Get("q")),
		From:         strings.TrimSpace(v.Get("from")),
		To:           strings.TrimSpace(v.Get("to")),
		Organisation: strings.TrimSpace(v.Get("org")),
		Limit:        h.Limit,
		Sort:         strings.TrimSpace(v.Get(fanout.ParamSort)),
		FullText:     fanout.IsOn(v.Get(fanout.ParamFullText)),
	}
	for _, p := range v["platform"] {
		if p != "" {
			q.Platforms = append(q.Platforms, p)
		}
	}
	// The filters stay open when one is in use (a platform left out).
	filtered := (len(q.Platforms) > 0 && len(q.Platforms) < len(h.Platforms)) || q.From != "" || q.To != "" || q.Organisation != ""
	if len(q.Platforms) == 0 {
		q.Platforms = append([]string(nil), h.Platforms...)
	}
	return q, filtered
}

// checkQuery is the engine's check: the query's own bounds, and only
// platforms the site offers.
func (h *Handler) checkQuery(q fanout.Query) error { return h.engine.Check(q) }

// refusal is the sentence for a question checkQuery refused, in the
// page's language: each of the engine's problems by its code, the
// engine's English text only for what the page has no text for.
func refusal(pg ui.Page, err error) string {
	var problems []ui.QueryProblem
	for _, qe := range fanout.QueryErrors(err) {
		problems = append(problems, ui.QueryProblem{Code: qe.Code, Field: qe.Field, Value: qe.Value, Other: qe.Other, Limit: qe.Limit, Error: qe.Error()})
	}
	return pg.RefusalText(problems, err.Error())
}

// searchView is the page's form, filled from q.
func (h *Handler) searchView(r *http.Request, q fanout.Query, filtered bool) ui.SearchView {
	pg := h.page(r, "", "search")
	v := ui.SearchView{Page: pg, Words: q.Words, From: q.From, To: q.To, Organisation: q.Organisation, FiltersOpen: filtered, Sort: q.Sort}
	chosen := map[string]bool{}
	for _, p := range q.Platforms {
		chosen[p] = true
	}
	for _, k := range h.Platforms {
		v.Platforms = append(v.Platforms, ui.PlatformChoice{Key: k, Name: h.platformName(k), Checked: chosen[k]})
	}
	return v
}

// showOrder says in v which order q's hits take (once q is checked, so
// the order is one the engine knows) and links the same search in the
// other order.
func showOrder(v *ui.SearchView, q fanout.Query) {
	v.Order = q.Order()
	other := fanout.SortRelevance
	if v.Order == fanout.SortRelevance {
		other = fanout.SortDate
	}
	params := url.Values{}
	for k, vs := range v.Query {
		params[k] = append([]string(nil), vs...)
	}
	params.Set(fanout.ParamSort, other)
	v.OtherOrderURL = v.LinkQ(pathSearch, params)
}

func (h *Handler) serveSearchPage(w http.ResponseWriter, r *http.Request, search bool) error {
	q, filtered := h.query(r)
	v := h.searchView(r, q, filtered)
	v.Title = v.Heading()
	if !search || (q.Words == "" && !filtered && r.URL.Path == pathHome) {
		return h.render(w, r, http.StatusOK, "search", v)
	}
	v.Searched = true
	if err := h.checkQuery(q); err != nil {
		v.Error, v.Done = refusal(v.Page, err), true
		v.Title = v.Heading()
		return h.render(w, r, http.StatusBadRequest, "search", v)
	}
	showOrder(&v, q)
	o, err := origin(r)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	ctx := subrequest.WithOrigin(r.Context(), o)
	res := h.search.Search(ctx, q, nil)
	h.recordOutcomes(res.Outcomes)
	h.fill(&v, res.Outcomes, res.Hits, true, res.Partial)
	v.Announce = v.Progress()
	v.Title = v.Heading()
	return h.render(w, r, http.StatusOK, "search", v)
}

func (h *Handler) serveSearchJSON(w http.ResponseWriter, r *http.Request) error {
	o, err := origin(r)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	r = r.WithContext(subrequest.WithOrigin(r.Context(), o))
	return h.serveJSON(w, r)
}

// fill puts outcomes and hits into the view. In the live view, platforms
// not yet answered are "waiting".
func (h *Handler) fill(v *ui.SearchView, outcomes []fanout.Outcome, hits []fanout.Hit, done, partial bool) {
	v.Done, v.Partial = done, partial
	v.Outcomes = v.Outcomes[:0]
	for _, o := range outcomes {
		v.Outcomes = append(v.Outcomes, ui.Outcome{Platform: o.Platform, Name: nameOr(o.PlatformName, h.platformName(o.Platform)),
			State: o.State, RetryAfterSeconds: o.RetryAfterSeconds, Reason: o.Reason, Error: o.Error, Hits: o.Hits})
	}
	v.Hits = v.Hits[:0]
	for _, hit := range hits {
		uh := ui.Hit{Platform: hit.Platform, PlatformName: nameOr(hit.PlatformName, h.platformName(hit.Platform)), Type: hit.Type, ID: hit.ID,
			Title: hit.Title, Date: hit.Date, Organisation: hit.Organisation, Snippet: hit.Snippet, URL: hit.URL,
			Citation: hit.Citation, URI: hit.URI}
		uh.ReadURL = h.readURL(v.Page, hit.Platform, hit.ID, hit.Type, hit.URL)
		if d, ok := adapters.DossierOfKamerstuk(hit.Kamerstuk); ok {
			uh.Dossier, uh.DossierURL = d.String(), h.dossierURL(v.Page, d.String())
		}
		for _, l := range hit.Also {
			uh.Also = append(uh.Also, ui.Link{Platform: l.Platform, PlatformName: nameOr(l.PlatformName, h.platformName(l.Platform)), URL: l.URL,
				ReadURL: h.readURL(v.Page, l.Platform, l.ID, "", l.URL)})
		}
		v.Hits = append(v.Hits, uh)
	}
}

func nameOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readURL is the reader view of a hit, or its source when the reader
// cannot read the platform.
func (h *Handler) readURL(pg ui.Page, platform, id, kind, source string) string {
	if !h.reader.Readable(platform) || !h.offers(platform) || id == "" {
		return source
	}
	v := url.Values{"platform": {platform}, "id": {id}}
	if kind != "" {
		v.Set("type", kind)
	}
	if source != "" && len(source) <= maxSourceLen {
		// The reader links to the source the hit named when the
		// document itself names none (a meeting, a motion).
		v.Set("src", source)
	}
	return pg.LinkQ(pathRead, v)
}

// recordOutcomes keeps what the search saw of each platform for the
// status page: an answer (or a refusal by BesluitBron's own budget) says
// the platform is reachable, a failure or a timeout that it may not be.
func (h *Handler) recordOutcomes(outs []fanout.Outcome) {
	now := h.clock.Now()
	for _, o := range outs {
		switch o.State {
		case "answered", "over_budget":
			h.state.record(o.Platform, true, "", "", now)
		case "failed", "timeout":
			h.state.record(o.Platform, false, o.Error, o.Reason, now)
		}
	}
}

// liveLine is one line of /search/events.
type liveLine struct {
	HTML     string `json:"html"`
	Announce string `json:"announce,omitempty"`
	Heading  string `json:"heading"`
	Title    string `json:"title"`
	Done     bool   `json:"done"`
}

// serveEvents streams the answer as it arrives: a line when the search
// starts (every platform waiting), one per platform as it answers (the
// hits so far, merged and ordered as the engine does), and the engine's
// merged answer last.
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) error {
	q, filtered := h.query(r)
	v := h.searchView(r, q, filtered)
	v.Searched = true
	if err := h.checkQuery(q); err != nil {
		// The page's own stream: the refusal in the page's language, and
		// the results region that shows it, as without the script.
		v.Error, v.Done = refusal(v.Page, err), true
		html, rerr := ui.RenderString("results", v)
		if rerr != nil {
			return rerr
		}
		body := map[string]string{"error": v.Error, "html": html}
		if qe := fanout.QueryErrors(err); len(qe) > 0 {
			body["code"] = qe[0].Code
		}
		return writeJSON(w, http.StatusBadRequest, body)
	}
	showOrder(&v, q)
	o, err := origin(r)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(done bool) error {
		v.Announce = v.Progress()
		v.Title = v.Heading()
		html, err := ui.RenderString("results", v)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(liveLine{HTML: html, Announce: v.Announce, Heading: v.Heading(), Title: v.Title + " · BesluitBron", Done: done})
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
		return rc.Flush()
	}

	var outcomes []fanout.Outcome
	for _, p := range q.Platforms {
		outcomes = append(outcomes, fanout.Outcome{Platform: p, PlatformName: h.platformName(p), State: "waiting"})
	}
	var hits []fanout.Hit
	perPlatform := make([][]fanout.Hit, len(q.Platforms))
	h.fill(&v, outcomes, hits, false, false)
	if err := send(false); err != nil {
		return nil // the client went away
	}

	type update struct {
		o    fanout.Outcome
		hits []fanout.Hit
	}
	updates := make(chan update, len(q.Platforms)+1)
	result := make(chan fanout.Result, 1)
	ctx := subrequest.WithOrigin(r.Context(), o)
	var mu sync.Mutex
	closed := false
	go func() {
		res := h.search.Search(ctx, q, func(o fanout.Outcome, hs []fanout.Hit) {
			mu.Lock()
			defer mu.Unlock()
			if !closed {
				select {
				case updates <- update{o, hs}:
				default: // never blocks the engine
				}
			}
		})
		mu.Lock()
		closed = true
		mu.Unlock()
		result <- res
	}()
	for {
		select {
		case u := <-updates:
			for i := range outcomes {
				if outcomes[i].Platform == u.o.Platform {
					outcomes[i], perPlatform[i] = u.o, u.hits
				}
			}
			hits = fanout.Merge(q.Platforms, perPlatform, v.Order)
			h.fill(&v, outcomes, hits, false, false)
			if err := send(false); err != nil {
				<-result
				return nil
			}
		case res := <-result:
			h.recordOutcomes(res.Outcomes)
			h.fill(&v, res.Outcomes, res.Hits, true, res.Partial)
			_ = send(true)
			return nil
		}
	}
}
