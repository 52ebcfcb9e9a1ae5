package platformlimit

import (
	"context"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/caddyserver/caddy/v2"
)

// A reload that changes a budget keeps its queue and its usage: the new
// limits apply when the new config starts, in place. A config that fails
// to load (here: provisioned, never started, then unloaded) changes
// nothing of the running budget.
func TestReloadKeepsQueueAndUsage(t *testing.T) {
	clk := fakeclock.New(t0)
	running := provision(t, clk, &Handler{Platform: "test-reload-queue", Capacity: 2, Window: caddy.Duration(10 * time.Second)})
	if err := running.app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = running.app.Stop() })
	for range 2 {
		r, w := request("/x", "Besluitbron-Session", "a")
		if err := running.ServeHTTP(w, r, upstream(200)); err != nil {
			t.Fatal(err)
		}
	}
	// A third call waits for room.
	r, w := request("/x", "Besluitbron-Session", "a")
	done := make(chan error, 1)
	go func() { done <- running.ServeHTTP(w, r, upstream(200)) }()
	for running.budget.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond) // waiting for the goroutine to queue, not for time to pass
	}

	// A config that fails to load: its handler provisions (and stages a
	// capacity of 100), another of its modules fails, it is unloaded.
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	failed := &Handler{Platform: "test-reload-queue", Capacity: 100, Window: caddy.Duration(10 * time.Second)}
	if err := failed.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	_ = failed.Cleanup()
	cancel()
	if st := running.budget.Stats(); st.Capacity != 2 || st.Waiting != 1 || st.UnitsSpent != 2 {
		t.Fatalf("a config that never started changed the budget: %+v", st)
	}

	// The reload: provisioned first, the new limits not yet in force.
	next := provision(t, clk, &Handler{Platform: "test-reload-queue", Capacity: 4, Window: caddy.Duration(10 * time.Second)})
	if next.budget != running.budget {
		t.Fatal("the reload made a new budget")
	}
	if st := next.budget.Stats(); st.Capacity != 2 || st.Waiting != 1 {
		t.Fatalf("provisioning the new config changed the running budget: %+v", st)
	}
	if err := next.app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = next.app.Stop() })
	_ = running.Cleanup()

	st := next.budget.Stats()
	if st.Capacity != 4 || st.UnitsSpent < 2 || st.Clients != 1 {
		t.Fatalf("after the reload: %+v; want capacity 4, the spent units and the client's usage kept", st)
	}
	if st.Waiting+int(st.Admitted) != 3 || st.Rejected != 0 || st.Cancelled != 0 {
		t.Fatalf("after the reload: %+v; the queued call was dropped", st)
	}
	// The waiting call was not dropped: it goes once there is room.
	clk.Advance(10 * time.Second)
	if err := <-done; err != nil {
		t.Fatalf("the call queued before the reload: %v", err)
	}
	if w.Code != 200 {
		t.Fatalf("the call queued before the reload: %d", w.Code)
	}
	if st := next.budget.Stats(); st.Waiting != 0 || st.Admitted != 3 || st.Rejected != 0 {
		t.Fatalf("after the queued call: %+v", st)
	}
}
