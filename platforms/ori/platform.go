package ori

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

// searchPaths are the searches: Elasticsearch's read-only POSTs.
var searchPaths = []string{"/_search", "/_msearch", "/*/_search", "/*/_msearch"}

var tableRow = platforms.Platform{
	Key: platforms.ORI, Order: 10, Authority: 6, Name: "Open Raadsinformatie",
	// Switched off on 2026-11-01: the default Caddyfile answers 410
	// unless the operator sets a base URL of an ORI-compatible index.
	BaseURLs: []string{"https://api.openraadsinformatie.nl/v1/elastic"},
	// ORI published no limit, and a base URL set here points at an
	// index someone runs for others (an operator's own can raise it
	// with capacity and window): 5 a second, as Rechtspraak's polite
	// figure. Without a budget, requests that skip the cache
	// (no-store, Range, a new parameter) would reach it at whatever
	// rate one client sends.
	Budget: &platforms.Budget{Capacity: 5, Window: time.Second},
	// Elasticsearch 7: _search and _msearch are read-only POSTs.
	Search: platforms.Search{Paths: searchPaths},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList:     {Paths: []string{"/_cat/*", "/*/_mapping", "/_mapping"}},
		platforms.KindDocument: {Paths: []string{"/*/_doc/*", "/*/_source/*"}},
		platforms.KindSearch:   {Paths: []string{"/_search", "/*/_search", "/_msearch", "/*/_msearch"}},
	},
	Tools: platforms.ToolsOptIn, // the route is off unless configured
}

// Surface is the platform's surface; it takes no settings.
func (provider) Surface(adapters.Config) adapters.Surface { return Surface() }
