// Package besluitbron imports every BesluitBron Caddy module, so that
//
//	xcaddy build --with github.com/besluitbron/besluitbron=.
//
// builds a Caddy with all of them.
package besluitbron

import (
	_ "github.com/besluitbron/besluitbron/caddymodule/clientlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy"
	_ "github.com/besluitbron/besluitbron/mcp"
)
