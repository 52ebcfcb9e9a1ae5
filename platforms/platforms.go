// Package platforms is the one table of the public platforms
// BesluitBron fronts: per platform its key, name, default base URLs, the
// budget BesluitBron keeps and its prices, its searches and per-host caps,
// its cache kinds and lifetimes, and whether the MCP connectors offer its
// tools by default, each default next to its reason (defaults.go). It also
// names the headers BesluitBron's own modules exchange on a platform route.
//
// It is Caddy-free, so mechanisms, emulators and the MCP tools share one
// list. It never reads the environment: the default Caddyfile passes the
// BESLUITBRON_<KEY>_URL variables as {$VAR} placeholders into the
// besluitbron app (caddymodule/app), which lays them over this table.
package platforms

import "strings"

// Platform is one upstream data platform.
type Platform struct {
	// Key is the short name used in paths (/platforms/{key}/...), cache
	// names, budgets and metric labels.
	Key string
	// Name is the platform's public name.
	Name string
	// BaseURLs are the default upstream base URLs, scheme, host and path
	// prefix, in failover order. Only OpenTK has two.
	BaseURLs []string
	// Mounts send the paths below a prefix to other hosts than BaseURLs:
	// one platform route over a service that lives on two hosts (KOOP's
	// SRU search and its repository of texts). A base URL the
	// configuration sets replaces the mounts too: one mirror or emulator
	// then serves every path.
	Mounts []Mount
	// Budget is the outbound budget BesluitBron keeps, nil when the
	// platform asks for none.
	Budget *Budget
	// Search names the platform's read-only searches and their per-host
	// cap.
	Search Search
	// Cache maps each cache kind (list, document, search, other) to the
	// requests it takes and their lifetimes; a kind missing here takes no
	// request (other: everything unmatched) with the generic lifetimes.
	Cache map[string]CacheKind
	// Tools says whether MCP connectors offer the platform's tools when
	// their platforms option is left out; the fan-out searches the
	// ToolsDefault ones when asked for no platforms.
	Tools ToolSet
	// Order places the platform in the table: lists (the fan-out's
	// platforms, /status, docs) go by Order, then key.
	Order int
	// Authority ranks the platform as the source that stands for a
	// document the fan-out found on several (1: most official, the
	// court's, the publisher's or the House's own; mirrors and
	// aggregators after).
	Authority int
}

// Mount is a path prefix of a platform and the base URLs, in failover
// order, that serve it: a request whose path (below the route) starts
// with Prefix goes there, its path appended unchanged.
type Mount struct {
	Prefix   string
	BaseURLs []string
}

// BaseURLsFor returns the base URLs that serve reqPath: the first mount
// whose prefix it starts with, else BaseURLs.
func (p Platform) BaseURLsFor(reqPath string) []string {
	for _, m := range p.Mounts {
		if strings.HasPrefix(reqPath, m.Prefix) {
			return m.BaseURLs
		}
	}
	return p.BaseURLs
}

// The keys of the platforms.
const (
	ORI         = "ori"
	OBV         = "obv"
	TK          = "tk"
	OpenTK      = "opentk"
	OB          = "ob"
	Rechtspraak = "rechtspraak"
	OA          = "oa"
	BWB         = "bwb"
	CVDR        = "cvdr"
)

// All returns the platforms in a fixed order, deep copies of the
// table: a caller may change them freely.
func All() []Platform {
	table := rows()
	out := make([]Platform, len(table))
	for i, p := range table {
		out[i] = p.Clone()
	}
	return out
}

// Get returns (a deep copy of) the platform with the given key.
func Get(key string) (Platform, bool) {
	for _, p := range rows() {
		if p.Key == key {
			return p.Clone(), true
		}
	}
	return Platform{}, false
}

// Known tells whether key names a platform, without Get's copy (the
// sub-request of every tool call asks).
func Known(key string) bool {
	for _, p := range rows() {
		if p.Key == key {
			return true
		}
	}
	return false
}

// AuthorityOf is the platform's Authority, 0 for an unknown key.
func AuthorityOf(key string) int {
	for _, p := range rows() {
		if p.Key == key {
			return p.Authority
		}
	}
	return 0
}

// DefaultTools returns the keys of the platforms whose tools come on by
// default (the live ones no operator has to opt into), in table order.
func DefaultTools() []string {
	var keys []string
	for _, p := range rows() {
		if p.Tools == ToolsDefault {
			keys = append(keys, p.Key)
		}
	}
	return keys
}

// Keys returns the keys in a fixed order.
func Keys() []string {
	table := rows()
	keys := make([]string, len(table))
	for i, p := range table {
		keys[i] = p.Key
	}
	return keys
}

// Headers BesluitBron's modules set on a platform route's answers.
const (
	// HeaderQueueWait is set by platform_limit on answers that passed the
	// platform's budget: the time the call waited for room, in
	// milliseconds. The cache never stores it.
	HeaderQueueWait = "Besluitbron-Queue-Wait"
)
