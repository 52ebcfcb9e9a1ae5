package app

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/fairqueue"
)

// A module's figures are read through any config's app while its config
// is loaded; across a reload the newer config's answer, and after the
// last unload nothing.
func TestFiguresFollowTheConfigs(t *testing.T) {
	load := func() (*App, context.CancelFunc) {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		a := new(App)
		if err := a.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		return a, func() { _ = a.Cleanup(); cancel() }
	}
	old, unloadOld := load()
	old.PublishCache("obv", func() cache.Stats { return cache.Stats{Platform: "obv", Hits: 1} })
	old.PublishBudget("obv", func() fairqueue.Stats { return fairqueue.Stats{Capacity: 60} },
		func() WaitHistogram { return WaitHistogram{Count: 3} })

	fresh, unloadFresh := load()
	if fresh.Figures() != old.Figures() {
		t.Fatal("two configs' apps hold different figures: a reload would lose the last hour")
	}
	f := fresh.Figures()
	if c := f.Caches(); len(c) != 1 || c[0].Hits != 1 {
		t.Fatalf("caches before the reload's own publication: %+v", c)
	}
	fresh.PublishCache("obv", func() cache.Stats { return cache.Stats{Platform: "obv", Hits: 2} })
	if c := f.Caches(); len(c) != 1 || c[0].Hits != 2 {
		t.Fatalf("the newer config's cache does not answer: %+v", c)
	}
	unloadOld()
	if c := f.Caches(); len(c) != 1 || c[0].Hits != 2 {
		t.Fatalf("unloading the old config took the new one's figures: %+v", c)
	}
	if _, ok := f.Budget("obv"); ok {
		t.Fatal("the old config's budget still answers after its unload")
	}
	unloadFresh()
	if c := f.Caches(); len(c) != 0 {
		t.Fatalf("figures after the last unload: %+v", c)
	}
}
