package mcpkit

import (
	"slices"
	"sync"
)

// A tool's input struct names the bounds and value lists its platform
// owns in its jsonschema_extras tags (maximum=<key>.MaxLimit,
// enum=<key>.Publications) rather than repeating them; the platform
// registers them here (package mcp's toolschema.go reads them).

var (
	valuesMu sync.RWMutex
	bounds   = map[string]int{}
	enums    = map[string][]string{}
)

// Values registers bounds and value lists by the names the tags use.
// Call it as a package variable's initialiser (var _ = mcpkit.Values(...)):
// package variables are set before any init function runs, so before a
// tool's schema is built. It panics on a name registered twice.
func Values(b map[string]int, e map[string][]string) struct{} {
	valuesMu.Lock()
	defer valuesMu.Unlock()
	for k, v := range b {
		if _, dup := bounds[k]; dup {
			panic("mcpkit.Values: bound " + k + " registered twice")
		}
		bounds[k] = v
	}
	for k, v := range e {
		if _, dup := enums[k]; dup {
			panic("mcpkit.Values: value list " + k + " registered twice")
		}
		enums[k] = slices.Clone(v)
	}
	return struct{}{}
}

// Bound is the bound registered as name.
func Bound(name string) (int, bool) {
	valuesMu.RLock()
	defer valuesMu.RUnlock()
	v, ok := bounds[name]
	return v, ok
}

// Enum is the value list registered as name.
func Enum(name string) ([]string, bool) {
	valuesMu.RLock()
	defer valuesMu.RUnlock()
	v, ok := enums[name]
	return slices.Clone(v), ok
}
