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
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
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

// promptVocabulary is the vocabulary of an argument of a prompt the
// connector offers; ok is false for an argument without one (a subject, a
// date, a document id).
func (c *connector) promptVocabulary(prompt, arg string) (mcpkit.Vocabulary, bool) {
	p, ok := promptNamed(prompt)
	if !ok || !p.Offered(c.offers) {
		return mcpkit.Vocabulary{}, false
	}
	i := slices.IndexFunc(p.Args, func(a mcpkit.Arg) bool { return a.Name == arg })
	if i < 0 || p.Args[i].Vocabulary == nil {
		return mcpkit.Vocabulary{}, false
	}
	return *p.Args[i].Vocabulary, true
}

// resourceVocabulary is the vocabulary of a resource template's variable:
// the platform's (mcpkit.VocabularyProvider), where a variable is one of
// its fixed lists (OpenTK's category); ids are never completed (no
// platform search per keystroke).
func resourceVocabulary(uri, arg string) (mcpkit.Vocabulary, bool) {
	platform, _, ok := strings.Cut(strings.TrimPrefix(uri, adapters.Scheme+"://"), "/")
	if !ok || !strings.HasPrefix(uri, adapters.Scheme+"://") {
		return mcpkit.Vocabulary{}, false
	}
	p, ok := platforms.ProviderOf(platform)
	if !ok {
		return mcpkit.Vocabulary{}, false
	}
	if vp, ok := p.(mcpkit.VocabularyProvider); ok {
		return vp.ResourceVocabulary(arg)
	}
	return mcpkit.Vocabulary{}, false
}

// completer is the connector's prompt and resource completion provider.
type completer struct{ c *connector }

func (p completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	c := p.c
	if c.settings() == nil {
		return &mcpgo.Completion{Values: []string{}}, nil
	}
	v, ok := c.promptVocabulary(prompt, arg.Name)
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
func (c *connector) complete(ctx context.Context, v mcpkit.Vocabulary, ok bool, typed string) *mcpgo.Completion {
	empty := &mcpgo.Completion{Values: []string{}}
	if !ok || (v.Platform != "" && !c.offers(v.Platform)) {
		return empty
	}
	ctx, cancel := context.WithTimeout(ctx, completionWait)
	defer cancel()
	return match(v.Values(ctx, c), typed)
}

// match ranks the choices for what was typed: a prefix of the whole value
// (or of a text it matches on) first, then a prefix of a word, then a
// substring; case and accents do not count. At most maxCompletions, with
// the total and whether there are more.
func match(choices []mcpkit.Choice, typed string) *mcpgo.Completion {
	q := fold(mcpkit.Clip(typed, 100))
	type ranked struct {
		value string
		rank  int
	}
	best := map[string]int{}
	for _, ch := range choices {
		if ch.Value == "" {
			continue
		}
		r := 3
		for _, m := range ch.Match {
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
		if old, seen := best[ch.Value]; !seen || r < old {
			best[ch.Value] = r
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
