package mcp

import (
	"context"
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

// complete asks completion/complete for a prompt's (ref "ref/prompt") or
// a resource template's ("ref/resource") argument.
func complete(t *testing.T, c *client.Client, ref any, arg, value string) (*mcpgo.CompleteResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	return c.Complete(ctx, mcpgo.CompleteRequest{Params: mcpgo.CompleteParams{Ref: ref,
		Argument: mcpgo.CompleteArgument{Name: arg, Value: value}}})
}

func promptRef(name string) mcpgo.PromptReference {
	return mcpgo.PromptReference{Type: "ref/prompt", Name: name}
}

// Completions through a client against the emulators, in both eras: each
// vocabulary completes what was typed (prefix first, then substring,
// without regard to case or accents), a second completion costs no
// platform call, a list that cannot be had completes to nothing, and
// hostile input gets an empty result, never an error.
func TestCompletionsAgainstEmulators(t *testing.T) {
	site, port := emulatorSite(t, promptKeys, promptConnectors+`
	handle /mcp/kapot {
		mcp kapot {
			platforms tk obv
			tk_odata_root /Verhuisd/v9
		}
	}`)
	testcaddy.Load(t, site)
	url := func(name string) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp/%s", port, name) }
	calls := func(key string) int64 { return testproc.EmulatorRequests(t, emulatorBase(t, site, key)) }
	// The Tweede Kamer emulator builds its data at its first request,
	// which under -race on a busy machine outlasts a tool call's 20 s.
	hc := &http.Client{Timeout: 3 * time.Minute}
	if resp, err := hc.Get(emulatorBase(t, site, "tk") + tk.DefaultRoot + "/Fractie?$top=1"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	for _, legacy := range []bool{true, false} {
		era := map[bool]string{true: "2025-11-25", false: "2026-07-28"}[legacy]
		t.Run(era, func(t *testing.T) {
			c := connect(t, url("alles"), legacy, nil)
			values := func(ref any, arg, value string) []string {
				t.Helper()
				res, err := complete(t, c, ref, arg, value)
				if err != nil {
					t.Fatalf("complete %v %s=%q: %v", ref, arg, mcpkit.Clip(value, 40), err)
				}
				if len(res.Completion.Values) > maxCompletions || res.Completion.Total < len(res.Completion.Values) ||
					res.Completion.HasMore != (res.Completion.Total > len(res.Completion.Values)) {
					t.Errorf("complete %s=%q: %d values, total %d, hasMore %v", arg, mcpkit.Clip(value, 40), len(res.Completion.Values), res.Completion.Total, res.Completion.HasMore)
				}
				return res.Completion.Values
			}
			// warm completes once (which may read the list) and again,
			// which must cost the platform nothing.
			warm := func(prompt, arg, value, platform string) []string {
				t.Helper()
				before := calls(platform)
				values(promptRef(prompt), arg, value)
				if n := calls(platform) - before; legacy && n == 0 && platform != "tk" {
					// The first era starts cold: the list is read
					// through the platform route.
					t.Errorf("the first completion of %s read no list from %s", arg, platform)
				}
				before = calls(platform)
				v := values(promptRef(prompt), arg, value)
				if n := calls(platform) - before; n != 0 {
					t.Errorf("a second completion of %s cost %s %d calls", arg, platform, n)
				}
				return v
			}
			has := func(vs []string, want string) bool { return slices.Contains(vs, want) }

			// Organisations: the key, matched on key and name.
			if v := warm("council_decisions", "organisation", "utr", "obv"); len(v) == 0 || v[0] != "utrecht" {
				t.Errorf("organisation utr: %v", v)
			} else if i := slices.Index(v, "provincie-utrecht"); i >= 0 && i < slices.Index(v, "utrecht") {
				t.Errorf("organisation utr: a substring before the prefix: %v", v)
			}
			if v := values(promptRef("council_decisions"), "organisation", "UTRECHT"); !has(v, "utrecht") {
				t.Errorf("organisation UTRECHT: %v", v)
			}
			// regulations_on takes the name cvdr_search takes.
			if v := values(promptRef("regulations_on"), "organisation", "utr"); !has(v, "Utrecht") {
				t.Errorf("regulations_on organisation utr: %v", v)
			}
			all, err := complete(t, c, promptRef("council_decisions"), "organisation", "")
			if err != nil || len(all.Completion.Values) != maxCompletions || !all.Completion.HasMore || all.Completion.Total <= maxCompletions {
				t.Errorf("organisation \"\": %d values, total %d, hasMore %v (%v)", len(all.Completion.Values), all.Completion.Total, all.Completion.HasMore, err)
			}

			// Courts and legal areas: names, matched on name and
			// abbreviation.
			if v := warm("case_law", "court", "hoge", "rechtspraak"); len(v) == 0 || v[0] != "Hoge Raad" {
				t.Errorf("court hoge: %v", v)
			}
			if v := values(promptRef("case_law"), "court", "HR"); !has(v, "Hoge Raad") {
				t.Errorf("court HR: %v", v)
			}
			if v := warm("case_law", "legal_area", "belasting", "rechtspraak"); !has(v, "Belastingrecht") {
				t.Errorf("legal_area belasting: %v", v)
			}

			// Committees and groups: a group completed after tk_fracties
			// read the list costs nothing at all.
			if _, isErr := callTool(t, c, "tk_fracties", nil); isErr {
				t.Fatal("tk_fracties failed")
			}
			before := calls("tk")
			if v := values(promptRef("parliament_on"), "political_group", "vvd"); !has(v, "VVD") {
				t.Errorf("political_group vvd: %v", v)
			}
			if v := values(promptRef("parliament_on"), "political_group", "volkspartij"); !has(v, "VVD") {
				t.Errorf("political_group volkspartij (by name): %v", v)
			}
			if n := calls("tk") - before; n != 0 {
				t.Errorf("political groups after tk_fracties cost %d calls", n)
			}
			if v := warm("parliament_on", "committee", "financien", "tk"); len(v) == 0 || !strings.Contains(fold(v[0]), "financien") {
				t.Errorf("committee financien (no accent): %v", v)
			}

			// The platform packages' fixed lists.
			if v := values(promptRef("regulations_on"), "regulation_type", "amv"); len(v) < 3 || v[0] != "AMvB" || !has(v, "rijksAMvB") ||
				slices.Index(v, "rijksAMvB") < slices.Index(v, "AMvB-BES") {
				t.Errorf("regulation_type amv: %v", v)
			}
			if v := values(promptRef("parliament_on"), "kind", "mot"); !slices.Equal(v, []string{"moties"}) {
				t.Errorf("kind mot: %v", v)
			}
			if v := values(promptRef("publications_on"), "publication", "gemeente"); !slices.Equal(v, []string{"Gemeenteblad"}) {
				t.Errorf("publication gemeente: %v", v)
			}
			opentkRef := mcpgo.ResourceReference{Type: "ref/resource", URI: "besluitbron://opentk/{category}/{id}"}
			if v := values(opentkRef, "category", "ver"); !slices.Equal(v, []string{"Verslag"}) {
				t.Errorf("opentk category ver: %v", v)
			}
			if v := values(opentkRef, "category", ""); len(v) != 6 {
				t.Errorf("opentk categories: %v", v)
			}

			// Nothing to complete: ids, subjects, dates; unknown names.
			before = calls("bwb") + calls("obv") + calls("rechtspraak") + calls("tk") + calls("opentk") + calls("ob") + calls("cvdr")
			for _, q := range []struct {
				ref        any
				arg, value string
			}{
				{opentkRef, "id", "2023"},
				{mcpgo.ResourceReference{Type: "ref/resource", URI: "besluitbron://bwb/{id}{?date,article}"}, "id", "BWBR"},
				{mcpgo.ResourceReference{Type: "ref/resource", URI: "besluitbron://rechtspraak/{ecli}"}, "ecli", "ECLI:NL:HR"},
				{mcpgo.ResourceReference{Type: "ref/resource", URI: "https://elders.example/{category}"}, "category", "ver"},
				{promptRef("case_law"), "subject", "huur"},
				{promptRef("case_law"), "since", "2020"},
				{promptRef("law_behind_decision"), "document", "ECLI"},
				{promptRef("case_law"), "judge", "hoge"},
				{promptRef("no_such_prompt"), "court", "hoge"},
				{promptRef("case_law"), "court", strings.Repeat("hoge raad ", 1024)},
				{promptRef("council_decisions"), "organisation", "\x00\x1b[2J\u202e" + strings.Repeat("\xff", 100)},
				{promptRef("case_law"), "", ""},
			} {
				if v := values(q.ref, q.arg, q.value); len(v) != 0 {
					t.Errorf("complete %v %s=%q: %v, want nothing", q.ref, q.arg, mcpkit.Clip(q.value, 30), v)
				}
			}
			if n := calls("bwb") + calls("obv") + calls("rechtspraak") + calls("tk") + calls("opentk") + calls("ob") + calls("cvdr") - before; n != 0 {
				t.Errorf("completions with nothing to complete cost %d platform calls", n)
			}
			// Control characters around a name still find it.
			if v := values(promptRef("case_law"), "court", "\x00hoge\x07"); !has(v, "Hoge Raad") {
				t.Errorf("court with control characters: %v", v)
			}
			// A prompt this connector does not offer completes to nothing.
			if res, err := complete(t, connect(t, url("recht"), legacy, nil), promptRef("council_decisions"), "organisation", "utr"); err != nil || len(res.Completion.Values) != 0 {
				t.Errorf("organisation on recht: %v %v", res, err)
			}

			// A list that cannot be had (the OData root moved) completes
			// to nothing, and is not asked for again at every keystroke.
			k := connect(t, url("kapot"), legacy, nil)
			for i, typed := range []string{"v", "vv", "vvd"} {
				before := calls("tk")
				res, err := complete(t, k, promptRef("parliament_on"), "political_group", typed)
				if err != nil || len(res.Completion.Values) != 0 {
					t.Fatalf("political_group on a moved root: %v %v", res, err)
				}
				if n := calls("tk") - before; legacy && i == 0 && n == 0 {
					t.Errorf("the first keystroke did not try the list")
				}
				if n := calls("tk") - before; i > 0 && n != 0 {
					t.Errorf("keystroke %d on a failed list cost %d calls", i, n)
				}
			}
		})
	}
}

// The ranking: a prefix of the value, then of a word, then a substring;
// case and accents do not count; at most maxCompletions with the total.
func TestMatchRanking(t *testing.T) {
	ch := func(vs ...string) []mcpkit.Choice {
		var out []mcpkit.Choice
		for _, v := range vs {
			out = append(out, mcpkit.Choice{Value: v, Match: []string{v}})
		}
		return out
	}
	got := match(ch("Rechtbank Den Haag", "Gerechtshof Den Haag", "Den Helder", "Haagse Hogeschool", "Hoge Raad"), "ha")
	if want := []string{"Haagse Hogeschool", "Gerechtshof Den Haag", "Rechtbank Den Haag"}; !slices.Equal(got.Values, want) || got.Total != 3 {
		t.Errorf("ha: %v", got)
	}
	if got := match(ch("Financiën", "Infrastructuur"), "FINANCIEN"); !slices.Equal(got.Values, []string{"Financiën"}) {
		t.Errorf("accents: %v", got)
	}
	if got := match(ch("Financiën"), "financiën"); !slices.Equal(got.Values, []string{"Financiën"}) {
		t.Errorf("accents typed: %v", got)
	}
	var many []string
	for i := range 250 {
		many = append(many, fmt.Sprintf("gemeente-%03d", i))
	}
	if got := match(ch(many...), "gem"); len(got.Values) != maxCompletions || got.Total != 250 || !got.HasMore || got.Values[0] != "gemeente-000" {
		t.Errorf("many: %d values, total %d, hasMore %v", len(got.Values), got.Total, got.HasMore)
	}
	if got := match(ch("a", "a", "b"), ""); !slices.Equal(got.Values, []string{"a", "b"}) || got.Total != 2 {
		t.Errorf("duplicates: %v", got)
	}
}
