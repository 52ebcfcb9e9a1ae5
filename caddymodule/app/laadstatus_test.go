package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
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

// The keeper refreshes on its clock: firstRefresh after it starts, then
// every interval, and sooner (failedRefreshRetry) after a failure.
func TestLaadstatusKeeperRefreshesOnItsClock(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	fail := false
	fetch := func(context.Context) (Laadstatus, error) {
		if fail {
			return Laadstatus{}, errors.New("the platform did not answer")
		}
		return Laadstatus{Fetched: clk.Now()}, nil
	}
	k := newLaadstatusKeeper(time.Hour, nil, new(routeCaller), fetch, clk)
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
