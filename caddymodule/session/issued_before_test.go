package session

import (
	"sync"
	"time"
)

// scanRegistry is the registry as it was up to commit f8d6877 (issue 10,
// point 4), kept only so BenchmarkRegistry can measure the old and the new
// side by side in one run. Its eviction scanned the whole map once per
// evicted id, under the lock every request with an Mcp-Session-Id takes.
type scanRegistry struct {
	mu   sync.Mutex
	ids  map[string]time.Time
	cap  int
	idle time.Duration
	now  func() time.Time
}

func newScanRegistry(maxIDs int, idle time.Duration, now func() time.Time) *scanRegistry {
	return &scanRegistry{ids: make(map[string]time.Time), cap: maxIDs, idle: idle, now: now}
}

func (g *scanRegistry) Add(id, _ string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if len(g.ids) >= g.cap {
		for id, seen := range g.ids {
			if now.Sub(seen) > g.idle {
				delete(g.ids, id)
			}
		}
	}
	if len(g.ids) >= g.cap {
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
	g.ids[id] = now
}

func (g *scanRegistry) Has(id string) bool {
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
