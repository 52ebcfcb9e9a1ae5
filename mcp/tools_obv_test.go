package mcp

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
)

// The OBV tools against the emulator, which behaves as the real server
// does: it takes any sort and any date, so the tool must check them.
func TestOBVSearchSortsDatesPhrasesVotes(t *testing.T) {
	site, port := emulatorSite(t, []string{"obv"}, "\thandle /mcp/raad {\n\t\tmcp raad {\n\t\t\tplatforms obv\n\t\t}\n\t}")
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), false, nil)
	search := func(args map[string]any) []map[string]any {
		t.Helper()
		text, isErr := callTool(t, c, "obv_search", args)
		if isErr {
			t.Fatalf("obv_search %v: %s", args, text)
		}
		var hits []map[string]any
		for _, h := range decodeResult(t, text)["results"].([]any) {
			hits = append(hits, h.(map[string]any))
		}
		return hits
	}

	titles := search(map[string]any{"organization": "soest", "sort": "title_asc", "limit": 50})
	var got []string
	for _, h := range titles {
		got = append(got, strings.ToLower(h["title"].(string)))
	}
	if len(got) < 20 || !sort.StringsAreSorted(got) {
		t.Errorf("title_asc: %q", got)
	}

	for _, c2 := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "x", "sort": "relevance"}, "answers newest first"},
		{map[string]any{"query": "x", "date_from": "2025-02-01", "date_to": "2025-01-01"}, "swap them"},
		{map[string]any{"query": "x", "date_to": "1-1-2025"}, "YYYY-MM-DD"},
	} {
		text, isErr := callTool(t, c, "obv_search", c2.args)
		if !isErr || !strings.Contains(text, c2.want) {
			t.Errorf("%v: isError=%v %s", c2.args, isErr, text)
		}
	}

	// A quoted phrase reaches the platform intact and finds its document.
	doc := search(map[string]any{"organization": "soest", "entity_type": "Document", "limit": 1})[0]
	words := strings.Fields(doc["title"].(string))
	phrase := `"` + words[0] + " " + words[1] + `"`
	found := false
	for _, h := range search(map[string]any{"organization": "soest", "entity_type": "Document", "query": phrase, "limit": 100}) {
		found = found || h["id"] == doc["id"]
	}
	if !found {
		t.Errorf("phrase %s did not find %s", phrase, doc["id"])
	}

	// A Notubiz council's vote summary shows in the motion.
	for _, org := range []string{"soest", "putten", "weesp", "amsterdam"} {
		for _, h := range search(map[string]any{"organization": org, "entity_type": "Motion", "limit": 24}) {
			text, isErr := callTool(t, c, "obv_fetch", map[string]any{"id": h["id"], "max_chars": 2000})
			if isErr {
				t.Fatalf("obv_fetch %s: %s", h["id"], text)
			}
			res := decodeResult(t, text)
			meta, _ := res["document"].(map[string]any)["meta"].(map[string]any)
			if vs, _ := meta["vote_summary"].(string); vs != "" {
				if !strings.Contains(res["text"].(string), "Stemverhouding: "+vs) {
					t.Errorf("vote_summary %q not in the text:\n%s", vs, res["text"])
				}
				return
			}
		}
	}
	t.Error("no motion with a vote_summary found")
}
