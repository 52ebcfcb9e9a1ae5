package session

import (
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Registry remembers the MCP session ids the connectors issued and which
// connector issued each. A connector accepts only its own ids (IssuedBy),
// so an id from /mcp/raad is unknown at /mcp/rijk; the other modules ask
// only whether some connector issued an id (Has), to tell a real session
// from a made-up one before the request reaches a connector. It is bounded: past
// its cap the least recently seen id is forgotten, and an id idle for
// longer than the idle time is forgotten too. The besluitbron app keeps one
// in a caddy.UsagePool (app.App.Sessions), not per config, so sessions
// survive a config reload.
//
// Every request carrying an Mcp-Session-Id takes the registry's one lock,
// so every operation is O(1): a map from id to entry, and the entries in
// an intrusive doubly linked list from most to least recently seen. The
// least recently seen id is the list's tail, so eviction and idle expiry
// look only there (no scan of the map under the lock).
//
// It is fair per address: the ids issued to one client address (an IPv6
// address's /64) are also kept in a list of their own, newest first, and
// one address holds at most its share of them (AddrShareDivisor). An
// address at its share that is issued another id loses its own newest
// one, so an address minting initialize calls churns one place of its own
// and never pushes out other addresses' sessions, nor its own established
// ones. The same holds one level up for IPv6, per site (an address's
// /48, SiteShareDivisor), so a client cycling through the /64s of its
// /56 or /48 cannot fill the registry either. Each id is in at most one
// list of each level, linked through the entry itself: issuing, giving
// way and forgetting stay O(1).
type Registry struct {
	mu     sync.Mutex
	ids    map[string]*entry
	head   entry // sentinel: head.next is the most recently seen, head.prev the least
	cap    int
	share  [levels]int                // most ids one address, one site may hold
	groups [levels]map[string]*issued // the ids issued per address, per site
	// trusted are the operator's trusted sources (SetTrusted): a gateway
	// whose sessions are clients of their own holds any number of them.
	trusted atomic.Pointer[[]netip.Prefix]
	idle    time.Duration
	now     func() time.Time

	// sh is the Redis side when several instances share a store (Share),
	// nil when this instance runs alone: then every method is as before.
	sh      atomic.Pointer[shared]
	shareMu sync.Mutex // serialises Share
}

// touchEvery is how stale an id's last sight may be before a lookup
// records a new one. One MCP request looks its id up about three times
// (client_limit, the fair queue, mcp-go's validation) within microseconds;
// only the first moves the entry to the front. The order and the idle
// expiry stay exact to this granularity, and the list stays sorted by
// last sight.
const touchEvery = time.Second

// entry is one id in the recency list.
type entry struct {
	id         string
	issuer     string // the connector that issued id
	seen       time.Time
	prev, next *entry

	// With a shared store: the key's TTL in Redis (the issuing
	// connector's idle time), when this instance last refreshed it there,
	// and whether it still has to be written (issued while Redis was
	// unreachable).
	ttl     time.Duration
	synced  time.Time
	pending bool

	// in places the id in its address's and its site's list (groupKeys);
	// a level's key is "" when it has none (no address known: learned
	// from the shared store, issued without a request, from a trusted
	// source; no site: IPv4).
	in [levels]membership
}

// The levels at which ids are counted against a share: the address (an
// IPv6 address's /64) and, for IPv6, the site (its /48).
const (
	byAddr = iota
	bySite
	levels
)

// membership is an entry's place in one level's list: the group's key and
// its neighbours in order of issue.
type membership struct {
	key          string
	newer, older *entry
}

// issued is one address's or one site's ids: how many, and the newest
// (the list runs through entry.in[level].older).
type issued struct {
	n      int
	newest *entry
}

// AddrShareDivisor bounds one address's share of the registry: at most
// 1/AddrShareDivisor of its ids (1,000 of the default 100,000), at least
// 1. It takes a hundred addresses to fill the registry, while an office
// or a NAT with many assistants behind one address keeps ample room: a
// client holds one session at a time, and an idle one is forgotten after
// DefaultIdle.
const AddrShareDivisor = 100

// SiteShareDivisor bounds one IPv6 site's share (the addresses of one
// /48, the allocation for one site: RIPE-690 gives a business a /48 and a
// home a /56 or a /48): at most 1/SiteShareDivisor of the registry (5,000
// of 100,000 ids, five /64s' worth), at least one address's share. An
// organisation with several busy subnets keeps room, while a client with
// a /56 (256 /64s, each with an address's share) or a whole /48 holds 5%
// of the registry however it spreads over its /64s: filling it takes
// twenty sites.
const SiteShareDivisor = 20

// IPv6SiteBits is the prefix that makes one site (SiteShareDivisor).
const IPv6SiteBits = 48

// NewRegistry returns a registry that forgets an id idle for longer than
// idle, and keeps at most maxIDs ids (at least 1).
func NewRegistry(maxIDs int, idle time.Duration, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	perAddr := max(maxIDs/AddrShareDivisor, 1)
	g := &Registry{ids: make(map[string]*entry), cap: max(maxIDs, 1), idle: idle, now: now,
		share:  [levels]int{perAddr, max(maxIDs/SiteShareDivisor, perAddr)},
		groups: [levels]map[string]*issued{make(map[string]*issued), make(map[string]*issued)}}
	g.head.prev, g.head.next = &g.head, &g.head
	return g
}

// DefaultMaxIDs and DefaultIdle bound the registry the besluitbron app
// keeps (app.App.Sessions): at most 100,000 sessions, each forgotten after
// 24 hours without a request.
const (
	DefaultMaxIDs = 100_000
	DefaultIdle   = 24 * time.Hour
)

// Destruct lets the registry live in a caddy.UsagePool: it stops
// listening to the shared store, if any.
func (g *Registry) Destruct() error {
	g.Share(nil)
	return nil
}

// Add records id as issued by the named connector (or marks a known id
// seen), with the registry's idle time as its lifetime in a shared store.
// An id keeps the connector that first issued it: a second Add under
// another name does not move it there.
func (g *Registry) Add(id, issuer string) { g.Issue(id, issuer, 0) }

// addLocked records id as issued by issuer (or marks it seen) and returns
// its entry, or nil when another connector issued it. keys are the
// address and the site the id is issued to (groupKeys, made before the
// lock; zero when not known); when either was at its share, the
// address's (or else the site's) newest id was forgotten to make room and
// is returned as gave (with its issuer).
func (g *Registry) addLocked(id, issuer string, keys [levels]string, now time.Time) (e *entry, gave, gaveIssuer string) {
	if e, ok := g.ids[id]; ok {
		if e.issuer != issuer {
			return nil, "", ""
		}
		e.seen = now
		g.toFront(e)
		return e, "", ""
	}
	// Expired ids leave from the tail, one Add at a time: each id is
	// removed once, so this is O(1) amortised.
	g.expireLocked(now)
	// The address at its share gives way first, then the site: each time
	// the group's own newest id (its entry reused), never another
	// group's, and never the group's established ones.
	for level, key := range keys {
		if a := g.groups[level][key]; a != nil && a.n >= g.share[level] {
			e = a.newest
			gave, gaveIssuer = e.id, e.issuer
			break
		}
	}
	if e == nil && len(g.ids) >= g.cap {
		// Forget the least recently seen and reuse its entry: at the cap,
		// where a flood of new sessions lands, Add allocates nothing.
		e = g.head.prev
	}
	if e != nil {
		g.removeLocked(e)
		*e = entry{id: id, issuer: issuer, seen: now}
	} else {
		e = &entry{id: id, issuer: issuer, seen: now}
	}
	for level, key := range keys {
		e.in[level].key = key
	}
	g.ids[id] = e
	g.link(e)
	return e, gave, gaveIssuer
}

// groupKeys returns the address and the site an id issued to addr counts
// against: an IPv6 address's /64 and /48, an IPv4 address (or an
// IPv4-mapped one) as itself with no site, "" for no address
// (AddrGroup, the rule the fair queue and client_limit share).
func groupKeys(addr string) (keys [levels]string) {
	keys[byAddr] = AddrGroup(addr, IPv6ClientBits)
	if strings.Contains(keys[byAddr], "/") { // an IPv6 network
		keys[bySite] = AddrGroup(addr, IPv6SiteBits)
	}
	return keys
}

// Has reports whether some connector issued id and it is still live, and
// marks it seen. The fair queue and the inbound limits ask this: they run
// before the request reaches a connector.
func (g *Registry) Has(id string) bool {
	if sh := g.sh.Load(); sh != nil {
		return g.check(sh, id, "", false) == Known
	}
	return g.HasLocal(id)
}

// HasLocal reports whether this instance knows id as a live session (it
// issued it, or looked it up in the shared store before), without asking
// the shared store.
func (g *Registry) HasLocal(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.ids[id]
	return ok && g.liveLocked(e)
}

// IssuedBy reports whether the named connector issued id and it is still
// live, and marks it seen. An id another connector issued is unknown here
// and is left as it was.
func (g *Registry) IssuedBy(id, issuer string) bool {
	if sh := g.sh.Load(); sh != nil {
		return g.check(sh, id, issuer, true) == Known
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.ids[id]
	return ok && e.issuer == issuer && g.liveLocked(e)
}

// liveLocked forgets e if it has been idle too long, else marks it seen
// (at touchEvery granularity), and reports whether it is still live.
func (g *Registry) liveLocked(e *entry) bool {
	now := g.now()
	switch age := now.Sub(e.seen); {
	case age > g.idle:
		g.removeLocked(e)
		return false
	case age >= touchEvery:
		e.seen = now
		g.toFront(e)
	}
	return true
}

// Remove forgets id here (the client ended its session, or the connector
// swept it as idle) if the named connector issued it, and reports whether
// it did: a connector cannot end another connector's session. With a
// shared store the id stays valid on the other instances; End ends it
// everywhere.
func (g *Registry) Remove(id, issuer string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.ids[id]
	if !ok || e.issuer != issuer {
		return false
	}
	g.removeLocked(e)
	return true
}

// Len returns the number of ids remembered (expired ones included until
// they are next looked at or pushed out).
func (g *Registry) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ids)
}

// expireLocked drops idle ids from the tail, stopping at the first live
// one. The list is in order of last sight, so with a clock that does not
// go back every expired id is behind every live one.
func (g *Registry) expireLocked(now time.Time) {
	for e := g.head.prev; e != &g.head && now.Sub(e.seen) > g.idle; e = g.head.prev {
		g.removeLocked(e)
	}
}

func (g *Registry) removeLocked(e *entry) {
	delete(g.ids, e.id)
	g.unlink(e)
	for level := range e.in {
		m := &e.in[level]
		if m.key == "" {
			continue
		}
		a := g.groups[level][m.key]
		if m.newer != nil {
			m.newer.in[level].older = m.older
		} else {
			a.newest = m.older
		}
		if m.older != nil {
			m.older.in[level].newer = m.newer
		}
		m.newer, m.older = nil, nil
		if a.n--; a.n == 0 {
			delete(g.groups[level], m.key)
		}
	}
}

// link puts a new e at the front (most recently seen), and at the front
// of its address's and its site's ids (newest).
func (g *Registry) link(e *entry) {
	g.linkRecent(e)
	for level := range e.in {
		m := &e.in[level]
		if m.key == "" {
			continue
		}
		a := g.groups[level][m.key]
		if a == nil {
			a = &issued{}
			g.groups[level][m.key] = a
		}
		m.older = a.newest
		if a.newest != nil {
			a.newest.in[level].newer = e
		}
		a.newest = e
		a.n++
	}
}

// linkRecent puts e at the front of the recency list.
func (g *Registry) linkRecent(e *entry) {
	e.prev, e.next = &g.head, g.head.next
	g.head.next.prev = e
	g.head.next = e
}

func (g *Registry) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil // no dangling pointers keep neighbours alive
}

func (g *Registry) toFront(e *entry) {
	if g.head.next == e {
		return
	}
	g.unlink(e)
	g.linkRecent(e)
}
