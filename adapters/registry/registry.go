// Package registry is where a platform registers with the surfaces that
// dispatch over every platform: the fan-out search, the site's reader and
// the live check. Adding a platform here is one line (docs/architecture.md,
// "Adding a platform"); a test holds the list to the platforms table.
package registry

import (
	"slices"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/oa"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
)

// Settings are the operator's per-platform adapter settings (the
// besluitbron app's platform blocks); the zero value is every default.
type Settings struct {
	// TKRoot is the Tweede Kamer's OData root (default tk.DefaultRoot).
	TKRoot string
	// OA are Open Archivaris' endpoints (over oa.Defaults).
	OA oa.Endpoints
	// LinkBases gives the base URLs a platform's links may point into
	// (Officiële Bekendmakingen' full-text links), asked at each fetch;
	// nil refuses every link.
	LinkBases func(key string) []string
	// Offered are the platforms the surface being built offers (a
	// connector's, the site's): a platform may add to another's surface
	// only where both are offered (OpenTK's text of a Tweede Kamer
	// document).
	Offered []string
	// CaseLaw answers words for Rechtspraak (the besluitbron app's index
	// of its feed); nil: Rechtspraak is searched by court or ECLI only.
	CaseLaw rechtspraak.WordIndex
}

// Of is the setting of platform key, for what asks by key (the MCP
// connectors' prompts and completions, mcpkit.Env.Setting): the OData
// root of tk, the endpoints of oa, the word index of rechtspraak; nil for
// a platform without one, or one left unset.
func (s Settings) Of(key string) any {
	switch key {
	case platforms.TK:
		if s.TKRoot != "" {
			return s.TKRoot
		}
	case platforms.OA:
		return s.OA
	case platforms.Rechtspraak:
		if s.CaseLaw != nil {
			return s.CaseLaw
		}
	}
	return nil
}

// Surfaces are the platforms' surfaces under s, by key: each registered
// platform's (adapters.SurfaceProvider), with what other platforms add
// to it (adapters.SurfaceDecorator).
func Surfaces(s Settings) map[string]adapters.Surface {
	cfg := s.config()
	out := map[string]adapters.Surface{}
	for _, p := range platforms.Each[adapters.SurfaceProvider]() {
		out[p.(platforms.Provider).Platform().Key] = p.Surface(cfg)
	}
	for _, d := range platforms.Each[adapters.SurfaceDecorator]() {
		for key, surface := range out {
			out[key] = d.Decorate(key, surface, cfg)
		}
	}
	return out
}

// config is s as the platforms ask it (adapters.Config).
func (s Settings) config() adapters.Config { return settingsConfig{s} }

type settingsConfig struct{ s Settings }

func (c settingsConfig) Setting(key string) any { return c.s.Of(key) }

func (c settingsConfig) LinkBases(key string) []string {
	if c.s.LinkBases == nil {
		return nil
	}
	return c.s.LinkBases(key)
}

func (c settingsConfig) Offers(key string) bool { return slices.Contains(c.s.Offered, key) }
