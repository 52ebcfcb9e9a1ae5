package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

const votePromptConnectors = promptConnectors + `
	handle /mcp/kamer {
		mcp kamer {
			platforms tk
		}
	}
	handle /mcp/stem {
		mcp stem {
			platforms obv
			status_refresh off
		}
	}`

// namesOnlyOffered fails when a plan names a call of a tool the
// connector does not list.
func namesOnlyOffered(t *testing.T, c *client.Client, prompt, text string) {
	t.Helper()
	tools := toolNames(t, c)
	for _, s := range steps(t, text) {
		if !slices.Contains(tools, s.tool) {
			t.Errorf("%s names %s, which the connector does not list (%v):\n%s", prompt, s.tool, tools, text)
		}
	}
}

// how_did_they_vote and dossier_status through a client against the
// emulators: listed where their platforms are offered, plans naming only
// the connector's tools and callable as written, arguments refused with
// what to fix; their completions of parties, councils and dossiers.
func TestVotePromptsAgainstEmulators(t *testing.T) {
	site, port := emulatorSite(t, promptKeys, votePromptConnectors)
	testcaddy.Load(t, site)
	url := func(name string) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp/%s", port, name) }
	calls := func(key string) int64 { return testproc.EmulatorRequests(t, emulatorBase(t, site, key)) }
	// The Tweede Kamer emulator builds its data at its first request.
	hc := &http.Client{Timeout: 3 * time.Minute}
	if resp, err := hc.Get(emulatorBase(t, site, "tk") + tk.DefaultRoot + "/Fractie?$top=1"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	for _, legacy := range []bool{true, false} {
		era := map[bool]string{true: "2025-11-25", false: "2026-07-28"}[legacy]
		t.Run(era, func(t *testing.T) {
			alles, kamer, stem := connect(t, url("alles"), legacy, nil), connect(t, url("kamer"), legacy, nil), connect(t, url("stem"), legacy, nil)
			for _, lc := range []struct {
				c        *client.Client
				name     string
				has, not []string
			}{
				{alles, "alles", []string{"how_did_they_vote", "dossier_status"}, nil},
				{kamer, "kamer", []string{"how_did_they_vote", "dossier_status", "parliament_on"}, []string{"council_decisions"}},
				{stem, "stem", []string{"how_did_they_vote", "council_decisions"}, []string{"dossier_status"}},
				{connect(t, url("raad"), legacy, nil), "raad", []string{"how_did_they_vote"}, []string{"dossier_status"}},
				{connect(t, url("recht"), legacy, nil), "recht", nil, []string{"how_did_they_vote", "dossier_status"}},
			} {
				got := listPrompts(t, lc.c)
				for _, p := range lc.has {
					if !slices.Contains(got, p) {
						t.Errorf("%s lists no %s: %v", lc.name, p, got)
					}
				}
				for _, p := range lc.not {
					if slices.Contains(got, p) {
						t.Errorf("%s lists %s: %v", lc.name, p, got)
					}
				}
			}

			// Completions: a dossier from the recent ones, by number and by
			// a word of its title; a second completion costs nothing.
			values := func(c *client.Client, prompt, arg, value string) []string {
				t.Helper()
				res, err := complete(t, c, promptRef(prompt), arg, value)
				if err != nil {
					t.Fatalf("complete %s %s=%q: %v", prompt, arg, mcpkit.Clip(value, 40), err)
				}
				if n := len(res.Completion.Values); n > maxCompletions || res.Completion.Total < n || res.Completion.HasMore != (res.Completion.Total > n) {
					t.Errorf("complete %s=%q: %d values, total %d, hasMore %v", arg, mcpkit.Clip(value, 40), n, res.Completion.Total, res.Completion.HasMore)
				}
				return res.Completion.Values
			}
			dossiers := values(alles, "dossier_status", "dossier", "")
			if len(dossiers) == 0 {
				t.Fatal("dossier \"\": no dossiers")
			}
			before := calls("tk")
			d := dossiers[0]
			if v := values(alles, "dossier_status", "dossier", d[:3]); len(v) == 0 || !slices.Contains(v, d) {
				t.Errorf("dossier %s: %v lacks %s", d[:3], v, d)
			}
			if n := calls("tk") - before; n != 0 {
				t.Errorf("a second dossier completion cost %d calls", n)
			}
			if v := values(alles, "dossier_status", "dossier", "BEGROTINGSSTATEN"); len(v) == 0 {
				t.Errorf("dossier by a word of the title: nothing")
			}
			for _, c := range []*client.Client{alles, kamer} {
				if v := values(c, "how_did_they_vote", "party", "vv"); !slices.Contains(v, "VVD") {
					t.Errorf("party vv: %v", v)
				}
			}
			if v := values(alles, "how_did_they_vote", "council", "utr"); len(v) == 0 || v[0] != "utrecht" {
				t.Errorf("council utr: %v", v)
			}
			before = calls("tk") + calls("obv")
			for _, q := range []struct{ prompt, arg, value string }{
				{"dossier_status", "dossier", "99999"},
				{"dossier_status", "dossier", "\x00\x1b[2J\u202e" + strings.Repeat("\xff", 100)},
				{"dossier_status", "dossier", strings.Repeat("36200-VII ", 1024)},
				{"how_did_they_vote", "party", "geen-partij-zo"},
				{"how_did_they_vote", "council", strings.Repeat("utrecht\x07", 1300)},
				{"how_did_they_vote", "subject", "stik"},
			} {
				if v := values(alles, q.prompt, q.arg, q.value); len(v) != 0 {
					t.Errorf("complete %s %s=%q: %v, want nothing", q.prompt, q.arg, mcpkit.Clip(q.value, 30), v)
				}
			}
			if n := calls("tk") + calls("obv") - before; n != 0 {
				t.Errorf("completions on known lists cost %d platform calls", n)
			}
			// A prompt or vocabulary the connector does not offer
			// completes to nothing.
			if v := values(stem, "dossier_status", "dossier", d[:3]); len(v) != 0 {
				t.Errorf("dossier on an obv connector: %v", v)
			}
			if v := values(stem, "how_did_they_vote", "party", "vv"); len(v) != 0 {
				t.Errorf("party on an obv connector (no Kamer fracties): %v", v)
			}

			// how_did_they_vote: the Kamer by default, a council with
			// council, the councils where the connector has no Kamer.
			for _, tc := range []struct {
				c           *client.Client
				name        string
				args        map[string]string
				want, avoid []string
			}{
				{alles, "alles", map[string]string{"subject": "stikstof", "party": "VVD", "since": "2022-01-01", "until": "2026-12-01"},
					[]string{"tk_votes"}, []string{"obv_votes"}},
				{alles, "alles", map[string]string{"subject": "woningbouw", "council": "utrecht", "party": "VVD"},
					[]string{"obv_votes"}, []string{"tk_votes"}},
				{kamer, "kamer", map[string]string{"subject": "stikstof"}, []string{"tk_votes"}, []string{"obv_votes", "obv_sources"}},
				{stem, "stem", map[string]string{"subject": "woningbouw", "since": "2020-01-01"}, []string{"obv_votes"}, []string{"tk_votes"}},
			} {
				text, err := getPrompt(t, tc.c, "how_did_they_vote", tc.args)
				if err != nil {
					t.Fatalf("how_did_they_vote on %s %v: %v", tc.name, tc.args, err)
				}
				namesOnlyOffered(t, tc.c, "how_did_they_vote", text)
				for _, v := range tc.args {
					if !strings.Contains(text, v) {
						t.Errorf("how_did_they_vote on %s: the message lacks %q", tc.name, v)
					}
				}
				for _, tool := range tc.want {
					if !strings.Contains(text, "call "+tool+" ") {
						t.Errorf("how_did_they_vote on %s: no call of %s:\n%s", tc.name, tool, text)
					}
				}
				for _, tool := range tc.avoid {
					if strings.Contains(text, "call "+tool+" ") {
						t.Errorf("how_did_they_vote on %s: a call of %s:\n%s", tc.name, tool, text)
					}
				}
				for _, w := range []string{"citation", "over budget", "seats", "apart"} {
					if !strings.Contains(text, w) {
						t.Errorf("how_did_they_vote on %s says nothing of %s", tc.name, w)
					}
				}
				if tc.want[0] == "obv_votes" && !strings.Contains(text, "no per-member votes published") {
					t.Errorf("how_did_they_vote on %s: nothing of councils without per-member votes:\n%s", tc.name, text)
				}
				st := steps(t, text)
				if len(st) == 0 {
					t.Fatalf("how_did_they_vote on %s: no steps", tc.name)
				}
				// Its calls as written, up to the first with a placeholder.
				for _, s := range st {
					if strings.Contains(fmt.Sprint(s.args), "<") {
						break
					}
					if out, isErr := callTool(t, tc.c, s.tool, s.args); isErr {
						t.Errorf("how_did_they_vote on %s: %s %v failed: %s", tc.name, s.tool, s.args, out)
					}
				}
			}
			// The Kamer's call carries the arguments as tk_votes takes them.
			text, _ := getPrompt(t, alles, "how_did_they_vote", map[string]string{"subject": "stikstof", "party": "VVD", "since": "2022-01-01"})
			if st := steps(t, text); st[0].tool != "tk_votes" || st[0].args["query"] != "stikstof" || st[0].args["party"] != "VVD" || st[0].args["date_from"] != "2022-01-01" || st[0].args["date_to"] != nil {
				t.Errorf("how_did_they_vote: first step %v", st[0])
			}
			// With the organisations known (the completion read them), a
			// council's votes start with obv_votes by key.
			text, _ = getPrompt(t, alles, "how_did_they_vote", map[string]string{"subject": "woningbouw", "council": "Utrecht"})
			if st := steps(t, text); st[0].tool != "obv_votes" || st[0].args["organization"] != "utrecht" || st[0].args["query"] != "woningbouw" {
				t.Errorf("how_did_they_vote with a known council: first step %v", st[0])
			}

			// dossier_status: the course where the connector lists
			// dossier_timeline, then the votes, as tk_votes takes them.
			for _, c := range []*client.Client{alles, kamer} {
				text, err := getPrompt(t, c, "dossier_status", map[string]string{"dossier": d})
				if err != nil {
					t.Fatalf("dossier_status %s: %v", d, err)
				}
				namesOnlyOffered(t, c, "dossier_status", text)
				timeline := slices.Contains(toolNames(t, c), mcpkit.TimelineTool)
				if strings.Contains(text, "call "+mcpkit.TimelineTool+" ") != timeline {
					t.Errorf("dossier_status names %s: %v, the connector lists it: %v", mcpkit.TimelineTool, !timeline, timeline)
				}
				number, addition, _ := strings.Cut(d, "-")
				var votes map[string]any
				for _, s := range steps(t, text) {
					if s.tool == "tk_votes" {
						votes = s.args
					}
				}
				if votes == nil || votes["dossier"] != number || (addition != "" && votes["toevoeging"] != addition) {
					t.Fatalf("dossier_status %s: tk_votes %v\n%s", d, votes, text)
				}
				for _, s := range steps(t, text) {
					if strings.Contains(fmt.Sprint(s.args), "<") {
						continue
					}
					if out, isErr := callTool(t, c, s.tool, s.args); isErr && !strings.Contains(out, "has no zaak in dossier") {
						t.Errorf("dossier_status: %s %v as written failed: %s", s.tool, s.args, out)
					}
				}
				if !strings.Contains(text, d) || !strings.Contains(text, "missing") {
					t.Errorf("dossier_status: the message lacks the dossier or what is missing:\n%s", text)
				}
			}

			refused := []struct {
				c      *client.Client
				prompt string
				args   map[string]string
				want   string
			}{
				{alles, "how_did_they_vote", map[string]string{"party": "VVD"}, "subject is required"},
				{alles, "how_did_they_vote", map[string]string{"subject": "stikstof", "since": "2024-05-01", "until": "2024-01-01"}, "is after until"},
				{alles, "how_did_they_vote", map[string]string{"subject": "stikstof", "since": "mei 2024"}, "YYYY-MM-DD"},
				{alles, "how_did_they_vote", map[string]string{"subject": "?!"}, "holds no word"},
				{alles, "how_did_they_vote", map[string]string{"subject": "een twee drie vier vijf zes zeven acht negen"}, "at most 8"},
				{alles, "how_did_they_vote", map[string]string{"subject": strings.Repeat("stikstof ", 1200)}, "longer than 500"},
				{alles, "how_did_they_vote", map[string]string{"subject": "stik\x00stof\x1b[31m"}, "control characters"},
				{alles, "how_did_they_vote", map[string]string{"subject": "stikstof", "party": strings.Repeat("V", 61)}, "longer than 60"},
				{alles, "how_did_they_vote", map[string]string{"subject": "stikstof", "fractie": "VVD"}, `unknown argument "fractie"`},
				{kamer, "how_did_they_vote", map[string]string{"subject": "stikstof", "council": "utrecht"}, "does not offer"},
				{alles, "dossier_status", map[string]string{}, "dossier is required"},
				{alles, "dossier_status", map[string]string{"dossier": "begroting"}, "not a Kamerstuk dossier number"},
				{alles, "dossier_status", map[string]string{"dossier": "36200-VII-12"}, "is not a dossier addition such as VII"},
				{alles, "dossier_status", map[string]string{"dossier": "36200\u202e-VII"}, "not a Kamerstuk dossier number"},
				{alles, "dossier_status", map[string]string{"dossier": "36200\x07-VII"}, "control characters"},
				{stem, "dossier_status", map[string]string{"dossier": "36200"}, "not found"},
			}
			for _, r := range refused {
				text, err := getPrompt(t, r.c, r.prompt, r.args)
				if !errors.Is(err, mcpgo.ErrInvalidParams) || !strings.Contains(err.Error(), r.want) {
					t.Errorf("%s %q: want invalid params with %q, got %v\n%s", r.prompt, mcpkit.Clip(fmt.Sprint(r.args), 80), r.want, err, mcpkit.Clip(text, 200))
				} else if r.want != "not found" && !strings.Contains(err.Error(), "invalid arguments") {
					t.Errorf("%s: %v does not begin invalid arguments", r.prompt, err)
				}
			}
		})
	}
}

// The plans without a client, on a connector's own settings: each names
// only tools the connector lists; dossier_status names dossier_timeline
// exactly where the connector lists it.
func TestVotePlansNameOnlyOfferedTools(t *testing.T) {
	for _, keys := range [][]string{{"tk"}, {"obv"}, {"tk", "obv"}, {"tk", "ob", "bwb"}, {"tk", "obv", "ob", "bwb", "opentk"}} {
		c := &connector{}
		c.cfg.Store(&settings{platforms: keys})
		var listed []string
		for _, st := range c.toolsFor(keys) {
			listed = append(listed, st.Tool.Name)
		}
		for _, pc := range []struct {
			prompt string
			args   mcpkit.Args
		}{
			{"how_did_they_vote", mcpkit.Args{"subject": "stikstof", "party": "VVD"}},
			{"how_did_they_vote", mcpkit.Args{"subject": "stikstof", "council": "utrecht"}},
			{"dossier_status", mcpkit.Args{"dossier": "36200-VII"}},
		} {
			p, ok := promptNamed(pc.prompt)
			if !ok || !p.Offered(c.offers) {
				continue
			}
			text, err := p.Plan(c, pc.args)
			if pc.args["council"] != "" && !c.offers("obv") {
				if err == nil || !strings.Contains(err.Error(), "does not offer") {
					t.Errorf("%v %s with council: %v", keys, pc.prompt, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v %s: %v", keys, pc.prompt, err)
			}
			for _, s := range steps(t, text) {
				if !slices.Contains(listed, s.tool) {
					t.Errorf("%v %s names %s, not listed (%v)", keys, pc.prompt, s.tool, listed)
				}
			}
			if pc.prompt == "dossier_status" {
				timeline := slices.Contains(listed, mcpkit.TimelineTool)
				if c.OffersTool(mcpkit.TimelineTool) != timeline {
					t.Errorf("%v: OffersTool(%s) = %v, listed %v", keys, mcpkit.TimelineTool, !timeline, timeline)
				}
				if strings.Contains(text, "call "+mcpkit.TimelineTool+" ") != timeline || !strings.Contains(text, "call tk_votes ") {
					t.Errorf("%v dossier_status: %s listed %v:\n%s", keys, mcpkit.TimelineTool, timeline, text)
				}
			}
		}
	}
}

// A dossier argument as the tools take it.
func TestParseDossier(t *testing.T) {
	for in, want := range map[string][2]string{
		"36200-VII": {"36200", "VII"}, "36200 VII": {"36200", "VII"}, " 36200-vii ": {"36200", "VII"}, "36410": {"36410", ""},
		"21501-20": {"21501", "20"},
	} {
		n, a, err := tk.ParseDossier(in)
		if err != nil || n != want[0] || a != want[1] {
			t.Errorf("ParseDossier(%q) = %q %q %v, want %v", in, n, a, err, want)
		}
	}
	for _, in := range []string{"", "begroting", "362", "36200-VII-12", "36200--VII", "kst-36200-VII", "36200 VII 12", strings.Repeat("3", 7), "36200-" + strings.Repeat("X", 13)} {
		if n, a, err := tk.ParseDossier(in); err == nil {
			t.Errorf("ParseDossier(%q) = %q %q: taken", in, n, a)
		}
	}
}

// withTimeline is a connector that lists dossier_timeline, whether or not
// the tool table has it yet.
type withTimeline struct{ *connector }

func (withTimeline) OffersTool(name string) bool { return name == mcpkit.TimelineTool }

// Where the connector lists dossier_timeline, dossier_status starts with
// it, with the dossier as the tool takes it, and reads the publication
// and the law it names where the connector offers them.
func TestDossierStatusWithTimeline(t *testing.T) {
	p, _ := promptNamed("dossier_status")
	for _, keys := range [][]string{{"tk"}, {"tk", "ob", "bwb"}} {
		c := &connector{}
		c.cfg.Store(&settings{platforms: keys})
		text, err := p.Plan(withTimeline{c}, mcpkit.Args{"dossier": "36200 vii"})
		if err != nil {
			t.Fatal(err)
		}
		st := steps(t, text)
		if len(st) < 2 || st[0].tool != mcpkit.TimelineTool || st[0].args["dossier"] != "36200" || st[0].args["toevoeging"] != "VII" ||
			st[1].tool != "tk_votes" || st[1].args["dossier"] != "36200" || st[1].args["toevoeging"] != "VII" {
			t.Errorf("%v: dossier_status with the timeline: %v\n%s", keys, st, text)
		}
		reads := strings.Contains(text, "call ob_fetch ") && strings.Contains(text, "call bwb_fetch ")
		if reads != (len(keys) == 3) {
			t.Errorf("%v: dossier_status reads the publication and law: %v\n%s", keys, reads, text)
		}
	}
}
