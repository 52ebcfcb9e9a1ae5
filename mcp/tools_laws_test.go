package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// The laws' and local regulations' tools against their emulators, through
// the platform routes: a version in force on a date, one article with the
// publication it came from, references the other fetches read, and bad
// input refused with what to fix, at no platform call where none is
// needed.
func TestLawToolsAgainstEmulators(t *testing.T) {
	site, port := emulatorSite(t, []string{"bwb", "cvdr"}, `	handle /mcp/alles {
		mcp alles {
			platforms bwb cvdr
		}
	}`)
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/alles", port), false, nil)
	ok := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		text, isErr := callTool(t, c, tool, args)
		if isErr {
			t.Fatalf("%s %v: %s", tool, args, text)
		}
		return decodeResult(t, text)
	}
	calls := func(key string) int64 { return testproc.EmulatorRequests(t, emulatorBase(t, site, key)) }
	refused := func(tool string, args map[string]any, key string, cost int64, want ...string) {
		t.Helper()
		before := calls(key)
		text, isErr := callTool(t, c, tool, args)
		if !isErr {
			t.Errorf("%s %v: taken: %s", tool, args, text)
			return
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: %q lacks %q", tool, args, text, w)
			}
		}
		if n := calls(key) - before; n != cost {
			t.Errorf("%s %v: %d platform calls, want %d", tool, args, n, cost)
		}
	}

	// The law as in force in 2003: its version of 2002, article 5 of it,
	// from the Staatscourant that made it.
	if id := firstID(t, c, "bwb_search", map[string]any{"query": "belastingcapaciteit", "in_force_on": "2003-05-01"}); id != "BWBR0008326" {
		t.Fatalf("bwb_search: %s", id)
	}
	law := ok("bwb_fetch", map[string]any{"id": "BWBR0008326", "date": "2003-05-01", "article": "5"})
	v := law["version"].(map[string]any)
	came := law["came_from"].([]any)
	if v["label"] != "2002-01-01_0" || v["in_force_from"] != "2002-01-01" || v["in_force_until"] != "2006-03-07" || law["part"] != "Artikel 5" ||
		len(came) != 1 || came[0].(map[string]any)["ob_id"] != "stcrt-1996-239" || !strings.Contains(law["text"].(string), "treedt in werking met ingang van 1 januari 1997") {
		t.Fatalf("bwb_fetch: %v", law)
	}
	// Today's version, whole and paged; its publications as references.
	whole := ok("bwb_fetch", map[string]any{"id": "bwbr0008326", "max_chars": 500})
	doc := whole["document"].(map[string]any)
	if whole["version"].(map[string]any)["label"] != "2011-01-01_0" || whole["next_offset"] != float64(500) || len(doc["references"].([]any)) != 3 {
		t.Fatalf("bwb_fetch whole: %v", whole)
	}

	refused("bwb_fetch", map[string]any{"id": "BWB8326"}, "bwb", 0, "Invalid arguments", "BWBR0005537")
	refused("bwb_fetch", map[string]any{"id": "BWBR0008326", "date": "31-12-1996"}, "bwb", 0, "Invalid arguments", "YYYY-MM-DD")
	// The manifest alone says when the regulation began; an article it
	// lacks takes the version's text to know (these test routes have no
	// cache in front: with the route's, both are hits after a first fetch).
	refused("bwb_fetch", map[string]any{"id": "BWBR0008326", "date": "1996-12-31"}, "bwb", 1, "not yet in force on 1996-12-31", "1997-01-01")
	refused("bwb_fetch", map[string]any{"id": "BWBR0008326", "date": "2003-05-01", "article": "3"}, "bwb", 2, `no article "3"`, "it has: 5, 6")
	refused("bwb_fetch", map[string]any{"id": "BWBR0000001"}, "bwb", 1, "holds no regulation BWBR0000001", "bwb_search")
	refused("bwb_search", map[string]any{"type": "decreet"}, "bwb", 0, "Invalid arguments")

	// A local regulation: the laws it rests on, its Gemeenteblad.
	id := firstID(t, c, "cvdr_search", map[string]any{"organisation": "Kampen"})
	reg := ok("cvdr_fetch", map[string]any{"id": id})
	var refs []string
	for _, r := range reg["document"].(map[string]any)["references"].([]any) {
		m := r.(map[string]any)
		refs = append(refs, m["platform"].(string)+":"+m["id"].(string))
	}
	if id != "CVDR100394_2" || strings.Join(refs, " ") != "bwb:BWBR0004825 cvdr:CVDR77862_1 ob:gmb-2016-146361" {
		t.Fatalf("cvdr_fetch %s: %v", id, refs)
	}
	if r := ok("cvdr_search", map[string]any{"organisation": "Spijkenisse", "in_force_on": "2020-01-01"}); len(r["results"].([]any)) != 0 {
		t.Errorf("a regulation withdrawn in 2012 is in force in 2020: %v", r)
	}
	refused("cvdr_fetch", map[string]any{"id": "CVDR100394"}, "cvdr", 0, "Invalid arguments", "version")
	refused("cvdr_fetch", map[string]any{"id": "CVDR100394_7"}, "cvdr", 1, "holds no regulation version CVDR100394_7", "cvdr_search")
	refused("cvdr_search", map[string]any{"in_force_on": "2020-01-01"}, "cvdr", 0, "Invalid arguments", "words or an organisation")
}
