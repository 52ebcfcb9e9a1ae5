package ob

import (
	"time"

	"github.com/besluitbron/besluitbron/adapters"
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
	Key: platforms.OB, Order: 50, Authority: 2, Name: "Officiële Bekendmakingen",
	BaseURLs: []string{"https://repository.overheid.nl"},
	// KOOP limits its SRU service but publishes no number (docs/rules.md,
	// "The platforms and their limits"): a conservative 2 a second.
	Budget: &platforms.Budget{Capacity: 2, Window: time.Second},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList:     {Paths: []string{"/sru"}, Query: map[string]string{"operation": "explain"}},
		platforms.KindDocument: {Paths: []string{"/frbr/*"}},
		platforms.KindSearch:   {Paths: []string{"/sru"}, Query: map[string]string{"operation": "searchRetrieve"}, TTL: 30 * time.Minute},
	},
}

// Surface is the platform's surface; its full-text links may point into
// the configuration's base URLs of the platform, and it answers searches
// from the replica where it can (cfg.Replica: nil when it is off).
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	local, _ := cfg.Replica(platforms.OB).(datereplica.Searcher)
	return SurfaceWith(func() []string { return cfg.LinkBases(platforms.OB) }, local)
}
