package cache

import (
	"context"
	"sync"
	"time"
)

// Recorded hits (issue 33). An MCP connector keeps the encoded answer of a
// cached tools/call (mcp/resultmemo.go) and writes it again while the
// platform answers behind it would be answered again with the same bytes
// and headers. It learns which answers those were by recording them: the
// requests made with a context marked WithHitRecorder note each time they
// reach Serve, and each hit answered from the hot set. A Hit then tells,
// without running the route, whether Serve would answer the same request
// the same way now: the hot set still holds the same entry (not refreshed,
// replaced, purged or evicted since), of the store's version, fresh, with
// the same ttl in Cache-Status and the same Age. Anything else Serve could
// answer (a stale entry, a hit from the other tiers, a miss) is recorded
// as a request without a Hit, and the connector keeps nothing.

// HitRecorder collects the hits of the requests made with its context.
type HitRecorder struct {
	mu       sync.Mutex
	requests int
	hits     []Hit
}

type hitRecorderKey struct{}

// WithHitRecorder marks the requests made with ctx to be recorded in rec.
func WithHitRecorder(ctx context.Context, rec *HitRecorder) context.Context {
	return context.WithValue(ctx, hitRecorderKey{}, rec)
}

func hitRecorderOf(ctx context.Context) *HitRecorder {
	rec, _ := ctx.Value(hitRecorderKey{}).(*HitRecorder)
	return rec
}

// Hits returns the hits recorded, and whether every request that reached a
// store was one of them.
func (rec *HitRecorder) Hits() ([]Hit, bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Hit(nil), rec.hits...), len(rec.hits) == rec.requests
}

func (rec *HitRecorder) request() {
	rec.mu.Lock()
	rec.requests++
	rec.mu.Unlock()
}

func (rec *HitRecorder) hit(h Hit) {
	rec.mu.Lock()
	rec.hits = append(rec.hits, h)
	rec.mu.Unlock()
}

// Hit is one answer Serve gave from the hot set.
type Hit struct {
	s    *Store
	raw  string
	it   *hotItem
	kind string
	ttl  int64 // Cache-Status's ttl
	age  int64 // Age
}

// Platform is the platform of the store that answered.
func (h *Hit) Platform() string { return h.s.platform }

// Status is the stored answer's status code.
func (h *Hit) Status() int { return h.it.e.Status }

// CacheStatus is the Cache-Status the hit was answered with.
func (h *Hit) CacheStatus() string { return hitStatus(h.ttl) }

// Holds tells whether Serve would answer the request again, now, with the
// same status, headers and body, from the hot set.
func (h *Hit) Holds() bool {
	it := h.s.hot.get(h.raw)
	if it != h.it || it.e.Version != h.s.Version() {
		return false
	}
	now := h.s.clock()
	return now.Before(it.e.Expires) && ttlSeconds(it.e.Expires.Sub(now)) == h.ttl && ageSeconds(it.e, now) == h.age
}

// Count counts the hit in the store's figures, as Serve counts one.
func (h *Hit) Count() { h.s.note(h.kind, "hit") }

// ageSeconds is the Age of an answer from e at now (writeEntry's).
func ageSeconds(e *Entry, now time.Time) int64 {
	return max(int64(now.Sub(e.StoredAt)/time.Second), 0)
}
