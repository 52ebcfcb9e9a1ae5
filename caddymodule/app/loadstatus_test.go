package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// The load status keeper is the app's: a config one of whose modules
// wants it holds it from Start to Stop; across a reload the same keeper
// goes on, with its last status and the new config's interval; it stops
// with the last config that held it; and a config that wants none holds
// none.
func TestLoadStatusKeeperOutlivesAReload(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	fetches := 0
	fetch := func(_ context.Context, platform string) (adapters.KeptLoadStatus, error) {
		if platform != "obv" {
			t.Errorf("a keeper fetches the load status of %s", platform)
		}
		fetches++
		return adapters.KeptLoadStatus{LoadStatus: adapters.LoadStatus{Value: "g"}, Fetched: at.Add(time.Duration(fetches) * time.Minute)}, nil
	}
	load := func(every time.Duration) (*App, func()) {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		a := new(App)
		if err := a.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		a.loadFetch = fetch
		a.WantLoadStatus("obv", every)
		// A platform that publishes no load status is not kept.
		a.WantLoadStatus("tk", every)
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		return a, func() { _ = a.Stop(); _ = a.Cleanup(); cancel() }
	}
	refresh := func(k *LoadStatusKeeper) {
		t.Helper()
		k.kick <- struct{}{}
		if err := <-k.refreshed; err != nil {
			t.Fatal(err)
		}
	}

	none, unloadNone := load(0)
	if len(none.LoadStatusKeepers()) != 0 {
		t.Fatal("a config no module of which wants the load status holds a keeper")
	}
	unloadNone()

	old, unloadOld := load(time.Hour)
	keepers := old.LoadStatusKeepers()
	k := keepers["obv"]
	if len(keepers) != 1 || k == nil || k.Interval() != time.Hour {
		t.Fatalf("keepers %v", keepers)
	}
	refresh(k)
	if l, ok := old.Figures().LoadStatus("obv"); !ok || !l.Fetched.Equal(at.Add(time.Minute)) {
		t.Fatalf("the status page sees %v %v", l.Fetched, ok)
	}

	fresh, unloadFresh := load(2 * time.Hour)
	if fresh.LoadStatusKeepers()["obv"] != k || k.Interval() != 2*time.Hour {
		t.Fatalf("the reload made another keeper or kept the old interval (%v)", k.Interval())
	}
	unloadOld()
	if _, ok := fresh.Figures().LoadStatus("obv"); !ok {
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

// The keeper refreshes on its clock: firstRefresh after it starts, then
// every interval, and sooner (failedRefreshRetry) after a failure.
func TestLoadStatusKeeperRefreshesOnItsClock(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	fail := false
	fetch := func(context.Context, string) (adapters.KeptLoadStatus, error) {
		if fail {
			return adapters.KeptLoadStatus{}, errors.New("the platform did not answer")
		}
		return adapters.KeptLoadStatus{Fetched: clk.Now()}, nil
	}
	k := newLoadStatusKeeper("obv", time.Hour, nil, new(routeCaller), fetch, clk)
	defer k.Destruct()
	// next is when the keeper will refresh next, once it has armed it.
	next := clk.AwaitTimer
	start := clk.Now()
	if due := next(); !due.Equal(start.Add(firstRefresh)) {
		t.Fatalf("first refresh due at %v, want %v", due, start.Add(firstRefresh))
	}
	clk.Advance(firstRefresh)
	if err := <-k.refreshed; err != nil {
		t.Fatal(err)
	}
	if l, ok := k.Last(); !ok || !l.Fetched.Equal(start.Add(firstRefresh)) {
		t.Fatalf("last status %+v %v", l, ok)
	}
	if due := next(); !due.Equal(start.Add(firstRefresh + time.Hour)) {
		t.Fatalf("second refresh due at %v, want an interval later", due)
	}
	fail = true
	clk.Advance(time.Hour)
	if err := <-k.refreshed; err == nil {
		t.Fatal("the failed refresh reported no error")
	}
	if due := next(); !due.Equal(clk.Now().Add(failedRefreshRetry)) {
		t.Fatalf("after a failure the next refresh is due at %v, want %v later", due, failedRefreshRetry)
	}
}
