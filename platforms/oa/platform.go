package oa

import (
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// provider is the platform as it registers itself (platforms.Provider).
type provider struct{}

func init() { platforms.Register(provider{}) }

// Platform is the platform's tableRow of the table.
func (provider) Platform() platforms.Platform { return tableRow }

var tableRow = platforms.Platform{
	Key: platforms.OA, Order: 70, Authority: 7, Name: "Open Archivaris",
	BaseURLs: []string{"https://openarchivaris.nl"},
	// 120 calls a minute (docs/rules.md, "The platforms and their limits"). Its API is not publicly
	// documented; the paths are those assumed in docs/emulators.md.
	Budget: &platforms.Budget{Capacity: 120, Window: time.Minute},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList:     {Paths: []string{"/api/v1/bodies"}},
		platforms.KindDocument: {Paths: []string{"/api/v1/documents/*"}},
		platforms.KindSearch:   {Paths: []string{"/api/v1/search"}},
	},
	Tools: platforms.ToolsExperimental,
}

// Surface is the platform's surface at the configured endpoints.
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	e, ok := cfg.Setting(platforms.OA).(Endpoints)
	if !ok {
		e = Defaults
	}
	return Surface(e)
}
