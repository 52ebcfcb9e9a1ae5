// Package emulators is the registry of the platforms' emulators: each
// platform's emulator package (platforms/<key>/emulator) registers its
// constructor in its init, and the emulator Caddy module
// (caddymodule/emulator) builds the one a route names. The product does
// not import them (TestProductHoldsNoEmulators); the offline build does,
// through the list emulators/standard.
package emulators

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"
)

// New builds a platform's emulator; seed picks its synthetic data (an
// emulator of real samples ignores it).
type New func(seed int64) http.Handler

var (
	mu    sync.RWMutex
	byKey = map[string]New{}
)

// Register adds the emulator of platform key. It panics on a key
// registered twice, as platforms.Register does.
func Register(key string, n New) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := byKey[key]; dup || n == nil {
		panic(fmt.Sprintf("emulators.Register: emulator %q registered twice, or without a constructor", key))
	}
	byKey[key] = n
}

// Lookup returns the constructor of platform key's emulator.
func Lookup(key string) (New, bool) {
	mu.RLock()
	defer mu.RUnlock()
	n, ok := byKey[key]
	return n, ok
}

// Keys are the platforms that have an emulator, sorted.
func Keys() []string {
	mu.RLock()
	defer mu.RUnlock()
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return slices.Clip(keys)
}
