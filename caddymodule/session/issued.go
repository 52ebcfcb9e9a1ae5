package session

import (
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
type Registry struct {
	mu   sync.Mutex
	ids  map[string]*entry
	head entry // sentinel: head.next is the most recently seen, head.prev the least
	cap  int
	idle time.Duration
	now  func() time.Time

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
}

// NewRegistry returns a registry that forgets an id idle for longer than
// idle, and keeps at most maxIDs ids (at least 1).
func NewRegistry(maxIDs int, idle time.Duration, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	g := &Registry{ids: make(map[string]*entry), cap: max(maxIDs, 1), idle: idle, now: now}
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
// its entry, or nil when another connector issued it.
func (g *Registry) addLocked(id, issuer string, now time.Time) *entry {
	if e, ok := g.ids[id]; ok {
		if e.issuer != issuer {
			return nil
		}
		e.seen = now
		g.toFront(e)
		return e
	}
	// Expired ids leave from the tail, one Add at a time: each id is
	// removed once, so this is O(1) amortised.
	g.expireLocked(now)
	var e *entry
	if len(g.ids) >= g.cap {
		// Forget the least recently seen and reuse its entry: at the cap,
		// where a flood of new sessions lands, Add allocates nothing.
		e = g.head.prev
		g.removeLocked(e)
		*e = entry{id: id, issuer: issuer, seen: now}
	} else {
		e = &entry{id: id, issuer: issuer, seen: now}
	}
	g.ids[id] = e
	g.link(e)
	return e
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
}

// link puts e at the front (most recently seen).
func (g *Registry) link(e *entry) {
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
	g.link(e)
}
