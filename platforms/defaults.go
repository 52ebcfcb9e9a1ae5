package platforms

import (
	"fmt"
	"time"
)

// Budget is the outbound budget BesluitBron keeps for a platform: a bucket
// of Capacity units refilled in Window, shared fairly between clients
// (fairqueue). Zero MaxQueue and MaxWait leave the mechanism's
// defaults (1000 waiting requests; twice the window, at least 30s).
type Budget struct {
	Capacity float64
	Window   time.Duration
	// Costs price requests, first match wins; an unmatched request costs
	// one unit.
	Costs    []Cost
	MaxQueue int
	MaxWait  time.Duration
}

// Cost prices the requests whose path matches one of Paths (Caddy path
// matcher patterns): Units, or with Param Units × ceil(value/Per), value
// being that query parameter (ParamDefault when missing, capped at
// ParamMax when set).
type Cost struct {
	Paths        []string
	Units        float64
	Param        string
	Per          float64
	ParamDefault float64
	ParamMax     float64
}

// Search names a platform's read-only searches (path.Match patterns on
// the path below the base URL): a POST to one may be resent and failed
// over like a GET, and they count against MaxPerHost, the searches in
// flight on one host (0: no cap). QueueWait bounds the wait for a place
// when every host is at its cap (0: the proxy's default).
type Search struct {
	Paths      []string
	MaxPerHost int
	QueueWait  time.Duration
}

// CacheKind is one cache kind of a platform: the requests it takes (any of
// Paths, or PathRegexp; both further narrowed by Query, exact values) and
// lifetimes that replace the generic ones (CacheLifetime) where not zero.
// Off turns caching off for the kind.
type CacheKind struct {
	Paths                []string
	PathRegexp           string
	Query                map[string]string
	TTL                  time.Duration
	StaleWhileRevalidate time.Duration
	StaleIfError         time.Duration
	NegativeTTL          time.Duration
	Off                  bool
}

// ToolSet says whether MCP connectors offer a platform's tools by default.
type ToolSet int

const (
	// ToolsDefault: offered by every connector that names no platforms.
	ToolsDefault ToolSet = iota
	// ToolsOptIn: offered only where a connector lists the platform.
	ToolsOptIn
	// ToolsExperimental: offered only where the connector opts into
	// experimental APIs (experimental_oa), then also when it names no
	// platforms.
	ToolsExperimental
)

// Cache kinds (the same names as cache's Kind constants).
const (
	KindList     = "list"
	KindDocument = "document"
	KindSearch   = "search"
	KindOther    = "other"
)

// CacheLifetime is the generic lifetime of a kind (docs/rules.md, "Cache"
// rule 2): lists change rarely, documents almost never once published,
// searches find new decisions within minutes. ok is false for a name that
// is no kind. A function, not a map, so no caller can change the defaults
// of every platform at once.
func CacheLifetime(kind string) (CacheKind, bool) {
	switch kind {
	case KindList:
		return CacheKind{TTL: 7 * 24 * time.Hour, StaleWhileRevalidate: 24 * time.Hour, StaleIfError: 30 * 24 * time.Hour}, true
	case KindSearch:
		return CacheKind{TTL: 10 * time.Minute}, true
	case KindDocument:
		return CacheKind{TTL: 21 * 24 * time.Hour, StaleWhileRevalidate: 24 * time.Hour, StaleIfError: 60 * 24 * time.Hour}, true
	case KindOther:
		return CacheKind{TTL: time.Hour}, true
	}
	return CacheKind{}, false
}

// DefaultContact is the operator address put in the User-Agent when the
// configuration names none (OpenBesluitvorming asks every client for one).
const DefaultContact = "beheer@besluitbron.nl"

// UserAgent is the User-Agent every request to a platform carries.
func UserAgent(version, contact string) string {
	return fmt.Sprintf("BesluitBron/%s (+https://besluitbron.nl; %s)", version, contact)
}

// obvSearchCost is OpenBesluitvorming's price of a search: it counts a
// search as one call per 24 results asked for (its documented page size),
// so ceil(limit/24); limit defaults to 24 and the platform caps it at 100.
// With or without a trailing slash: the platform routes both to its
// search, so both are priced as one.
var obvSearchCost = Cost{Paths: []string{"/api/search", "/api/search/"}, Units: 1, Param: "limit", Per: 24, ParamDefault: 24, ParamMax: 100}

// ORI, OpenTK: the searches that are POSTs or run long.
var (
	oriSearches    = []string{"/_search", "/_msearch", "/*/_search", "/*/_msearch"}
	opentkSearches = []string{"/search"}
)

var all = []Platform{
	{
		Key: ORI, Authority: 6, Name: "Open Raadsinformatie",
		// Switched off on 2026-11-01: the default Caddyfile answers 410
		// unless the operator sets a base URL of an ORI-compatible index.
		BaseURLs: []string{"https://api.openraadsinformatie.nl/v1/elastic"},
		// ORI published no limit, and a base URL set here points at an
		// index someone runs for others (an operator's own can raise it
		// with capacity and window): 5 a second, as Rechtspraak's polite
		// figure. Without a budget, requests that skip the cache
		// (no-store, Range, a new parameter) would reach it at whatever
		// rate one client sends.
		Budget: &Budget{Capacity: 5, Window: time.Second},
		// Elasticsearch 7: _search and _msearch are read-only POSTs.
		Search: Search{Paths: oriSearches},
		Cache: map[string]CacheKind{
			KindList:     {Paths: []string{"/_cat/*", "/*/_mapping", "/_mapping"}},
			KindDocument: {Paths: []string{"/*/_doc/*", "/*/_source/*"}},
			KindSearch:   {Paths: []string{"/_search", "/*/_search", "/_msearch", "/*/_msearch"}},
		},
		Tools: ToolsOptIn, // the route is off unless configured
	},
	{
		Key: OBV, Authority: 5, Name: "OpenBesluitvorming",
		BaseURLs: []string{"https://openbesluitvorming.nl"},
		// 60 weighted units a minute (docs/rules.md, "The platforms and their limits"): a search priced by
		// the results asked for, a rendered PDF page an eighth of a call.
		Budget: &Budget{Capacity: 60, Window: time.Minute, Costs: []Cost{
			obvSearchCost,
			{Paths: []string{"/api/entities/*/pdf/page/*"}, Units: 0.125},
		}},
		Cache: map[string]CacheKind{
			KindList: {Paths: []string{"/api/sources", "/schemas/*"}},
			// An entity that is not there yet may appear with the next
			// harvest: a 404 is kept only briefly.
			KindDocument: {Paths: []string{"/api/entities/*"}, NegativeTTL: 5 * time.Minute},
			KindSearch:   {Paths: []string{"/api/search", "/api/stats", "/api/status"}},
			// Export feeds are cursors (an empty page means "caught
			// up"): never cached.
			KindOther: {Off: true},
		},
	},
	{
		Key: TK, Authority: 3, Name: "Tweede Kamer",
		BaseURLs: []string{"https://gegevensmagazijn.tweedekamer.nl"},
		// No quota is published, but the Kamer reserves the right to cap
		// a single address, and all our users share ours. tkconv, its
		// best-known client, pauses 100 ms between pages (10 a second);
		// we keep half of that, so requests that skip the cache
		// (no-store, Range, a new parameter) cannot drive it at full
		// speed.
		Budget: &Budget{Capacity: 5, Window: time.Second},
		Cache: map[string]CacheKind{
			// Reference lists and the service description ($metadata,
			// from which the MCP tools read the field names), below any
			// OData root: /OData/v5 or /OData/v4/2.0. Members and
			// committees change daily at most.
			KindList:     {PathRegexp: `^/OData/([^/]+/)+?((Fractie|Commissie|Persoon)[A-Za-z]*(\(|$|/)|\$metadata$)`, TTL: 24 * time.Hour},
			KindDocument: {PathRegexp: `(?i)/resources?(/|$)|\)/resource$`},
			KindSearch:   {Paths: []string{"/OData/*", "/SyncFeed/*/Feed"}},
		},
	},
	{
		Key: OpenTK, Authority: 4, Name: "OpenTK",
		// Two mirrors of one service, tried in this order.
		BaseURLs: []string{"https://opentk.nl", "https://berthub.eu/tkconv"},
		// One volunteer's server (berthub.eu) with no published limit:
		// 2 requests a second for all our users together, so requests
		// that skip the cache (no-store, Range, a new parameter) never
		// reach it faster, whoever sends them. The per-host search cap
		// below bounds its most expensive work besides.
		Budget: &Budget{Capacity: 2, Window: time.Second},
		// tkconv cuts searches short when more than 5 run at once; 2 per
		// host leaves room for its other users. A search takes seconds,
		// so a waiting one gets longer than the usual 15s.
		Search: Search{Paths: opentkSearches, MaxPerHost: 2, QueueWait: 20 * time.Second},
		Cache: map[string]CacheKind{
			KindList:     {Paths: []string{"/commissie/*", "/commissies.html", "/kamerleden.html", "/personphoto/*"}, TTL: 24 * time.Hour},
			KindDocument: {Paths: []string{"/getraw/*", "/getdoc/*", "/document.html", "/verslag.html"}},
			KindSearch:   {Paths: []string{"/search", "/search/index.xml", "/ksds"}, TTL: 15 * time.Minute},
		},
	},
	{
		Key: OB, Authority: 2, Name: "Officiële Bekendmakingen",
		BaseURLs: []string{"https://repository.overheid.nl"},
		// KOOP limits its SRU service but publishes no number (docs/rules.md,
		// "The platforms and their limits"): a conservative 2 a second.
		Budget: &Budget{Capacity: 2, Window: time.Second},
		Cache: map[string]CacheKind{
			KindList:     {Paths: []string{"/sru"}, Query: map[string]string{"operation": "explain"}},
			KindDocument: {Paths: []string{"/frbr/*"}},
			KindSearch:   {Paths: []string{"/sru"}, Query: map[string]string{"operation": "searchRetrieve"}, TTL: 30 * time.Minute},
		},
	},
	{
		Key: Rechtspraak, Authority: 1, Name: "Rechtspraak",
		BaseURLs: []string{"https://data.rechtspraak.nl"},
		// Self-imposed (docs/rules.md, "The platforms and their limits"): public guidance is "do not hammer",
		// about 10 a second; we keep half of that.
		Budget: &Budget{Capacity: 5, Window: time.Second},
		Cache: map[string]CacheKind{
			KindList:     {Paths: []string{"/Waardelijst/*"}, TTL: 30 * 24 * time.Hour},
			KindDocument: {Paths: []string{"/uitspraken/content", "/uitspraken/image"}},
			KindSearch:   {Paths: []string{"/uitspraken/zoeken"}},
		},
	},
	{
		Key: OA, Authority: 7, Name: "Open Archivaris",
		BaseURLs: []string{"https://openarchivaris.nl"},
		// 120 calls a minute (docs/rules.md, "The platforms and their limits"). Its API is not publicly
		// documented; the paths are those assumed in docs/emulators.md.
		Budget: &Budget{Capacity: 120, Window: time.Minute},
		Cache: map[string]CacheKind{
			KindList:     {Paths: []string{"/api/v1/bodies"}},
			KindDocument: {Paths: []string{"/api/v1/documents/*"}},
			KindSearch:   {Paths: []string{"/api/v1/search"}},
		},
		Tools: ToolsExperimental,
	},
	{
		Key: BWB, Authority: 2, Name: "Wetten (Basiswettenbestand)",
		// KOOP's repository holds each regulation's manifest and its
		// versions (toestanden) at /bwb/...; the search is KOOP's SRU
		// service on another host, mounted at /sru/ (koopSearch).
		BaseURLs: []string{koopRepository},
		Mounts:   []Mount{koopSearch},
		Budget:   koopBudget(),
		Cache: map[string]CacheKind{
			// A manifest lists a regulation's versions and gains one when
			// KOOP publishes it (its tijdstip_toegevoegd: early mornings),
			// so it is kept half a day, served stale while asked again.
			KindList: {Paths: []string{"/bwb/*/manifest.xml"}, TTL: 12 * time.Hour,
				StaleWhileRevalidate: 12 * time.Hour, StaleIfError: 7 * 24 * time.Hour},
			// A version's text does not change once published: a change
			// of the law is a new version with its own address.
			KindDocument: {PathRegexp: `^/bwb/[^/]+/[^/]+/xml/[^/]+\.xml$`, TTL: koopTextTTL,
				StaleWhileRevalidate: 7 * 24 * time.Hour, StaleIfError: 2 * koopTextTTL},
			KindSearch: koopSearchKind,
		},
	},
	{
		Key: CVDR, Authority: 2, Name: "Lokale regelgeving (CVDR)",
		// The same two KOOP hosts as BWB: regulations at /cvdr/..., the
		// SRU search mounted at /sru/.
		BaseURLs: []string{koopRepository},
		Mounts:   []Mount{koopSearch},
		Budget:   koopBudget(),
		Cache: map[string]CacheKind{
			// A regulation's identifier names one version (CVDR100394_2):
			// a change is published as the next one, so a text stays as
			// it was published.
			KindDocument: {Paths: []string{"/cvdr/*"}, TTL: koopTextTTL,
				StaleWhileRevalidate: 7 * 24 * time.Hour, StaleIfError: 2 * koopTextTTL},
			KindSearch: koopSearchKind,
		},
	},
}

// KOOP's laws and local regulations (BWB, CVDR): the texts in its
// repository, the search in its SRU service (docs/rules.md, "The platforms
// and their limits").
var (
	koopRepository = "https://repository.officiele-overheidspublicaties.nl"
	koopSearch     = Mount{Prefix: "/sru/", BaseURLs: []string{"https://zoekservice.overheid.nl"}}
	// Search records are metadata and cheap to ask again: half an hour,
	// as Officiële Bekendmakingen' SRU.
	koopSearchKind = CacheKind{Paths: []string{"/sru/Search"}, Query: map[string]string{"operation": "searchRetrieve"}, TTL: 30 * time.Minute}
	koopTextTTL    = 180 * 24 * time.Hour
)

// koopBudget is the budget of each of BWB and CVDR. KOOP publishes no
// limit for these services, only a fair-use wording (docs/rules.md):
// 2 requests a second, as Officiële Bekendmakingen, which is enough for a
// search or a fetch (manifest and text) at once. Each platform keeps its
// own budget rather than sharing one with ob or with each other: they
// are other hosts (ob's SRU is repository.overheid.nl/sru, these answer
// at zoekservice.overheid.nl and the BWB/CVDR repository), the limit
// KOOP speaks of is ob's, and a shared bucket would let a run of law
// look-ups hold up searches of the official publications. An operator
// lowers or raises it per platform (platform bwb { capacity ... }).
func koopBudget() *Budget { return &Budget{Capacity: 2, Window: time.Second} }

// Clone returns a deep copy of p.
func (p Platform) Clone() Platform {
	p.BaseURLs = append([]string(nil), p.BaseURLs...)
	if p.Mounts != nil {
		mounts := make([]Mount, len(p.Mounts))
		for i, m := range p.Mounts {
			mounts[i] = Mount{Prefix: m.Prefix, BaseURLs: append([]string(nil), m.BaseURLs...)}
		}
		p.Mounts = mounts
	}
	if p.Budget != nil {
		b := *p.Budget
		b.Costs = make([]Cost, len(p.Budget.Costs))
		for i, c := range p.Budget.Costs {
			c.Paths = append([]string(nil), c.Paths...)
			b.Costs[i] = c
		}
		p.Budget = &b
	}
	p.Search.Paths = append([]string(nil), p.Search.Paths...)
	if p.Cache != nil {
		m := make(map[string]CacheKind, len(p.Cache))
		for k, v := range p.Cache {
			v.Paths = append([]string(nil), v.Paths...)
			if v.Query != nil {
				q := make(map[string]string, len(v.Query))
				for qk, qv := range v.Query {
					q[qk] = qv
				}
				v.Query = q
			}
			m[k] = v
		}
		p.Cache = m
	}
	return p
}
