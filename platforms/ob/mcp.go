package ob

import (
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"ob.MaxLimit": MaxLimit}, map[string][]string{"ob.Publications": Publications})

// What Officiële Bekendmakingen gives the MCP connectors (mcpkit): its
// words in the instructions, the publications_on prompt, the completion
// of a publication, and its part in law_behind_decision.

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string { return `official publications (Officiële Bekendmakingen "ob")` }

// ResourceVocabulary completes a resource's publication.
func (provider) ResourceVocabulary(arg string) (mcpkit.Vocabulary, bool) {
	if arg == "publication" {
		return *mcpkit.Fixed(platforms.OB, Publications), true
	}
	return mcpkit.Vocabulary{}, false
}

// FindCitationCall finds a publication by its citation.
func (provider) FindCitationCall(citation string) string {
	return mcpkit.Call("ob_search", map[string]any{"query": citation})
}

// ReadReferenceCall reads the publication a reference names.
func (provider) ReadReferenceCall() string {
	return "platform ob (published_as, enacted_by, amended_by): " + mcpkit.Call("ob_fetch", map[string]any{"id": "<the reference's id>"})
}

// Prompts: what was officially published on a subject.
func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{{Name: "publications_on", Title: "Official publications on a subject",
		Desc: "What was officially published on a subject (Staatsblad, Staatscourant, Kamerstukken, Gemeenteblad, ...), optionally in one publication or by one issuing body. Relies on ob_search and ob_fetch (Officiële Bekendmakingen).",
		Args: []mcpkit.Arg{
			{Name: "subject", Title: "Subject", Required: true, Desc: "Words to find in the publications."},
			{Name: "publication", Title: "Publication", OneOf: Publications, Vocabulary: mcpkit.Fixed(platforms.OB, Publications), Desc: "Only this publication (Staatsblad, Gemeenteblad, Kamerstuk, ...)."},
			{Name: "creator", Title: "Issuing body", Desc: "Only publications of this body, e.g. a municipality or ministry."},
			{Name: "since", Title: "Since", Date: true, Desc: "Only from this day on, YYYY-MM-DD."},
		},
		Offered: func(offers func(string) bool) bool { return offers(platforms.OB) },
		Plan:    planPublications}}
}

func planPublications(_ mcpkit.Env, a mcpkit.Args) (string, error) {
	subject, pub, creator, since := a["subject"], a["publication"], a["creator"], a["since"]
	q := "What was officially published about " + subject + mcpkit.SinceText(since)
	if pub != "" {
		q += " in the " + pub
	}
	if creator != "" {
		q += " by " + creator
	}
	q += "?"
	var p mcpkit.Plan
	p.Step("Search the official publications, newest first: %s. Narrow by dates rather than paging deep.",
		mcpkit.Call("ob_search", map[string]any{"query": subject, "publication": pub, "creator": creator, "date_from": since, "limit": 10}))
	p.Step("Read the ones that matter: %s (continue with offset=next_offset).", mcpkit.Call("ob_fetch", map[string]any{"id": "<id of a hit>"}))
	p.Step("Answer: each publication with its date, issuing body and what it announces or decides.")
	return p.Finish(q), nil
}

// Tools are the platform's MCP tools (tools.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("ob_search", "Search official publications (Officiële Bekendmakingen)", mcpkit.CostCheap, toolSearchDesc, toolSearch).Kept(mcpkit.KeptWhileHitsHold),
		mcpkit.Typed("ob_fetch", "Read an official publication (Officiële Bekendmakingen)", mcpkit.CostFullText, toolFetchDesc, toolFetch).Kept(mcpkit.KeptWhileHitsHold),
	}
}
