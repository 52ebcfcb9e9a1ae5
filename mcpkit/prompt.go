package mcpkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Prompt is one prompt: a good first question for a kind of work, its
// arguments, when a connector offers it, and the plan of tool calls it
// writes for a model (which tool, which arguments, how to cite, what to
// do when a platform is over budget). docs/mcp.md lists them.
type Prompt struct {
	Name, Title, Desc string
	Args              []Arg
	// Offered tells, from the platforms a connector offers, whether it
	// offers the prompt.
	Offered func(offers func(key string) bool) bool
	// Plan writes the instructions for the checked arguments, naming only
	// tools the connector offers; an error is an argument that cannot be
	// followed (a document reference for a platform not offered), which
	// the client is told as invalid params.
	Plan func(env Env, a Args) (string, error)
}

// Arg is one argument of a prompt.
type Arg struct {
	Name, Title, Desc string
	Required          bool
	Date              bool // YYYY-MM-DD
	OneOf             []string
	// Vocabulary completes the argument's value; nil for one without
	// (a subject, a date, a document id).
	Vocabulary *Vocabulary
}

// Args are the checked arguments: trimmed, "" when not given.
type Args map[string]string

// MaxArg is the longest argument value a prompt takes, in characters: a
// question's words, a name or a reference.
const MaxArg = 500

// CheckArgs checks the arguments of a prompts/get: known names, no control
// characters, not too long, required ones given, dates and fixed values as
// they must be (a fixed value is returned as the list writes it).
func (p Prompt) CheckArgs(in map[string]string) (Args, error) {
	known := map[string]Arg{}
	var names []string
	for _, a := range p.Args {
		known[a.Name] = a
		names = append(names, a.Name)
	}
	out := Args{}
	var unknown []string
	for k, v := range in {
		a, ok := known[k]
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case utf8.RuneCountInString(v) > MaxArg:
			return nil, fmt.Errorf("%s is longer than %d characters", a.Name, MaxArg)
		case !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0:
			return nil, fmt.Errorf("%s %q holds control characters or invalid UTF-8", a.Name, Clip(v, 80))
		}
		out[k] = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		for i, u := range unknown {
			unknown[i] = fmt.Sprintf("%q", Clip(u, 40))
		}
		return nil, fmt.Errorf("unknown argument %s: %s takes %s", strings.Join(unknown, ", "), p.Name, strings.Join(names, ", "))
	}
	for _, a := range p.Args {
		v := out[a.Name]
		switch {
		case v == "" && a.Required:
			return nil, fmt.Errorf("%s is required (%s)", a.Name, a.Desc)
		case v == "":
		case a.Date:
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return nil, fmt.Errorf("%s %q is not a date: write it as YYYY-MM-DD", a.Name, Clip(v, 40))
			}
		case a.OneOf != nil:
			i := slices.IndexFunc(a.OneOf, func(s string) bool { return strings.EqualFold(s, v) })
			if i < 0 {
				return nil, fmt.Errorf("%s %q is unknown: use one of %s", a.Name, Clip(v, 40), strings.Join(a.OneOf, ", "))
			}
			out[a.Name] = a.OneOf[i]
		}
	}
	return out, nil
}

// Clip cuts a value for an error message.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// Plan writes numbered steps; each tool call is written as
// `call <tool> <JSON arguments>` (Call), so a model (and the tests) can
// follow it as given.
type Plan struct {
	sb strings.Builder
	n  int
}

// Say writes a line that is no step.
func (p *Plan) Say(format string, args ...any) { fmt.Fprintf(&p.sb, format+"\n", args...) }

// Step writes the next numbered step.
func (p *Plan) Step(format string, args ...any) {
	p.n++
	fmt.Fprintf(&p.sb, "%d. "+format+"\n", append([]any{p.n}, args...)...)
}

// Finish closes the plan with AnswerRules after the question.
func (p *Plan) Finish(question string) string {
	p.Say("")
	p.Say(AnswerRules)
	return question + "\n\nUse BesluitBron's tools in these steps:\n" + p.sb.String()
}

// Call writes a tool call with its arguments; empty values are left out.
func Call(tool string, args map[string]any) string {
	m := map[string]any{}
	for k, v := range args {
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		m[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	return "`call " + tool + " " + strings.TrimSpace(buf.String()) + "`"
}

// AnswerRules close every plan: citations, links, the budget.
const AnswerRules = `How to answer:
- Cite every source you use with its result's citation field (as given: ECLI:NL:HR:2024:123, Kamerstukken II 2023/24, 36410, nr. 5, Stb. 2018, 84), or its title and id where a result has no citation; link its uri (besluitbron://...) and its source_url.
- Say only what the documents say; quote the decisive sentence, and say when nothing was found rather than guessing.
- If a tool answers that a platform is over budget ("over budget, retry in N s") or unreachable, do not call it again at once: answer from what the other tools gave, say which platform is waiting and when it can be asked again, and offer to continue then. A result with from_cache true costs nothing to repeat.`

// SinceText is " since <date>" or "".
func SinceText(d string) string {
	if d == "" {
		return ""
	}
	return " since " + d
}
