package session

import (
	"net/netip"
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
// one address holds at most perAddr of them (AddrShareDivisor). An address
// at its share that is issued another id loses its own newest one, so an
// address minting initialize calls churns one place of its own and never
// pushes out other addresses' sessions, nor its own established ones.
type Registry struct {
	mu      sync.Mutex
	ids     map[string]*entry
	head    entry // sentinel: head.next is the most recently seen, head.prev the least
	cap     int
	perAddr int
	addrs   map[string]*addrIDs
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

	// addr is the address (addrKey) the id was issued to, "" when not
	// known (learned from the shared store, issued without a request);
	// newer and older link the address's ids in order of issue.
	addr         string
	newer, older *entry
}

// addrIDs is one address's issued ids: how many, and the newest (its list
// runs through entry.older).
type addrIDs struct {
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

// NewRegistry returns a registry that forgets an id idle for longer than
// idle, and keeps at most maxIDs ids (at least 1).
func NewRegistry(maxIDs int, idle time.Duration, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	g := &Registry{ids: make(map[string]*entry), cap: max(maxIDs, 1), idle: idle, now: now,
		perAddr: max(maxIDs/AddrShareDivisor, 1), addrs: make(map[string]*addrIDs)}
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
// its entry, or nil when another connector issued it. addr is the client
// address the id is issued to ("" when not known); when it was at its
// share, the address's newest id was forgotten to make room and is
// returned as gave (with its issuer).
func (g *Registry) addLocked(id, issuer, addr string, now time.Time) (e *entry, gave, gaveIssuer string) {
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
	addr = addrKey(addr)
	switch a := g.addrs[addr]; {
	case a != nil && a.n >= g.perAddr:
		// The address is at its share: its own newest id gives way (and
		// its entry is reused), never another address's.
		e = a.newest
		gave, gaveIssuer = e.id, e.issuer
	case len(g.ids) >= g.cap:
		// Forget the least recently seen and reuse its entry: at the cap,
		// where a flood of new sessions lands, Add allocates nothing.
		e = g.head.prev
	}
	if e != nil {
		g.removeLocked(e)
		*e = entry{id: id, issuer: issuer, seen: now, addr: addr}
	} else {
		e = &entry{id: id, issuer: issuer, seen: now, addr: addr}
	}
	g.ids[id] = e
	g.link(e)
	return e, gave, gaveIssuer
}

// addrKey is the address an id counts against: an IPv6 address's /64
// (one subscriber's usual allocation, which one client can cycle through
// at will), any other address as it is ("" stays "": no address).
func addrKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil || !ip.Unmap().Is6() {
		return addr
	}
	p, _ := ip.Prefix(64)
	return p.String()
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
	if e.addr == "" {
		return
	}
	a := g.addrs[e.addr]
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		a.newest = e.older
	}
	if e.older != nil {
		e.older.newer = e.newer
	}
	e.newer, e.older = nil, nil
	if a.n--; a.n == 0 {
		delete(g.addrs, e.addr)
	}
}

// link puts a new e at the front (most recently seen), and at the front
// of its address's ids (newest).
func (g *Registry) link(e *entry) {
	g.linkRecent(e)
	if e.addr == "" {
		return
	}
	a := g.addrs[e.addr]
	if a == nil {
		a = &addrIDs{}
		g.addrs[e.addr] = a
	}
	e.older = a.newest
	if a.newest != nil {
		a.newest.newer = e
	}
	a.newest = e
	a.n++
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
