package site

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/site/reader"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
)

// maxOffset bounds the reader's offset (as the fetch tools' schema does).
const maxOffset = 1 << 30

// serveRead is the reader view: /lezen?platform=&id=[&type=][&offset=].
func (h *Handler) serveRead(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	pg := h.page(r, "", "search")
	platform, id, kind := q.Get("platform"), q.Get("id"), q.Get("type")
	offset := 0
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxOffset {
			return h.renderError(w, r, http.StatusBadRequest, pg.F("error.bad", fmt.Sprintf("offset must be a number from 0 to %d", maxOffset)))
		}
		offset = n
	}
	if !h.offers(platform) || !h.reader.Readable(platform) {
		return h.renderError(w, r, http.StatusBadRequest, pg.F("error.bad", fmt.Sprintf("the reader reads documents of %v, not %q", h.readablePlatforms(), platform)))
	}
	o, err := origin(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(subrequest.WithOrigin(r.Context(), o), time.Duration(h.Deadline))
	defer cancel()
	view := ui.ReaderView{Page: pg, Platform: platform, PlatformName: h.platformName(platform), ID: id, Type: kind,
		BackURL: pg.Link("/")}
	if ref := r.URL.Query().Get("back"); ref != "" && len(ref) < 2000 && ref[0] == '/' && (len(ref) == 1 || ref[1] != '/') {
		view.BackURL = ref // only a path of this site
	}
	d, err := h.reader.Fetch(ctx, platform, id, kind)
	if err != nil && (errors.Is(err, reader.ErrInvalid) || reader.NotFound(err)) && offset == 0 {
		// Not a document, but perhaps what was voted on (a Tweede Kamer
		// zaak number): its votes alone (kind "": no document).
		if charts, verr := h.reader.Votes(ctx, platform, id, ""); verr == nil && len(charts) > 0 {
			view.Title, view.VotesOnly = charts[0].Title, true
			view.Page.Title = cmp.Or(view.Title, id)
			view.Votes = ui.VoteViews(view.Page, charts)
			return h.render(w, r, http.StatusOK, "reader", view)
		}
	}
	if err != nil {
		status, msg := h.readFailure(platform, err)
		view.Title = pg.T("reader.title")
		view.Page.Title = view.Title
		view.Error = pg.F("reader.error", msg)
		var re *adapters.RouteError
		if errors.As(err, &re) && re.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(re.RetryAfter))
		}
		return h.render(w, r, status, "reader", view)
	}
	view.Title, view.Date, view.Organisation, view.SourceURL = d.Title, d.Date, d.Source, d.URL
	view.Citation, view.URI = d.Citation, d.URI
	if view.SourceURL == "" {
		view.SourceURL = sourceLink(q.Get("src"))
	}
	if u, err := url.Parse(view.SourceURL); err == nil {
		view.SourceHost = u.Host
	}
	if d.Type != "" {
		view.Type = d.Type
	}
	view.Page.Title = d.Title
	if view.Page.Title == "" {
		view.Page.Title = id
	}
	if k, ok := dossierOf(d, id); ok {
		view.Dossier, view.DossierURL = k.String(), h.dossierURL(pg, k.String())
	}
	if offset == 0 {
		h.readVotes(ctx, &view, platform, d, id, kind)
	}
	tp := adapters.PageText(d.Text, offset, h.PageChars)
	view.Text, view.From, view.Total = tp.Text, tp.Offset, tp.TotalChars
	view.To = tp.Offset + len([]rune(tp.Text))
	link := func(off int) string {
		v := url.Values{"platform": {platform}, "id": {id}}
		if kind != "" {
			v.Set("type", kind)
		}
		if src := q.Get("src"); sourceLink(src) != "" {
			v.Set("src", src)
		}
		if off > 0 {
			v.Set("offset", strconv.Itoa(off))
		}
		return pg.LinkQ(pathRead, v)
	}
	if tp.NextOffset > 0 {
		view.NextURL = link(tp.NextOffset)
	}
	if tp.Offset > 0 {
		view.PrevURL = link(max(0, tp.Offset-h.PageChars))
	}
	return h.render(w, r, http.StatusOK, "reader", view)
}

// dossierOf is the dossier a kamerstuk belongs to, for the link to its
// way: by its own identifier (kst-36410-5, Officiële Bekendmakingen'), or
// by the publication it names as its own (a Tweede Kamer document's
// kamerstuk number).
func dossierOf(d adapters.Document, id string) (adapters.Dossier, bool) {
	if k, ok := adapters.DossierOfKamerstuk(cmp.Or(d.ID, id)); ok {
		return k, true
	}
	for _, r := range d.References {
		if r.Relation == adapters.RelPublishedAs {
			if k, ok := adapters.DossierOfKamerstuk(r.ID); ok {
				return k, true
			}
		}
	}
	return adapters.Dossier{}, false
}

// maxSourceLen bounds a source link carried in the reader's address.
const maxSourceLen = 1000

// sourceLink keeps a source link from the reader's address only when it
// is of sane length and adapters.CheckLink passes it (an absolute http(s)
// URL); the page shows its host beside it, so a crafted address cannot
// hide where the link goes.
func sourceLink(s string) string {
	if len(s) > maxSourceLen {
		return ""
	}
	link, _ := adapters.CheckLink(s)
	return link
}

// readFailure maps a reader error to a status and a message.
func (h *Handler) readFailure(platform string, err error) (int, string) {
	var re *adapters.RouteError
	switch {
	case errors.Is(err, reader.ErrInvalid):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, adapters.ErrNoDocument):
		return http.StatusNotFound, fmt.Sprintf("%s does not know this document", h.platformName(platform))
	case errors.As(err, &re) && re.Kind == adapters.KindNotFound:
		return http.StatusNotFound, routeFailure(h.platformName(platform), re)
	case errors.As(err, &re) && (re.Kind == adapters.KindOverBudget || re.Kind == adapters.KindRateLimited):
		return http.StatusServiceUnavailable, routeFailure(h.platformName(platform), re)
	case errors.As(err, &re):
		return http.StatusBadGateway, routeFailure(h.platformName(platform), re)
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "the platform did not answer in time"
	}
	return http.StatusBadGateway, err.Error()
}

// offers tells whether the site searches and reads the platform.
func (h *Handler) offers(platform string) bool {
	_, ok := h.names[platform]
	return ok
}

func (h *Handler) readablePlatforms() []string {
	var out []string
	for _, k := range h.Platforms {
		if h.reader.Readable(k) {
			out = append(out, k)
		}
	}
	return out
}

// routeFailure says a route's refusal in the reader's words.
func routeFailure(name string, re *adapters.RouteError) string {
	switch re.Kind {
	case adapters.KindOverBudget:
		return fmt.Sprintf("%s is over budget; retry in %d s", name, re.RetryAfter)
	case adapters.KindNotFound:
		return fmt.Sprintf("%s does not know this document (HTTP %d)", name, re.Status)
	}
	return fmt.Sprintf("%s answered HTTP %d", name, re.Status)
}

// readVotes adds how the document was voted on to the reader's first
// page, where its platform publishes votes (adapters.Surface.Votes): the
// same cache and budget as the document. A failure is said beside the
// document, which stays.
func (h *Handler) readVotes(ctx context.Context, view *ui.ReaderView, platform string, d adapters.Document, id, kind string) {
	if d.ID != "" {
		id = d.ID
	}
	if d.Type != "" {
		kind = d.Type
	}
	charts, err := h.reader.Votes(ctx, platform, id, kind)
	if err != nil {
		_, msg := h.readFailure(platform, err)
		view.VotesError = view.F("votes.error", msg)
		return
	}
	view.Votes = ui.VoteViews(view.Page, charts)
}
