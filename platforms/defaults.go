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
