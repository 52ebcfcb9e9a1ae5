package mcpkit

// ToolOfferer is an Env that tells which tools its connector lists,
// whoever brings them (a platform, or the connector itself: a plan may
// name a connector tool such as a dossier's timeline only where it is
// listed). The MCP connectors implement it.
type ToolOfferer interface {
	OffersTool(name string) bool
}

// OffersTool tells whether env's connector lists the tool name; false for
// an Env that cannot tell.
func OffersTool(env Env, name string) bool {
	o, ok := env.(ToolOfferer)
	return ok && o.OffersTool(name)
}
