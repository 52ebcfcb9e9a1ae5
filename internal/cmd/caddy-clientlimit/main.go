// Command caddy-clientlimit is Caddy with the standard modules and client_limit
// only. The figure test in package clientlimit builds it, so the inbound
// limit figures come from a real Caddy process and depend on no other
// module of the tree.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/besluitbron/besluitbron/caddymodule/clientlimit"
)

func main() {
	caddycmd.Main()
}
