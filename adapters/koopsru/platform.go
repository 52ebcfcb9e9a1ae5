package koopsru

import (
	"time"

	"github.com/besluitbron/besluitbron/platforms"
)

// KOOP's laws and local regulations (platforms bwb and cvdr) share two
// hosts: the texts in its repository, the search in its SRU service
// (docs/rules.md, "The platforms and their limits"). Each platform's row
// (platforms/bwb, platforms/cvdr) takes them from here.
var (
	// Repository is the repository of the texts.
	Repository = "https://repository.officiele-overheidspublicaties.nl"
	// SearchMount sends the SRU search, below /sru/, to its own host.
	SearchMount = platforms.Mount{Prefix: "/sru/", BaseURLs: []string{"https://zoekservice.overheid.nl"}}
	// SearchKind: search records are metadata and cheap to ask again,
	// half an hour, as Officiële Bekendmakingen' SRU.
	SearchKind = platforms.CacheKind{Paths: []string{"/sru/Search"}, Query: map[string]string{"operation": "searchRetrieve"}, TTL: 30 * time.Minute}
)

// TextTTL is how long a text is kept: a published version never changes.
const TextTTL = 180 * 24 * time.Hour

// Budget is the budget of each of BWB and CVDR. KOOP publishes no limit
// for these services, only a fair-use wording (docs/rules.md): 2 requests
// a second, as Officiële Bekendmakingen, which is enough for a search or a
// fetch (manifest and text) at once. Each platform keeps its own budget
// rather than sharing one with ob or with each other: they are other
// hosts (ob's SRU is repository.overheid.nl/sru, these answer at
// zoekservice.overheid.nl and the BWB/CVDR repository), the limit KOOP
// speaks of is ob's, and a shared bucket would let a run of law look-ups
// hold up searches of the official publications. An operator lowers or
// raises it per platform (platform bwb { capacity ... }).
func Budget() *platforms.Budget { return &platforms.Budget{Capacity: 2, Window: time.Second} }
