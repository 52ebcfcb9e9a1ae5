package tk

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
	Key: platforms.TK, Order: 30, Authority: 3, Name: "Tweede Kamer",
	BaseURLs: []string{"https://gegevensmagazijn.tweedekamer.nl"},
	// No quota is published, but the Kamer reserves the right to cap
	// a single address, and all our users share ours. tkconv, its
	// best-known client, pauses 100 ms between pages (10 a second);
	// we keep half of that, so requests that skip the cache
	// (no-store, Range, a new parameter) cannot drive it at full
	// speed.
	Budget: &platforms.Budget{Capacity: 5, Window: time.Second},
	Cache: map[string]platforms.CacheKind{
		// Reference lists and the service description ($metadata,
		// from which the MCP tools read the field names), below any
		// OData root: /OData/v5 or /OData/v4/2.0. Members and
		// committees change daily at most.
		platforms.KindList:     {PathRegexp: `^/OData/([^/]+/)+?((Fractie|Commissie|Persoon)[A-Za-z]*(\(|$|/)|\$metadata$)`, TTL: 24 * time.Hour},
		platforms.KindDocument: {PathRegexp: `(?i)/resources?(/|$)|\)/resource$`},
		platforms.KindSearch:   {Paths: []string{"/OData/*", "/SyncFeed/*/Feed"}},
	},
}

// Surface is the platform's surface under the configured OData root.
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	root, _ := cfg.Setting(platforms.TK).(string)
	parliament, _ := cfg.Replica(platforms.TK).(ParliamentIndex)
	return SurfaceWith(root, parliament)
}

// SharedID finds a Tweede Kamer document number (2023D41173): the hit id
// of both the Gegevensmagazijn and OpenTK, and OpenTK's links
// (adapters.SharedIdentifier).
func (provider) SharedID(s string) (string, bool) {
	if n, ok := FindDocumentNumber(s); ok {
		return "tkdoc:" + n, true
	}
	return "", false
}
