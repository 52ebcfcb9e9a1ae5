package clientlimit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// discard is a ResponseWriter that keeps nothing, so the benchmarks
// measure the handler, not a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

var nop = caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })

func benchHandler(b *testing.B, h *Handler) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	b.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Cleanup() })
	h.logger = zap.NewNop() // as in production, where rejections log at debug level only
}

// The limiter's cost per request in Caddy: ServeHTTP of client_limit with
// the default limits (three layers, RateLimit headers), next doing nothing.
func BenchmarkServeHTTPAllowed(b *testing.B) {
	h := &Handler{Zone: "bench-allowed", Process: off, Session: lc("1000000/s", 1000000), Address: lc("1000000/s", 1000000), Connector: lc("1000000/s", 1000000)}
	benchHandler(b, h)
	r := httptest.NewRequest("GET", "/mcp/raad", nil)
	w := &discard{h: make(http.Header)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		if err := h.ServeHTTP(w, r, nop); err != nil {
			b.Fatal(err)
		}
	}
}

// A flooding client's request answered 429 with the JSON body.
func BenchmarkServeHTTPRefused(b *testing.B) {
	h := &Handler{Zone: "bench-refused", Process: off, Address: lc("1/h", 1)}
	benchHandler(b, h)
	r := httptest.NewRequest("GET", "/mcp/raad", nil)
	w := &discard{h: make(http.Header)}
	_ = h.ServeHTTP(w, r, nop)
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		_ = h.ServeHTTP(w, r, nop)
	}
}
