package oa

import "github.com/besluitbron/besluitbron/mcpkit"

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"oa.MaxLimit": MaxLimit}, nil)

// Instruction names the platform in the MCP connectors' instructions
// (mcpkit.Instructor).
func (provider) Instruction() string {
	return `the government archive (Open Archivaris "oa", experimental, where the operator enabled it)`
}
