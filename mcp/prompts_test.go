package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
)

// promptKeys are the platforms the prompt and completion tests run.
var promptKeys = []string{"obv", "tk", "opentk", "ob", "rechtspraak", "bwb", "cvdr"}

// promptConnectors are the connectors of the prompt and completion
// tests. Those offering obv keep no load status of their own
// (status_refresh off): its first refresh, 3 s after start, would reach
// the emulator in the middle of a test that counts requests.
const promptConnectors = `	handle /mcp/alles {
		mcp alles {
			platforms obv tk opentk ob rechtspraak bwb cvdr
			status_refresh off
		}
	}
	handle /mcp/recht {
		mcp recht {
			platforms rechtspraak
		}
	}
	handle /mcp/raad {
		mcp raad {
			platforms obv cvdr
			status_refresh off
		}
	}`

func listPrompts(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	res, err := c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
		if p.Description == "" || p.Title == "" {
			t.Errorf("prompt %s without title or description", p.Name)
		}
	}
	sort.Strings(names)
	return names
}

// getPrompt returns the text of a prompt's messages, or the error.
func getPrompt(t *testing.T, c *client.Client, name string, args map[string]string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	res, err := c.GetPrompt(ctx, mcpgo.GetPromptRequest{Params: mcpgo.GetPromptParams{Name: name, Arguments: args}})
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, m := range res.Messages {
		if m.Role != mcpgo.RoleUser {
			t.Errorf("%s: a %s message", name, m.Role)
		}
		tc, ok := m.Content.(mcpgo.TextContent)
		if !ok {
			t.Fatalf("%s: message content %T", name, m.Content)
		}
		sb.WriteString(tc.Text)
	}
	return sb.String(), nil
}

var callRE = regexp.MustCompile("`call ([a-z_]+) (\\{[^`]*\\})`")

// steps are the tool calls a prompt's text names, in order.
func steps(t *testing.T, text string) []struct {
	tool string
	args map[string]any
} {
	t.Helper()
	var out []struct {
		tool string
		args map[string]any
	}
	for _, m := range callRE.FindAllStringSubmatch(text, -1) {
		var args map[string]any
		if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
			t.Fatalf("step %s: arguments are not JSON: %v (%s)", m[1], err, m[2])
		}
		out = append(out, struct {
			tool string
			args map[string]any
		}{m[1], args})
	}
	return out
}

// The prompts, through a client against the emulators in both eras: the
// list a connector shows is exactly the prompts of its platforms; each
// prompt's message carries the arguments and names its tools; its first
// step, called as written, answers; bad arguments are refused clearly.
func TestPromptsAgainstEmulators(t *testing.T) {
	site, port := emulatorSite(t, promptKeys, promptConnectors)
	testcaddy.Load(t, site)
	url := func(name string) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp/%s", port, name) }
	all := []string{"case_law", "council_decisions", "dossier_status", "how_did_they_vote", "law_behind_decision", "parliament_on", "publications_on", "regulations_on"}
	for _, legacy := range []bool{true, false} {
		era := map[bool]string{true: "2025-11-25", false: "2026-07-28"}[legacy]
		t.Run(era, func(t *testing.T) {
			c := connect(t, url("alles"), legacy, nil)
			if got := listPrompts(t, c); !slices.Equal(got, all) {
				t.Errorf("alles: prompts %v, want %v", got, all)
			}
			if got := listPrompts(t, connect(t, url("recht"), legacy, nil)); !slices.Equal(got, []string{"case_law"}) {
				t.Errorf("recht: prompts %v", got)
			}
			raad := connect(t, url("raad"), legacy, nil)
			if got := listPrompts(t, raad); !slices.Equal(got, []string{"council_decisions", "how_did_they_vote", "law_behind_decision", "regulations_on"}) {
				t.Errorf("raad: prompts %v", got)
			}

			ecli := firstID(t, c, "rechtspraak_search", map[string]any{"court": "HR", "limit": 3})
			// An official publication by its citation, as a hit gives it.
			text, _ := callTool(t, c, "ob_search", map[string]any{"query": "begroting", "limit": 3})
			obHit := decodeResult(t, text)["results"].([]any)[0].(map[string]any)
			obCitation, _ := obHit["citation"].(string)
			if obCitation == "" {
				// Hits do not carry citations yet (issue 22, point 2):
				// write the Gemeenteblad's, "Gmb. 2026, 500118".
				p := strings.Split(obHit["id"].(string), "-")
				obCitation = strings.ToUpper(p[0][:1]) + p[0][1:] + ". " + p[1] + ", " + p[2]
			}
			if r, ok := parseDocRef(obCitation); !ok || r.ID != obHit["id"] {
				t.Fatalf("the citation %q of %s reads as %+v", obCitation, obHit["id"], r)
			}
			cases := []struct {
				prompt string
				args   map[string]string
				tools  []string // the message names them
				first  string   // the tool of the first step
			}{
				{"council_decisions", map[string]string{"organisation": "utrecht", "subject": "woningbouw", "since": "2020-01-01"},
					[]string{"obv_search", "obv_fetch", "cvdr_search", "cvdr_fetch"}, ""},
				{"case_law", map[string]string{"subject": "huurverhoging", "since": "2015-01-01", "court": "Hoge Raad"},
					[]string{"rechtspraak_search", "rechtspraak_fetch", "bwb_fetch"}, "rechtspraak_search"},
				{"case_law", map[string]string{"subject": "huurverhoging"},
					[]string{"rechtspraak_lists", "rechtspraak_search", "rechtspraak_fetch"}, "rechtspraak_lists"},
				{"law_behind_decision", map[string]string{"document": "CVDR100394_2"},
					[]string{"cvdr_fetch", "bwb_fetch", "ob_fetch", "bwb_search", "cvdr_search"}, "cvdr_fetch"},
				{"law_behind_decision", map[string]string{"document": "besluitbron://bwb/BWBR0008326?date=2003-05-01&article=5"},
					[]string{"bwb_fetch"}, "bwb_fetch"},
				{"law_behind_decision", map[string]string{"document": "rechtspraak " + ecli},
					[]string{"rechtspraak_fetch", "bwb_fetch"}, "rechtspraak_fetch"},
				{"law_behind_decision", map[string]string{"document": obCitation},
					[]string{"ob_fetch"}, "ob_fetch"},
				{"parliament_on", map[string]string{"subject": "stikstof", "kind": "moties", "political_group": "VVD", "committee": "Landbouw"},
					[]string{"opentk_search", "opentk_fetch", "tk_search", "tk_commissies", "tk_fracties", "ob_search"}, "opentk_search"},
				{"regulations_on", map[string]string{"subject": "belastingcapaciteit", "regulation_type": "ministeriele-regeling", "on": "2003-05-01", "organisation": "Kampen"},
					[]string{"bwb_search", "bwb_fetch", "cvdr_search", "cvdr_fetch"}, "bwb_search"},
				{"publications_on", map[string]string{"subject": "begroting", "publication": "gemeenteblad"},
					[]string{"ob_search", "ob_fetch"}, "ob_search"},
			}
			for _, tc := range cases {
				text, err := getPrompt(t, c, tc.prompt, tc.args)
				if err != nil {
					t.Fatalf("%s %v: %v", tc.prompt, tc.args, err)
				}
				for _, v := range tc.args {
					if v == "gemeenteblad" {
						v = "Gemeenteblad" // the list's own spelling
					}
					if !strings.Contains(text, v) {
						t.Errorf("%s: the message lacks the argument %q:\n%s", tc.prompt, v, text)
					}
				}
				for _, tool := range tc.tools {
					if !strings.Contains(text, "call "+tool+" ") {
						t.Errorf("%s: the message names no call of %s:\n%s", tc.prompt, tool, text)
					}
				}
				for _, w := range []string{"citation", "source_url", "over budget"} {
					if !strings.Contains(text, w) {
						t.Errorf("%s: the message says nothing of %s", tc.prompt, w)
					}
				}
				st := steps(t, text)
				if len(st) == 0 {
					t.Fatalf("%s: no steps:\n%s", tc.prompt, text)
				}
				if tc.first != "" && st[0].tool != tc.first {
					t.Errorf("%s: first step %s, want %s", tc.prompt, st[0].tool, tc.first)
				}
				// Run the first step as written.
				for k, v := range st[0].args {
					if s, ok := v.(string); ok && strings.Contains(s, "<") {
						t.Fatalf("%s: the first step has a placeholder %s=%s", tc.prompt, k, s)
					}
				}
				out, isErr := callTool(t, c, st[0].tool, st[0].args)
				if isErr {
					t.Errorf("%s: its first step %s %v failed: %s", tc.prompt, st[0].tool, st[0].args, out)
				}
				if tc.prompt == "council_decisions" {
					// With the sources list known, the plan starts with
					// the search by key.
					text, _ = getPrompt(t, c, tc.prompt, tc.args)
					if st := steps(t, text); st[0].tool != "obv_search" || st[0].args["organization"] != "utrecht" || st[0].args["date_from"] != "2020-01-01" {
						t.Errorf("council_decisions with the sources known: first step %v", st[0])
					} else if out, isErr := callTool(t, c, st[0].tool, st[0].args); isErr {
						t.Errorf("council_decisions: obv_search as written: %s", out)
					}
				}
			}

			// A connector without cvdr's tools names none of them.
			if text, err := getPrompt(t, connect(t, url("recht"), legacy, nil), "case_law", map[string]string{"subject": "x"}); err != nil || strings.Contains(text, "bwb_fetch") {
				t.Errorf("case_law on recht names tools it lacks: %v\n%s", err, text)
			}

			refused := []struct {
				prompt string
				args   map[string]string
				want   string
			}{
				{"council_decisions", map[string]string{"subject": "x"}, "organisation is required"},
				{"council_decisions", map[string]string{"organisation": "utrecht", "subject": "  "}, "subject is required"},
				{"case_law", map[string]string{"subject": "x", "since": "1-1-2020"}, "YYYY-MM-DD"},
				{"case_law", map[string]string{"subject": "x", "since": "2020-02-30"}, "YYYY-MM-DD"},
				{"case_law", map[string]string{"subject": "x", "judge": "y"}, `unknown argument "judge"`},
				{"case_law", map[string]string{"subject": strings.Repeat("a", 10<<10)}, "longer than 500"},
				{"case_law", map[string]string{"subject": "huur\x00\x1b[31m"}, "control characters"},
				{"parliament_on", map[string]string{"subject": "x", "kind": "brieven"}, "use one of alles"},
				{"regulations_on", map[string]string{"subject": "x", "regulation_type": "decreet"}, "use one of wet"},
				{"law_behind_decision", map[string]string{"document": "oa:utrecht-000001"}, "does not offer"},
				{"no_such_prompt", map[string]string{"subject": "x"}, "not found"},
			}
			for _, r := range refused {
				text, err := getPrompt(t, c, r.prompt, r.args)
				// Invalid params (-32602), as the protocol answers
				// refused arguments and unknown prompts.
				if !errors.Is(err, mcpgo.ErrInvalidParams) || !strings.Contains(err.Error(), r.want) {
					t.Errorf("%s %q: want invalid params with %q, got %v\n%s", r.prompt, mcpkit.Clip(fmt.Sprint(r.args), 80), r.want, err, mcpkit.Clip(text, 200))
				}
			}
			// A prompt the connector does not offer is unknown there.
			if _, err := getPrompt(t, connect(t, url("recht"), legacy, nil), "council_decisions", map[string]string{"organisation": "utrecht", "subject": "x"}); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("council_decisions on recht: %v", err)
			}
		})
	}
}

// The references a law_behind_decision takes: URIs, platform and id,
// identifiers and citations in their Dutch forms.
func TestParseDocRef(t *testing.T) {
	for in, want := range map[string]mcpkit.Ref{
		"besluitbron://rechtspraak/ECLI:NL:HR:2014:952":               {Platform: "rechtspraak", ID: "ECLI:NL:HR:2014:952"},
		"besluitbron://bwb/BWBR0005537?date=2020-01-01&article=3:4":   {Platform: "bwb", ID: "BWBR0005537", Date: "2020-01-01", Article: "3:4"},
		"besluitbron://tk/document/2023D41173":                        {Platform: "tk", ID: "2023D41173"},
		"besluitbron://opentk/Verslag/abc-123":                        {Platform: "opentk", ID: "abc-123", Category: "Verslag"},
		"besluitbron://obv/document%3Anotubiz%3Agemeente%3Asoest%3A1": {Platform: "obv", ID: "document:notubiz:gemeente:soest:1"},
		"ECLI:NL:HR:2014:952":                                         {Platform: "rechtspraak", ID: "ECLI:NL:HR:2014:952"},
		"ecli:nl:hr:2014:952":                                         {Platform: "rechtspraak", ID: "ECLI:NL:HR:2014:952"},
		"rechtspraak ECLI:NL:HR:2014:952":                             {Platform: "rechtspraak", ID: "ECLI:NL:HR:2014:952"},
		"cvdr:CVDR100394_2":                                           {Platform: "cvdr", ID: "CVDR100394_2"},
		"obv:document:notubiz:gemeente:soest:12345":                   {Platform: "obv", ID: "document:notubiz:gemeente:soest:12345"},
		"document:notubiz:gemeente:soest:12345":                       {Platform: "obv", ID: "document:notubiz:gemeente:soest:12345"},
		"bwbr0005537":                                                 {Platform: "bwb", ID: "BWBR0005537"},
		"112779_1":                                                    {Platform: "cvdr", ID: "112779_1"},
		"stb-2018-84":                                                 {Platform: "ob", ID: "stb-2018-84"},
		"Stb. 2018, 84":                                               {Platform: "ob", ID: "stb-2018-84"},
		"Gmb. 2016, 146361":                                           {Platform: "ob", ID: "gmb-2016-146361"},
		"Stcrt. 2006, nr. 73":                                         {Platform: "ob", ID: "stcrt-2006-73"},
		"Kamerstukken II 2023/24, 36410, nr. 5":                       {Platform: "ob", ID: "kst-36410-5"},
		"Kamerstukken II 2023/24, 36200 VII, nr. 12":                  {Platform: "ob", ID: "kst-36200-VII-12"},
		"2023D41173":                                                  {Platform: "tk", ID: "2023D41173"},
		// Each platform's recognizer, so also what its fetch takes: a
		// CVDR version as its citation and page write it (also as the
		// resource URI of that form), Handelingen by id and citation, a
		// number in lower case, a type the OBV fetch knows.
		"CVDR100394/2":                           {Platform: "cvdr", ID: "CVDR100394/2"},
		"cvdr:CVDR100394/2":                      {Platform: "cvdr", ID: "CVDR100394/2"},
		"besluitbron://cvdr/CVDR101010%2F2":      {Platform: "cvdr", ID: "CVDR101010/2"},
		"h-tk-20232024-12-3":                     {Platform: "ob", ID: "h-tk-20232024-12-3"},
		"Handelingen II 2023/24, nr. 12, item 3": {Platform: "ob", ID: "h-tk-20232024-12-3"},
		"Kamerstukken I 2022/23, 35979, H":       {Platform: "ob", ID: "kst-35979-H"},
		"2023d41173":                             {Platform: "tk", ID: "2023D41173"},
		"agenda_item:notubiz:gemeente:soest:1":   {Platform: "obv", ID: "agenda_item:notubiz:gemeente:soest:1"},
	} {
		got, ok := parseDocRef(in)
		if !ok || got != want {
			t.Errorf("parseDocRef(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{"artikel 149 Gemeentewet", "besluitbron://nowhere/x", "besluitbron://bwb/", "de begroting 2024",
		// Forms a platform's fetch refuses: no fetch is planned for them.
		"besluitbron://cvdr/CVDR101010/2", "CVDR0_1", "agendaitem:notubiz:gemeente:soest:1", "Document:notubiz:gemeente:soest:1", "document:12345",
		// A platform that recognizes its references takes only those
		// after its key.
		"CVDR://90740_1", "cvdr:not-a-version", "bwb 149 Gemeentewet",
		"", " ", strings.Repeat("x", 300)} {
		if got, ok := parseDocRef(in); ok {
			t.Errorf("parseDocRef(%q) = %+v: taken", in, got)
		}
	}
}

type stubIndex struct{}

func (stubIndex) SearchWords(context.Context, rechtspraak.WordQuery) (rechtspraak.WordPage, error) {
	return rechtspraak.WordPage{}, nil
}

// With Rechtspraak's word index, case_law searches with query first, and
// a legal area (which query cannot take) in a second search.
func TestCaseLawPlanWithIndex(t *testing.T) {
	c := &connector{}
	c.cfg.Store(&settings{platforms: []string{"rechtspraak", "bwb"}, replicas: map[string]any{"rechtspraak": stubIndex{}}})
	p, _ := promptNamed("case_law")
	text, err := p.Plan(c, mcpkit.Args{"subject": "huur", "since": "2020-01-01", "legal_area": "Huurrecht"})
	if err != nil {
		t.Fatal(err)
	}
	st := steps(t, text)
	if len(st) < 4 || st[0].tool != "rechtspraak_search" || st[0].args["query"] != "huur" || st[0].args["legal_area"] != nil ||
		st[1].tool != "rechtspraak_search" || st[1].args["legal_area"] != "Huurrecht" || st[1].args["query"] != nil {
		t.Errorf("case_law with the index: %v\n%s", st, text)
	}
}

// A reload swaps a connector's prompts with its platforms, as it does
// its tools; a client of the session era sees the new list.
func TestPromptsFollowReload(t *testing.T) {
	site, port := emulatorSite(t, []string{"rechtspraak", "ob"}, `	handle /mcp/wissel {
		mcp wissel {
			platforms rechtspraak
		}
	}`)
	testcaddy.Load(t, site)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp/wissel", port)
	c := connect(t, url, true, nil)
	if got := listPrompts(t, c); !slices.Equal(got, []string{"case_law"}) {
		t.Fatalf("before the reload: %v", got)
	}
	testcaddy.Reload(t, strings.Replace(site, "platforms rechtspraak\n", "platforms ob\n", 1))
	for _, c := range []*client.Client{c, connect(t, url, false, nil)} {
		if got := listPrompts(t, c); !slices.Equal(got, []string{"publications_on"}) {
			t.Errorf("after the reload: %v", got)
		}
	}
	if _, err := getPrompt(t, c, "case_law", map[string]string{"subject": "x"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("case_law after the reload: %v", err)
	}
}
