package mcpkit

// TimelineTool is the name of the connector's tool that lists a
// dossier's way (mcp/timeline.go, from the platforms' parts:
// adapters.TimelineSource), for the plans that name it.
const TimelineTool = "dossier_timeline"
