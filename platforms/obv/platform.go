package obv

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

// searchCost is OpenBesluitvorming's price of a search: it counts a
// search as one call per 24 results asked for (its documented page size),
// so ceil(limit/24); limit defaults to 24 and the platform caps it at 100.
// With or without a trailing slash: the platform routes both to its
// search, so both are priced as one.
var searchCost = platforms.Cost{Paths: []string{"/api/search", "/api/search/"}, Units: 1, Param: "limit", Per: 24, ParamDefault: 24, ParamMax: 100}

var tableRow = platforms.Platform{
	Key: platforms.OBV, Order: 20, Authority: 5, Name: "OpenBesluitvorming",
	BaseURLs: []string{"https://openbesluitvorming.nl"},
	// 60 weighted units a minute (docs/rules.md, "The platforms and their limits"): a search priced by
	// the results asked for, a rendered PDF page an eighth of a call.
	Budget: &platforms.Budget{Capacity: 60, Window: time.Minute, Costs: []platforms.Cost{
		searchCost,
		{Paths: []string{"/api/entities/*/pdf/page/*"}, Units: 0.125},
	}},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList: {Paths: []string{"/api/sources", "/schemas/*"}},
		// An entity that is not there yet may appear with the next
		// harvest: a 404 is kept only briefly.
		platforms.KindDocument: {Paths: []string{"/api/entities/*"}, NegativeTTL: 5 * time.Minute},
		// An export page is kept as briefly as a search: what one
		// instance's harvest asked, the others following it
		// (replica.Relay) find in the shared cache tier. A page of
		// changes that said "caught up" may hide newer changes for
		// those minutes; the next round, an hour on by default,
		// asks again.
		platforms.KindSearch: {Paths: []string{"/api/search", "/api/stats", "/api/status", "/api/export/snapshot", "/api/export/changes"}},
		platforms.KindOther:  {Off: true},
	},
}

// Surface is the platform's surface, answering word searches from the
// replica where it can (cfg.Replica: nil when it is off).
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	council, _ := cfg.Replica(platforms.OBV).(CouncilIndex)
	return SurfaceWith(council)
}
