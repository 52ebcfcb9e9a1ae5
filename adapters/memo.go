package adapters

import (
	"sync"
	"time"
)

// MemoTTL is how long a Memo keeps a value: the reference data it holds
// (the Tweede Kamer's OData schema, the courts, organisation names)
// changes in months, and the platform cache behind it keeps it longer.
const MemoTTL = time.Hour

// Memo remembers small reference data by key for MemoTTL, so a check or a
// search that needs it does not cost a platform call each time. The MCP
// connectors, the fan-out search and the site's reader each hold one; the
// data is fetched through the platform route like any call.
type Memo struct {
	mu sync.Mutex
	m  map[string]memoEntry
	// version counts the Puts (Stamp).
	version uint64
}

type memoEntry struct {
	v  any
	at time.Time
}

// Get returns the value under key if it is younger than MemoTTL at now.
func (m *Memo) Get(key string, now time.Time) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.m[key]
	if !ok || now.Sub(e.at) > MemoTTL {
		return nil, false
	}
	return e.v, true
}

// Put keeps v under key from now.
func (m *Memo) Put(key string, v any, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]memoEntry{}
	}
	m.m[key] = memoEntry{v: v, at: now}
	m.version++
}

// Stamp tells what Get returns at now, for a value derived from it (the
// MCP connectors keep encoded tool results): Get answers every key as at
// now until the version changes (a Put) or until, when it is not zero, a
// value it returns at now reaches MemoTTL.
func (m *Memo) Stamp(now time.Time) (version uint64, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.m {
		if end := e.at.Add(MemoTTL); !now.After(end) && (until.IsZero() || end.Before(until)) {
			until = end
		}
	}
	return m.version, until
}
