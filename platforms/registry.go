package platforms

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Provider is a platform as it registers itself: the model is libdns and
// the caddy-dns providers, one small interface here and each platform a
// package (platforms/<key>) that implements it and calls Register in its
// init. What else a platform offers (a surface, MCP tools, prompts, a
// live-check probe, an emulator, ...) is an optional interface of its
// own, in the package that asks for it; a provider implements it or not.
//
// The product's list of platforms is one import list:
// platforms/standard, as Caddy's standard modules are.
type Provider interface {
	// Platform is the platform's row of the table: key, name, base
	// URLs, budget and prices, searches, cache kinds and when its tools
	// come on, each default next to its reason.
	Platform() Platform
}

// registered is the table: every registered provider and its row, in
// table order. A snapshot replaced as a whole by Register, so readers
// (the sub-request of every tool call asks Known) take no lock.
type registered struct {
	rows      []Platform
	providers []Provider
}

var (
	table      atomic.Pointer[registered]
	registerMu sync.Mutex
)

// Register adds a platform to the table. It panics, at init, on a row that
// is not whole (no key, name or base URL, a key that does not fit a path
// segment) or a key registered twice: as caddy.RegisterModule, a mistake in
// the import list stops the program before it serves anything.
func Register(p Provider) {
	row := p.Platform()
	if err := checkRow(row); err != nil {
		panic(fmt.Sprintf("platforms.Register: %v", err))
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	old := table.Load()
	next := &registered{}
	if old != nil {
		if slices.ContainsFunc(old.rows, func(r Platform) bool { return r.Key == row.Key }) {
			panic(fmt.Sprintf("platforms.Register: platform %q registered twice", row.Key))
		}
		next.rows = append(next.rows, old.rows...)
		next.providers = append(next.providers, old.providers...)
	}
	next.rows = append(next.rows, row.Clone())
	next.providers = append(next.providers, p)
	// Table order: Order, then key. Init order is by import path, which
	// says nothing of where a platform belongs in a list.
	idx := make([]int, len(next.rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ra, rb := next.rows[a], next.rows[b]
		return cmp.Or(cmp.Compare(ra.Order, rb.Order), cmp.Compare(ra.Key, rb.Key))
	})
	sorted := &registered{rows: make([]Platform, len(idx)), providers: make([]Provider, len(idx))}
	for i, j := range idx {
		sorted.rows[i], sorted.providers[i] = next.rows[j], next.providers[j]
	}
	table.Store(sorted)
}

// checkRow says what a row lacks.
func checkRow(p Platform) error {
	switch {
	case p.Key == "":
		return fmt.Errorf("a platform without a key")
	case !keyShape(p.Key):
		return fmt.Errorf("platform key %q: want lower-case letters and digits, starting with a letter", p.Key)
	case p.Name == "":
		return fmt.Errorf("platform %q has no name", p.Key)
	case len(p.BaseURLs) == 0:
		return fmt.Errorf("platform %q has no base URL", p.Key)
	}
	return nil
}

// keyShape: a key is a path segment, a cache name, a metric label and a
// Caddyfile word at once.
func keyShape(k string) bool {
	if len(k) > 32 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range []byte(k) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// rows is the table as registered so far; empty before any Register.
func rows() []Platform {
	if t := table.Load(); t != nil {
		return t.rows
	}
	return nil
}

// Providers returns the registered providers in table order, for the
// surfaces that ask each for an optional interface.
func Providers() []Provider {
	if t := table.Load(); t != nil {
		return slices.Clone(t.providers)
	}
	return nil
}

// ProviderOf returns the provider of the platform key.
func ProviderOf(key string) (Provider, bool) {
	t := table.Load()
	if t == nil {
		return nil, false
	}
	for i, r := range t.rows {
		if r.Key == key {
			return t.providers[i], true
		}
	}
	return nil, false
}

// Each returns the providers that implement T, in table order: the
// platforms that offer prompts, a probe, an emulator, ...
func Each[T any]() []T {
	var out []T
	for _, p := range Providers() {
		if v, ok := p.(T); ok {
			out = append(out, v)
		}
	}
	return out
}
