// Package registry is where a platform registers with the surfaces that
// dispatch over every platform: the fan-out search, the site's reader and
// the live check. Adding a platform here is one line (docs/architecture.md,
// "Adding a platform"); a test holds the list to the platforms table.
package registry

import (
	"context"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	"github.com/besluitbron/besluitbron/platforms/cvdr"
	"github.com/besluitbron/besluitbron/platforms/oa"
	"github.com/besluitbron/besluitbron/platforms/ob"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/opentk"
	"github.com/besluitbron/besluitbron/platforms/ori"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
	"github.com/besluitbron/besluitbron/platforms/tk"
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
	// OpenTKText: a Tweede Kamer document's text comes from OpenTK, which
	// serves the same document by the same number as text (the
	// Gegevensmagazijn holds only the file). Off when OpenTK is not on.
	OpenTKText bool
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

// Surfaces are the platforms' surfaces under s, by key.
func Surfaces(s Settings) map[string]adapters.Surface {
	return map[string]adapters.Surface{
		platforms.OBV:         obv.Surface(),
		platforms.TK:          withOpenTKText(tk.Surface(s.TKRoot), s.OpenTKText),
		platforms.OpenTK:      opentk.Surface(),
		platforms.OB:          ob.Surface(s.linkBasesOf(platforms.OB)),
		platforms.Rechtspraak: rechtspraak.Surface(s.CaseLaw),
		platforms.ORI:         ori.Surface(),
		platforms.OA:          oa.Surface(s.OA),
		platforms.BWB:         bwb.Surface(),
		platforms.CVDR:        cvdr.Surface(),
	}
}

// withOpenTKText gives a Tweede Kamer document OpenTK's text of the same
// number when on; without it, or when OpenTK fails, the document keeps
// its metadata and link.
func withOpenTKText(s adapters.Surface, on bool) adapters.Surface {
	if !on {
		return s
	}
	withText := func(ctx context.Context, env adapters.Env, d adapters.Document, err error) (adapters.Document, error) {
		if err != nil {
			return d, err
		}
		if od, err := opentk.Surface().Fetch(ctx, env, d.ID, opentk.Document); err == nil {
			d.Text = od.Text
		}
		return d, nil
	}
	fetch := s.Fetch
	s.Fetch = func(ctx context.Context, env adapters.Env, id, kind string) (adapters.Document, error) {
		d, err := fetch(ctx, env, id, kind)
		return withText(ctx, env, d, err)
	}
	kinds := make([]adapters.ResourceKind, len(s.Resources))
	for i, k := range s.Resources {
		read := k.Read
		k.Read = func(ctx context.Context, env adapters.Env, vars map[string]string) (adapters.Document, error) {
			d, err := read(ctx, env, vars)
			return withText(ctx, env, d, err)
		}
		kinds[i] = k
	}
	s.Resources = kinds
	return s
}

// linkBasesOf is LinkBases for platform key; nil without LinkBases.
func (s Settings) linkBasesOf(key string) func() []string {
	if s.LinkBases == nil {
		return nil
	}
	return func() []string { return s.LinkBases(key) }
}
