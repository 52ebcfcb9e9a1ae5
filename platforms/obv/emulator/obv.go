// Package emulator emulates OpenBesluitvorming (openbesluitvorming.nl): the
// public JSON API under /api/ with its validation errors, entity detail,
// PDF page images, sources, stats, status, the NDJSON export, and its
// weighted token bucket per client IP with RateLimit-* headers and 429s.
//
// Data is generated from a seed for the 330 organisations of the corpus
// package; a source's meetings, documents and motions are built the first
// time something asks for that source.
package emulator

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/emulators/fault"
)

// Rate-limit constants of the real platform (OpenBesluitvorming's web/rate_limit.ts).
const (
	// Capacity is the bucket size in units; it is also the per-minute rate.
	Capacity = 60
	// PageUnit is the number of search results that cost one unit.
	PageUnit = 24
	// PDFPageCost is the cost of one rendered PDF page.
	PDFPageCost = 1.0 / 8
)

// Hint429 is the full hint of the 429 body.
const Hint429 = "Zware verzoeken tellen zwaarder: een zoekopdracht kost 1 eenheid per 24 resultaten, dus limit=100 kost 5. Verlaag 'limit' of spreid je verzoeken. Elke API-response bevat RateLimit-Limit, RateLimit-Remaining en RateLimit-Reset."

// Config configures the emulator.
type Config struct {
	// Seed chooses the generated data.
	Seed int64
	// Clock is the clock (nil = clock.Wall). The rate limiter, the status
	// page and what is already indexed follow it.
	Clock clock.Clock
	// NoRateLimit turns the token bucket off (headers are still sent).
	NoRateLimit bool
	// LargeExport, when set, makes the export endpoints serve a large
	// generated change log instead of the small corpus's (bigexport.go).
	LargeExport *LargeExport
}

// Emulator is the OpenBesluitvorming emulator. It implements http.Handler.
type Emulator struct {
	cfg  Config
	now  func() time.Time
	data *dataset
	big  *bigExport // nil unless Config.LargeExport

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time

	logs sync.Map // source key → *changeLog

	limited atomic.Int64 // 429 answers
	charged atomic.Int64 // units charged, in 1/8 units
}

type bucket struct {
	tokens  float64
	updated time.Time
}

// New returns the emulator as an http.Handler (an *Emulator).
func New(cfg Config) http.Handler { return NewEmulator(cfg) }

// NewEmulator returns the emulator with its Go API.
func NewEmulator(cfg Config) *Emulator {
	now := clock.Or(cfg.Clock).Now
	e := &Emulator{cfg: cfg, now: now, data: sharedDataset(cfg.Seed), buckets: map[string]*bucket{}}
	if cfg.LargeExport != nil {
		e.big = newBigExport(cfg.Seed, *cfg.LargeExport)
	}
	return e
}

// Limited returns how many requests were answered 429.
func (e *Emulator) Limited() int64 { return e.limited.Load() }

// EmulatorStats reports the rate limiter's figures (see fault.Reporter).
func (e *Emulator) EmulatorStats() map[string]any {
	e.mu.Lock()
	clients := len(e.buckets)
	e.mu.Unlock()
	return map[string]any{
		"rate_limited":        e.limited.Load(),
		"units_charged":       float64(e.charged.Load()) / 8,
		"rate_limit_clients":  clients,
		"rate_limit_capacity": Capacity,
	}
}

// ResetEmulator empties the rate limiter's state and counters (see
// fault.Resetter).
func (e *Emulator) ResetEmulator() {
	e.mu.Lock()
	e.buckets = map[string]*bucket{}
	e.mu.Unlock()
	e.limited.Store(0)
	e.charged.Store(0)
}

// Cost returns the units a request costs: a search ceil(limit/24) (at
// least 1; an unparsable or non-positive limit costs 1), a PDF page 1/8,
// any other /api/ path 1, anything else 0.
func Cost(r *http.Request) float64 {
	p := r.URL.Path
	switch {
	case p == "/api/search":
		raw := r.URL.Query().Get("limit")
		if raw == "" {
			return 1
		}
		l, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || l <= 0 || math.IsInf(l, 0) || math.IsNaN(l) {
			return 1
		}
		return math.Max(1, math.Ceil(l/PageUnit))
	case strings.HasPrefix(p, "/api/entities/") && strings.Contains(p, "/pdf/page/"):
		return PDFPageCost
	case strings.HasPrefix(p, "/api/"):
		return 1
	}
	return 0
}

type verdict struct {
	allowed    bool
	remaining  int
	reset      int
	retryAfter int
}

const perSecond = Capacity / 60.0

func (e *Emulator) consume(key string, cost float64) verdict {
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if now.Sub(e.swept) >= time.Minute {
		e.swept = now
		for k, b := range e.buckets {
			if now.Sub(b.updated) > 2*time.Minute {
				delete(e.buckets, k)
			}
		}
	}
	b, ok := e.buckets[key]
	if !ok {
		b = &bucket{tokens: Capacity, updated: now}
		e.buckets[key] = b
	}
	if el := now.Sub(b.updated).Seconds(); el > 0 {
		b.tokens = math.Min(Capacity, b.tokens+el*perSecond)
	}
	b.updated = now
	v := verdict{allowed: b.tokens >= cost-1e-9}
	if v.allowed {
		b.tokens = math.Max(0, b.tokens-cost)
	} else {
		v.retryAfter = max(1, int(math.Ceil((cost-b.tokens)/perSecond)))
	}
	v.remaining = int(math.Floor(b.tokens + 1e-9))
	v.reset = int(math.Ceil((Capacity - b.tokens) / perSecond))
	return v
}

// ServeHTTP routes the request.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if cost := Cost(r); cost > 0 {
		v := verdict{allowed: true, remaining: Capacity}
		if !e.cfg.NoRateLimit {
			v = e.consume(fault.ClientAddress(r), cost)
		}
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(Capacity))
		h.Set("RateLimit-Remaining", strconv.Itoa(v.remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(v.reset))
		if !v.allowed {
			e.limited.Add(1)
			h.Set("Retry-After", strconv.Itoa(v.retryAfter))
			writeJSON(w, http.StatusTooManyRequests, map[string]any{
				"error":               "Te veel verzoeken. Probeer het over " + strconv.Itoa(v.retryAfter) + " seconde(n) opnieuw.",
				"limit_per_minute":    Capacity,
				"retry_after_seconds": v.retryAfter,
				"hint":                Hint429,
				"documentation":       "https://openbesluitvorming.nl/docs/api",
			})
			return
		}
		e.charged.Add(int64(math.Round(cost * 8)))
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		notFound(w)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/api/search":
		e.serveSearch(w, r)
	case p == "/api/sources":
		e.serveSources(w, r)
	case p == "/api/stats":
		e.serveStats(w, r)
	case p == "/api/status":
		e.serveStatus(w, r)
	case p == "/api/export/snapshot":
		e.serveSnapshot(w, r)
	case p == "/api/export/changes":
		e.serveChanges(w, r)
	case strings.HasPrefix(p, "/api/entities/"):
		e.serveEntity(w, r)
	default:
		notFound(w)
	}
}

// notFound is the platform's plain 404 for paths it does not serve.
func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte("Niet gevonden"))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// apiError writes the platform's error body, {error[, hint]} with the
// status: OpenBesluitvorming's web/search_params.ts badRequest and the Response.json calls in
// OpenBesluitvorming's web/server.ts. It has no machine-readable code field.
func apiError(w http.ResponseWriter, status int, msg, hint string) {
	body := map[string]any{"error": msg}
	if hint != "" {
		body["hint"] = hint
	}
	writeJSON(w, status, body)
}
