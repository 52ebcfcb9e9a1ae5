package app

import (
	"fmt"

	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/oa"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

// OAEndpoints names Open Archivaris' endpoints (its API is not published:
// the defaults are the assumption docs/emulators.md writes down); empty
// fields keep platforms/oa's defaults.
type OAEndpoints struct {
	SearchPath   string `json:"search_path,omitempty"`
	QueryParam   string `json:"query_param,omitempty"`
	LimitParam   string `json:"limit_param,omitempty"`
	PageParam    string `json:"page_param,omitempty"`
	OffsetParam  string `json:"offset_param,omitempty"`
	OrgParam     string `json:"organisation_param,omitempty"`
	DocumentPath string `json:"document_path,omitempty"`
	TextPath     string `json:"text_path,omitempty"`
}

// Endpoints lays e over platforms/oa's defaults.
func (e *OAEndpoints) Endpoints() oa.Endpoints {
	var out oa.Endpoints
	if e != nil {
		out = oa.Endpoints{SearchPath: e.SearchPath, QueryParam: e.QueryParam, LimitParam: e.LimitParam,
			PageParam: e.PageParam, OffsetParam: e.OffsetParam, OrgParam: e.OrgParam,
			DocumentPath: e.DocumentPath, TextPath: e.TextPath}
	}
	return out.WithDefaults()
}

// set sets the endpoint option opt (as the Caddyfile names it) to v; false
// for an option that is none.
func (e *OAEndpoints) set(opt, v string) bool {
	field := map[string]*string{
		"search_path": &e.SearchPath, "query_param": &e.QueryParam, "limit_param": &e.LimitParam,
		"page_param": &e.PageParam, "offset_param": &e.OffsetParam, "organisation_param": &e.OrgParam,
		"document_path": &e.DocumentPath, "text_path": &e.TextPath,
	}[opt]
	if field == nil {
		return false
	}
	*field = v
	return true
}

// checkAdapterSettings refuses an adapter setting on a platform it does
// not belong to, and a malformed OData root.
func checkAdapterSettings(key string, c *PlatformConfig) error {
	if c.ODataRoot != "" {
		if key != platforms.TK {
			return fmt.Errorf("odata_root is a setting of platform tk only")
		}
		if err := tk.CheckRoot(c.ODataRoot); err != nil {
			return fmt.Errorf("odata_root: %v", err)
		}
	}
	if c.OA != nil && key != platforms.OA {
		return fmt.Errorf("Open Archivaris' endpoints are settings of platform oa only")
	}
	return nil
}

// TKODataRoot is the Tweede Kamer's OData root of this config (platform
// tk's odata_root, default platforms/tk.DefaultRoot), which the MCP
// connectors, the fan-out and the reader read field names from.
func (a *App) TKODataRoot() string {
	if c := a.Platforms[platforms.TK]; c != nil && c.ODataRoot != "" {
		return c.ODataRoot
	}
	return tk.DefaultRoot
}

// OAEndpoints are Open Archivaris' endpoints of this config (platform
// oa's endpoint options over platforms/oa's defaults).
func (a *App) OAEndpoints() oa.Endpoints {
	if c := a.Platforms[platforms.OA]; c != nil {
		return c.OA.Endpoints()
	}
	return oa.Defaults
}

// AdapterSettings are this config's per-platform adapter settings, for a
// surface (connector, site) that offers platforms ps: OpenTK's text of a
// Tweede Kamer document only when it offers OpenTK too.
func (a *App) AdapterSettings(ps []string) registry.Settings {
	return registry.Settings{TKRoot: a.TKODataRoot(), OA: a.OAEndpoints(),
		LinkBases: a.LinkBaseURLs, Offered: ps, CaseLaw: a.CaseLawIndex()}
}
