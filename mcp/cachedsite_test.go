package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
)

// A site where every platform has its emulator and its platform_cache, and
// one connector (/mcp/alles) offers every platform's tools: the place where
// every tool can be called on a cache hit, in both eras. Used by the tests
// of issue 31 point 10 (no shared result reaches mcp-go) and issue 33 (the
// fast path held to mcp-go).

// cachedKeys are the platforms the site serves: every platform.
func cachedKeys() []string { return platforms.Keys() }

// cachedSite runs the emulators, a cached route per platform and the
// connector alles; it returns the connector's URL.
func cachedSite(t testing.TB) string {
	t.Helper()
	url, _ := cachedSiteEmulators(t)
	return url
}

// cachedSiteEmulators is cachedSite, and each platform's emulator base URL
// (for its request counts, testproc.EmulatorRequests).
func cachedSiteEmulators(t testing.TB) (string, map[string]string) {
	t.Helper()
	emulators := map[string]string{}
	dir := t.TempDir()
	port := testproc.FreePort(t)
	var emus, bases, rts strings.Builder
	for _, k := range cachedKeys() {
		p := testproc.FreePort(t)
		up := fmt.Sprintf("127.0.0.1:%d", p)
		emulators[k] = "http://" + up
		fmt.Fprintf(&bases, "\t\tplatform %s {\n\t\t\tbase_url http://%s\n\t\t}\n", k, up)
		fmt.Fprintf(&emus, "http://:%d {\n\tbesluitbron_emulator %s\n}\n", p, k)
		fmt.Fprintf(&rts, "\troute /platforms/%s/* {\n\t\turi strip_prefix /platforms/%s\n\t\tplatform_cache %s {\n\t\t\tdir %s\n\t\t}\n\t\treverse_proxy %s {\n\t\t\theader_up Host {upstream_hostport}\n\t\t}\n\t}\n",
			k, k, k, filepath.Join(dir, k), up)
	}
	site := fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	besluitbron {
%s	}
}
%s
http://:%d {
%s
	handle /mcp/alles {
		mcp alles {
			platforms %s
			experimental_oa
			status_refresh off
		}
	}
}
`, bases.String(), emus.String(), port, rts.String(), strings.Join(cachedKeys(), " "))
	testcaddy.Load(t, site)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp/alles", port), emulators
}

// toolCall is one tools/call of the corpus.
type toolCall struct {
	name string
	args map[string]any
}

// toolCorpus is a call of every tool the connector alles offers, with
// arguments the emulators answer (ids taken from their searches); each
// call is made twice through c, so the platform answers behind it are in
// the cache when the corpus is returned.
func toolCorpus(t *testing.T, c *client.Client) []toolCall {
	t.Helper()
	first := func(tool string, args map[string]any) string {
		res := decodeResult(t, slowCall(t, c, tool, args))
		hits, _ := res["results"].([]any)
		if len(hits) == 0 {
			t.Fatalf("%s found nothing", tool)
		}
		return hits[0].(map[string]any)["id"].(string)
	}
	src := decodeResult(t, slowCall(t, c, "obv_sources", map[string]any{"organization_type": "gemeente"}))
	org := src["organizations"].([]any)[0].(map[string]any)["key"].(string)
	calls := []toolCall{
		{"besluitbron_platforms", nil},
		{"obv_sources", map[string]any{"organization_type": "gemeente"}},
		{"obv_search", map[string]any{"organization": org, "limit": 5}},
		{"obv_fetch", map[string]any{"id": first("obv_search", map[string]any{"organization": org, "limit": 5}), "max_chars": 1000}},
		{"obv_laadstatus", map[string]any{"limit": 3}},
		{"obv_votes", map[string]any{"organization": org, "limit": 2}},
		{"tk_search", map[string]any{"date_from": "2020-01-01", "limit": 3}},
		{"tk_fetch", map[string]any{"id": first("tk_search", map[string]any{"date_from": "2020-01-01", "limit": 3})}},
		{"tk_commissies", nil},
		{"tk_fracties", nil},
		{"tk_votes", map[string]any{"query": "motie", "limit": 3}},
		{"opentk_search", map[string]any{"query": "stikstof"}},
		{"opentk_fetch", map[string]any{"id": first("opentk_search", map[string]any{"query": "stikstof"}), "max_chars": 500}},
		{"ob_search", map[string]any{"query": "begroting", "limit": 3}},
		{"ob_fetch", map[string]any{"id": first("ob_search", map[string]any{"query": "begroting", "limit": 3}), "max_chars": 800}},
		{"rechtspraak_lists", map[string]any{"list": "Instanties", "name": "Hoge Raad"}},
		{"rechtspraak_search", map[string]any{"court": "HR", "limit": 3}},
		{"rechtspraak_fetch", map[string]any{"ecli": first("rechtspraak_search", map[string]any{"court": "HR", "limit": 3}), "max_chars": 800}},
		{"bwb_search", map[string]any{"query": "belastingcapaciteit", "in_force_on": "2003-05-01"}},
		{"bwb_fetch", map[string]any{"id": "BWBR0008326", "date": "2003-05-01", "article": "5"}},
		{"cvdr_search", map[string]any{"organisation": "Kampen"}},
		{"cvdr_fetch", map[string]any{"id": first("cvdr_search", map[string]any{"organisation": "Kampen"})}},
		{"ori_search", map[string]any{"query": "begroting", "limit": 3}},
		{"ori_fetch", map[string]any{"id": first("ori_search", map[string]any{"query": "begroting", "limit": 3}), "max_chars": 500}},
		{"oa_search", map[string]any{"query": "begroting", "limit": 3}},
		{"oa_fetch", map[string]any{"id": first("oa_search", map[string]any{"query": "begroting", "limit": 3}), "max_chars": 500}},
		{"search_all", map[string]any{"query": "begroting", "limit": 3}},
		{"dossier_timeline", map[string]any{"dossier": kamerstukDossier(t, c), "law": "BWBR0008326"}},
	}
	offered := map[string]bool{}
	for _, s := range allSpecs() {
		offered[s.tool.Name] = true
	}
	for _, call := range calls {
		delete(offered, call.name)
		slowCall(t, c, call.name, call.args)
		if text, isErr := callTool(t, c, call.name, call.args); isErr {
			t.Fatalf("%s %v: %s", call.name, call.args, text)
		}
	}
	if len(offered) > 0 {
		t.Fatalf("the corpus lacks tools %v: add a call of each", offered)
	}
	return calls
}

// slowCall is mustTool with time for an emulator's first answer, which
// builds its data set (seconds under -race on a busy machine).
func slowCall(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(mcpgo.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: %s", name, text)
	}
	return text
}

// rawEra is one protocol era as a raw HTTP client speaks it.
type rawEra struct {
	name    string
	modern  bool
	session string // a 2025-era session id
}

// rawToolCall is the body and headers of a tools/call as mcp-go's client
// sends it in era e.
func rawToolCall(e rawEra, id any, name string, args map[string]any) ([]byte, map[string]string) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	hdr := map[string]string{}
	if e.modern {
		params["_meta"] = map[string]any{
			mcpgo.MetaKeyProtocolVersion:    mcpgo.ProtocolVersion20260728,
			mcpgo.MetaKeyClientCapabilities: map[string]any{},
			mcpgo.MetaKeyClientInfo:         map[string]any{"name": "besluitbron-test", "version": "1"},
		}
		hdr[mcpgo.HeaderProtocolVersion] = mcpgo.ProtocolVersion20260728
		hdr[mcpgo.HeaderMethod] = "tools/call"
		hdr[mcpgo.HeaderName] = name
	} else {
		hdr[mcpgo.HeaderProtocolVersion] = mcpgo.ProtocolVersion20251125
		if e.session != "" {
			hdr["Mcp-Session-Id"] = e.session
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	return body, hdr
}

// postRaw sends body with hdr to url and returns the answer, its body read.
func postRaw(t testing.TB, hc *http.Client, url string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}
