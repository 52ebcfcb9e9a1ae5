package app

import (
	"context"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/platforms/obv"
)

// The load status keeper is the app's: a config one of whose modules
// wants it holds it from Start to Stop; across a reload the same keeper
// goes on, with its last status and the new config's interval; it stops
// with the last config that held it; and a config that wants none holds
// none.
func TestLaadstatusKeeperOutlivesAReload(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	fetches := 0
	fetch := func(context.Context) (Laadstatus, error) {
		fetches++
		return Laadstatus{Status: obv.Status{GeneratedAt: "g"}, Fetched: at.Add(time.Duration(fetches) * time.Minute)}, nil
	}
	load := func(every time.Duration) (*App, func()) {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		a := new(App)
		if err := a.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		a.laadFetch = fetch
		a.WantLaadstatus(every)
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		return a, func() { _ = a.Stop(); _ = a.Cleanup(); cancel() }
	}
	refresh := func(k *LaadstatusKeeper) {
		t.Helper()
		k.kick <- struct{}{}
		if err := <-k.refreshed; err != nil {
			t.Fatal(err)
		}
	}

	none, unloadNone := load(0)
	if none.Laadstatus() != nil {
		t.Fatal("a config no module of which wants the load status holds a keeper")
	}
	unloadNone()

	old, unloadOld := load(time.Hour)
	k := old.Laadstatus()
	if k == nil || k.Interval() != time.Hour {
		t.Fatalf("keeper %v", k)
	}
	refresh(k)
	if _, fetched, ok := old.Figures().Laadstatus(); !ok || !fetched.Equal(at.Add(time.Minute)) {
		t.Fatalf("the status page sees %v %v", fetched, ok)
	}

	fresh, unloadFresh := load(2 * time.Hour)
	if fresh.Laadstatus() != k || k.Interval() != 2*time.Hour {
		t.Fatalf("the reload made another keeper or kept the old interval (%v)", k.Interval())
	}
	unloadOld()
	if _, _, ok := fresh.Figures().Laadstatus(); !ok {
		t.Fatal("unloading the old config lost the last status")
	}
	refresh(k)
	if l, _ := k.Last(); !l.Fetched.Equal(at.Add(2 * time.Minute)) {
		t.Fatalf("after the reload the keeper holds %v", l.Fetched)
	}

	unloadFresh()
	select {
	case <-k.done:
	default:
		t.Fatal("the keeper still runs after the last config that held it stopped")
	}
}
