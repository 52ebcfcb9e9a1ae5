package fanout

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	oa "github.com/besluitbron/besluitbron/platforms/oa/emulator"
	ob "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	opentk "github.com/besluitbron/besluitbron/platforms/opentk/emulator"
	ori "github.com/besluitbron/besluitbron/platforms/ori/emulator"
	rechtspraak "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	tk "github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/subcall"
)

// day is the emulators' and the fake clock's "now".
var day = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

var (
	emuOnce sync.Once
	emus    map[string]http.Handler
)

// emulators are the offline platforms as plain handlers (no Caddy): TK and
// OpenTK share one seed, so they hold the same documents.
func emulators() map[string]http.Handler {
	emuOnce.Do(func() {
		now := fakeclock.New(day)
		emus = map[string]http.Handler{
			"obv":         obv.New(obv.Config{Seed: 1, Clock: now, NoRateLimit: true}),
			"tk":          tk.New(tk.Config{Seed: 1, Clock: now}),
			"opentk":      opentk.New(opentk.Config{Seed: 1, Clock: now}),
			"ob":          ob.New(ob.Config{Seed: 1, Clock: now}),
			"rechtspraak": rechtspraak.New(rechtspraak.Config{Seed: 1, Clock: now}),
			"ori":         ori.New(ori.Config{Seed: 1, Clock: now}),
			"oa":          oa.New(oa.Config{Seed: 1, Clock: now, NoRateLimit: true}),
		}
	})
	return emus
}

// serve runs req on h as the platform route would pass it on.
func serve(ctx context.Context, h http.Handler, req adapters.Request) *subcall.Answer {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	r := httptest.NewRequestWithContext(ctx, method, req.Path, bytes.NewReader(req.Body))
	if req.ContentType != "" {
		r.Header.Set("Content-Type", req.ContentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return &subcall.Answer{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
}

// emulatorDoer answers from the emulators and counts the calls.
type emulatorDoer struct {
	calls atomic.Int64
	// cache, when set, is the Cache-Status every answer carries.
	cache string
}

func (d *emulatorDoer) do(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
	d.calls.Add(1)
	h, ok := emulators()[platform]
	if !ok {
		return &subcall.Answer{Status: http.StatusNotFound}, nil
	}
	a := serve(ctx, h, req)
	if d.cache != "" {
		a.Cache = d.cache
	}
	return a, ctx.Err()
}

// engine builds an Engine over do with a fake clock.
func engine(t *testing.T, do Doer, ps ...string) (*Engine, *fakeclock.Clock) {
	t.Helper()
	clk := fakeclock.New(day)
	e, err := New(Options{Do: do, Platforms: ps, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return e, clk
}

// outcomeOfKey finds a platform's outcome.
func outcomeOfKey(t *testing.T, res Result, k string) Outcome {
	t.Helper()
	for _, o := range res.Outcomes {
		if o.Platform == k {
			return o
		}
	}
	t.Fatalf("no outcome for %s in %+v", k, res.Outcomes)
	return Outcome{}
}
