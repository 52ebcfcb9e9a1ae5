package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
)

// Hits are labelled by what is known of them, not all "uitspraak": the
// feed does not say, so the label comes from the type asked for or from
// the Parket bij de Hoge Raad (conclusies only); a fetched document names
// its own type.
func TestRechtspraakTypes(t *testing.T) {
	site, port := emulatorSite(t, []string{"rechtspraak"}, "\thandle /mcp/rijk {\n\t\tmcp rijk {\n\t\t\tplatforms rechtspraak\n\t\t}\n\t}")
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/rijk", port), false, nil)
	types := func(args map[string]any) (map[string]int, string) {
		t.Helper()
		text, isErr := callTool(t, c, "rechtspraak_search", args)
		if isErr {
			t.Fatalf("rechtspraak_search %v: %s", args, text)
		}
		n := map[string]int{}
		first := ""
		for _, h := range decodeResult(t, text)["results"].([]any) {
			hit := h.(map[string]any)
			typ, _ := hit["type"].(string)
			n[typ]++
			if first == "" {
				first = hit["id"].(string)
			}
		}
		return n, first
	}
	if n, _ := types(map[string]any{"type": "Conclusie", "limit": 10}); n["conclusie"] != 10 {
		t.Errorf("type=Conclusie: %v", n)
	}
	n, concl := types(map[string]any{"court": "PHR", "limit": 10})
	if n["conclusie"] != 10 {
		t.Errorf("Parket bij de Hoge Raad: %v", n)
	}
	if n, _ := types(map[string]any{"court": "HR", "limit": 10}); n[""] != 10 {
		t.Errorf("Hoge Raad without a type asked: %v (the feed does not say)", n)
	}
	if n, _ := types(map[string]any{"court": "HR", "type": "Uitspraak", "limit": 10}); n["uitspraak"] != 10 {
		t.Errorf("type=Uitspraak: %v", n)
	}
	text, isErr := callTool(t, c, "rechtspraak_fetch", map[string]any{"ecli": concl, "metadata_only": true})
	if isErr || decodeResult(t, text)["document"].(map[string]any)["type"] != "conclusie" {
		t.Errorf("fetched conclusie %s: %s", concl, text)
	}
	if !strings.HasPrefix(concl, "ECLI:NL:PHR:") {
		t.Errorf("first PHR hit %s", concl)
	}
}
