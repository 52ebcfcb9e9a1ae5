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
var Override string

const modulePath = "github.com/besluitbron/besluitbron"

var (
	once    sync.Once
	current string
)

// Current returns the running BesluitBron version.
func Current() string {
	once.Do(func() { current = resolve() })
	return current
}

func resolve() string {
	if Override != "" {
		return Override
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path == modulePath && info.Main.Version != "" && info.Main.Version != "(devel)" {
			return info.Main.Version
		}
		for _, dep := range info.Deps {
			if dep.Path == modulePath && dep.Version != "" && dep.Version != "(devel)" {
				if dep.Replace == nil {
					return dep.Version
				}
			}
		}
	}
	return Base + "-dev"
}
