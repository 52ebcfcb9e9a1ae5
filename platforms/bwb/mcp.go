package bwb

import (
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
)

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"bwb.MaxLimit": MaxLimit, "bwb.MaxOffset": MaxOffset}, map[string][]string{"bwb.Types": Types})

// What the laws (wetten.overheid.nl) give the MCP connectors (mcpkit):
// its words in the instructions, the regulations_on prompt (with the
// local regulations where the connector offers them), and its part in
// law_behind_decision: reading a law as in force on a date, and finding
// one a text names.

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string { return `laws as in force on a date (wetten.overheid.nl "bwb")` }

// FetchCall reads a law, or one article, as in force on the reference's
// date.
func (provider) FetchCall(env mcpkit.Env, r mcpkit.Ref) (string, bool) {
	if !env.Offers(platforms.BWB) {
		return "", false
	}
	return mcpkit.Call("bwb_fetch", map[string]any{"id": r.ID, "date": r.Date, "article": r.Article}), true
}

// FindCitationCall finds a law by the words of a citation.
func (provider) FindCitationCall(citation string) string {
	return mcpkit.Call("bwb_search", map[string]any{"query": citation})
}

// ReadReferenceCall reads the article a reference names, as in force then.
func (provider) ReadReferenceCall() string {
	return "platform bwb: " + mcpkit.Call("bwb_fetch", map[string]any{"id": "<the reference's id>", "article": "<its article>", "date": "<its date, else the document's date>"})
}

// FindLegalBasisCall finds a law a text names and its article.
func (provider) FindLegalBasisCall() string {
	return "a law with " + mcpkit.Call("bwb_search", map[string]any{"query": "<the law's name>"}) + " and its article with bwb_fetch (id, article, date = the document's date)"
}

// Prompts: which rules apply to a subject. Laws and local regulations
// both serve it; either offers it.
func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{{Name: "regulations_on", Title: "Which rules apply to a subject",
		Desc: "The laws, national regulations and local regulations on a subject in force on a date. Relies on bwb_search and bwb_fetch (wetten.overheid.nl) and cvdr_search and cvdr_fetch (local regulations), as far as the connector offers them.",
		Args: []mcpkit.Arg{
			{Name: "subject", Title: "Subject", Required: true, Desc: "Words of the regulation's title (e.g. parkeren, Omgevingswet)."},
			{Name: "regulation_type", Title: "Regulation type", OneOf: Types, Vocabulary: mcpkit.Fixed(platforms.BWB, Types), Desc: "Only this kind of national regulation: wet, AMvB, ministeriele-regeling, ..."},
			{Name: "organisation", Title: "Organisation", Vocabulary: obv.Organisations(false), Desc: "For local regulations: the municipality, province or water board by name (e.g. Kampen)."},
			{Name: "on", Title: "In force on", Date: true, Desc: "The day the rules are in force on, YYYY-MM-DD (default today)."},
		},
		Offered: func(offers func(string) bool) bool { return offers(platforms.BWB) || offers(platforms.CVDR) },
		Plan:    planRegulations}}
}

func planRegulations(env mcpkit.Env, a mcpkit.Args) (string, error) {
	subject, typ, org, on := a["subject"], a["regulation_type"], a["organisation"], a["on"]
	q := "Which rules on " + subject + " are in force"
	if on != "" {
		q += " on " + on
	}
	if org != "" {
		q += " in " + org
	}
	q += "?"
	var p mcpkit.Plan
	if env.Offers(platforms.BWB) {
		p.Step("Find the laws and national regulations by words of their title: %s (the service indexes titles, not texts: use a law's name words).",
			mcpkit.Call("bwb_search", map[string]any{"query": subject, "type": typ, "in_force_on": on}))
		p.Step("Read the articles that matter as in force then: %s; its came_from names the Staatsblad or Staatscourant it came from.",
			mcpkit.Call("bwb_fetch", map[string]any{"id": "<id of a hit>", "article": "<an article>", "date": on}))
	} else if typ != "" {
		p.Say("(regulation_type %s applies to national regulations, which this connector does not offer.)", typ)
	}
	if env.Offers(platforms.CVDR) {
		what := "Find the local regulations"
		if org == "" {
			what += " of all municipalities, provinces and water boards (naming one is faster; ask the user which)"
		}
		p.Step("%s: %s, then %s; its references name the laws it rests on.", what,
			mcpkit.Call("cvdr_search", map[string]any{"query": subject, "organisation": org, "in_force_on": on}), mcpkit.Call("cvdr_fetch", map[string]any{"id": "<id of a hit>"}))
	}
	p.Step("Answer: each regulation in force, what it says on the subject (quote the article), and which law it rests on.")
	return p.Finish(q), nil
}

// Tools are the platform's MCP tools (tools.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("bwb_search", "Search laws and national regulations (wetten.overheid.nl)", mcpkit.CostCheap, toolSearchDesc, toolSearch).Kept(mcpkit.KeptForTheDay),
		mcpkit.Typed("bwb_fetch", "Read a law as in force on a date, or one article (wetten.overheid.nl)", mcpkit.CostFullText, toolFetchDesc, toolFetch).Kept(mcpkit.KeptForTheDay),
	}
}
