package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
)

// TestSearchAllAgainstEmulators: search_all asks every platform of the
// connector at once through the platform routes; the structured answer
// names each platform's outcome; the same question again comes from the
// cache on every platform; platforms narrows it; a bad query says what to
// fix.
func TestSearchAllAgainstEmulators(t *testing.T) {
	site, port := emulatorSite(t, emulated, emulatorConnectors+`
	handle /mcp/raad {
		mcp raad {
			platforms obv
		}
	}`)
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/alles", port), false, nil)
	outcomes := func(res map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, o := range res["outcomes"].([]any) {
			m := o.(map[string]any)
			out[m["platform"].(string)] = m
		}
		return out
	}
	// The emulators build their data at the first request, which may take
	// longer than the deadline under -race: ask until no platform times
	// out (the late answers fill the cache meanwhile).
	var res map[string]any
	var first map[string]map[string]any
	for try := 0; ; try++ {
		text, isErr := callTool(t, c, "search_all", map[string]any{"query": "stikstof", "limit": 5})
		if isErr {
			t.Fatal(text)
		}
		res = decodeResult(t, text)
		first = outcomes(res)
		if res["partial"] == false || try == 5 {
			break
		}
	}
	if len(first) != len(emulated) {
		t.Fatalf("outcomes for %v, want one per platform of the connector (%v)", first, emulated)
	}
	seen := map[string]bool{}
	for _, h := range res["hits"].([]any) {
		seen[h.(map[string]any)["platform"].(string)] = true
	}
	for _, k := range emulated {
		o := first[k]
		if k == platforms.Rechtspraak {
			if o["state"] != fanout.StateSkipped {
				t.Errorf("%s: %v, want skipped", k, o)
			}
			continue
		}
		if o["state"] != fanout.StateAnswered && o["state"] != fanout.StateCache {
			t.Errorf("%s: %v, want answered or cache", k, o)
		}
		if !seen[k] {
			t.Errorf("no hit from %s", k)
		}
	}
	if res["partial"] != false {
		t.Errorf("partial %v", res["partial"])
	}
	// Words rank by relevance unless sort asks for date; the answer says
	// which order it used.
	if res["sort"] != fanout.SortRelevance {
		t.Errorf("sort %v, want relevance for a query with words", res["sort"])
	}
	text, isErr := callTool(t, c, "search_all", map[string]any{"query": "stikstof", "limit": 5, "sort": "date"})
	if byDate := decodeResult(t, text); isErr || byDate["sort"] != fanout.SortDate || len(byDate["hits"].([]any)) != len(res["hits"].([]any)) {
		t.Errorf("sort=date: isError=%v, sort %v: %.300s", isErr, byDate["sort"], text)
	}

	text, isErr = callTool(t, c, "search_all", map[string]any{"query": "woningbouw", "platforms": "obv, tk", "date_from": "2020-01-01"})
	if got := outcomes(decodeResult(t, text)); isErr || len(got) != 2 || got["obv"] == nil || got["tk"] == nil {
		t.Errorf("platforms obv,tk: %v %s", got, text)
	}
	for args, want := range map[string]string{
		`{}`:                                     "give words to search for",
		`{"query":"x","platforms":"google"}`:     `platform "google" is unknown`,
		`{"query":"x","date_from":"2024-02-30"}`: "from",
		`{"query":"x","sort":"newest"}`:          `sort "newest" must be one of relevance, date`,
	} {
		m := decodeResult(t, args)
		if text, isErr := callTool(t, c, "search_all", m); !isErr || !strings.Contains(text, want) {
			t.Errorf("%s: isError=%v %s, want %q", args, isErr, text, want)
		}
	}

	// A connector's search_all covers that connector's platforms only.
	raad := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), false, nil)
	text, isErr = callTool(t, raad, "search_all", map[string]any{"query": "stikstof", "platforms": "tk"})
	if !isErr || !strings.Contains(text, `platform "tk" is not offered here: use obv`) {
		t.Errorf("raad with tk: %s", text)
	}
}

// TestSearchAllThroughCacheAndBudget: through platform_cache and
// platform_limit (chainSite), the second search_all of a question is
// answered from the cache, and says so per platform and overall; the
// budget saw one search.
func TestSearchAllThroughCacheAndBudget(t *testing.T) {
	site, port := chainSite(t, t.TempDir())
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), false, nil)
	states := []string{}
	for range 2 {
		text, isErr := callTool(t, c, "search_all", map[string]any{"query": "woningbouw"})
		if isErr {
			t.Fatal(text)
		}
		res := decodeResult(t, text)
		o := res["outcomes"].([]any)[0].(map[string]any)
		states = append(states, fmt.Sprint(o["state"], " ", res["from_cache"]))
	}
	if strings.Join(states, ", ") != "answered false, cache true" {
		t.Errorf("states %v, want answered then cache", states)
	}
}

// TestSearchAllCostHint: the description prices the search from the
// platforms table, as obv_search's does.
func TestSearchAllCostHint(t *testing.T) {
	price := obv.SearchCost()
	for _, want := range []string{"\nCost: one search on each platform", price.String(),
		"limit 10 = " + platforms.FormatUnits(price.UnitsFor(10)), "at OpenBesluitvorming a search costs", "over_budget", "skipped"} {
		if !strings.Contains(searchAllDesc(), want) {
			t.Errorf("search_all's description lacks %q:\n%s", want, searchAllDesc())
		}
	}
}
