package mcp

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	sort.Strings(out)
	return out
}

func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

func TestDefaultPlatforms(t *testing.T) {
	if got := strings.Join(DefaultPlatforms(nil), " "); got != "obv tk opentk ob rechtspraak bwb cvdr" {
		t.Fatal(got)
	}
	if got := strings.Join(DefaultPlatforms([]string{"oa"}), " "); got != "obv tk opentk ob rechtspraak oa bwb cvdr" {
		t.Fatal(got)
	}
}

// ORI tools only where ori is listed; Open Archivaris tools only with oa
// listed and experimental_oa (or experimental_oa on the default list).
func TestOptInTools(t *testing.T) {
	site, port := emulatorSite(t, []string{"obv", "oa", "ori"}, `	handle /mcp/plain {
		mcp plain
	}
	handle /mcp/oa {
		mcp oa {
			experimental_oa
		}
	}
	handle /mcp/ori {
		mcp ori {
			platforms obv ori
		}
	}`)
	testcaddy.Load(t, site)
	base := fmt.Sprintf("http://127.0.0.1:%d/mcp/", port)
	plain := toolNames(t, connect(t, base+"plain", false, nil))
	if n := append(withPrefix(plain, "ori_"), withPrefix(plain, "oa_")...); len(n) > 0 || len(withPrefix(plain, "obv_")) == 0 || len(withPrefix(plain, "rechtspraak_")) == 0 {
		t.Errorf("default connector: %v", plain)
	}
	oaTools := toolNames(t, connect(t, base+"oa", false, nil))
	if got := strings.Join(withPrefix(oaTools, "oa_"), " "); got != "oa_fetch oa_search" || len(withPrefix(oaTools, "ori_")) > 0 {
		t.Errorf("experimental_oa connector: %v", oaTools)
	}
	c := connect(t, base+"oa", false, nil)
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if strings.HasPrefix(tl.Name, "oa_") && !strings.Contains(tl.Description, "Experimental") {
			t.Errorf("%s does not say its API is assumed: %s", tl.Name, tl.Description)
		}
	}
	oriTools := toolNames(t, connect(t, base+"ori", false, nil))
	if got := strings.Join(withPrefix(oriTools, "ori_"), " "); got != "ori_fetch ori_search" || len(withPrefix(oriTools, "oa_")) > 0 || len(withPrefix(oriTools, "tk_")) > 0 {
		t.Errorf("ori connector: %v", oriTools)
	}
}

var idLike = regexp.MustCompile(`^[0-9]+$`)

// The ORI opt-in path against the emulator: municipalities, provinces and
// water boards are searched, and every hit names its organisation (never
// the id has_organization_name holds).
func TestORIOptInAgainstEmulator(t *testing.T) {
	site, port := emulatorSite(t, []string{"ori"}, `	handle /mcp/ori {
		mcp ori {
			platforms ori
		}
	}`)
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/ori", port), false, nil)
	search := func(args map[string]any) []map[string]any {
		t.Helper()
		text, isErr := callTool(t, c, "ori_search", args)
		if isErr {
			t.Fatalf("ori_search %v: %s", args, text)
		}
		var out []map[string]any
		for _, h := range decodeResult(t, text)["results"].([]any) {
			out = append(out, h.(map[string]any))
		}
		return out
	}
	check := func(hits []map[string]any) {
		t.Helper()
		if len(hits) == 0 {
			t.Fatal("no hits")
		}
		for _, h := range hits {
			src, _ := h["source"].(string)
			if src == "" || idLike.MatchString(src) || h["type"] != "MediaObject" {
				t.Errorf("hit %v: source %q is not an organisation name", h["id"], src)
			}
		}
	}
	// The first page costs the search and one look-up of its organisations;
	// a repeat (no cache on these test routes) only the search.
	oriURL := emulatorBase(t, site, "ori")
	before := testproc.EmulatorRequests(t, oriURL)
	all := search(map[string]any{"query": "begroting", "limit": 50})
	check(all)
	if n := testproc.EmulatorRequests(t, oriURL) - before; n != 2 {
		t.Errorf("first search asked ORI %d times, want 2 (search + organisations)", n)
	}
	// A province (osi_) and a water board (owi_) by prefixed key, and the
	// province by its bare key. (The emulator's corpus has no Limburg, so
	// OpenBesluitvorming's renamed keys are tested in platforms/ori; here
	// one finds no index and so nothing, without an error.)
	prov := search(map[string]any{"query": "document", "source": "osi_gelderland", "limit": 5})
	check(prov)
	// The Organization object's name, not the index key fallback.
	if prov[0]["source"] != "Gelderland" {
		t.Errorf("osi_gelderland hit names %v", prov[0]["source"])
	}
	bare := search(map[string]any{"query": "document", "source": "gelderland", "limit": 5})
	if len(bare) == 0 || bare[0]["id"] != prov[0]["id"] {
		t.Errorf("gelderland %v, osi_gelderland %v", bare, prov)
	}
	check(search(map[string]any{"query": "document", "source": "owi_hhnk", "limit": 5}))
	if text, isErr := callTool(t, c, "ori_search", map[string]any{"query": "begroting", "source": "provincie_limburg"}); isErr || !strings.Contains(text, `"total":0`) {
		t.Errorf("provincie_limburg: %s", text)
	}
	// A repeated search names organisations from the connector's memory.
	before = testproc.EmulatorRequests(t, oriURL)
	check(search(map[string]any{"query": "begroting", "limit": 50}))
	if n := testproc.EmulatorRequests(t, oriURL) - before; n != 1 {
		t.Errorf("repeated search asked ORI %d times, want 1", n)
	}

	text, isErr := callTool(t, c, "ori_fetch", map[string]any{"id": prov[0]["id"], "max_chars": 300})
	if isErr {
		t.Fatal(text)
	}
	doc := decodeResult(t, text)["document"].(map[string]any)
	if doc["source"] != prov[0]["source"] {
		t.Errorf("ori_fetch names %v, search named %v", doc["source"], prov[0]["source"])
	}
	// Bad input: a clear error, no platform call needed.
	if text, isErr := callTool(t, c, "ori_search", map[string]any{"query": "x", "source": "ori_*,_cluster"}); !isErr || !strings.Contains(text, "not an index name") {
		t.Errorf("bad source: %s", text)
	}
}
