package cvdr

import "github.com/besluitbron/besluitbron/mcpkit"

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"cvdr.MaxLimit": MaxLimit, "cvdr.MaxOffset": MaxOffset}, nil)

// What the local regulations (lokaleregelgeving.overheid.nl) give the MCP
// connectors (mcpkit): its words in the instructions and its part in
// law_behind_decision. The regulations_on prompt is the laws' (platforms/
// bwb), with this platform's steps where the connector offers it.

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string {
	return `the local regulations of municipalities, provinces and water boards (lokaleregelgeving.overheid.nl "cvdr")`
}

// FindCitationCall finds a local regulation by the words of a citation.
func (provider) FindCitationCall(citation string) string {
	return mcpkit.Call("cvdr_search", map[string]any{"query": citation})
}

// ReadReferenceCall reads the regulation a reference names.
func (provider) ReadReferenceCall() string {
	return "platform cvdr: " + mcpkit.Call("cvdr_fetch", map[string]any{"id": "<the reference's id>"})
}

// FindLegalBasisCall finds a local regulation a text names, in force on
// the document's date.
func (provider) FindLegalBasisCall() string {
	return "a local regulation with " + mcpkit.Call("cvdr_search", map[string]any{"organisation": "<the body that decided>", "query": "<the regulation's name>", "in_force_on": "<the document's date>"})
}

// Tools are the platform's MCP tools (tools.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("cvdr_search", "Search local regulations (lokaleregelgeving.overheid.nl)", mcpkit.CostCheap, toolSearchDesc, toolSearch).Kept(mcpkit.KeptForTheDay),
		mcpkit.Typed("cvdr_fetch", "Read a local regulation (lokaleregelgeving.overheid.nl)", mcpkit.CostFullText, toolFetchDesc, toolFetch).Kept(mcpkit.KeptForTheDay),
	}
}
