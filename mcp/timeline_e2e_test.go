package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator/timelinechain"
)

// The emulators' day, as tk_votes' end-to-end test has it.
var timelineNow = timelinechain.Now

// upstreamLog records the requests one upstream got.
type upstreamLog struct {
	mu   sync.Mutex
	log  []string
	busy time.Duration // the time the upstream spent answering (figures)
}

func (l *upstreamLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.log
	l.log, l.busy = nil, 0
	return out
}

// took is the time the upstream spent answering since the last take.
func (l *upstreamLog) took() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.busy
}

// timelineSite is each platform's production chain (platform_cache,
// platform_limit with the table's budget, reverse proxy) in front of the
// handlers ups, and the connectors (Caddyfile text in the site block); it
// returns the site's base URL and each upstream's request log.
func timelineSite(t *testing.T, ups map[string]http.Handler, connectors string) (string, map[string]*upstreamLog) {
	t.Helper()
	logs := map[string]*upstreamLog{}
	var routes strings.Builder
	dir := t.TempDir()
	keys := make([]string, 0, len(ups))
	for k := range ups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h, l := ups[k], &upstreamLog{}
		logs[k] = l
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			h.ServeHTTP(w, r)
			l.mu.Lock()
			l.log = append(l.log, r.URL.RequestURI())
			l.busy += time.Since(start)
			l.mu.Unlock()
		}))
		t.Cleanup(srv.Close)
		fmt.Fprintf(&routes, `	route /platforms/%s/* {
		uri strip_prefix /platforms/%s
		platform_cache %s {
			dir %s
		}
		platform_limit %s
		reverse_proxy %s {
			header_up Host {upstream_hostport}
		}
	}
`, k, k, k, filepath.Join(dir, k), k, strings.TrimPrefix(srv.URL, "http://"))
	}
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {
%s
%s
}
`, port, routes.String(), connectors))
	return fmt.Sprintf("http://127.0.0.1:%d", port), logs
}

// connectorBlock is a connector offering platforms.
func connectorBlock(name, platforms string) string {
	return fmt.Sprintf("\thandle /mcp/%s {\n\t\tmcp %s {\n\t\t\tplatforms %s\n\t\t\tstatus_refresh off\n\t\t}\n\t}\n", name, name, platforms)
}

func callTimeline(t *testing.T, c *client.Client, args map[string]any) (map[string]any, string, bool) {
	t.Helper()
	return mcptest.Call(t, c, "dossier_timeline", args)
}

func stepsOf(res map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range res["steps"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

// dossier_timeline end to end, through the connector, each platform's
// cache and budget to the three emulators: a bill's dossier gives its
// documents, decisions and votes (the Kamer), its Staatsblad publication
// (Officiële Bekendmakingen, by the metadata that names the dossier) and
// the law version it set in force (the law's brondata), in date order,
// each with its citation, resource URI, source link and the data that
// links it, in seven requests; the same timeline again asks nothing. A
// dossier with no Staatsblad publication yet says so in missing; bad
// input asks nothing.
func TestDossierTimelineThroughCacheAndBudget(t *testing.T) {
	ups, bills, others := timelinechain.Chain(t, 1)
	base, logs := timelineSite(t, ups, connectorBlock("kamer", "tk ob bwb")+connectorBlock("tkonly", "tk")+connectorBlock("obonly", "ob"))
	c := mcptest.Connect(t, base+"/mcp/kamer")
	take := func() map[string][]string {
		out := map[string][]string{}
		for k, l := range logs {
			if got := l.take(); len(got) > 0 {
				out[k] = got
			}
		}
		return out
	}
	take()

	bill := bills[0]
	args := map[string]any{"dossier": bill, "law": "BWBR9100000"}
	res, text, isErr := callTimeline(t, c, args)
	if isErr {
		t.Fatalf("dossier_timeline %v: %s", args, text)
	}
	log := take()
	if len(log["tk"]) != 4 || !strings.HasSuffix(log["tk"][0], "/$metadata") || !strings.Contains(log["tk"][1], "/Document?") ||
		!strings.Contains(log["tk"][2], "/Zaak?") || !strings.Contains(log["tk"][3], "/Besluit?") ||
		len(log["ob"]) != 1 || !strings.Contains(log["ob"][0], "w.behandeldDossier") ||
		len(log["bwb"]) != 2 || !strings.HasSuffix(log["bwb"][0], "/BWBR9100000/manifest.xml") {
		t.Fatalf("requests %v", log)
	}
	if res["from_cache"] != false || res["platform"] != "besluitbron" || res["dossier"] != bill ||
		fmt.Sprint(res["requests"]) != "map[bwb:2 ob:1 tk:4]" || len(res["missing"].([]any)) != 0 {
		t.Fatalf("result %v", text)
	}
	steps := stepsOf(res)
	kinds := map[string]int{}
	last := ""
	for _, s := range steps {
		kinds[s["kind"].(string)]++
		d, _ := s["date"].(string)
		if d == "" || d < last {
			t.Fatalf("steps out of date order at %v", s)
		}
		last = d
		if s["linked_by"] == "" || s["title"] == "" || s["source_url"] == "" {
			t.Fatalf("step %v", s)
		}
		switch s["kind"] {
		case "document":
			if !strings.HasPrefix(s["citation"].(string), "Kamerstukken II") || !strings.HasPrefix(s["uri"].(string), "besluitbron://tk/document/") ||
				!strings.Contains(s["linked_by"].(string), "names dossier "+bill) {
				t.Fatalf("document %v", s)
			}
		case "vote", "activity":
			// The Kamer's record of it, cited by the Kamer's numbers.
			if !strings.HasPrefix(s["uri"].(string), "besluitbron://tk/entiteit/") || !strings.HasPrefix(s["citation"].(string), "Tweede Kamer, ") {
				t.Fatalf("%s %v", s["kind"], s)
			}
			if s["kind"] == "vote" && (!strings.Contains(s["result"].(string), "voor ") || !strings.Contains(s["linked_by"].(string), "a zaak of dossier "+bill)) {
				t.Fatalf("vote %v", s)
			}
		case "publication":
			if s["id"] != "stb-2026-900" || s["citation"] != "Stb. 2026, 900" || s["uri"] != "besluitbron://ob/stb-2026-900" || s["date"] != "2026-11-28" ||
				s["linked_by"] != "its metadata names dossier "+bill+" (behandeldDossier "+bill+")" || s["platform"] != "ob" {
				t.Fatalf("publication %v", s)
			}
		case "law_version":
			if s["id"] != "BWBR9100000" || s["in_force"] != "2027-01-01" || s["uri"] != "besluitbron://bwb/BWBR9100000?date=2027-01-01" ||
				!strings.Contains(s["linked_by"].(string), "Stb. 2026, 900") || s["citation"] != "Wet tijdelijke regels 0 (geldend op 1 januari 2027)" {
				t.Fatalf("law version %v", s)
			}
		}
	}
	if kinds["document"] == 0 || kinds["vote"] == 0 || kinds["activity"] == 0 || kinds["publication"] != 1 || kinds["law_version"] != 1 {
		t.Fatalf("kinds %v", kinds)
	}
	if steps[len(steps)-1]["kind"] != "law_version" || steps[len(steps)-2]["kind"] != "publication" {
		t.Fatalf("the chain does not end in the Staatsblad and the law: %v", steps[len(steps)-2:])
	}

	// The same timeline again: every answer from the cache.
	again, _, _ := callTimeline(t, c, args)
	if log := take(); len(log) != 0 || again["from_cache"] != true || again["count"] != res["count"] {
		t.Fatalf("the same timeline asked the platforms again: %v (from_cache %v)", log, again["from_cache"])
	}

	// A vote's URI reads back as the Kamer's record of the decision, one
	// SyncFeed request, its zaak a URI of the same kind.
	for _, s := range steps {
		if s["kind"] != "vote" {
			continue
		}
		read, err := readResource(c, s["uri"].(string))
		if err != nil || len(read.Contents) == 0 {
			t.Fatalf("%s: %v", s["uri"], err)
		}
		body, _ := read.Contents[0].(mcpgo.TextResourceContents)
		if log := take(); len(log["tk"]) != 1 || !strings.Contains(log["tk"][0], "/SyncFeed/2.0/Entiteiten/") ||
			!strings.Contains(body.Text, "besluit") || !strings.Contains(body.Text, "zaak: besluitbron://tk/entiteit/") {
			t.Fatalf("%s: requests %v, %.600s", s["uri"], log, body.Text)
		}
		break
	}

	// A dossier no Staatsblad publication names: reported missing, and
	// without law the law's link too; one search of OB, none of the laws.
	other := others[0]
	res, text, isErr = callTimeline(t, c, map[string]any{"dossier": other})
	if isErr {
		t.Fatalf("%s: %s", other, text)
	}
	var gaps []string
	for _, m := range res["missing"].([]any) {
		g := m.(map[string]any)
		gaps = append(gaps, g["platform"].(string)+": "+g["link"].(string))
	}
	if fmt.Sprint(gaps) != "[ob: Staatsblad publication bwb: law version in force]" || !strings.Contains(text, "no Staatsblad publication's metadata names dossier "+other) {
		t.Fatalf("missing %v: %s", gaps, text)
	}
	for _, s := range stepsOf(res) {
		if s["kind"] == "publication" || s["kind"] == "law_version" {
			t.Fatalf("a step the data does not give: %v", s)
		}
	}
	if log := take(); len(log["ob"]) != 1 || len(log["bwb"]) != 0 || len(log["tk"]) != 3 {
		t.Fatalf("requests %v", log)
	}

	// Bad input: refused, saying what to fix, before any request.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"dossier": "abc"}, "is not a Kamerstuk dossier number"},
		{map[string]any{"dossier": "36200-VII", "toevoeging": "VIII"}, "give it once"},
		{map[string]any{"dossier": "36200", "toevoeging": "V I"}, "is not a dossier addition"},
		{map[string]any{"dossier": bill, "law": "Gemeentewet"}, "is not a BWB identifier"},
		{map[string]any{"dossier": ""}, "dossier is required"},
	} {
		_, text, isErr := callTimeline(t, c, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError=%v %q, want %q", tc.args, isErr, text, tc.want)
		}
	}
	if log := take(); len(log) != 0 {
		t.Fatalf("bad input asked the platforms: %v", log)
	}
	// A dossier the Kamer does not know: an error, after its documents
	// and zaken were asked.
	if _, text, isErr := callTimeline(t, c, map[string]any{"dossier": "99999-ZZ"}); !isErr || !strings.Contains(text, "no document and no zaak in dossier 99999-ZZ") {
		t.Fatalf("unknown dossier: %v %s", isErr, text)
	}
	if log := take(); len(log["tk"]) != 2 || len(log["ob"]) != 0 {
		t.Fatalf("unknown dossier asked %v", log)
	}

	// A connector with the Kamer alone offers the tool and says which
	// links it cannot give; one without the Kamer does not offer it.
	tkOnly := mcptest.Connect(t, base+"/mcp/tkonly")
	res, text, isErr = callTimeline(t, tkOnly, map[string]any{"dossier": bill})
	if isErr || len(res["missing"].([]any)) != 2 || !strings.Contains(text, "no platform that holds it is offered here (offered: tk)") {
		t.Fatalf("tk only: %s", text)
	}
	if _, text, isErr := callTimeline(t, tkOnly, map[string]any{"dossier": bill, "law": "BWBR9100000"}); !isErr || !strings.Contains(text, "no platform of laws is offered here") {
		t.Fatalf("law without laws: %s", text)
	}
	names := toolNames(t, mcptest.Connect(t, base+"/mcp/obonly"))
	if slices.Contains(names, "dossier_timeline") || !slices.Contains(toolNames(t, tkOnly), "dossier_timeline") {
		t.Fatalf("offered where it should not be, or not where it should: %v", names)
	}
}

// A platform of a later stage that answers what is no answer (broken XML,
// a diagnostic, an answer too large to hold, an outage) costs its link,
// said in missing with what happened; the Kamer's steps stand, and
// nothing is guessed in its place. The Kamer itself answering broken
// JSON is the call's error.
func TestDossierTimelineHostilePlatforms(t *testing.T) {
	ups, _, others := timelinechain.Chain(t, 0)
	var mode struct {
		sync.Mutex
		ob, tk string
	}
	set := func(ob, tk string) {
		mode.Lock()
		mode.ob, mode.tk = ob, tk
		mode.Unlock()
	}
	tk := ups["tk"]
	ups["tk"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode.Lock()
		m := mode.tk
		mode.Unlock()
		if m == "broken" && strings.Contains(r.URL.Path, "/Document") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"value":[{"Id":`))
			return
		}
		tk.ServeHTTP(w, r)
	})
	ups["ob"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode.Lock()
		m := mode.ob
		mode.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		switch m {
		case "broken":
			_, _ = w.Write([]byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records><record><recordData>`))
		case "diagnostic":
			_, _ = w.Write([]byte(`<searchRetrieveResponse><diagnostics><diagnostic><message>Unsupported index</message><details>w.behandeldDossier</details></diagnostic></diagnostics></searchRetrieveResponse>`))
		case "huge":
			_, _ = w.Write([]byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>`))
			chunk := []byte(strings.Repeat("<x>aaaaaaaaaaaaaaaaaaaaaaaaaaa</x>", 1<<10))
			for n := 0; n < (40<<20)/len(chunk); n++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		default:
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		}
	})
	base, _ := timelineSite(t, ups, connectorBlock("kamer", "tk ob bwb"))
	c := mcptest.Connect(t, base+"/mcp/kamer")
	for i, tc := range []struct{ mode, want string }{
		{"broken", "not in the expected form"},
		{"diagnostic", "the platform refused the search: Unsupported index"},
		{"huge", "more than the 32 MiB"},
		{"down", "Officiële Bekendmakingen"},
	} {
		set(tc.mode, "")
		d := others[i] // another dossier each time: a 2xx answer is cached
		res, text, isErr := callTimeline(t, c, map[string]any{"dossier": d})
		if isErr {
			t.Fatalf("%s: the Kamer's steps were lost: %s", tc.mode, text)
		}
		var ob []string
		for _, m := range res["missing"].([]any) {
			if g := m.(map[string]any); g["platform"] == "ob" {
				ob = append(ob, g["why"].(string))
			}
		}
		if len(ob) != 2 || !strings.Contains(ob[0], tc.want) || res["count"].(float64) == 0 {
			t.Errorf("%s: ob missing %q, want %q (%d steps)", tc.mode, ob, tc.want, int(res["count"].(float64)))
		}
		for _, s := range stepsOf(res) {
			if s["platform"] != "tk" {
				t.Errorf("%s: step %v", tc.mode, s)
			}
		}
	}
	set("", "broken")
	if _, text, isErr := callTimeline(t, c, map[string]any{"dossier": others[len(others)-1]}); !isErr || !strings.Contains(text, "not in the expected form") {
		t.Fatalf("broken Kamer: %v %s", isErr, text)
	}
}

// kamerstukDossier is the dossier of a kamerstuk tk_search finds through
// c (kst-36200-VII-12: 36200-VII), for a corpus of every tool.
func kamerstukDossier(t *testing.T, c *client.Client) string {
	t.Helper()
	res := decodeResult(t, slowCall(t, c, "tk_search", map[string]any{"date_from": "2020-01-01", "limit": 50}))
	hits, _ := res["results"].([]any)
	for _, h := range hits {
		if k, _ := h.(map[string]any)["kamerstuk"].(string); strings.HasPrefix(k, "kst-") {
			parts := strings.Split(strings.TrimPrefix(k, "kst-"), "-")
			return strings.Join(parts[:len(parts)-1], "-")
		}
	}
	t.Fatal("tk_search found no kamerstuk")
	return ""
}

// The description states the cost: the sum of the sources' requests, and
// each source's words for them with its budget.
func TestDossierTimelineDescription(t *testing.T) {
	d := timelineDesc()
	total := 0
	for _, s := range timelineSources() {
		total += s.Source.Requests
		if !strings.Contains(d, s.Source.Cost) {
			t.Errorf("the description lacks %s's cost %q", s.Key, s.Source.Cost)
		}
	}
	if total == 0 || !strings.Contains(d, fmt.Sprintf("\nCost: at most %d platform requests for one timeline", total)) {
		t.Fatalf("%d: %s", total, d)
	}
	t.Log(d)
}
