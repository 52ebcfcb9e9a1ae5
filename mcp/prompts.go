package mcp

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The prompts: a good first question per kind of work, each a plan of
// tool calls written for a model. A platform leads the prompts of its
// kind of work (mcpkit.PromptProvider, in its folder) and may name other
// platforms' tools in them; law_behind_decision, which reads whatever a
// document rests on, is the connector's own and asks each platform for
// its part (mcpkit's Fetcher, CitationFinder, ReferenceReader,
// LegalBasisFinder). A connector offers the prompts whose tools it
// offers (Prompt.Offered); the plan names only tools the connector has.
// docs/mcp.md lists the same.

// allPrompts are the prompts of every registered platform, in table
// order, then law_behind_decision.
func allPrompts() []mcpkit.Prompt {
	var out []mcpkit.Prompt
	for _, p := range platforms.Each[mcpkit.PromptProvider]() {
		out = append(out, p.Prompts()...)
	}
	return append(out, lawBehindPrompt)
}

// promptNamed is the prompt of that name.
func promptNamed(name string) (mcpkit.Prompt, bool) {
	all := allPrompts()
	i := slices.IndexFunc(all, func(p mcpkit.Prompt) bool { return p.Name == name })
	if i < 0 {
		return mcpkit.Prompt{}, false
	}
	return all[i], true
}

// promptsFor lists the prompts a connector offering these platforms serves.
func (c *connector) promptsFor(keys []string) []server.ServerPrompt {
	has := func(k string) bool { return slices.Contains(keys, k) }
	var out []server.ServerPrompt
	for _, p := range allPrompts() {
		if p.Offered(has) {
			out = append(out, server.ServerPrompt{Prompt: promptOf(p), Handler: c.promptHandler(p)})
		}
	}
	return out
}

// promptOf is p as prompts/list shows it.
func promptOf(p mcpkit.Prompt) mcpgo.Prompt {
	opts := []mcpgo.PromptOption{mcpgo.WithPromptTitle(p.Title), mcpgo.WithPromptDescription(p.Desc)}
	for _, a := range p.Args {
		ao := []mcpgo.ArgumentOption{mcpgo.ArgumentTitle(a.Title), mcpgo.ArgumentDescription(a.Desc)}
		if a.Required {
			ao = append(ao, mcpgo.RequiredArgument())
		}
		opts = append(opts, mcpgo.WithArgument(a.Name, ao...))
	}
	return mcpgo.NewPrompt(p.Name, opts...)
}

// promptHandler answers prompts/get for p: the arguments checked, the
// plan for this connector's tools as one user message. Refused arguments
// are invalid params (-32602) whose message begins "invalid arguments"
// and says what to fix (heldanswer.go: mcp-go would send -32603).
func (c *connector) promptHandler(p mcpkit.Prompt) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		a, err := p.CheckArgs(req.Params.Arguments)
		if err != nil {
			return nil, invalidPromptArgs(ctx, p.Name, err)
		}
		text, err := p.Plan(c, a)
		if err != nil {
			return nil, invalidPromptArgs(ctx, p.Name, err)
		}
		return mcpgo.NewGetPromptResult(p.Title, []mcpgo.PromptMessage{
			mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent(text)),
		}), nil
	}
}

// lawBehindPrompt: the laws and regulations a decision rests on.
var lawBehindPrompt = mcpkit.Prompt{Name: "law_behind_decision", Title: "The law behind a decision",
	Desc: "The laws and regulations a decision, ruling or regulation rests on, read as in force on its date. Relies on the document's fetch tool (obv_fetch, rechtspraak_fetch, cvdr_fetch, bwb_fetch, ob_fetch, opentk_fetch or tk_fetch), its references (platform and id, as the fetch tools take them), and bwb_fetch, cvdr_fetch and ob_fetch for what it rests on; bwb_search and cvdr_search when the document names its legal basis only in its text.",
	Args: []mcpkit.Arg{
		{Name: "document", Title: "Document", Required: true, Desc: "The decision: a besluitbron:// URI, a platform and id (rechtspraak ECLI:NL:HR:2014:952, cvdr CVDR100394_2, obv document:...), or a citation (ECLI:NL:HR:2014:952, Stb. 2018, 84, Gmb. 2016, 146361, Kamerstukken II 2023/24, 36410, nr. 5)."},
	},
	// Offered where the connector offers a platform that holds laws or
	// regulations a document may rest on.
	Offered: func(offers func(string) bool) bool {
		return slices.ContainsFunc(keysOf[mcpkit.LegalBasisFinder](), offers)
	},
	Plan: planLawBehind}

// keysOf are the keys of the registered platforms that implement T.
func keysOf[T any]() []string {
	var keys []string
	for _, p := range platforms.Providers() {
		if _, ok := p.(T); ok {
			keys = append(keys, p.Platform().Key)
		}
	}
	return keys
}

// checkRef refuses a reference whose id (or category) no fetch of its
// platform would take, before a plan hands it on as a call: the one
// its platform recognizes as written (CVDR100394/2) is taken, any other
// is held to the check every platform's id passes (adapters.CheckIDChars).
func checkRef(r mcpkit.Ref) error {
	if recognize := platformSurfaces()[r.Platform].Recognize; recognize != nil {
		if _, ok := recognize(r.ID); ok {
			return nil
		}
	}
	for _, v := range []string{r.ID, r.Category} {
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
func parseDocRef(s string) (mcpkit.Ref, bool) {
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
	return mcpkit.Ref{}, false
}

// keyedRef is id after its platform's key, as it is: for a platform whose
// references are told apart by nothing of their own (no Recognize, as
// ORI). A platform that recognizes its references has refused id already
// (parseDocRef asked it), and its fetch would refuse it too: no fetch is
// planned for it (CVDR://90740_1, a reference as documents write it, is
// CVDR's to recognize, not "//90740_1").
func keyedRef(platform, id string) (mcpkit.Ref, bool) {
	id = strings.TrimSpace(id)
	if id == "" || platformSurfaces()[platform].Recognize != nil {
		return mcpkit.Ref{}, false
	}
	return mcpkit.Ref{Platform: platform, ID: id}, true
}

// recognizeRef asks each platform, in the table's order, whether s is a
// reference to one of its documents (no two platforms take the same s).
func recognizeRef(s string) (mcpkit.Ref, bool) {
	for _, k := range platforms.Keys() {
		if recognize := platformSurfaces()[k].Recognize; recognize != nil {
			if id, ok := recognize(s); ok {
				return mcpkit.Ref{Platform: k, ID: id}, true
			}
		}
	}
	return mcpkit.Ref{}, false
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
func parseResourceURI(s string) (mcpkit.Ref, bool) {
	u, err := url.Parse(s)
	if err != nil || platformKey(u.Host) == "" {
		return mcpkit.Ref{}, false
	}
	r := mcpkit.Ref{Platform: platformKey(u.Host), Date: u.Query().Get("date"), Article: u.Query().Get("article")}
	// The path as written: a variable's slash is encoded (CVDR101010%2F2),
	// the template's is not.
	path := strings.TrimPrefix(u.EscapedPath(), "/")
	if p, ok := platforms.ProviderOf(r.Platform); ok {
		if rp, ok := p.(mcpkit.ResourcePather); ok {
			path, r.Category = rp.RefOfPath(path)
		}
	}
	if strings.Contains(path, "/") {
		return mcpkit.Ref{}, false
	}
	r.ID, err = url.PathUnescape(path)
	if r.Category != "" && err == nil {
		r.Category, err = url.PathUnescape(r.Category)
	}
	return r, err == nil && r.ID != ""
}

// fetchCall is the call that reads r, with the connector's tools: the
// platform's own (mcpkit.Fetcher), else <key>_fetch with the id.
func (c *connector) fetchCall(r mcpkit.Ref) (string, error) {
	prov, _ := platforms.ProviderOf(r.Platform)
	if f, ok := prov.(mcpkit.Fetcher); ok {
		if call, ok := f.FetchCall(c, r); ok {
			return call, nil
		}
	} else if c.offers(r.Platform) {
		return mcpkit.Call(r.Platform+"_fetch", map[string]any{"id": r.ID}), nil
	}
	p, _ := platforms.Get(r.Platform)
	return "", fmt.Errorf("document %s is on %s, whose tools this connector does not offer (it offers %s)", mcpkit.Clip(r.ID, 60), p.Name, strings.Join(c.settings().platforms, ", "))
}

// offered are the providers implementing T whose platforms the connector
// offers, in table order.
func offered[T any](c *connector) []T {
	var out []T
	for _, p := range platforms.Providers() {
		if v, ok := p.(T); ok && c.offers(p.Platform().Key) {
			out = append(out, v)
		}
	}
	return out
}

func planLawBehind(env mcpkit.Env, a mcpkit.Args) (string, error) {
	c := env.(*connector)
	ref := a["document"]
	q := "What is the law behind " + ref + "?"
	var p mcpkit.Plan
	r, ok := parseDocRef(ref)
	if ok {
		if err := checkRef(r); err != nil {
			return "", err
		}
		fetch, err := c.fetchCall(r)
		if err != nil {
			return "", err
		}
		p.Step("Read the document: %s. Note its date: the laws are read as in force then.", fetch)
	} else {
		// A citation of a form the prompt does not know: find it.
		var finds []string
		for _, f := range offered[mcpkit.CitationFinder](c) {
			finds = append(finds, f.FindCitationCall(ref))
		}
		p.Step("Find the document this citation names: %s; then read it with the fetch tool of the platform that holds it (its hit's id).", strings.Join(finds, " or "))
	}
	var reads []string
	for _, rr := range offered[mcpkit.ReferenceReader](c) {
		reads = append(reads, rr.ReadReferenceCall())
	}
	p.Step("Its document.references name what it rests on (relation rests_on; a ruling's cites), each as a platform and an id that platform's fetch tool takes as is. Read each one: %s. A reference to a platform this connector does not offer: name it by its label, do not fetch it.",
		strings.Join(reads, "; "))
	var finds []string
	for _, f := range offered[mcpkit.LegalBasisFinder](c) {
		finds = append(finds, f.FindLegalBasisCall())
	}
	p.Step("When document.references is empty (council documents, parliamentary papers and official publications carry none), read the text for the legal basis it states (\"gelet op artikel 149 van de Gemeentewet\", \"op grond van ...\") and find %s.", strings.Join(finds, "; "))
	p.Step("Answer: for each legal basis, the article's words as in force on the document's date, what it empowers or requires, and how the document uses it.")
	return p.Finish(q), nil
}
