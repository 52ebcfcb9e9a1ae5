package cache

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// hotSet holds decoded entries of recently served keys, so that a hit
// writes stored bytes as they are: bigcache copies every value it returns
// (an allocation as large as the body per hit), the hot set does not. It
// is looked up by the raw (unhashed) key, so a hit needs no hashing either.
// It is bounded in bytes and forgets the oldest insertions first. Entries
// are immutable once inserted; every other rule (expiry, version) is
// checked on the entry itself, as for the other tiers.
type hotSet struct {
	mu    sync.RWMutex
	max   int64
	size  int64
	m     map[string]*hotItem // by raw key
	bySum map[string]string   // stored (hashed) key -> raw key
	order []string            // raw keys in insertion order, oldest first from head
	head  int
}

type hotItem struct {
	e    *Entry
	sum  string
	clen string // Content-Length value
	// status caches the last hit Cache-Status (it changes once a second)
	status atomic.Pointer[ttlStatus]
}

type ttlStatus struct {
	ttl int64
	s   string
}

func newHotSet(max int64) *hotSet {
	return &hotSet{max: max, m: map[string]*hotItem{}, bySum: map[string]string{}}
}

func entrySize(e *Entry) int64 {
	n := int64(len(e.Body)) + 256
	for k, vs := range e.Header {
		for _, v := range vs {
			n += int64(len(k) + len(v) + 32)
		}
	}
	return n
}

// getRaw looks up by raw key; string(raw) in a map index does not allocate.
func (h *hotSet) getRaw(raw []byte) *hotItem {
	h.mu.RLock()
	it := h.m[string(raw)]
	h.mu.RUnlock()
	return it
}

func (h *hotSet) put(raw, sum string, e *Entry) {
	sz := entrySize(e)
	if raw == "" || sz > h.max/4 {
		return // one entry never takes more than a quarter of the set
	}
	it := &hotItem{e: e, sum: sum, clen: strconv.Itoa(len(e.Body))}
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.m[raw]; ok {
		h.size -= entrySize(old.e)
		delete(h.bySum, old.sum)
	} else {
		h.order = append(h.order, raw)
	}
	h.m[raw] = it
	h.bySum[sum] = raw
	h.size += sz
	for h.size > h.max && h.head < len(h.order) {
		k := h.order[h.head]
		h.head++
		if old, ok := h.m[k]; ok {
			h.size -= entrySize(old.e)
			delete(h.m, k)
			delete(h.bySum, old.sum)
		}
	}
	if h.head > 1024 && h.head > len(h.order)/2 {
		h.order = append([]string(nil), h.order[h.head:]...)
		h.head = 0
	}
}

// del removes the entry stored under the hashed key sum.
func (h *hotSet) del(sum string) {
	h.mu.Lock()
	if raw, ok := h.bySum[sum]; ok {
		if old, ok := h.m[raw]; ok {
			h.size -= entrySize(old.e)
			delete(h.m, raw)
		}
		delete(h.bySum, sum)
	}
	h.mu.Unlock()
}

func (h *hotSet) clear() {
	h.mu.Lock()
	h.m = map[string]*hotItem{}
	h.bySum = map[string]string{}
	h.order = nil
	h.head = 0
	h.size = 0
	h.mu.Unlock()
}

func (h *hotSet) len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.m)
}

func (h *hotSet) bytes() int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.size
}

// hitStatus returns the item's hit Cache-Status for ttl, built once a
// second.
func (it *hotItem) hitStatus(ttl int64) string {
	if p := it.status.Load(); p != nil && p.ttl == ttl {
		return p.s
	}
	s := hitStatus(ttl)
	it.status.Store(&ttlStatus{ttl: ttl, s: s})
	return s
}
