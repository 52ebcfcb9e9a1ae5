package ori

// Instruction names the platform in the MCP connectors' instructions
// (mcpkit.Instructor).
func (provider) Instruction() string {
	return `an ORI-compatible index of council documents ("ori", where the operator enabled it)`
}
