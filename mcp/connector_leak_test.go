package mcp

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/caddyserver/caddy/v2"
)

// A connector, its MCP server and its fan-out engine go when the last
// config that used them is unloaded: 100 connectors provisioned (each
// asked for its search engine, as search_all does), then cleaned up and
// destroyed, leave none reachable. A package-level map of engines kept
// every one of them after a reload.
func TestDestroyedConnectorsAreNotKept(t *testing.T) {
	const n = 100
	refs := make([]weak.Pointer[connector], 0, n)
	for i := range n {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		h := &Handler{Name: fmt.Sprintf("leak-%d", i)}
		if err := h.Provision(ctx); err != nil {
			cancel()
			t.Fatalf("provision %s: %v", h.Name, err)
		}
		if _, err := h.conn.engine(); err != nil {
			t.Fatalf("engine of %s: %v", h.Name, err)
		}
		refs = append(refs, weak.Make(h.conn))
		if err := h.Cleanup(); err != nil {
			t.Fatalf("cleanup %s: %v", h.Name, err)
		}
		cancel()
	}
	runtime.GC()
	runtime.GC()
	kept := 0
	for _, r := range refs {
		if r.Value() != nil {
			kept++
		}
	}
	if kept > 0 {
		t.Fatalf("%d of %d destroyed connectors are still reachable", kept, n)
	}
}
