package site_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testtier"
)

// The moonshot of issue 36: one word question to every platform
// BesluitBron keeps a replica of, at once, is answered with no request
// to any platform once every replica covers it; and with every platform
// down the same question is still answered, each platform's part marked
// with how fresh its replica is.
//
// Six emulators on small deterministic corpora (fake clocks), one house
// with the six replicas (each its own folder, each scope covering the
// question), the site's fan-out and an MCP connector over all six.
//
// The question: no word of its own is in the replicated fields of all six
// generators. The laws' replica holds titles only ("<head> <subject>
// <year>", platforms/bwb/emulator/generate.go), the local regulations'
// titles, organisations and subjects, and none of the laws' heads or
// subjects is among OpenBesluitvorming's words (emulators/corpus). Asked
// of these replicas, "regels" is answered by five (not the CVDR's),
// "verordening", "besluit", "wet", "gemeente" and "beleidsregel" by
// three or four, "kinderopvang" by three. So the question is a year,
// which every generator writes: in the laws' and the local regulations'
// titles, in council meetings' titles and agendas' descriptions, in
// parliamentary dossiers' titles ("begrotingsstaten voor het jaar
// 2026"), in official publications' titles, and in rulings' feed titles
// (their date).
//
// The house's background refresh of OpenBesluitvorming's load status is
// off (status_refresh off), so every request an emulator counts while the
// harvests are paused would be the question's.
func TestMoonshot(t *testing.T) {
	testtier.Full(t, "six replicas harvested through one house")
	const question = "2026"
	h := startMoonHouse(t, true, 0)
	base, emus := h.base, h.emus
	mc := mcptest.Connect(t, base+"/mcp/all")
	ask := func(what string) map[string]fanout.Outcome {
		t.Helper()
		h.resetCounts()
		var page, tool fanout.Result
		body := get(t, base+"/search?"+url.Values{"q": {question}, "platforms": {strings.Join(moonPlatforms, ",")}}.Encode(), http.Header{"Accept": {"application/json"}})
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatalf("%s: /search: %v in %s", what, err, body)
		}
		_, structured, isError := callMCPToolParts(t, mc, "search_all", map[string]any{"query": question, "platforms": strings.Join(moonPlatforms, ","), "limit": 5})
		if isError {
			t.Fatalf("%s: search_all: %s", what, structured)
		}
		if err := json.Unmarshal([]byte(structured), &tool); err != nil {
			t.Fatalf("%s: search_all: %v in %s", what, err, structured)
		}
		for _, k := range moonPlatforms {
			if n, paths := emus[k].seen(); n != 0 {
				t.Errorf("%s: %d requests reached the %s emulator: %v", what, n, k, paths)
			}
		}
		outcomes := map[string]fanout.Outcome{}
		for surface, res := range map[string]fanout.Result{"/search": page, "search_all": tool} {
			if res.Partial || len(res.Outcomes) != len(moonPlatforms) || len(res.Hits) == 0 {
				t.Errorf("%s: %s: partial %v, %d outcomes, %d hits", what, surface, res.Partial, len(res.Outcomes), len(res.Hits))
			}
			for _, o := range res.Outcomes {
				if o.State != fanout.StateAnswered || o.Hits == 0 || !strings.Contains(o.Provenance, "complete up to") {
					t.Errorf("%s: %s: %s %s with %d hits, provenance %q (%s)", what, surface, o.Platform, o.State, o.Hits, o.Provenance, o.Error)
				}
				if surface == "/search" {
					outcomes[o.Platform] = o
				}
			}
		}
		for _, k := range moonPlatforms {
			o := outcomes[k]
			t.Logf("%s: %-11s %s, %d hits: %s", what, k, o.State, o.Hits, o.Provenance)
		}
		return outcomes
	}
	up := ask("all up")

	// Every platform down: the same question, answered by the same
	// replicas with the same freshness. (No answer of a replica is cached:
	// the cache holds platform answers, and none was asked.)
	for _, e := range emus {
		e.stopped.Store(true)
	}
	down := ask("all down")
	// The platforms are down as the house sees them: its own route to
	// each answers an error.
	for _, k := range moonPlatforms {
		if code, _ := fetch(t, base+"/platforms/"+k+"/moonshot", nil); code < 500 {
			t.Errorf("the route to %s answered %d with its platform down", k, code)
		}
		if n, _ := emus[k].seen(); n != 1 {
			t.Errorf("the route to %s: %d requests reached its emulator, want 1", k, n)
		}
	}
	for _, k := range moonPlatforms {
		if down[k].Hits != up[k].Hits || down[k].Provenance != up[k].Provenance {
			t.Errorf("%s: up %d hits (%s), down %d hits (%s)", k, up[k].Hits, up[k].Provenance, down[k].Hits, down[k].Provenance)
		}
	}
}

// adminPost posts to Caddy's admin API, returning its status and body.
func adminPost(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Post(u, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}
