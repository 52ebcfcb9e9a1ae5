package cache

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
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
//
// A hit's Cache-Status ttl and Age move with the clock while the entry
// stays the same; State tells them as Serve would write them now, so a
// connector can write them into an answer kept longer than a second.

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
	// hdr is the header map of the ResponseWriter the hit was written
	// to: it tells which answer of the caller's was this hit (Wrote).
	hdr http.Header
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
	ttl, age, ok := h.State()
	return ok && ttl == h.ttl && age == h.age
}

// State tells whether Serve would answer the request again, now, from the
// same entry of the hot set (not stored anew, purged, evicted or expired,
// of the store's version): the same status, body and headers but for the
// Cache-Status ttl and the Age, which it returns as Serve would write them
// now.
func (h *Hit) State() (ttl, age int64, ok bool) {
	it := h.s.hot.get(h.raw)
	if it != h.it || it.e.Version != h.s.Version() {
		return 0, 0, false
	}
	now := h.s.clock()
	if !now.Before(it.e.Expires) {
		return 0, 0, false
	}
	return ttlSeconds(it.e.Expires.Sub(now)), ageSeconds(it.e, now), true
}

// TTL is the Cache-Status ttl the hit was answered with.
func (h *Hit) TTL() int64 { return h.ttl }

// Age is the Age the hit was answered with.
func (h *Hit) Age() int64 { return h.age }

// Wrote tells whether the hit was written to a ResponseWriter whose
// header map is hdr (the same map, not an equal one).
func (h *Hit) Wrote(hdr http.Header) bool {
	return h.hdr != nil && hdr != nil && reflect.ValueOf(h.hdr).UnsafePointer() == reflect.ValueOf(hdr).UnsafePointer()
}

// AppendHitStatus appends the Cache-Status of a hit with ttl to b, the
// bytes of CacheStatus.
func AppendHitStatus(b []byte, ttl int64) []byte {
	b = append(b, cachestatus.Name+"; hit; ttl="...)
	return strconv.AppendInt(b, ttl, 10)
}

// Count counts the hit in the store's figures, as Serve counts one.
func (h *Hit) Count() { h.s.note(h.kind, "hit") }

// ageSeconds is the Age of an answer from e at now (writeEntry's).
func ageSeconds(e *Entry, now time.Time) int64 {
	return max(int64(now.Sub(e.StoredAt)/time.Second), 0)
}
