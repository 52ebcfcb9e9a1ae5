package cvdr

import (
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/platforms"
)

// provider is the platform as it registers itself (platforms.Provider),
// with its replica (datereplica.Provider: replica.go).
type provider struct{ datereplica.Provider }

func init() { platforms.Register(provider{replicaProvider}) }

// Platform is the platform's tableRow of the table.
func (provider) Platform() platforms.Platform { return tableRow }

var tableRow = platforms.Platform{
	Key: platforms.CVDR, Order: 90, Authority: 2, Name: "Lokale regelgeving (CVDR)",
	// The same two KOOP hosts as BWB: regulations at /cvdr/..., the
	// SRU search mounted at /sru/.
	BaseURLs: []string{koopsru.Repository},
	Mounts:   []platforms.Mount{koopsru.SearchMount},
	Budget:   koopsru.Budget(),
	Cache: map[string]platforms.CacheKind{
		// A regulation's identifier names one version (CVDR100394_2):
		// a change is published as the next one, so a text stays as
		// it was published.
		platforms.KindDocument: {Paths: []string{"/cvdr/*"}, TTL: koopsru.TextTTL,
			StaleWhileRevalidate: 7 * 24 * time.Hour, StaleIfError: 2 * koopsru.TextTTL},
		platforms.KindSearch: koopsru.SearchKind,
	},
}

// Surface is the platform's surface, answering searches from the
// replica where it can (cfg.Replica: nil when it is off).
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	local, _ := cfg.Replica(platforms.CVDR).(datereplica.Searcher)
	return SurfaceWith(local)
}
