package ori

import "github.com/besluitbron/besluitbron/mcpkit"

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"ori.MaxLimit": MaxLimit}, nil)

// Instruction names the platform in the MCP connectors' instructions
// (mcpkit.Instructor).
func (provider) Instruction() string {
	return `an ORI-compatible index of council documents ("ori", where the operator enabled it)`
}
