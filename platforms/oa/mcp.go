package oa

// Instruction names the platform in the MCP connectors' instructions
// (mcpkit.Instructor).
func (provider) Instruction() string {
	return `the government archive (Open Archivaris "oa", experimental, where the operator enabled it)`
}
