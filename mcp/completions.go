package mcp

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/text/unicode/norm"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	"github.com/besluitbron/besluitbron/platforms/ob"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/opentk"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

// Completions (completion/complete) for every prompt argument and
// resource template variable with a known vocabulary. The lists are read
// as the tools read them (the sub-request through the platform route and
// its cache) and kept in the connector's memo (c.lists), so a completion
// on a warm memo costs no platform call. A list that cannot be had (the
// platform down or over budget) completes to nothing: completion never
// answers an error that would break a user's typing.

// withPromptsAndCompletions is the server options of prompts and
// completions; the providers read the connector's current settings, as
// mcp-go's providers are server-wide.
func withPromptsAndCompletions(c *connector) server.ServerOption {
	return func(s *server.MCPServer) {
		for _, o := range []server.ServerOption{
			server.WithPromptCapabilities(true),
			server.WithCompletions(),
			server.WithPromptCompletionProvider(completer{c}),
			server.WithResourceCompletionProvider(completer{c}),
		} {
			o(s)
		}
	}
}

// maxCompletions is the most values one completion sends (the spec's cap).
const maxCompletions = 100

// choice is one value a completion may offer, and the texts it matches
// on (its key, name, abbreviation).
type choice struct {
	value string
	match []string
}

// vocabulary is where an argument's values come from: a platform the
// connector must offer (none for the fixed lists), and the values.
type vocabulary struct {
	platform string
	values   func(c *connector, ctx context.Context) []choice
}

// fixed is a vocabulary of a platform package's own list.
func fixed(platform string, vals []string) vocabulary {
	return vocabulary{platform: platform, values: func(*connector, context.Context) []choice {
		out := make([]choice, len(vals))
		for i, v := range vals {
			out[i] = choice{value: v, match: []string{v}}
		}
		return out
	}}
}

// promptVocabulary is the vocabulary of a prompt's argument; ok is false
// for an argument without one (a subject, a date, a document id).
func promptVocabulary(prompt, arg string) (vocabulary, bool) {
	switch arg {
	case "organisation":
		// council_decisions takes the key obv_search takes; regulations_on
		// the name cvdr_search takes (the same organisations' labels).
		byKey := prompt == "council_decisions"
		return vocabulary{platform: platforms.OBV, values: func(c *connector, ctx context.Context) []choice {
			return c.organisationChoices(ctx, byKey)
		}}, true
	case "court":
		return vocabulary{platform: platforms.Rechtspraak, values: func(c *connector, ctx context.Context) []choice {
			return c.rechtspraakChoices(ctx, "Instanties")
		}}, true
	case "legal_area":
		return vocabulary{platform: platforms.Rechtspraak, values: func(c *connector, ctx context.Context) []choice {
			return c.rechtspraakChoices(ctx, "Rechtsgebieden")
		}}, true
	case "committee":
		return vocabulary{platform: platforms.TK, values: func(c *connector, ctx context.Context) []choice {
			return c.tkChoices(ctx, "Commissie", false)
		}}, true
	case "political_group":
		return vocabulary{platform: platforms.TK, values: func(c *connector, ctx context.Context) []choice {
			return c.tkChoices(ctx, "Fractie", true)
		}}, true
	case "regulation_type":
		return fixed(platforms.BWB, bwb.Types), true
	case "kind":
		return fixed("", opentk.Kinds), true
	case "publication":
		return fixed(platforms.OB, ob.Publications), true
	}
	return vocabulary{}, false
}

// resourceVocabulary is the vocabulary of a resource template's variable:
// the fixed lists of a platform package where a variable is one (OpenTK's
// category); ids are never completed (no platform search per keystroke).
func resourceVocabulary(uri, arg string) (vocabulary, bool) {
	platform, _, ok := strings.Cut(strings.TrimPrefix(uri, adapters.Scheme+"://"), "/")
	if !ok || !strings.HasPrefix(uri, adapters.Scheme+"://") {
		return vocabulary{}, false
	}
	switch {
	case platform == platforms.OpenTK && arg == "category":
		return fixed(platforms.OpenTK, opentk.Categories), true
	case platform == platforms.OBV && arg == "entity_type":
		return fixed(platforms.OBV, obv.EntityTypes), true
	case platform == platforms.OB && arg == "publication":
		return fixed(platforms.OB, ob.Publications), true
	}
	return vocabulary{}, false
}

// completer is the connector's prompt and resource completion provider.
type completer struct{ c *connector }

func (p completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	c := p.c
	if c.settings() == nil {
		return &mcpgo.Completion{Values: []string{}}, nil
	}
	has := func(k string) bool { return c.offers(k) }
	i := slices.IndexFunc(promptTable, func(s promptSpec) bool { return s.name == prompt })
	if i < 0 || !promptTable[i].offered(has) || !slices.ContainsFunc(promptTable[i].args, func(a promptArg) bool { return a.name == arg.Name }) {
		return &mcpgo.Completion{Values: []string{}}, nil
	}
	v, ok := promptVocabulary(prompt, arg.Name)
	return c.complete(ctx, v, ok, arg.Value), nil
}

func (p completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	if p.c.settings() == nil {
		return &mcpgo.Completion{Values: []string{}}, nil
	}
	v, ok := resourceVocabulary(uri, arg.Name)
	return p.c.complete(ctx, v, ok, arg.Value), nil
}

// completionWait bounds a completion that has to read its list.
const completionWait = 10 * time.Second

// complete matches typed against the vocabulary's values.
func (c *connector) complete(ctx context.Context, v vocabulary, ok bool, typed string) *mcpgo.Completion {
	empty := &mcpgo.Completion{Values: []string{}}
	if !ok || (v.platform != "" && !c.offers(v.platform)) {
		return empty
	}
	ctx, cancel := context.WithTimeout(ctx, completionWait)
	defer cancel()
	return match(v.values(c, ctx), typed)
}

// match ranks the choices for what was typed: a prefix of the whole value
// (or of a text it matches on) first, then a prefix of a word, then a
// substring; case and accents do not count. At most maxCompletions, with
// the total and whether there are more.
func match(choices []choice, typed string) *mcpgo.Completion {
	q := fold(clip(typed, 100))
	type ranked struct {
		value string
		rank  int
	}
	best := map[string]int{}
	for _, ch := range choices {
		if ch.value == "" {
			continue
		}
		r := 3
		for _, m := range ch.match {
			f := fold(m)
			switch {
			case strings.HasPrefix(f, q):
				r = min(r, 0)
			case wordPrefix(f, q):
				r = min(r, 1)
			case strings.Contains(f, q):
				r = min(r, 2)
			}
		}
		if r == 3 {
			continue
		}
		if old, seen := best[ch.value]; !seen || r < old {
			best[ch.value] = r
		}
	}
	all := make([]ranked, 0, len(best))
	for v, r := range best {
		all = append(all, ranked{v, r})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank
		}
		fi, fj := fold(all[i].value), fold(all[j].value)
		if fi != fj {
			return fi < fj
		}
		return all[i].value < all[j].value
	})
	out := &mcpgo.Completion{Values: []string{}, Total: len(all), HasMore: len(all) > maxCompletions}
	for _, r := range all[:min(len(all), maxCompletions)] {
		out.Values = append(out.Values, r.value)
	}
	return out
}

// wordPrefix tells whether q begins a word of f after the first.
func wordPrefix(f, q string) bool {
	for i, r := range f {
		if i > 0 && !unicode.IsLetter(r) && !unicode.IsDigit(r) && strings.HasPrefix(f[i+utf8.RuneLen(r):], q) {
			return true
		}
	}
	return false
}

// fold is s for matching: lower case, accents and control characters
// dropped (Financiën matches financien).
func fold(s string) string {
	var sb strings.Builder
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) || unicode.IsControl(r) {
			continue
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}

// completionRetry is how long a list that could not be had is not asked
// for again by completions (the tools still ask).
const completionRetry = time.Minute

// memoised returns the list under key from the memo, else loads it (a
// platform call through the route) unless the platform failed to give it
// within completionRetry; ok is false when there is no list.
//
// The memo is the connector's, shared by every session, so only a
// failure of the platform's own is remembered (platformFault): one
// session's cancelled request, its deadline or its budget share running
// out says nothing of the list, and must not empty the completions of
// every other session for a minute.
func (c *connector) memoised(ctx context.Context, key string, load func() (any, error)) (any, bool) {
	now := c.now()
	if v, ok := c.lists.Get(key, now); ok {
		return v, true
	}
	if at, ok := c.lists.Get("failed:"+key, now); ok && now.Sub(at.(time.Time)) < completionRetry {
		return nil, false
	}
	v, err := load()
	if err != nil {
		if platformFault(ctx, err) {
			c.lists.Put("failed:"+key, now, now)
		}
		return nil, false
	}
	return v, true
}

// platformFault tells whether err, the failure of a call made for ctx,
// came from the platform (it failed, refused, was missing or answered
// in a form that did not parse) rather than from the caller: ctx ended
// (a hang-up, the request's deadline), or BesluitBron's budget had no
// room for this caller now.
func platformFault(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errNoOrigin) {
		return false
	}
	var re *adapters.RouteError
	if errors.As(err, &re) {
		return re.Kind != adapters.KindOverBudget
	}
	return true
}

// organisationChoices are OpenBesluitvorming's organisations (the
// imported ones): by key, matched on key and name, or by name.
func (c *connector) organisationChoices(ctx context.Context, byKey bool) []choice {
	v, ok := c.memoised(ctx, "obv:sources", func() (any, error) {
		l, _, err := c.loadOBVSources(ctx) // keeps it in the memo
		return l, err
	})
	if !ok {
		return nil
	}
	var out []choice
	for _, s := range v.([]obv.Source) {
		if !s.Implemented {
			continue
		}
		val := s.Key
		if !byKey {
			val = s.Label
		}
		out = append(out, choice{value: val, match: []string{s.Key, s.Label}})
	}
	return out
}

// rechtspraakChoices are the names of a Rechtspraak value list, matched
// on name and abbreviation (rechtspraak.List: the memo, else the route).
func (c *connector) rechtspraakChoices(ctx context.Context, list string) []choice {
	k := c.calls(ctx, platforms.Rechtspraak)
	v, ok := c.memoised(ctx, "rechtspraak:"+strings.ToLower(list), func() (any, error) {
		return rechtspraak.List(&c.lists, c.now(), list, k.get)
	})
	if !ok {
		return nil
	}
	var out []choice
	for _, it := range v.([]adapters.Item) {
		out = append(out, choice{value: it.Label, match: []string{it.Label, it.Extra["afkorting"]}})
	}
	return out
}

// tkListKey is the memo key of a Tweede Kamer list (tk_commissies,
// tk_fracties and completions keep it there).
func tkListKey(set string) string { return "tk:list:" + set }

// tkChoices are the current committees (by name) or groups (by
// abbreviation, which minutes print), matched on name and abbreviation.
func (c *connector) tkChoices(ctx context.Context, set string, byAbbreviation bool) []choice {
	k := c.calls(ctx, platforms.TK)
	v, ok := c.memoised(ctx, tkListKey(set), func() (any, error) {
		e, err := c.tkEntity(k, set)
		if err != nil {
			return nil, err
		}
		l, err := tk.ListAll(e, k.get)
		if err != nil {
			return nil, err
		}
		c.lists.Put(tkListKey(set), l, c.now())
		return l, nil
	})
	if !ok {
		return nil
	}
	var out []choice
	for _, it := range v.(tk.List).Items(false, c.now()) {
		val, ab := it.Label, it.Extra["afkorting"]
		if byAbbreviation && ab != "" {
			val = ab
		}
		out = append(out, choice{value: val, match: []string{it.Label, ab}})
	}
	return out
}
