// Package emulator is the Caddy module http.handlers.besluitbron_emulator:
// it serves an offline emulator of one of the platforms, wrapped by
// the fault package (request counts and fault injection under /_emulator/).
//
// The product never imports it: offline builds add it as a package of its
// own (./xcaddy.sh offline, cmd/caddy-offline), and tests that serve an
// emulator import it from a _test.go file.
//
// The emulators themselves live in emulators/<key>; this
// adapter only maps a platform key to its constructor and keeps one
// instance per key and seed across config reloads, so counts, faults and a
// rate-limit bucket survive a reload.
package emulator

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/emulators"
	"github.com/besluitbron/besluitbron/emulators/fault"
	"github.com/besluitbron/besluitbron/platforms"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// DefaultSeed is the seed used when none is configured.
const DefaultSeed int64 = 1

// Handler serves one platform emulator. It answers every request itself
// and never calls the next handler.
type Handler struct {
	// Platform is the platform key: ori, obv, tk, opentk, ob, rechtspraak
	// or oa.
	Platform string `json:"platform"`
	// Seed makes the generated data; the same seed gives the same data.
	// Default 1.
	Seed *int64 `json:"seed,omitempty"`
	// Instance names a separate emulator with the same data: handlers
	// share an emulator (counts, faults, rate limits) only when platform,
	// seed and instance are all equal. Use it for two hosts of one platform
	// (OpenTK) that must fail independently. Default "".
	Instance string `json:"instance,omitempty"`

	inst *instance
	// released: Cleanup gave the pool its reference back (once).
	released bool
	key      string
	logger   *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.besluitbron_emulator",
		New: func() caddy.Module { return new(Handler) },
	}
}

// instance is one emulator shared by every Handler with the same platform
// and seed, across reloads.
type instance struct {
	*fault.Instrumented
}

// Destruct implements caddy.Destructor; an emulator holds no resources
// beyond memory.
func (*instance) Destruct() error { return nil }

var pool = caddy.NewUsagePool()

func (h *Handler) seed() int64 {
	if h.Seed == nil {
		return DefaultSeed
	}
	return *h.Seed
}

// Validate checks the platform key.
func (h *Handler) Validate() error {
	if h.Platform == "" {
		return fmt.Errorf("besluitbron_emulator: platform key missing; one of %s", strings.Join(platforms.Keys(), ", "))
	}
	// Every platform has an emulator (TestEveryPlatformHasAnEmulator), so
	// a key without a constructor is an unknown platform.
	if _, ok := emulators.Lookup(h.Platform); !ok {
		return fmt.Errorf("besluitbron_emulator: unknown platform %q; one of %s", h.Platform, strings.Join(platforms.Keys(), ", "))
	}
	return nil
}

// Provision gets (or makes) the shared emulator instance.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := h.Validate(); err != nil {
		return err
	}
	newFn, _ := emulators.Lookup(h.Platform)
	h.key = poolKey(h.Platform, h.seed(), h.Instance)
	seed := h.seed()
	v, _, err := pool.LoadOrNew(h.key, func() (caddy.Destructor, error) {
		return &instance{fault.Wrap(newFn(seed))}, nil
	})
	if err != nil {
		return err
	}
	h.inst = v.(*instance)
	return nil
}

// Cleanup releases this config's hold on the shared instance.
// inst is never cleared: a request the old config's server still
// serves after a reload reads it while this runs (a race, and a nil
// dereference, when it was set to nil here).
func (h *Handler) Cleanup() error {
	if h.inst != nil && !h.released {
		h.released = true
		_, err := pool.Delete(h.key)
		return err
	}
	return nil
}

// ServeHTTP answers the request from the emulator.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.inst.ServeHTTP(w, r)
	return nil
}

func poolKey(platform string, seed int64, instance string) string {
	return fmt.Sprintf("%s/%d/%s", platform, seed, instance)
}

// Instrumented returns the shared emulator of a platform key and seed (and
// optionally an instance name) while a config that uses it is loaded (for
// in-process tests).
func Instrumented(platform string, seed int64, name ...string) (*fault.Instrumented, bool) {
	var out *fault.Instrumented
	key := poolKey(platform, seed, strings.Join(name, ""))
	pool.Range(func(k, v any) bool {
		if k == key {
			out = v.(*instance).Instrumented
			return false
		}
		return true
	})
	return out, out != nil
}

// Available lists the platform keys that have an emulator: all of them.
func Available() []string {
	return emulators.Keys()
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddy.Destructor            = (*instance)(nil)
)
