package rechtspraak

import (
	"context"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"rechtspraak.MaxLimit": MaxLimit}, map[string][]string{"rechtspraak.Lists": Lists})

// What Rechtspraak gives the MCP connectors (mcpkit): its words in the
// instructions, the case_law prompt, the completions of courts and legal
// areas, and how a ruling is fetched.

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string { return `case law (Rechtspraak "rechtspraak")` }

// FetchCall reads a ruling by its ECLI.
func (provider) FetchCall(env mcpkit.Env, r mcpkit.Ref) (string, bool) {
	if !env.Offers(platforms.Rechtspraak) {
		return "", false
	}
	return mcpkit.Call("rechtspraak_fetch", map[string]any{"ecli": r.ID}), true
}

// listVocabulary completes the names of one of Rechtspraak's value lists,
// matched on name and abbreviation (List: the memo, else the route).
func listVocabulary(list string) *mcpkit.Vocabulary {
	return &mcpkit.Vocabulary{Platform: platforms.Rechtspraak, Values: func(ctx context.Context, env mcpkit.Env) []mcpkit.Choice {
		get := env.Getter(ctx, platforms.Rechtspraak)
		v, ok := env.Memoised(ctx, listMemo(list), func() (any, error) {
			return List(env.Lists(), env.Now(), list, get)
		})
		if !ok {
			return nil
		}
		var out []mcpkit.Choice
		for _, it := range v.([]adapters.Item) {
			out = append(out, mcpkit.Choice{Value: it.Label, Match: []string{it.Label, it.Extra["afkorting"]}})
		}
		return out
	}}
}

// Prompts: case law on a subject since a date.
func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{{Name: "case_law", Title: "Case law on a subject since a date",
		Desc: "Court rulings on a subject since a date, optionally of one court or legal area, with the laws they apply. Relies on rechtspraak_search (with query where the operator keeps Rechtspraak's word index; rechtspraak_lists otherwise) and rechtspraak_fetch, and bwb_fetch for the laws the rulings cite where the connector offers it.",
		Args: []mcpkit.Arg{
			{Name: "subject", Title: "Subject", Required: true, Desc: "What the rulings are about (e.g. huurverhoging)."},
			{Name: "since", Title: "Since", Date: true, Desc: "Only rulings decided from this day on, YYYY-MM-DD."},
			{Name: "court", Title: "Court", Vocabulary: listVocabulary("Instanties"), Desc: "A court: its name or abbreviation (Hoge Raad, HR, Rechtbank Den Haag)."},
			{Name: "legal_area", Title: "Legal area", Vocabulary: listVocabulary("Rechtsgebieden"), Desc: "A legal area of Rechtspraak's list (e.g. Huurrecht, Belastingrecht)."},
		},
		Offered: func(offers func(string) bool) bool { return offers(platforms.Rechtspraak) },
		Plan:    planCaseLaw}}
}

func planCaseLaw(env mcpkit.Env, a mcpkit.Args) (string, error) {
	subject, since, court, area := a["subject"], a["since"], a["court"], a["legal_area"]
	q := "What is the case law on " + subject + mcpkit.SinceText(since)
	if court != "" {
		q += " of " + court
	}
	if area != "" {
		q += " in " + area
	}
	q += "?"
	var p mcpkit.Plan
	if env.Replica(platforms.Rechtspraak) != nil {
		p.Step("Find the rulings on the subject, best match first: %s. If few fit, try other words (\"quoted words\" match as a phrase) or sort=DESC for the newest.",
			mcpkit.Call("rechtspraak_search", map[string]any{"query": subject, "date_from": since, "court": court, "limit": 20}))
		if area != "" {
			p.Step("The legal area cannot be combined with words: list the newest rulings of that area as well, %s, and keep those whose titles fit the subject.",
				mcpkit.Call("rechtspraak_search", map[string]any{"legal_area": area, "court": court, "date_from": since, "limit": 20}))
		}
	} else {
		if court == "" && area == "" {
			p.Step("This BesluitBron keeps no word index of Rechtspraak, so rulings are listed by court, legal area and date: find the legal area that fits the subject, %s.",
				mcpkit.Call("rechtspraak_lists", map[string]any{"list": "Rechtsgebieden"}))
			area = "<the legal area from step 1>"
		}
		p.Step("List the rulings, newest first: %s. Keep those whose titles fit the subject; page on with offset=next_offset.",
			mcpkit.Call("rechtspraak_search", map[string]any{"court": court, "legal_area": area, "date_from": since, "limit": 20}))
	}
	p.Step("Read the summary (inhoudsindicatie) of each ruling that may fit: %s; read the reasoning of those that matter without metadata_only (in pages: offset=next_offset).",
		mcpkit.Call("rechtspraak_fetch", map[string]any{"ecli": "<ECLI of a hit>", "metadata_only": true}))
	if env.Offers(platforms.BWB) {
		p.Step("The laws a ruling applies are in its document.references (relation cites, platform bwb, with the article): read each article as it read on the ruling's date, %s.",
			mcpkit.Call("bwb_fetch", map[string]any{"id": "<the reference's id>", "article": "<its article>", "date": "<the ruling's date>"}))
	}
	p.Step("Answer: the leading rulings (highest court first, then newest), what each decided on the subject, and the articles they apply.")
	return p.Finish(q), nil
}

// Tools are the platform's MCP tools (tools.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("rechtspraak_search", "Find court rulings (Rechtspraak)", mcpkit.CostCheap, toolSearchDesc, toolSearch),
		mcpkit.Typed("rechtspraak_fetch", "Read a court ruling (Rechtspraak)", mcpkit.CostFullText, toolFetchDesc, toolFetch),
		mcpkit.Typed("rechtspraak_lists", "Courts and legal areas (Rechtspraak value lists)", mcpkit.CostCheap, toolListsDesc, toolLists),
	}
}

// Lists are the courts and the legal areas, as listed resources
// (mcpkit.ListProvider): the answers of rechtspraak_lists.
func (provider) Lists() []mcpkit.List {
	return []mcpkit.List{
		{URI: "besluitbron://rechtspraak/courts", Name: "rechtspraak-courts", Title: "Courts (Rechtspraak)",
			Description: "The courts (Instanties) with abbreviation and identifier, as rechtspraak_search takes them.",
			Read: func(ctx context.Context, env mcpkit.Env) (any, error) {
				return mcpkit.Outcome(toolLists(ctx, env, toolListsIn{List: "Instanties"}))
			}},
		{URI: "besluitbron://rechtspraak/legal-areas", Name: "rechtspraak-legal-areas", Title: "Legal areas (Rechtspraak)",
			Description: "The legal areas (Rechtsgebieden), two levels, as rechtspraak_search takes them.",
			Read: func(ctx context.Context, env mcpkit.Env) (any, error) {
				return mcpkit.Outcome(toolLists(ctx, env, toolListsIn{List: "Rechtsgebieden"}))
			}},
	}
}
