package clientlimit

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzUnmarshalCaddyfile fuzzes the client_limit directive's parser, seeded with
// its uses in the Caddyfiles and docs: a module or a clear error, never a
// panic, and a module that survives Caddy's JSON (fuzzcheck.Directive).
func FuzzUnmarshalCaddyfile(f *testing.F) {
	fuzzcheck.Directive(f, "client_limit", (*Handler).UnmarshalCaddyfile)
}
