package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	"github.com/besluitbron/besluitbron/platforms/ob"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/opentk"
)

// The prompts: a good first question per kind of work, each a plan of
// tool calls written for a model (which tool, which arguments, how to
// cite, what to do when a platform is over budget). A connector offers
// the prompts whose tools it offers (promptSpec.offered); the plan names
// only tools the connector has. docs/mcp.md lists the same.

// promptArg is one argument of a prompt. Completions of its value come
// from vocabularyOf(name) (completions.go).
type promptArg struct {
	name, title, desc string
	required          bool
	date              bool // YYYY-MM-DD
	oneOf             []string
}

// promptSpec is one prompt: its arguments, when a connector offers it,
// and the plan it writes for the arguments given.
type promptSpec struct {
	name, title, desc string
	args              []promptArg
	offered           func(has func(string) bool) bool
	// plan writes the instructions; an error is an argument that cannot
	// be followed (a document reference for a platform not offered).
	plan func(c *connector, a promptArgs) (string, error)
}

// promptArgs are the checked arguments: trimmed, "" when not given.
type promptArgs map[string]string

var promptTable []promptSpec

func init() {
	promptTable = []promptSpec{
		{name: "council_decisions", title: "What did a council decide about a subject?",
			desc: "What the council (or provincial or water board) of an organisation decided about a subject, since a date: motions and their votes, decision lists, council proposals, and the regulations it adopted. Relies on obv_sources, obv_search and obv_fetch (OpenBesluitvorming), and cvdr_search and cvdr_fetch (local regulations) where the connector offers them.",
			args: []promptArg{
				{name: "organisation", title: "Organisation", required: true, desc: "Municipality, province or water board: an OpenBesluitvorming key (utrecht, provincie-utrecht) or its name."},
				{name: "subject", title: "Subject", required: true, desc: "What the decisions are about, in the words to search for (e.g. sociale huurwoningen)."},
				{name: "since", title: "Since", date: true, desc: "Only decisions from this day on, YYYY-MM-DD."},
			},
			offered: func(has func(string) bool) bool { return has(platforms.OBV) },
			plan:    (*connector).planCouncil},
		{name: "case_law", title: "Case law on a subject since a date",
			desc: "Court rulings on a subject since a date, optionally of one court or legal area, with the laws they apply. Relies on rechtspraak_search (with query where the operator keeps Rechtspraak's word index; rechtspraak_lists otherwise) and rechtspraak_fetch, and bwb_fetch for the laws the rulings cite where the connector offers it.",
			args: []promptArg{
				{name: "subject", title: "Subject", required: true, desc: "What the rulings are about (e.g. huurverhoging)."},
				{name: "since", title: "Since", date: true, desc: "Only rulings decided from this day on, YYYY-MM-DD."},
				{name: "court", title: "Court", desc: "A court: its name or abbreviation (Hoge Raad, HR, Rechtbank Den Haag)."},
				{name: "legal_area", title: "Legal area", desc: "A legal area of Rechtspraak's list (e.g. Huurrecht, Belastingrecht)."},
			},
			offered: func(has func(string) bool) bool { return has(platforms.Rechtspraak) },
			plan:    (*connector).planCaseLaw},
		{name: "law_behind_decision", title: "The law behind a decision",
			desc: "The laws and regulations a decision, ruling or regulation rests on, read as in force on its date. Relies on the document's fetch tool (obv_fetch, rechtspraak_fetch, cvdr_fetch, bwb_fetch, ob_fetch, opentk_fetch or tk_fetch), its references (platform and id, as the fetch tools take them), and bwb_fetch, cvdr_fetch and ob_fetch for what it rests on; bwb_search and cvdr_search when the document names its legal basis only in its text.",
			args: []promptArg{
				{name: "document", title: "Document", required: true, desc: "The decision: a besluitbron:// URI, a platform and id (rechtspraak ECLI:NL:HR:2014:952, cvdr CVDR100394_2, obv document:...), or a citation (ECLI:NL:HR:2014:952, Stb. 2018, 84, Gmb. 2016, 146361, Kamerstukken II 2023/24, 36410, nr. 5)."},
			},
			offered: func(has func(string) bool) bool { return has(platforms.BWB) || has(platforms.CVDR) },
			plan:    (*connector).planLawBehind},
		{name: "parliament_on", title: "What parliament did about a subject",
			desc: "What the Tweede Kamer did about a subject: motions, letters, written questions, debates and their minutes, optionally of one committee or political group, and their official publication. Relies on opentk_search and opentk_fetch (full text), tk_search, tk_fetch, tk_commissies and tk_fracties (metadata and lists), and ob_search and ob_fetch (Kamerstukken, Handelingen) where the connector offers them.",
			args: []promptArg{
				{name: "subject", title: "Subject", required: true, desc: "What to find (e.g. stikstof)."},
				{name: "since", title: "Since", date: true, desc: "Only from this day on, YYYY-MM-DD."},
				{name: "kind", title: "Kind of document", oneOf: opentk.Kinds, desc: "alles (everything), moties (motions), vragenantwoorden (written questions and answers) or activiteiten (debates and other activities)."},
				{name: "committee", title: "Committee", desc: "A Tweede Kamer committee (e.g. vaste commissie voor Financiën)."},
				{name: "political_group", title: "Political group", desc: "A parliamentary group (fractie), e.g. VVD."},
			},
			offered: func(has func(string) bool) bool { return has(platforms.TK) || has(platforms.OpenTK) },
			plan:    (*connector).planParliament},
		{name: "regulations_on", title: "Which rules apply to a subject",
			desc: "The laws, national regulations and local regulations on a subject in force on a date. Relies on bwb_search and bwb_fetch (wetten.overheid.nl) and cvdr_search and cvdr_fetch (local regulations), as far as the connector offers them.",
			args: []promptArg{
				{name: "subject", title: "Subject", required: true, desc: "Words of the regulation's title (e.g. parkeren, Omgevingswet)."},
				{name: "regulation_type", title: "Regulation type", oneOf: bwb.Types, desc: "Only this kind of national regulation: wet, AMvB, ministeriele-regeling, ..."},
				{name: "organisation", title: "Organisation", desc: "For local regulations: the municipality, province or water board by name (e.g. Kampen)."},
				{name: "on", title: "In force on", date: true, desc: "The day the rules are in force on, YYYY-MM-DD (default today)."},
			},
			offered: func(has func(string) bool) bool { return has(platforms.BWB) || has(platforms.CVDR) },
			plan:    (*connector).planRegulations},
		{name: "publications_on", title: "Official publications on a subject",
			desc: "What was officially published on a subject (Staatsblad, Staatscourant, Kamerstukken, Gemeenteblad, ...), optionally in one publication or by one issuing body. Relies on ob_search and ob_fetch (Officiële Bekendmakingen).",
			args: []promptArg{
				{name: "subject", title: "Subject", required: true, desc: "Words to find in the publications."},
				{name: "publication", title: "Publication", oneOf: ob.Publications, desc: "Only this publication (Staatsblad, Gemeenteblad, Kamerstuk, ...)."},
				{name: "creator", title: "Issuing body", desc: "Only publications of this body, e.g. a municipality or ministry."},
				{name: "since", title: "Since", date: true, desc: "Only from this day on, YYYY-MM-DD."},
			},
			offered: func(has func(string) bool) bool { return has(platforms.OB) },
			plan:    (*connector).planPublications},
	}
}

// promptsFor lists the prompts a connector offering these platforms serves.
func (c *connector) promptsFor(keys []string) []server.ServerPrompt {
	has := func(k string) bool { return slices.Contains(keys, k) }
	var out []server.ServerPrompt
	for _, p := range promptTable {
		if p.offered(has) {
			out = append(out, server.ServerPrompt{Prompt: p.prompt(), Handler: c.promptHandler(p)})
		}
	}
	return out
}

// prompt is p as prompts/list shows it.
func (p promptSpec) prompt() mcpgo.Prompt {
	opts := []mcpgo.PromptOption{mcpgo.WithPromptTitle(p.title), mcpgo.WithPromptDescription(p.desc)}
	for _, a := range p.args {
		ao := []mcpgo.ArgumentOption{mcpgo.ArgumentTitle(a.title), mcpgo.ArgumentDescription(a.desc)}
		if a.required {
			ao = append(ao, mcpgo.RequiredArgument())
		}
		opts = append(opts, mcpgo.WithArgument(a.name, ao...))
	}
	return mcpgo.NewPrompt(p.name, opts...)
}

// maxPromptArg is the longest argument value a prompt takes, in
// characters: a question's words, a name or a reference.
const maxPromptArg = 500

// checkArgs checks the arguments of a prompts/get: known names, no
// control characters, not too long, required ones given, dates and
// fixed values as they must be.
func (p promptSpec) checkArgs(in map[string]string) (promptArgs, error) {
	known := map[string]promptArg{}
	var names []string
	for _, a := range p.args {
		known[a.name] = a
		names = append(names, a.name)
	}
	out := promptArgs{}
	var unknown []string
	for k, v := range in {
		a, ok := known[k]
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case utf8.RuneCountInString(v) > maxPromptArg:
			return nil, fmt.Errorf("%s is longer than %d characters", a.name, maxPromptArg)
		case !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0:
			return nil, fmt.Errorf("%s %q holds control characters or invalid UTF-8", a.name, clip(v, 80))
		}
		out[k] = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		for i, u := range unknown {
			unknown[i] = fmt.Sprintf("%q", clip(u, 40))
		}
		return nil, fmt.Errorf("unknown argument %s: %s takes %s", strings.Join(unknown, ", "), p.name, strings.Join(names, ", "))
	}
	for _, a := range p.args {
		v := out[a.name]
		switch {
		case v == "" && a.required:
			return nil, fmt.Errorf("%s is required (%s)", a.name, a.desc)
		case v == "":
		case a.date:
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return nil, fmt.Errorf("%s %q is not a date: write it as YYYY-MM-DD", a.name, clip(v, 40))
			}
		case a.oneOf != nil:
			i := slices.IndexFunc(a.oneOf, func(s string) bool { return strings.EqualFold(s, v) })
			if i < 0 {
				return nil, fmt.Errorf("%s %q is unknown: use one of %s", a.name, clip(v, 40), strings.Join(a.oneOf, ", "))
			}
			out[a.name] = a.oneOf[i]
		}
	}
	return out, nil
}

// clip cuts a value for an error message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// promptHandler answers prompts/get for p: the arguments checked, the
// plan for this connector's tools as one user message. Refused arguments
// are invalid params (-32602) whose message begins "invalid arguments"
// and says what to fix (heldanswer.go: mcp-go would send -32603).
func (c *connector) promptHandler(p promptSpec) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		a, err := p.checkArgs(req.Params.Arguments)
		if err != nil {
			return nil, invalidPromptArgs(ctx, p.name, err)
		}
		text, err := p.plan(c, a)
		if err != nil {
			return nil, invalidPromptArgs(ctx, p.name, err)
		}
		return mcpgo.NewGetPromptResult(p.title, []mcpgo.PromptMessage{
			mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent(text)),
		}), nil
	}
}

// plan writes numbered steps; each tool call is written as
// `call <tool> <JSON arguments>`, so a model (and the tests) can follow
// it as given.
type plan struct {
	sb strings.Builder
	n  int
}

func (p *plan) say(format string, args ...any) { fmt.Fprintf(&p.sb, format+"\n", args...) }

func (p *plan) step(format string, args ...any) {
	p.n++
	fmt.Fprintf(&p.sb, "%d. "+format+"\n", append([]any{p.n}, args...)...)
}

// call writes a tool call with its arguments; empty values are left out.
func call(tool string, args map[string]any) string {
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

// answerRules close every plan: citations, links, the budget.
const answerRules = `How to answer:
- Cite every source you use with its result's citation field (as given: ECLI:NL:HR:2024:123, Kamerstukken II 2023/24, 36410, nr. 5, Stb. 2018, 84), or its title and id where a result has no citation; link its uri (besluitbron://...) and its source_url.
- Say only what the documents say; quote the decisive sentence, and say when nothing was found rather than guessing.
- If a tool answers that a platform is over budget ("over budget, retry in N s") or unreachable, do not call it again at once: answer from what the other tools gave, say which platform is waiting and when it can be asked again, and offer to continue then. A result with from_cache true costs nothing to repeat.`

func (c *connector) hasTool(platform string) bool { return c.offers(platform) }

func (p *plan) finish(question string) string {
	p.say("")
	p.say(answerRules)
	return question + "\n\nUse BesluitBron's tools in these steps:\n" + p.sb.String()
}

// sinceText is " since <date>" or "".
func sinceText(d string) string {
	if d == "" {
		return ""
	}
	return " since " + d
}

// knownOrganisation is the sources list entry the memo holds for an
// organisation given as key or name (no platform call).
func (c *connector) knownOrganisation(v string) (obv.Source, bool) {
	m, ok := c.lists.Get("obv:sources", c.now())
	if !ok {
		return obv.Source{}, false
	}
	for _, s := range m.([]obv.Source) {
		if s.Key == v || strings.EqualFold(s.Label, v) || strings.EqualFold(s.Key, v) {
			return s, true
		}
	}
	return obv.Source{}, false
}

func (c *connector) planCouncil(a promptArgs) (string, error) {
	org, subject, since := a["organisation"], a["subject"], a["since"]
	q := fmt.Sprintf("What did the council of %s decide about %s%s?", org, subject, sinceText(since))
	var p plan
	key, name := "<the key from step 1>", "<its label from step 1>"
	if s, ok := c.knownOrganisation(org); ok {
		key, name = s.Key, s.Label
	} else {
		p.step("Find the organisation's key: %s. Take the key of the municipality, province or water board meant; when several fit, ask the user which.",
			call("obv_sources", map[string]any{"name": org}))
	}
	search := map[string]any{"organization": key, "query": subject, "date_from": since, "sort": "date_desc", "limit": 10}
	p.step("Search its council documents, meetings and motions on the subject: %s. If nothing is found, try fewer or other words (\"quoted words\" match as a phrase); page on with offset=next_offset.", call("obv_search", search))
	search["entity_type"] = "Motion"
	p.step("Find the motions and how they were voted on: %s.", call("obv_search", search))
	p.step("Read what was decided: %s for the decision list (besluitenlijst), the council proposal and decision (raadsvoorstel, raadsbesluit) and each motion that matters; a motion's result says whether it was adopted (aangenomen) or rejected (verworpen), with the votes per member or the council's vote summary where published. Fetch only the items you need: full text is the expensive call.",
		call("obv_fetch", map[string]any{"id": "<id of a hit>"}))
	if c.hasTool(platforms.CVDR) {
		p.step("Regulations the council adopted on it (verordeningen, beleidsregels): %s, then %s for the one in force; its references name the laws it rests on.",
			call("cvdr_search", map[string]any{"organisation": name, "query": subject}), call("cvdr_fetch", map[string]any{"id": "<id of a hit>"}))
	}
	p.step("Answer: what was decided, on which day and by which body, the vote where known, and what followed; newest first.")
	return p.finish(q), nil
}

func (c *connector) planCaseLaw(a promptArgs) (string, error) {
	subject, since, court, area := a["subject"], a["since"], a["court"], a["legal_area"]
	q := "What is the case law on " + subject + sinceText(since)
	if court != "" {
		q += " of " + court
	}
	if area != "" {
		q += " in " + area
	}
	q += "?"
	var p plan
	if c.settings().caseLaw != nil {
		p.step("Find the rulings on the subject, best match first: %s. If few fit, try other words (\"quoted words\" match as a phrase) or sort=DESC for the newest.",
			call("rechtspraak_search", map[string]any{"query": subject, "date_from": since, "court": court, "limit": 20}))
		if area != "" {
			p.step("The legal area cannot be combined with words: list the newest rulings of that area as well, %s, and keep those whose titles fit the subject.",
				call("rechtspraak_search", map[string]any{"legal_area": area, "court": court, "date_from": since, "limit": 20}))
		}
	} else {
		if court == "" && area == "" {
			p.step("This BesluitBron keeps no word index of Rechtspraak, so rulings are listed by court, legal area and date: find the legal area that fits the subject, %s.",
				call("rechtspraak_lists", map[string]any{"list": "Rechtsgebieden"}))
			area = "<the legal area from step 1>"
		}
		p.step("List the rulings, newest first: %s. Keep those whose titles fit the subject; page on with offset=next_offset.",
			call("rechtspraak_search", map[string]any{"court": court, "legal_area": area, "date_from": since, "limit": 20}))
	}
	p.step("Read the summary (inhoudsindicatie) of each ruling that may fit: %s; read the reasoning of those that matter without metadata_only (in pages: offset=next_offset).",
		call("rechtspraak_fetch", map[string]any{"ecli": "<ECLI of a hit>", "metadata_only": true}))
	if c.hasTool(platforms.BWB) {
		p.step("The laws a ruling applies are in its document.references (relation cites, platform bwb, with the article): read each article as it read on the ruling's date, %s.",
			call("bwb_fetch", map[string]any{"id": "<the reference's id>", "article": "<its article>", "date": "<the ruling's date>"}))
	}
	p.step("Answer: the leading rulings (highest court first, then newest), what each decided on the subject, and the articles they apply.")
	return p.finish(q), nil
}

// docRef is a document a prompt names: the platform that holds it and
// its id as that platform's fetch tool takes it.
type docRef struct {
	platform, id, category, date, article string
}

// check refuses a reference whose id (or category) no fetch of its
// platform would take, before a plan hands it on as a call: the one
// its platform recognizes as written (CVDR100394/2) is taken, any other
// is held to the check every platform's id passes (adapters.CheckIDChars).
func (r docRef) check() error {
	if recognize := platformSurfaces[r.platform].Recognize; recognize != nil {
		if _, ok := recognize(r.id); ok {
			return nil
		}
	}
	for _, v := range []string{r.id, r.category} {
		if err := adapters.CheckIDChars(v); v != "" && err != nil {
			return fmt.Errorf("document: %w", err)
		}
	}
	return nil
}

// parseDocRef reads a document reference: a resource URI, an identifier
// or citation a platform recognizes (its Surface.Recognize), or either
// after a platform key ("cvdr:", "rechtspraak "). ok is false for a
// citation of a form no platform knows (the plan then searches for it).
func parseDocRef(s string) (docRef, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(strings.ToLower(s), "besluitbron://") {
		return parseResourceURI(s)
	}
	if r, ok := recognizeRef(s); ok {
		return r, true
	}
	for _, sep := range []string{":", " "} {
		if k, rest, ok := strings.Cut(s, sep); ok && platformKey(k) != "" {
			if r, ok := parseDocRef(rest); ok {
				return r, true
			}
			return keyedRef(platformKey(k), rest)
		}
	}
	return docRef{}, false
}

// keyedRef is id after its platform's key, as it is: for a platform whose
// references are told apart by nothing of their own (no Recognize, as
// ORI). A platform that recognizes its references has refused id already
// (parseDocRef asked it), and its fetch would refuse it too: no fetch is
// planned for it (CVDR://90740_1, a reference as documents write it, is
// CVDR's to recognize, not "//90740_1").
func keyedRef(platform, id string) (docRef, bool) {
	id = strings.TrimSpace(id)
	if id == "" || platformSurfaces[platform].Recognize != nil {
		return docRef{}, false
	}
	return docRef{platform: platform, id: id}, true
}

// recognizeRef asks each platform, in the table's order, whether s is a
// reference to one of its documents (no two platforms take the same s).
func recognizeRef(s string) (docRef, bool) {
	for _, k := range platforms.Keys() {
		if recognize := platformSurfaces[k].Recognize; recognize != nil {
			if id, ok := recognize(s); ok {
				return docRef{platform: k, id: id}, true
			}
		}
	}
	return docRef{}, false
}

// platformKey is k as a platform key, or "".
func platformKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	if slices.Contains(platforms.Keys(), k) {
		return k
	}
	return ""
}

// parseResourceURI reads besluitbron://<platform>/<reference>, the
// resource URIs of the platforms' templates.
func parseResourceURI(s string) (docRef, bool) {
	u, err := url.Parse(s)
	if err != nil || platformKey(u.Host) == "" {
		return docRef{}, false
	}
	r := docRef{platform: platformKey(u.Host), date: u.Query().Get("date"), article: u.Query().Get("article")}
	// The path as written: a variable's slash is encoded (CVDR101010%2F2),
	// the template's is not.
	path := strings.TrimPrefix(u.EscapedPath(), "/")
	switch r.platform {
	case platforms.TK:
		path = strings.TrimPrefix(path, "document/")
	case platforms.OpenTK:
		if cat, id, ok := strings.Cut(path, "/"); ok {
			r.category, path = cat, id
		}
	}
	if strings.Contains(path, "/") {
		return docRef{}, false
	}
	r.id, err = url.PathUnescape(path)
	if r.category != "" && err == nil {
		r.category, err = url.PathUnescape(r.category)
	}
	return r, err == nil && r.id != ""
}

// fetchCall is the call that reads r, with the connector's tools.
func (c *connector) fetchCall(r docRef) (string, error) {
	switch r.platform {
	case platforms.Rechtspraak:
		if c.hasTool(r.platform) {
			return call("rechtspraak_fetch", map[string]any{"ecli": r.id}), nil
		}
	case platforms.BWB:
		if c.hasTool(r.platform) {
			return call("bwb_fetch", map[string]any{"id": r.id, "date": r.date, "article": r.article}), nil
		}
	case platforms.TK, platforms.OpenTK:
		if c.hasTool(platforms.OpenTK) {
			return call("opentk_fetch", map[string]any{"id": r.id, "category": r.category}), nil
		}
		if c.hasTool(platforms.TK) && r.category == "" {
			return call("tk_fetch", map[string]any{"id": r.id}), nil
		}
	default:
		if c.hasTool(r.platform) {
			return call(r.platform+"_fetch", map[string]any{"id": r.id}), nil
		}
	}
	p, _ := platforms.Get(r.platform)
	return "", fmt.Errorf("document %s is on %s, whose tools this connector does not offer (it offers %s)", clip(r.id, 60), p.Name, strings.Join(c.settings().platforms, ", "))
}

func (c *connector) planLawBehind(a promptArgs) (string, error) {
	ref := a["document"]
	q := "What is the law behind " + ref + "?"
	var p plan
	r, ok := parseDocRef(ref)
	if ok {
		if err := r.check(); err != nil {
			return "", err
		}
		fetch, err := c.fetchCall(r)
		if err != nil {
			return "", err
		}
		p.step("Read the document: %s. Note its date: the laws are read as in force then.", fetch)
	} else {
		// A citation of a form the prompt does not know: find it.
		var finds []string
		for _, t := range []struct{ key, tool string }{{platforms.OB, "ob_search"}, {platforms.BWB, "bwb_search"}, {platforms.CVDR, "cvdr_search"}} {
			if c.hasTool(t.key) {
				finds = append(finds, call(t.tool, map[string]any{"query": ref}))
			}
		}
		p.step("Find the document this citation names: %s; then read it with the fetch tool of the platform that holds it (its hit's id).", strings.Join(finds, " or "))
	}
	var reads []string
	if c.hasTool(platforms.BWB) {
		reads = append(reads, "platform bwb: "+call("bwb_fetch", map[string]any{"id": "<the reference's id>", "article": "<its article>", "date": "<its date, else the document's date>"}))
	}
	if c.hasTool(platforms.CVDR) {
		reads = append(reads, "platform cvdr: "+call("cvdr_fetch", map[string]any{"id": "<the reference's id>"}))
	}
	if c.hasTool(platforms.OB) {
		reads = append(reads, "platform ob (published_as, enacted_by, amended_by): "+call("ob_fetch", map[string]any{"id": "<the reference's id>"}))
	}
	p.step("Its document.references name what it rests on (relation rests_on; a ruling's cites), each as a platform and an id that platform's fetch tool takes as is. Read each one: %s. A reference to a platform this connector does not offer: name it by its label, do not fetch it.",
		strings.Join(reads, "; "))
	var finds []string
	if c.hasTool(platforms.BWB) {
		finds = append(finds, "a law with "+call("bwb_search", map[string]any{"query": "<the law's name>"})+" and its article with bwb_fetch (id, article, date = the document's date)")
	}
	if c.hasTool(platforms.CVDR) {
		finds = append(finds, "a local regulation with "+call("cvdr_search", map[string]any{"organisation": "<the body that decided>", "query": "<the regulation's name>", "in_force_on": "<the document's date>"}))
	}
	p.step("When document.references is empty (council documents, parliamentary papers and official publications carry none), read the text for the legal basis it states (\"gelet op artikel 149 van de Gemeentewet\", \"op grond van ...\") and find %s.", strings.Join(finds, "; "))
	p.step("Answer: for each legal basis, the article's words as in force on the document's date, what it empowers or requires, and how the document uses it.")
	return p.finish(q), nil
}

func (c *connector) planParliament(a promptArgs) (string, error) {
	subject, since, kind, committee, group := a["subject"], a["since"], a["kind"], a["committee"], a["political_group"]
	q := "What did the Tweede Kamer do about " + subject + sinceText(since)
	if committee != "" {
		q += " in the " + committee
	}
	if group != "" {
		q += ", and what did " + group + " do"
	}
	q += "?"
	var p plan
	if c.hasTool(platforms.OpenTK) {
		words := subject
		if committee != "" {
			words += ` "` + strings.ReplaceAll(committee, `"`, "") + `"`
		}
		if group != "" {
			words += " " + group
		}
		p.step("Search the text of what the Kamer publishes: %s. Hits are newest first%s; each hit's type is its category (Document, Verslag = minutes, Activiteit, Toezegging). A committee or group given is matched as words in the text (minutes name a speaker's group: \"De heer X (VVD)\"), not as a filter: drop it from query when too little is found.",
			call("opentk_search", map[string]any{"query": words, "kind": kind}), map[bool]string{true: "; drop those before " + since, false: ""}[since != ""])
		p.step("Read the documents and minutes that matter: %s (continue with offset=next_offset).", call("opentk_fetch", map[string]any{"id": "<id of a hit>", "category": "<its type>"}))
	}
	if c.hasTool(platforms.TK) {
		soort := map[string]string{"moties": "Motie", "vragenantwoorden": "Schriftelijke vragen"}[kind]
		p.step("Find the documents by title and subject, with their kind and kamerstuk number: %s; %s gives one's details.",
			call("tk_search", map[string]any{"query": subject, "soort": soort, "date_from": since}), call("tk_fetch", map[string]any{"id": "<its number>"}))
		if committee != "" {
			p.step("Check the committee's name and abbreviation: %s.", call("tk_commissies", map[string]any{"name": committee}))
		}
		if group != "" {
			p.step("Check the group's name, abbreviation and seats: %s.", call("tk_fracties", map[string]any{"name": group}))
		}
	}
	if c.hasTool(platforms.OB) {
		p.step("The official publication (Kamerstukken, Handelingen), with the citation to quote: %s, then %s.",
			call("ob_search", map[string]any{"query": subject, "publication": "Kamerstuk", "date_from": since}), call("ob_fetch", map[string]any{"id": "<id of a hit>"}))
	}
	p.step("Answer: the motions (adopted or rejected), letters, questions and debates on the subject, newest first, and who submitted or said what.")
	return p.finish(q), nil
}

func (c *connector) planRegulations(a promptArgs) (string, error) {
	subject, typ, org, on := a["subject"], a["regulation_type"], a["organisation"], a["on"]
	q := "Which rules on " + subject + " are in force"
	if on != "" {
		q += " on " + on
	}
	if org != "" {
		q += " in " + org
	}
	q += "?"
	var p plan
	if c.hasTool(platforms.BWB) {
		p.step("Find the laws and national regulations by words of their title: %s (the service indexes titles, not texts: use a law's name words).",
			call("bwb_search", map[string]any{"query": subject, "type": typ, "in_force_on": on}))
		p.step("Read the articles that matter as in force then: %s; its came_from names the Staatsblad or Staatscourant it came from.",
			call("bwb_fetch", map[string]any{"id": "<id of a hit>", "article": "<an article>", "date": on}))
	} else if typ != "" {
		p.say("(regulation_type %s applies to national regulations, which this connector does not offer.)", typ)
	}
	if c.hasTool(platforms.CVDR) {
		what := "Find the local regulations"
		if org == "" {
			what += " of all municipalities, provinces and water boards (naming one is faster; ask the user which)"
		}
		p.step("%s: %s, then %s; its references name the laws it rests on.", what,
			call("cvdr_search", map[string]any{"query": subject, "organisation": org, "in_force_on": on}), call("cvdr_fetch", map[string]any{"id": "<id of a hit>"}))
	}
	p.step("Answer: each regulation in force, what it says on the subject (quote the article), and which law it rests on.")
	return p.finish(q), nil
}

func (c *connector) planPublications(a promptArgs) (string, error) {
	subject, pub, creator, since := a["subject"], a["publication"], a["creator"], a["since"]
	q := "What was officially published about " + subject + sinceText(since)
	if pub != "" {
		q += " in the " + pub
	}
	if creator != "" {
		q += " by " + creator
	}
	q += "?"
	var p plan
	p.step("Search the official publications, newest first: %s. Narrow by dates rather than paging deep.",
		call("ob_search", map[string]any{"query": subject, "publication": pub, "creator": creator, "date_from": since, "limit": 10}))
	p.step("Read the ones that matter: %s (continue with offset=next_offset).", call("ob_fetch", map[string]any{"id": "<id of a hit>"}))
	p.step("Answer: each publication with its date, issuing body and what it announces or decides.")
	return p.finish(q), nil
}
