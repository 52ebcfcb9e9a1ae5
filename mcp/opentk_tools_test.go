package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms/opentk"
)

// OpenTK hits carry their category; documents and minutes are fetched,
// the other categories are described with their link, without a platform
// call; results come newest first; kind=activiteiten gives activities.
func TestOpenTKCategoriesAgainstEmulator(t *testing.T) {
	site, port := emulatorSite(t, []string{"opentk"}, `	handle /mcp/tk {
		mcp tk {
			platforms opentk
		}
	}`)
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/tk", port), false, nil)
	hits := func(args map[string]any) []map[string]any {
		t.Helper()
		text, isErr := callTool(t, c, "opentk_search", args)
		if isErr {
			t.Fatalf("opentk_search %v: %s", args, text)
		}
		var out []map[string]any
		for _, h := range decodeResult(t, text)["results"].([]any) {
			out = append(out, h.(map[string]any))
		}
		return out
	}
	byCat := map[string]map[string]any{}
	for _, q := range []string{"stikstof", "woningmarkt", "Groningen", "landbouw"} {
		hs := hits(map[string]any{"query": q, "limit": 100})
		for i, h := range hs {
			typ, _ := h["type"].(string)
			if opentk.What(typ) == opentk.What("") {
				t.Fatalf("hit without a category: %v", h)
			}
			if byCat[typ] == nil {
				byCat[typ] = h
			}
			if i > 0 && h["date"].(string) > hs[i-1]["date"].(string) {
				t.Errorf("%s: hit %d (%s) newer than hit %d (%s)", q, i, h["date"], i-1, hs[i-1]["date"])
			}
		}
	}
	for _, cat := range opentk.Categories {
		if byCat[cat] == nil {
			t.Fatalf("no %s hit among %d categories", cat, len(byCat))
		}
	}
	if u := byCat["Document"]["source_url"].(string); !strings.HasSuffix(u, "/get/"+byCat["Document"]["id"].(string)) {
		t.Errorf("document link %s", u)
	}
	fetch := func(args map[string]any) (map[string]any, string) {
		t.Helper()
		text, isErr := callTool(t, c, "opentk_fetch", args)
		if isErr {
			t.Fatalf("opentk_fetch %v: %s", args, text)
		}
		return decodeResult(t, text), text
	}
	// A document, and minutes by the meeting id the Verslag hit carries,
	// with and without the category.
	doc, _ := fetch(map[string]any{"id": byCat["Document"]["id"], "category": "Document", "max_chars": 300})
	if s, _ := doc["text"].(string); len(s) < 100 {
		t.Errorf("document text %q", s)
	}
	for _, args := range []map[string]any{
		{"id": byCat["Verslag"]["id"], "category": "Verslag"},
		{"id": byCat["Verslag"]["id"]},
	} {
		v, _ := fetch(args)
		d := v["document"].(map[string]any)
		if s, _ := v["text"].(string); len(s) < 100 || d["type"] != "Verslag" || !strings.Contains(d["source_url"].(string), "verslag.html?vergaderingid=") {
			t.Errorf("minutes %v: %v", args, v)
		}
	}
	// The other four: what they are and their link, no platform call.
	before := testproc.EmulatorRequests(t, emulatorBase(t, site, "opentk"))
	for _, cat := range []string{"Activiteit", "Toezegging", "OODocument", "PersoonGeschenk"} {
		h := byCat[cat]
		v, text := fetch(map[string]any{"id": h["id"], "category": cat})
		if v["fetchable"] != false || v["from_cache"] != false || !strings.Contains(v["note"].(string), cat) {
			t.Errorf("%s: %s", cat, text)
		}
		if cat != "PersoonGeschenk" && v["url"] != h["source_url"] {
			t.Errorf("%s: link %v, the hit's %v", cat, v["url"], h["source_url"])
		}
	}
	if after := testproc.EmulatorRequests(t, emulatorBase(t, site, "opentk")); after != before {
		t.Errorf("describing unfetchable hits asked OpenTK %d times", after-before)
	}
	// kind=activiteiten: activities only.
	for _, h := range hits(map[string]any{"query": "stikstof", "kind": "activiteiten", "limit": 50}) {
		if h["type"] != "Activiteit" {
			t.Errorf("activiteiten gave %v", h)
		}
	}
	// Bad input: clear errors.
	for args, want := range map[string]map[string]any{
		"not an OpenTK id":    {"id": "x@y", "category": "Toezegging"},
		"a path separator":    {"id": "../x", "category": "Toezegging"},
		"not a TK document":   {"id": "../x"},
		"not a meeting id":    {"id": "2023D41173", "category": "Verslag"},
		"must be one of":      {"id": "2023D41173", "category": "Motie"},
		"Not found on OpenTK": {"id": "00000000-0000-4000-8000-000000000000"},
	} {
		text, isErr := callTool(t, c, "opentk_fetch", want)
		if !isErr || !strings.Contains(text, args) {
			t.Errorf("%v: %s (want %q)", want, text, args)
		}
	}
}
