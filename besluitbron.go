// Package besluitbron imports every BesluitBron Caddy module of the
// product and its list of platforms (platforms/standard), so that
//
//	xcaddy build --with github.com/besluitbron/besluitbron=.
//
// builds a Caddy with all of them.
//
// The platform emulators (caddymodule/emulator, the Caddy module
// besluitbron_emulator) are not among them: they answer with synthetic
// data and serve unauthenticated fault injection under /_emulator/, so a
// product build must not be able to carry them by accident. A build that
// wants them names their package itself, as a second
//
//	--with github.com/besluitbron/besluitbron/caddymodule/emulator
//
// (./xcaddy.sh offline, cmd/caddy-offline). TestProductHoldsNoEmulators
// keeps it so.
package besluitbron

import (
	// The platforms the product fronts (each registers itself).
	_ "github.com/besluitbron/besluitbron/platforms/standard"

	_ "github.com/besluitbron/besluitbron/caddymodule/clientlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy"
	_ "github.com/besluitbron/besluitbron/caddymodule/site"
	_ "github.com/besluitbron/besluitbron/mcp"
)
