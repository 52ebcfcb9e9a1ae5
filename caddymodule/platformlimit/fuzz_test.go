package platformlimit

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzUnmarshalCaddyfile fuzzes the platform_limit directive's parser, seeded with
// its uses in the Caddyfiles and docs: a module or a clear error, never a
// panic, and a module that survives Caddy's JSON (fuzzcheck.Directive).
func FuzzUnmarshalCaddyfile(f *testing.F) {
	fuzzcheck.Directive(f, "platform_limit", (*Handler).UnmarshalCaddyfile)
}
