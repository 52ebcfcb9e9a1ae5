package site

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/site/reader"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/subcall"
)

// The site's paths.
const (
	pathHome       = "/"
	pathSearch     = "/search"
	pathEvents     = "/search/events"
	pathRead       = "/lezen"
	pathDossier    = "/dossier"
	pathStatus     = "/status"
	pathStatusJSON = "/status.json"
	assetPrefix    = "/assets/"
)

// contentSecurityPolicy lets the pages load only their own files: no
// external asset can be added by accident, and injected markup could run
// no script.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// ServeHTTP serves the site's paths and passes every other one on.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	p := r.URL.Path
	known := p == pathHome || p == pathSearch || p == pathEvents || p == pathRead || p == pathDossier || p == pathStatus || p == pathStatusJSON || strings.HasPrefix(p, assetPrefix)
	if !known {
		return next.ServeHTTP(w, r)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return caddyhttp.Error(http.StatusMethodNotAllowed, errors.New("use GET"))
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	switch {
	case strings.HasPrefix(p, assetPrefix):
		return h.serveAsset(w, r)
	case p == pathStatusJSON:
		return h.serveStatusJSON(w, r)
	}
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Cache-Control", "no-store")
	switch p {
	case pathHome:
		return h.serveSearchPage(w, r, false)
	case pathSearch:
		if httpx.PrefersJSON(r.Header.Get("Accept")) {
			return h.serveSearchJSON(w, r)
		}
		return h.serveSearchPage(w, r, true)
	case pathEvents:
		return h.serveEvents(w, r)
	case pathRead:
		return h.serveRead(w, r)
	case pathDossier:
		return h.serveDossier(w, r)
	default:
		return h.serveStatus(w, r)
	}
}

func (h *Handler) serveAsset(w http.ResponseWriter, r *http.Request) error {
	a, ok := ui.AssetNamed(strings.TrimPrefix(r.URL.Path, assetPrefix))
	if !ok {
		return caddyhttp.Error(http.StatusNotFound, errors.New("no such asset"))
	}
	w.Header().Set("Content-Type", a.ContentType)
	if r.URL.Query().Get("v") == ui.AssetVersion {
		// The link names the content: it never changes under this name.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Header().Set("ETag", `"`+ui.AssetVersion+`"`)
	if r.Header.Get("If-None-Match") == `"`+ui.AssetVersion+`"` {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(a.Body)
	return err
}

// page is what every page shares, for this request.
func (h *Handler) page(r *http.Request, title, nav string) ui.Page {
	q := r.URL.Query()
	return ui.Page{
		Lang:        ui.Pick(q.Get("lang"), r.Header.Get("Accept-Language"), h.Languages),
		DefaultLang: h.Languages[0],
		Title:       title,
		Nav:         nav,
		Version:     version.Current(),
		Path:        r.URL.Path,
		Query:       q,
	}
}

// render writes a page with its status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) error {
	s, err := ui.RenderString(name, data)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", langOf(data))
	w.Header().Add("Vary", "Accept-Language")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write([]byte(s))
	return err
}

func langOf(data any) string {
	switch v := data.(type) {
	case ui.SearchView:
		return v.Lang
	case ui.ReaderView:
		return v.Lang
	case ui.StatusView:
		return v.Lang
	case ui.ErrorView:
		return v.Lang
	case ui.TimelineView:
		return v.Lang
	}
	return ""
}

func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) error {
	pg := h.page(r, ui.Text(h.page(r, "", "").Lang, "error.title"), "")
	return h.render(w, r, status, "error", ui.ErrorView{Page: pg, Message: msg})
}

// writeJSON writes v as indented JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// origin is where the page's platform calls go: the server that serves
// this request, as the shared session from no client address (the
// platforms' budgets never see a visitor's address).
func origin(r *http.Request) (subrequest.Origin, error) {
	srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if !ok || srv == nil {
		return subrequest.Origin{}, errors.New("no Caddy server to send the platform requests to")
	}
	return subrequest.Origin{Server: srv, Host: r.Host, RemoteAddr: "127.0.0.1:0", Key: session.Shared, Agent: "BesluitBron-Site"}, nil
}

// getter runs the reader's platform requests through the platform routes
// (the Origin is in the context: subcall.Calls) and records what they
// saw.
func (h *Handler) getter() reader.Getter {
	return func(ctx context.Context, platform string, req adapters.Request) ([]byte, error) {
		calls := subcall.Calls{Do: subrequest.DoFromContext, Clock: h.clock}
		body, err := calls.Get(ctx, platform, req)
		h.observe(platform, err)
		return body, err
	}
}

// observe records a reader call's outcome (err from subcall.Calls) in
// the platform's state for the status page.
func (h *Handler) observe(platform string, err error) {
	now := h.clock.Now()
	var re *adapters.RouteError
	switch {
	case err == nil:
		h.state.record(platform, true, "", "", now)
	case errors.As(err, &re):
		// A 4xx the platform sent (a wrong id) says it is reachable.
		reason := fanout.ReasonPlatformError
		if re.Kind == adapters.KindOverBudget {
			reason = fanout.ReasonBudget
		}
		reachable := re.Kind != adapters.KindUnavailable && re.Kind != adapters.KindLoop
		h.state.record(platform, reachable, routeFailure(h.platformName(platform), re), reason, now)
		if !reachable {
			h.logger.Debug("platform call from the reader view failed", zap.String("platform", platform), zap.Int("status", re.Status))
		}
	default:
		// No answer; or one too large to hold, which says the platform
		// answered, too much.
		tooLarge := errors.Is(err, subcall.ErrAnswerTooLarge)
		reason := fanout.ReasonUnreachable
		if tooLarge {
			reason = fanout.ReasonUnexpectedAnswer
		}
		h.state.record(platform, tooLarge, err.Error(), reason, now)
	}
}

// platformName is a platform's public name.
func (h *Handler) platformName(key string) string {
	if n, ok := h.names[key]; ok {
		return n
	}
	if p, ok := platforms.Get(key); ok {
		return p.Name
	}
	return key
}
