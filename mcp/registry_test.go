package mcp

import (
	"testing"

	"github.com/besluitbron/besluitbron/platforms"
)

// Every platform of the table has tools in the tool table, and the tool
// table names no platform the table lacks.
func TestEveryPlatformHasTools(t *testing.T) {
	for _, k := range platforms.Keys() {
		if len(toolNamesOf(k)) == 0 {
			t.Errorf("platform %s has no tools (mcp/tooltable.go, or its folder's mcpkit.ToolProvider)", k)
		}
	}
	for _, p := range allTools() {
		if _, ok := platforms.Get(p.key); !ok {
			t.Errorf("tools for %q, which is not in the table", p.key)
		}
	}
}
