package session

import (
	"sync"
	"time"
)

// Registry remembers the MCP session ids the connectors issued, so other
// modules can tell a real session from a made-up id. It is bounded: past
// its cap the least recently seen id is forgotten. It lives in the process,
// not in a config, so sessions survive a config reload.
type Registry struct {
	mu   sync.Mutex
	ids  map[string]time.Time // id -> last seen
	cap  int
	idle time.Duration
	now  func() time.Time
}

// NewRegistry returns a registry that forgets an id idle for longer than
// idle, and keeps at most max ids.
func NewRegistry(max int, idle time.Duration, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	return &Registry{ids: make(map[string]time.Time), cap: max, idle: idle, now: now}
}

// Issued is the process's registry of MCP session ids: at most 100,000
// sessions, each forgotten after 24 hours without a request.
var Issued = NewRegistry(100_000, 24*time.Hour, nil)

// Add records a newly issued id.
func (g *Registry) Add(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if len(g.ids) >= g.cap {
		g.sweepLocked(now)
	}
	if len(g.ids) >= g.cap {
		g.evictOldestLocked()
	}
	g.ids[id] = now
}

// Has reports whether id was issued and is still live, and marks it seen.
func (g *Registry) Has(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	seen, ok := g.ids[id]
	if !ok {
		return false
	}
	now := g.now()
	if now.Sub(seen) > g.idle {
		delete(g.ids, id)
		return false
	}
	g.ids[id] = now
	return true
}

// Remove forgets id (the client ended its session).
func (g *Registry) Remove(id string) {
	g.mu.Lock()
	delete(g.ids, id)
	g.mu.Unlock()
}

// Len returns the number of ids remembered.
func (g *Registry) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ids)
}

func (g *Registry) sweepLocked(now time.Time) {
	for id, seen := range g.ids {
		if now.Sub(seen) > g.idle {
			delete(g.ids, id)
		}
	}
}

// evictOldestLocked drops the least recently seen tenth of the ids: one
// O(n) pass pays for many Adds.
func (g *Registry) evictOldestLocked() {
	n := len(g.ids)/10 + 1
	for ; n > 0; n-- {
		var oldID string
		var oldest time.Time
		for id, seen := range g.ids {
			if oldID == "" || seen.Before(oldest) {
				oldID, oldest = id, seen
			}
		}
		delete(g.ids, oldID)
	}
}
