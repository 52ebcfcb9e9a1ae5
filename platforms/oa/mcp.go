package oa

import "github.com/besluitbron/besluitbron/mcpkit"

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"oa.MaxLimit": MaxLimit}, nil)

// Instruction names the platform in the MCP connectors' instructions
// (mcpkit.Instructor).
func (provider) Instruction() string {
	return `the government archive (Open Archivaris "oa", experimental, where the operator enabled it)`
}

// Tools are the platform's MCP tools (tools.go).
// Open Archivaris publishes no API description: its tools rest on
// assumed endpoints, so an operator has to ask for them.
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("oa_search", "Search the government archive (Open Archivaris)", mcpkit.CostBudget, toolSearchDesc, toolSearch),
		mcpkit.Typed("oa_fetch", "Read an archived document (Open Archivaris)", mcpkit.CostFullText, toolFetchDesc, toolFetch),
	}
}
