package rechtspraak

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
	Key: platforms.Rechtspraak, Order: 60, Authority: 1, Name: "Rechtspraak",
	BaseURLs: []string{"https://data.rechtspraak.nl"},
	// Self-imposed (docs/rules.md, "The platforms and their limits"): public guidance is "do not hammer",
	// about 10 a second; we keep half of that.
	Budget: &platforms.Budget{Capacity: 5, Window: time.Second},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList:     {Paths: []string{"/Waardelijst/*"}, TTL: 30 * 24 * time.Hour},
		platforms.KindDocument: {Paths: []string{"/uitspraken/content", "/uitspraken/image"}},
		platforms.KindSearch:   {Paths: []string{"/uitspraken/zoeken"}},
	},
}

// Surface is the platform's surface, with the configuration's word index
// of its feed where it keeps one.
func (provider) Surface(cfg adapters.Config) adapters.Surface {
	words, _ := cfg.Replica(platforms.Rechtspraak).(WordIndex)
	return Surface(words)
}

// SharedID finds an ECLI (the hit id, and any link that names one): the
// fan-out merges the hits of one ruling (adapters.SharedIdentifier).
func (provider) SharedID(s string) (string, bool) {
	if m := FindECLIs(s, 1); len(m) == 1 {
		return "ecli:" + m[0], true
	}
	return "", false
}
