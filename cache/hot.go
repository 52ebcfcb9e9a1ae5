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
	// order holds the insertions, oldest first from head. A place whose
	// item is no longer the one in m (deleted or replaced since) is dead:
	// eviction skips it, and compaction drops dead places once they
	// outnumber the live ones, so order stays within 2×len(m)+slack.
	order []hotPlace
	head  int
}

// hotPlace is one insertion: the item, compared by identity, tells
// whether the place is still live.
type hotPlace struct {
	raw string
	it  *hotItem
}

// hotOrderSlack is how many dead places order may hold beyond the live
// ones before it is compacted (amortises the copy).
const hotOrderSlack = 1024

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

// get looks up by raw key held as a string.
func (h *hotSet) get(raw string) *hotItem {
	h.mu.RLock()
	it := h.m[raw]
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
	}
	// A replaced entry is a new insertion: its old place is dead now.
	h.order = append(h.order, hotPlace{raw: raw, it: it})
	h.m[raw] = it
	h.bySum[sum] = raw
	h.size += sz
	for h.size > h.max && h.head < len(h.order) {
		p := h.order[h.head]
		h.order[h.head] = hotPlace{} // let the item go
		h.head++
		if h.m[p.raw] == p.it {
			h.size -= entrySize(p.it.e)
			delete(h.m, p.raw)
			delete(h.bySum, p.it.sum)
		}
	}
	h.compactLocked()
}

// compactLocked drops the evicted head and the dead places once they
// outnumber the live ones (by more than the slack): amortised O(1) per put
// or del.
func (h *hotSet) compactLocked() {
	if len(h.order)-h.head <= 2*len(h.m)+hotOrderSlack && (h.head <= hotOrderSlack || h.head <= len(h.order)/2) {
		return
	}
	live := make([]hotPlace, 0, 2*len(h.m)+1)
	for _, p := range h.order[h.head:] {
		if p.it != nil && h.m[p.raw] == p.it {
			live = append(live, p)
		}
	}
	h.order, h.head = live, 0
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
		h.compactLocked() // its place in order is dead now
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
