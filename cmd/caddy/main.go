// Command caddy is Caddy with the standard modules plus BesluitBron's.
// It is the same binary that ./xcaddy.sh build produces; go test and go vet
// need no extra tool because it builds from this repository's go.mod.
// Like the product, it holds no platform emulators; cmd/caddy-offline is
// this binary with them.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/besluitbron/besluitbron"
)

func main() {
	caddycmd.Main()
}
