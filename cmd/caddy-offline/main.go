// Command caddy-offline is cmd/caddy plus the platform emulators
// (besluitbron_emulator): the binary ./xcaddy.sh offline builds, for
// running the house without the real platforms and for tests that need the
// emulators in a child process (test/node/run.sh). It is never the
// product: the emulators answer with synthetic data and let anyone inject
// faults under /_emulator/.
//
// Its imports are exactly the packages ./xcaddy.sh offline hands xcaddy
// with --with; TestOfflineBuildMatchesXcaddy keeps the two alike.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/besluitbron/besluitbron"
	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
)

func main() {
	caddycmd.Main()
}
