// Package testtier splits the tests in two tiers. `go test -short ./...` is
// the quick loop: only tests that run inside the test process on loopback.
// The full tier (without -short, as .ci/run runs it) adds the tests that
// build binaries, start child processes, or need Redis, Chromium, Node or
// network namespaces.
package testtier

import "testing"

// Full skips the test under -short; needs says what the test needs that
// the quick tier leaves out ("a Caddy binary", "Redis").
func Full(t testing.TB, needs string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s: runs in the full tier (go test without -short)", needs)
	}
}
