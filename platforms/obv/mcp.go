package obv

import (
	"context"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"obv.MaxLimit": MaxLimit, "obv.MaxVotesLimit": MaxVotesLimit}, map[string][]string{"obv.EntityTypes": EntityTypes, "obv.Sorts": Sorts})

// What OpenBesluitvorming gives the MCP connectors (mcpkit): its words in
// the instructions, the council_decisions prompt, and the completions of
// organisations and entity types.

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string {
	return `documents of councils, provinces and water boards (OpenBesluitvorming "obv")`
}

// ResourceVocabulary completes the entity type of a resource URI.
func (provider) ResourceVocabulary(arg string) (mcpkit.Vocabulary, bool) {
	if arg == "entity_type" {
		return *mcpkit.Fixed(platforms.OBV, EntityTypes), true
	}
	return mcpkit.Vocabulary{}, false
}

// SourcesMemo is the memo key of the list of organisations, which the
// obv tools, this package's prompt and its completions share.
const SourcesMemo = "obv:sources"

// Organisations completes an organisation: by key (what obv_search
// takes), matched on key and name, or by name (what cvdr_search takes:
// the same organisations' labels). Only the imported ones.
func Organisations(byKey bool) *mcpkit.Vocabulary {
	return &mcpkit.Vocabulary{Platform: platforms.OBV, Values: func(ctx context.Context, env mcpkit.Env) []mcpkit.Choice {
		v, ok := env.Memoised(ctx, SourcesMemo, func() (any, error) { return loadSources(ctx, env) })
		if !ok {
			return nil
		}
		var out []mcpkit.Choice
		for _, s := range v.([]Source) {
			if !s.Implemented {
				continue
			}
			val := s.Key
			if !byKey {
				val = s.Label
			}
			out = append(out, mcpkit.Choice{Value: val, Match: []string{s.Key, s.Label}})
		}
		return out
	}}
}

// loadSources reads the list of organisations through the platform route
// and keeps it in the memo.
func loadSources(ctx context.Context, env mcpkit.Env) ([]Source, error) {
	body, err := env.Getter(ctx, platforms.OBV)(SourcesRequest())
	if err != nil {
		return nil, err
	}
	list, err := ParseSources(body)
	if err != nil {
		return nil, &adapters.ParseError{Err: err}
	}
	env.Lists().Put(SourcesMemo, list, env.Now())
	return list, nil
}

// knownOrganisation is the memo's entry for an organisation given as key
// or name (no platform call).
func knownOrganisation(env mcpkit.Env, v string) (Source, bool) {
	m, ok := env.Lists().Get(SourcesMemo, env.Now())
	if !ok {
		return Source{}, false
	}
	for _, s := range m.([]Source) {
		if s.Key == v || strings.EqualFold(s.Label, v) || strings.EqualFold(s.Key, v) {
			return s, true
		}
	}
	return Source{}, false
}

// Prompts: what a council decided about a subject.
func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{{Name: "council_decisions", Title: "What did a council decide about a subject?",
		Desc: "What the council (or provincial or water board) of an organisation decided about a subject, since a date: motions and their votes, decision lists, council proposals, and the regulations it adopted. Relies on obv_sources, obv_search and obv_fetch (OpenBesluitvorming), and cvdr_search and cvdr_fetch (local regulations) where the connector offers them.",
		Args: []mcpkit.Arg{
			{Name: "organisation", Title: "Organisation", Required: true, Vocabulary: Organisations(true), Desc: "Municipality, province or water board: an OpenBesluitvorming key (utrecht, provincie-utrecht) or its name."},
			{Name: "subject", Title: "Subject", Required: true, Desc: "What the decisions are about, in the words to search for (e.g. sociale huurwoningen)."},
			{Name: "since", Title: "Since", Date: true, Desc: "Only decisions from this day on, YYYY-MM-DD."},
		},
		Offered: func(offers func(string) bool) bool { return offers(platforms.OBV) },
		Plan:    planCouncil}}
}

func planCouncil(env mcpkit.Env, a mcpkit.Args) (string, error) {
	org, subject, since := a["organisation"], a["subject"], a["since"]
	q := fmt.Sprintf("What did the council of %s decide about %s%s?", org, subject, mcpkit.SinceText(since))
	var p mcpkit.Plan
	key, name := "<the key from step 1>", "<its label from step 1>"
	if s, ok := knownOrganisation(env, org); ok {
		key, name = s.Key, s.Label
	} else {
		p.Step("Find the organisation's key: %s. Take the key of the municipality, province or water board meant; when several fit, ask the user which.",
			mcpkit.Call("obv_sources", map[string]any{"name": org}))
	}
	search := map[string]any{"organization": key, "query": subject, "date_from": since, "sort": "date_desc", "limit": 10}
	p.Step("Search its council documents, meetings and motions on the subject: %s. If nothing is found, try fewer or other words (\"quoted words\" match as a phrase); page on with offset=next_offset.", mcpkit.Call("obv_search", search))
	search["entity_type"] = "Motion"
	p.Step("Find the motions and how they were voted on: %s.", mcpkit.Call("obv_search", search))
	p.Step("Read what was decided: %s for the decision list (besluitenlijst), the council proposal and decision (raadsvoorstel, raadsbesluit) and each motion that matters; a motion's result says whether it was adopted (aangenomen) or rejected (verworpen), with the votes per member or the council's vote summary where published. Fetch only the items you need: full text is the expensive call.",
		mcpkit.Call("obv_fetch", map[string]any{"id": "<id of a hit>"}))
	if env.Offers(platforms.CVDR) {
		p.Step("Regulations the council adopted on it (verordeningen, beleidsregels): %s, then %s for the one in force; its references name the laws it rests on.",
			mcpkit.Call("cvdr_search", map[string]any{"organisation": name, "query": subject}), mcpkit.Call("cvdr_fetch", map[string]any{"id": "<id of a hit>"}))
	}
	p.Step("Answer: what was decided, on which day and by which body, the vote where known, and what followed; newest first.")
	return p.Finish(q), nil
}

// Tools are the platform's MCP tools (tools.go, votes_tool.go, loadstatus.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("obv_search", "Search council decisions (OpenBesluitvorming)", mcpkit.CostBudget, toolSearchDesc, toolSearch).Kept(mcpkit.KeptWhileHitsHold),
		mcpkit.Typed("obv_fetch", "Read a council document, meeting or motion (OpenBesluitvorming)", mcpkit.CostFullText, toolFetchDesc, toolFetch).Kept(mcpkit.KeptWhileHitsHold),
		mcpkit.Typed("obv_votes", "Votes on council motions (OpenBesluitvorming)", mcpkit.CostBudget, toolVotesDesc, toolVotes).Kept(mcpkit.KeptWhileHitsHold),
		mcpkit.Typed("obv_sources", "List the organisations (OpenBesluitvorming)", mcpkit.CostCheap, toolSourcesDesc, toolSourcesTool),
		mcpkit.Typed("obv_laadstatus", "Load status per organisation (OpenBesluitvorming Laadstatus)", mcpkit.CostFree, toolStatusDesc, toolStatus),
	}
}

// Lists are the organisations, as a listed resource (mcpkit.ListProvider):
// the answer of obv_sources.
func (provider) Lists() []mcpkit.List {
	return []mcpkit.List{{URI: "besluitbron://obv/organisations", Name: "obv-organisations", Title: "Organisations (OpenBesluitvorming)",
		Description: "The municipalities, provinces and water boards OpenBesluitvorming holds, with the keys obv_search takes.",
		Read: func(ctx context.Context, env mcpkit.Env) (any, error) {
			return mcpkit.Outcome(toolSourcesTool(ctx, env, toolSourcesIn{}))
		}}}
}
