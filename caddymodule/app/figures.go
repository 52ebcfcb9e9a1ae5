package app

import (
	"slices"
	"sort"
	"sync"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/fairqueue"
)

// Figures are the read-only figures the modules publish for the status
// page (caddymodule/site): each platform cache's counts, each budget's
// state and waits, and OpenBesluitvorming's load status as BesluitBron's
// upkeep last fetched it. A module publishes through its config's app
// (PublishCache and its siblings) and the publication ends when that
// config is unloaded; the page reads App.Figures and imports no other
// module. One Figures serves every config, so figures survive a reload.
type Figures struct {
	mu         sync.Mutex
	caches     publications[func() cache.Stats]
	budgets    publications[func() fairqueue.Stats]
	waits      publications[func() WaitHistogram]
	loadStatus publications[func() (adapters.KeptLoadStatus, bool)]
	// route carries BesluitBron's own requests (routecall.go).
	route routeCaller
	// replicaDirs holds, per index directory, the turn of the replica
	// keeper that uses it (replica.go): a keeper of a reloaded config
	// waits for the old one to close the index before it opens it.
	replicaDirs sync.Map // dir -> chan struct{} (a one-place semaphore)
}

// WaitHistogram is a budget's waits since the process started: bucket
// bounds in seconds, the cumulative count at or under each, and the count
// of all calls.
type WaitHistogram struct {
	Bounds     []float64
	Cumulative []uint64
	Count      uint64
}

// publications keeps, per key, the providers of the configs that
// published one, newest last; the newest answers.
type publications[F any] map[string][]*F

func (p *publications[F]) add(key string, f F) *F {
	if *p == nil {
		*p = publications[F]{}
	}
	ref := &f
	(*p)[key] = append((*p)[key], ref)
	return ref
}

func (p publications[F]) remove(key string, ref *F) {
	p[key] = slices.DeleteFunc(p[key], func(r *F) bool { return r == ref })
	if len(p[key]) == 0 {
		delete(p, key)
	}
}

func (p publications[F]) newest(key string) (F, bool) {
	l := p[key]
	if len(l) == 0 {
		var zero F
		return zero, false
	}
	return *l[len(l)-1], true
}

// publish adds f under key to the publications pick selects, until the
// config of a is unloaded.
func publish[F any](a *App, pick func(*Figures) *publications[F], key string, f F) {
	fg := a.figures
	fg.mu.Lock()
	ref := pick(fg).add(key, f)
	fg.mu.Unlock()
	a.onCleanup(func() {
		fg.mu.Lock()
		pick(fg).remove(key, ref)
		fg.mu.Unlock()
	})
}

// PublishCache publishes the platform cache's figures.
func (a *App) PublishCache(platform string, stats func() cache.Stats) {
	publish(a, func(f *Figures) *publications[func() cache.Stats] { return &f.caches }, platform, stats)
}

// PublishBudget publishes the platform budget's state and its waits.
func (a *App) PublishBudget(platform string, stats func() fairqueue.Stats, waits func() WaitHistogram) {
	publish(a, func(f *Figures) *publications[func() fairqueue.Stats] { return &f.budgets }, platform, stats)
	publish(a, func(f *Figures) *publications[func() WaitHistogram] { return &f.waits }, platform, waits)
}

// Destruct lets the pool drop the figures with the last config.
func (*Figures) Destruct() error { return nil }

// Figures returns the figures every config's modules publish.
func (a *App) Figures() *Figures { return a.figures }

// Caches returns every published platform cache's figures, by platform.
func (f *Figures) Caches() []cache.Stats {
	f.mu.Lock()
	var fs []func() cache.Stats
	for k := range f.caches {
		g, _ := f.caches.newest(k)
		fs = append(fs, g)
	}
	f.mu.Unlock()
	out := make([]cache.Stats, 0, len(fs))
	for _, g := range fs {
		out = append(out, g())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Platform < out[j].Platform })
	return out
}

// Budget returns the platform budget's state; false when no config keeps
// a budget for it.
func (f *Figures) Budget(platform string) (fairqueue.Stats, bool) {
	f.mu.Lock()
	g, ok := f.budgets.newest(platform)
	f.mu.Unlock()
	if !ok {
		return fairqueue.Stats{}, false
	}
	return g(), true
}

// Waits returns the platform budget's waits; false when no config keeps
// a budget for it.
func (f *Figures) Waits(platform string) (WaitHistogram, bool) {
	f.mu.Lock()
	g, ok := f.waits.newest(platform)
	f.mu.Unlock()
	if !ok {
		return WaitHistogram{}, false
	}
	return g(), true
}

// LoadStatus returns platform's load status as the upkeep last fetched
// it; false before the first fetch or when no module keeps it.
func (f *Figures) LoadStatus(platform string) (adapters.KeptLoadStatus, bool) {
	f.mu.Lock()
	g, ok := f.loadStatus.newest(platform)
	f.mu.Unlock()
	if !ok {
		return adapters.KeptLoadStatus{}, false
	}
	return g()
}
