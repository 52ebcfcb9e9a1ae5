package opentk

import (
	"time"

	"github.com/besluitbron/besluitbron/platforms"
)

// provider is the platform as it registers itself (platforms.Provider).
type provider struct{}

func init() { platforms.Register(provider{}) }

// Platform is the platform's tableRow of the table.
func (provider) Platform() platforms.Platform { return tableRow }

// searchPaths are the searches, which run long.
var searchPaths = []string{"/search"}

var tableRow = platforms.Platform{
	Key: platforms.OpenTK, Order: 40, Authority: 4, Name: "OpenTK",
	// Two mirrors of one service, tried in this order.
	BaseURLs: []string{"https://opentk.nl", "https://berthub.eu/tkconv"},
	// One volunteer's server (berthub.eu) with no published limit:
	// 2 requests a second for all our users together, so requests
	// that skip the cache (no-store, Range, a new parameter) never
	// reach it faster, whoever sends them. The per-host search cap
	// below bounds its most expensive work besides.
	Budget: &platforms.Budget{Capacity: 2, Window: time.Second},
	// tkconv cuts searches short when more than 5 run at once; 2 per
	// host leaves room for its other users. A search takes seconds,
	// so a waiting one gets longer than the usual 15s.
	Search: platforms.Search{Paths: searchPaths, MaxPerHost: 2, QueueWait: 20 * time.Second},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList:     {Paths: []string{"/commissie/*", "/commissies.html", "/kamerleden.html", "/personphoto/*"}, TTL: 24 * time.Hour},
		platforms.KindDocument: {Paths: []string{"/getraw/*", "/getdoc/*", "/document.html", "/verslag.html"}},
		platforms.KindSearch:   {Paths: []string{"/search", "/search/index.xml", "/ksds"}, TTL: 15 * time.Minute},
	},
}
