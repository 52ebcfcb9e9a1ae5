// Package version tells which BesluitBron build is running. The cache
// stamps every entry with it, so entries written by another version are
// dropped when asked for.
package version

import (
	"runtime/debug"
	"sync"
)

// Base is the version of this source tree. A development build (no module
// version in its build info, no -ldflags override) reports Base+"-dev", a
// stable value, so restarting a development build keeps its cache.
const Base = "0.1.0"

// Override may be set at link time:
//
//	-ldflags "-X github.com/besluitbron/besluitbron/caddymodule/version.Override=1.2.3"
//
// ./xcaddy.sh and the Docker build always set it, to the release tag or to
// the commit plus a hash of any uncommitted changes (./xcaddy.sh version
// prints it): xcaddy adds this module through a replace, so Go's build
// info names no version of it.
var Override string

const modulePath = "github.com/besluitbron/besluitbron"

// Where the running version came from, as the admin status reports it.
const (
	FromStamp  = "build stamp"    // Override, set at link time
	FromModule = "module version" // go install/go build of a module version
	FromBase   = "source default" // neither: Base+"-dev", the same for every such build
)

var (
	once          sync.Once
	current, from string
)

// Current returns the running BesluitBron version.
func Current() string {
	once.Do(func() { current, from = resolve() })
	return current
}

// Source tells where Current came from: FromStamp, FromModule or FromBase.
func Source() string {
	once.Do(func() { current, from = resolve() })
	return from
}

func resolve() (string, string) {
	if Override != "" {
		return Override, FromStamp
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path == modulePath && info.Main.Version != "" && info.Main.Version != "(devel)" {
			return info.Main.Version, FromModule
		}
		for _, dep := range info.Deps {
			if dep.Path == modulePath && dep.Version != "" && dep.Version != "(devel)" {
				if dep.Replace == nil {
					return dep.Version, FromModule
				}
			}
		}
	}
	return Base + "-dev", FromBase
}
