// Package registry is where a platform registers with the surfaces that
// dispatch over every platform: the fan-out search, the site's reader and
// the live check. Adding a platform here is one line (docs/architecture.md,
// "Adding a platform"); a test holds the list to the platforms table.
package registry

import (
	"slices"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Settings are what a surface is built under: the operator's settings
// of each platform, what BesluitBron keeps of it locally, and the
// platforms the surface offers. The zero value is every default.
type Settings struct {
	// Values are the platforms' settings by key, as each platform read
	// its options (platforms.Configurable, platforms.AllSettings); a
	// platform absent here reads its defaults.
	Values map[string]any
	// Replicas are what BesluitBron keeps of a platform itself, by key
	// (a replica of its feed, which answers words); a platform absent
	// here keeps none.
	Replicas map[string]any
	// LinkBases gives the base URLs a platform's links may point into
	// (Officiële Bekendmakingen' full-text links), asked at each fetch;
	// nil refuses every link.
	LinkBases func(key string) []string
	// Offered are the platforms the surface being built offers (a
	// connector's, the site's): a platform may add to another's surface
	// only where both are offered (OpenTK's text of a Tweede Kamer
	// document).
	Offered []string
}

// Of is the setting of platform key (adapters.Config.Setting): its value
// in Values, else its defaults; nil for a platform without settings.
func (s Settings) Of(key string) any {
	if v, ok := s.Values[key]; ok {
		return v
	}
	v, _ := platforms.SettingsOf(key, nil)
	return v
}

// Replica is what BesluitBron keeps of platform key (adapters.Config.Replica);
// nil for none.
func (s Settings) Replica(key string) any { return s.Replicas[key] }

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

func (c settingsConfig) Replica(key string) any { return c.s.Replica(key) }

func (c settingsConfig) LinkBases(key string) []string {
	if c.s.LinkBases == nil {
		return nil
	}
	return c.s.LinkBases(key)
}

func (c settingsConfig) Offers(key string) bool { return slices.Contains(c.s.Offered, key) }
