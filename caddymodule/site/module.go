// Package site is the Caddy handler module besluitbron_site: BesluitBron's
// own face. It serves
//
//	/              the search page (Dutch first, English with ?lang=en)
//	/search        its answer as HTML, or as JSON for a client that
//	               prefers application/json (the fan-out engine's API)
//	/search/events the same answer as it arrives, one JSON line per
//	               platform (the page's script shows results live)
//	/lezen         the reader view: a document's full text, paged
//	/dossier       a Kamerstuk dossier's timeline, from bill to law in
//	               force (JSON too, as /search)
//	/status        per platform: reachable, budget, waits, cache
//	/status.json   the same as JSON
//	/assets/...    the page's style sheet and script
//
// and hands every other path to the next handler. Every platform call
// goes through the platform routes (cache, budget, proxy) in process, as
// the shared session (session.Shared), whose usage the fair queue does
// not count; the client_limit zone in front of the site keeps anyone from
// draining the budgets through it. Rendering is Caddy-free (site/ui), as
// are the reader (site/reader) and the last-hour figures (site/rolling).
package site

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/site/reader"
	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/platforms"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Defaults and bounds of the options.
const (
	defaultDeadline      = 8 * time.Second
	minDeadline          = time.Second
	maxDeadline          = time.Minute
	defaultLimit         = 10
	maxLimit             = 24 // one obv unit per search: ceil(limit/24)
	defaultPageChars     = 6000
	minPageChars         = 1000
	maxPageChars         = 50000
	defaultStatusRefresh = 15 * time.Second
	minStatusRefresh     = 5 * time.Second
	maxStatusRefresh     = 10 * time.Minute
)

// Handler serves the search page, the reader view and the status page.
type Handler struct {
	// Platforms the page searches and shows, in this order. Default:
	// every platform whose MCP tools come on by default (obv tk opentk
	// ob rechtspraak), as /mcp/alles, plus ori when the besluitbron app
	// names its base URL; oa only when listed.
	Platforms []string `json:"platforms,omitempty"`
	// Deadline bounds one search across all platforms, and one reader
	// call. Default 8s; from 1s to 1m.
	Deadline caddy.Duration `json:"deadline,omitempty"`
	// Languages the page speaks, the first the default. Default
	// ["nl", "en"]; each of nl, en.
	Languages []string `json:"languages,omitempty"`
	// Limit is the hits asked of each platform per search. Default 10;
	// from 1 to 24 (one OpenBesluitvorming unit).
	Limit int `json:"limit,omitempty"`
	// PageChars is the characters of text on one reader page. Default
	// 6000; from 1000 to 50000.
	PageChars int `json:"page_chars,omitempty"`
	// StatusRefresh is how often the status page refreshes itself (with
	// JavaScript). Default 15s; from 5s to 10m.
	StatusRefresh caddy.Duration `json:"status_refresh,omitempty"`
	// PlatformOptions are platforms' own settings for the page's search
	// and reader, by key and option (in the Caddyfile <key>_<option>,
	// e.g. tk_odata_root /OData/v4/2.0), each laid over the besluitbron
	// app's platform blocks. Default: the app's. The platform reads and
	// checks them (platforms.Configurable).
	PlatformOptions map[string]platforms.Options `json:"platform_options,omitempty"`

	app    *app.App
	logger *zap.Logger
	state  *state
	reader *reader.Reader
	// timeline: the platforms offered hold dossiers, so /dossier shows
	// their way (set once the reader is built).
	timeline bool
	adapters registry.Settings // the app's, with the site's own platform options
	names    map[string]string
	search   searcher
	engine   *fanout.Engine
	// clock is the time of the page, the reader and the search's
	// deadline: clock.Wall unless a test set its own before Provision.
	clock clock.Clock
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.besluitbron_site",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision applies the defaults, takes the process-wide state (the
// last-hour readings survive reloads) and builds the reader and search.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.clock = clock.Or(h.clock)
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	h.app = a
	if len(h.Platforms) == 0 {
		for _, p := range platforms.All() {
			// The live platforms, and an opt-in one when the operator
			// points it at a service of their own (ORI, whose public
			// address is switched off): the page searches every platform
			// that can answer.
			if p.Tools == platforms.ToolsDefault || (p.Tools == platforms.ToolsOptIn && a.BaseURLSet(p.Key)) {
				h.Platforms = append(h.Platforms, p.Key)
			}
		}
	}
	if h.Deadline == 0 {
		h.Deadline = caddy.Duration(defaultDeadline)
	}
	if len(h.Languages) == 0 {
		h.Languages = append([]string(nil), ui.Languages...)
	}
	if h.Limit == 0 {
		h.Limit = defaultLimit
	}
	if h.PageChars == 0 {
		h.PageChars = defaultPageChars
	}
	if h.StatusRefresh == 0 {
		h.StatusRefresh = caddy.Duration(defaultStatusRefresh)
	}
	h.names = map[string]string{}
	for _, k := range h.Platforms {
		if p, ok := a.Platform(k); ok {
			h.names[k] = p.Name
		}
	}
	if h.state, err = acquireState(a.Figures(), h.clock); err != nil {
		return err
	}
	values, err := a.SettingsOver(h.PlatformOptions)
	if err != nil {
		return fmt.Errorf("besluitbron_site: %w", err)
	}
	h.adapters = a.AdapterSettings(h.Platforms, values)
	h.reader = &reader.Reader{Get: h.getter(), Surfaces: registry.Surfaces(h.adapters), Clock: h.clock}
	h.timeline = h.reader.OffersTimeline(platforms.Keys(), h.Platforms)
	h.search, err = newSearcher(h)
	return err
}

// Validate checks the options against their bounds.
func (h *Handler) Validate() error {
	seen := map[string]bool{}
	for _, k := range h.Platforms {
		if _, ok := platforms.Get(k); !ok {
			return fmt.Errorf("besluitbron_site: unknown platform %q: use one of %v", k, platforms.Keys())
		}
		if seen[k] {
			return fmt.Errorf("besluitbron_site: platform %q listed twice", k)
		}
		seen[k] = true
	}
	if d := time.Duration(h.Deadline); d < minDeadline || d > maxDeadline {
		return fmt.Errorf("besluitbron_site: deadline must be from %v to %v, got %v", minDeadline, maxDeadline, d)
	}
	langs := map[string]bool{}
	for _, l := range h.Languages {
		if !ui.Known(l) {
			return fmt.Errorf("besluitbron_site: unknown language %q: use %v", l, ui.Languages)
		}
		if langs[l] {
			return fmt.Errorf("besluitbron_site: language %q listed twice", l)
		}
		langs[l] = true
	}
	if h.Limit < 1 || h.Limit > maxLimit {
		return fmt.Errorf("besluitbron_site: limit must be from 1 to %d, got %d", maxLimit, h.Limit)
	}
	if h.PageChars < minPageChars || h.PageChars > maxPageChars {
		return fmt.Errorf("besluitbron_site: page_chars must be from %d to %d, got %d", minPageChars, maxPageChars, h.PageChars)
	}
	if d := time.Duration(h.StatusRefresh); d < minStatusRefresh || d > maxStatusRefresh {
		return fmt.Errorf("besluitbron_site: status_refresh must be from %v to %v, got %v", minStatusRefresh, maxStatusRefresh, d)
	}
	for key, o := range h.PlatformOptions {
		if _, err := platforms.SettingsOf(key, o); err != nil {
			return fmt.Errorf("besluitbron_site: %s options: %v", key, err)
		}
	}
	return nil
}

// Cleanup drops this config's reference to the shared state.
func (h *Handler) Cleanup() error {
	if h.state != nil {
		releaseState()
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
