package bwb

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
	Key: platforms.BWB, Order: 80, Authority: 2, Name: "Wetten (Basiswettenbestand)",
	// KOOP's repository holds each regulation's manifest and its
	// versions (toestanden) at /bwb/...; the search is KOOP's SRU
	// service on another host, mounted at /sru/ (koopSearch).
	BaseURLs: []string{koopsru.Repository},
	Mounts:   []platforms.Mount{koopsru.SearchMount},
	Budget:   koopsru.Budget(),
	Cache: map[string]platforms.CacheKind{
		// A manifest lists a regulation's versions and gains one when
		// KOOP publishes it (its tijdstip_toegevoegd: early mornings),
		// so it is kept half a day, served stale while asked again.
		platforms.KindList: {Paths: []string{"/bwb/*/manifest.xml"}, TTL: 12 * time.Hour,
			StaleWhileRevalidate: 12 * time.Hour, StaleIfError: 7 * 24 * time.Hour},
		// A version's text does not change once published: a change
		// of the law is a new version with its own address.
		platforms.KindDocument: {PathRegexp: `^/bwb/[^/]+/[^/]+/xml/[^/]+\.xml$`, TTL: koopsru.TextTTL,
			StaleWhileRevalidate: 7 * 24 * time.Hour, StaleIfError: 2 * koopsru.TextTTL},
		platforms.KindSearch: koopsru.SearchKind,
	},
}

// Surface is the platform's surface, answering searches from the
// replica where it can (cfg.Replica: nil when it is off).
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	local, _ := cfg.Replica(platforms.BWB).(datereplica.Searcher)
	return SurfaceWith(local)
}
