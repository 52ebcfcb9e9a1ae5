// Package besluitbron imports every BesluitBron Caddy module, so that
//
//	xcaddy build --with github.com/besluitbron/besluitbron=.
//
// builds a Caddy with all of them.
package besluitbron
