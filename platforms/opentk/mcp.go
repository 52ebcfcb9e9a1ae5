package opentk

import (
	"strings"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"opentk.MaxResults": MaxResults}, map[string][]string{"opentk.Kinds": Kinds, "opentk.Categories": Categories})

// What OpenTK gives the MCP connectors (mcpkit): its words in the
// instructions, the parliament_on prompt (with the Gegevensmagazijn's
// tools where the connector offers them), the completion of a resource's
// category, and how its items are read.

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string {
	return `the text of parliament's documents and minutes (OpenTK "opentk")`
}

// RefOfPath: an item's resource URI is besluitbron://opentk/{category}/{id}.
func (provider) RefOfPath(path string) (string, string) {
	if cat, id, ok := strings.Cut(path, "/"); ok {
		return id, cat
	}
	return path, ""
}

// FetchCall reads an item with opentk_fetch, or a document's metadata
// with tk_fetch (tk.FetchCall).
func (provider) FetchCall(env mcpkit.Env, r mcpkit.Ref) (string, bool) { return tk.FetchCall(env, r) }

// ResourceVocabulary completes an item's category.
func (provider) ResourceVocabulary(arg string) (mcpkit.Vocabulary, bool) {
	if arg == "category" {
		return *mcpkit.Fixed(platforms.OpenTK, Categories), true
	}
	return mcpkit.Vocabulary{}, false
}

// Prompts: what parliament did about a subject. OpenTK's full text and the
// Gegevensmagazijn's metadata both serve it; either offers it.
func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{{Name: "parliament_on", Title: "What parliament did about a subject",
		Desc: "What the Tweede Kamer did about a subject: motions, letters, written questions, debates and their minutes, optionally of one committee or political group, and their official publication. Relies on opentk_search and opentk_fetch (full text), tk_search, tk_fetch, tk_commissies and tk_fracties (metadata and lists), and ob_search and ob_fetch (Kamerstukken, Handelingen) where the connector offers them.",
		Args: []mcpkit.Arg{
			{Name: "subject", Title: "Subject", Required: true, Desc: "What to find (e.g. stikstof)."},
			{Name: "since", Title: "Since", Date: true, Desc: "Only from this day on, YYYY-MM-DD."},
			{Name: "kind", Title: "Kind of document", OneOf: Kinds, Vocabulary: mcpkit.Fixed("", Kinds), Desc: "alles (everything), moties (motions), vragenantwoorden (written questions and answers) or activiteiten (debates and other activities)."},
			{Name: "committee", Title: "Committee", Vocabulary: tk.ListVocabulary("Commissie", false), Desc: "A Tweede Kamer committee (e.g. vaste commissie voor Financiën)."},
			{Name: "political_group", Title: "Political group", Vocabulary: tk.ListVocabulary("Fractie", true), Desc: "A parliamentary group (fractie), e.g. VVD."},
		},
		Offered: func(offers func(string) bool) bool { return offers(platforms.TK) || offers(platforms.OpenTK) },
		Plan:    planParliament}}
}

func planParliament(env mcpkit.Env, a mcpkit.Args) (string, error) {
	subject, since, kind, committee, group := a["subject"], a["since"], a["kind"], a["committee"], a["political_group"]
	q := "What did the Tweede Kamer do about " + subject + mcpkit.SinceText(since)
	if committee != "" {
		q += " in the " + committee
	}
	if group != "" {
		q += ", and what did " + group + " do"
	}
	q += "?"
	var p mcpkit.Plan
	if env.Offers(platforms.OpenTK) {
		words := subject
		if committee != "" {
			words += ` "` + strings.ReplaceAll(committee, `"`, "") + `"`
		}
		if group != "" {
			words += " " + group
		}
		p.Step("Search the text of what the Kamer publishes: %s. Hits are newest first%s; each hit's type is its category (Document, Verslag = minutes, Activiteit, Toezegging). A committee or group given is matched as words in the text (minutes name a speaker's group: \"De heer X (VVD)\"), not as a filter: drop it from query when too little is found.",
			mcpkit.Call("opentk_search", map[string]any{"query": words, "kind": kind}), map[bool]string{true: "; drop those before " + since, false: ""}[since != ""])
		p.Step("Read the documents and minutes that matter: %s (continue with offset=next_offset).", mcpkit.Call("opentk_fetch", map[string]any{"id": "<id of a hit>", "category": "<its type>"}))
	}
	if env.Offers(platforms.TK) {
		soort := map[string]string{"moties": "Motie", "vragenantwoorden": "Schriftelijke vragen"}[kind]
		p.Step("Find the documents by title and subject, with their kind and kamerstuk number: %s; %s gives one's details.",
			mcpkit.Call("tk_search", map[string]any{"query": subject, "soort": soort, "date_from": since}), mcpkit.Call("tk_fetch", map[string]any{"id": "<its number>"}))
		if committee != "" {
			p.Step("Check the committee's name and abbreviation: %s.", mcpkit.Call("tk_commissies", map[string]any{"name": committee}))
		}
		if group != "" {
			p.Step("Check the group's name, abbreviation and seats: %s.", mcpkit.Call("tk_fracties", map[string]any{"name": group}))
		}
	}
	if env.Offers(platforms.OB) {
		p.Step("The official publication (Kamerstukken, Handelingen), with the citation to quote: %s, then %s.",
			mcpkit.Call("ob_search", map[string]any{"query": subject, "publication": "Kamerstuk", "date_from": since}), mcpkit.Call("ob_fetch", map[string]any{"id": "<id of a hit>"}))
	}
	p.Step("Answer: the motions (adopted or rejected), letters, questions and debates on the subject, newest first, and who submitted or said what.")
	return p.Finish(q), nil
}

// Tools are the platform's MCP tools (tools.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("opentk_search", "Full-text search in parliament (OpenTK)", mcpkit.CostBudget, toolSearchDesc, toolSearch),
		mcpkit.Typed("opentk_fetch", "Read a parliamentary document or minutes (OpenTK)", mcpkit.CostFullText, toolFetchDesc, toolFetch),
	}
}
