package ori

import "github.com/besluitbron/besluitbron/mcpkit"

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"ori.MaxLimit": MaxLimit}, nil)

// Instruction names the platform in the MCP connectors' instructions
// (mcpkit.Instructor).
func (provider) Instruction() string {
	return `an ORI-compatible index of council documents ("ori", where the operator enabled it)`
}

// Tools are the platform's MCP tools (tools.go).
// ORI Classic was switched off on 2026-11-01: its tools answer from
// an ORI-compatible index the operator runs (docs/migration-ori.md).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("ori_search", "Search council documents (ORI-compatible index)", mcpkit.CostBudget, toolSearchDesc, toolSearch),
		mcpkit.Typed("ori_fetch", "Read a council document (ORI-compatible index)", mcpkit.CostFullText, toolFetchDesc, toolFetch),
	}
}
