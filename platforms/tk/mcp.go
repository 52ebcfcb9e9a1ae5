package tk

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The bounds and value lists its tools' jsonschema_extras tags name.
var _ = mcpkit.Values(map[string]int{"tk.PageSize": PageSize}, nil)

// What the Tweede Kamer's Gegevensmagazijn gives the MCP connectors
// (mcpkit): its words in the instructions, the completions of committees
// and groups (for OpenTK's parliament_on prompt), and how its documents
// are read (OpenTK serves their text by the same number).

// Instruction names the platform in the connectors' instructions.
func (provider) Instruction() string { return `parliament (Tweede Kamer "tk")` }

// RefOfPath: a document's resource URI is besluitbron://tk/document/{nummer}.
func (provider) RefOfPath(path string) (string, string) {
	return strings.TrimPrefix(path, "document/"), ""
}

// FetchCall reads a Kamer document: its text with opentk_fetch where the
// connector offers OpenTK (the same number), else its metadata with
// tk_fetch. OpenTK's own items are read the same way.
func (provider) FetchCall(env mcpkit.Env, r mcpkit.Ref) (string, bool) {
	return FetchCall(env, r)
}

// FetchCall is provider.FetchCall, for OpenTK's references too.
func FetchCall(env mcpkit.Env, r mcpkit.Ref) (string, bool) {
	if env.Offers(platforms.OpenTK) {
		return mcpkit.Call("opentk_fetch", map[string]any{"id": r.ID, "category": r.Category}), true
	}
	if env.Offers(platforms.TK) && r.Category == "" {
		return mcpkit.Call("tk_fetch", map[string]any{"id": r.ID}), true
	}
	return "", false
}

// ListMemo is the memo key of a list (tk_commissies, tk_fracties and
// the completions keep it there).
func ListMemo(set string) string { return "tk:list:" + set }

// Root is the OData root of the configuration: the tk setting, else
// DefaultRoot.
func Root(env mcpkit.Env) string {
	if root, ok := env.Setting(platforms.TK).(string); ok && root != "" {
		return root
	}
	return DefaultRoot
}

// ListVocabulary completes the current committees (by name) or groups (by
// abbreviation, which minutes print), matched on name and abbreviation.
func ListVocabulary(set string, byAbbreviation bool) *mcpkit.Vocabulary {
	return &mcpkit.Vocabulary{Platform: platforms.TK, Values: func(ctx context.Context, env mcpkit.Env) []mcpkit.Choice {
		get := env.Getter(ctx, platforms.TK)
		v, ok := env.Memoised(ctx, ListMemo(set), func() (any, error) {
			s, err := SchemaOf(env.Lists(), Root(env), env.Now(), get)
			if err != nil {
				return nil, err
			}
			e, err := s.Entity(set)
			if err != nil {
				return nil, err
			}
			l, err := ListAll(e, get)
			if err != nil {
				return nil, err
			}
			env.Lists().Put(ListMemo(set), l, env.Now())
			return l, nil
		})
		if !ok {
			return nil
		}
		var out []mcpkit.Choice
		for _, it := range v.(List).Items(false, env.Now()) {
			val, ab := it.Label, it.Extra["afkorting"]
			if byAbbreviation && ab != "" {
				val = ab
			}
			out = append(out, mcpkit.Choice{Value: val, Match: []string{it.Label, ab}})
		}
		return out
	}}
}

// Tools are the platform's MCP tools (tools.go).
func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{
		mcpkit.Typed("tk_search", "Search parliamentary documents (Tweede Kamer)", mcpkit.CostCheap, toolSearchDesc, toolSearch).Kept(mcpkit.KeptWhileHitsHold),
		mcpkit.Typed("tk_fetch", "Document details (Tweede Kamer)", mcpkit.CostCheap, toolFetchDesc, toolFetch).Kept(mcpkit.KeptWhileHitsHold),
		mcpkit.Typed("tk_commissies", "Committees (Tweede Kamer)", mcpkit.CostCheap, toolCommissiesDesc, toolCommissies),
		mcpkit.Typed("tk_fracties", "Parliamentary groups (Tweede Kamer)", mcpkit.CostCheap, toolFractiesDesc, toolFracties),
		mcpkit.Typed("tk_votes", "Votes on motions, amendments and bills (Tweede Kamer)", mcpkit.CostBudget, toolVotesDesc, toolVotes).Kept(mcpkit.KeptWhileHitsHold),
	}
}

// Lists are the committees and the political groups, as listed resources
// (mcpkit.ListProvider): the answers of tk_commissies and tk_fracties.
func (provider) Lists() []mcpkit.List {
	return []mcpkit.List{
		{URI: "besluitbron://tk/committees", Name: "tk-committees", Title: "Committees (Tweede Kamer)",
			Description: "The Tweede Kamer's current committees.",
			Read: func(ctx context.Context, env mcpkit.Env) (any, error) {
				return mcpkit.Outcome(toolCommissies(ctx, env, toolListIn{}))
			}},
		{URI: "besluitbron://tk/groups", Name: "tk-groups", Title: "Political groups (Tweede Kamer)",
			Description: "The Tweede Kamer's current political groups (fracties).",
			Read: func(ctx context.Context, env mcpkit.Env) (any, error) {
				return mcpkit.Outcome(toolFracties(ctx, env, toolListIn{}))
			}},
	}
}
