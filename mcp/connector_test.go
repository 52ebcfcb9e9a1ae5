package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/caddymodule/session"
)

func fakeSite(t *testing.T, f *fakePlatforms, port int, connectors string) string {
	ups := map[string]string{}
	for k := range f.srv {
		ups[k] = f.addr(k)
	}
	return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {
%s
%s
}
`, port, routes(ups, true), connectors)
}

const twoConnectors = `	handle /mcp/raad {
		mcp raad {
			platforms obv ori oa
			experimental_oa
			status_refresh 1h
		}
	}
	handle /mcp/alles {
		mcp alles {
			platforms ori obv tk opentk ob rechtspraak oa
			experimental_oa
			max_text_chars 3000
		}
	}
	handle /mcp/rijk {
		mcp rijk {
			platforms tk opentk ob rechtspraak
		}
	}`

func TestConnectorBothEras(t *testing.T) {
	fixturesPresent(t)
	f := newFakePlatforms(t)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fakeSite(t, f, port, twoConnectors))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	// 2025-11-25 era: a session id, issued through the app's registry, and the
	// session's key on the sub-request.
	legacy := connect(t, base+"/mcp/raad", true, nil)
	sid := legacy.GetSessionId()
	if !strings.HasPrefix(sid, idPrefix) || !issuedRegistry(t).Has(sid) {
		t.Fatalf("legacy session id %q not issued", sid)
	}
	ctx := context.Background()
	tools, err := legacy.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
		a := tl.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("%s: annotations %+v", tl.Name, a)
		}
		if !strings.Contains(tl.Description, "Cost") {
			t.Errorf("%s: no cost hint in the description", tl.Name)
		}
	}
	for _, want := range []string{"obv_search", "obv_fetch", "obv_sources", "obv_laadstatus", "ori_search", "ori_fetch", "oa_search", "oa_fetch", "besluitbron_platforms"} {
		if !names[want] {
			t.Errorf("raad lacks %s", want)
		}
	}
	if names["tk_search"] || names["rechtspraak_search"] {
		t.Error("raad offers tools of platforms it does not list")
	}

	text, isErr := callTool(t, legacy, "obv_search", map[string]any{"query": "begroting", "organization": "soest", "limit": 5})
	if isErr {
		t.Fatalf("obv_search failed: %s", text)
	}
	res := decodeResult(t, text)
	hits := res["results"].([]any)
	if len(hits) != 1 || hits[0].(map[string]any)["id"] != "document:notubiz:gemeente:soest:12345" || res["queue_wait_ms"].(float64) != 12 ||
		res["from_cache"] != false || !strings.Contains(res["cache_status"].(string), "fwd=uri-miss") || res["next_offset"].(float64) != 1 {
		t.Fatalf("obv_search result: %s", text)
	}
	if key, internal := lastProbe(); key != "mcp:"+sid || !internal {
		t.Fatalf("legacy sub-request key %q internal=%v, want mcp:%s", key, internal, sid)
	}

	// Fetch: bounded, paged full text, from the cache.
	text, isErr = callTool(t, legacy, "obv_fetch", map[string]any{"id": "document:notubiz:gemeente:soest:12345", "max_chars": 200})
	if isErr {
		t.Fatalf("obv_fetch: %s", text)
	}
	res = decodeResult(t, text)
	if res["from_cache"] != true || !strings.HasPrefix(res["text"].(string), "# Raadsvoorstel") {
		t.Fatalf("obv_fetch: %s", text)
	}

	// 2026-07-28 era: no session; the Besluitbron-Session header or the
	// client address is the key.
	modern := connect(t, base+"/mcp/raad", false, map[string]string{"Besluitbron-Session": "app-7"})
	if modern.GetSessionId() != "" {
		t.Fatalf("modern client got session id %q", modern.GetSessionId())
	}
	text, isErr = callTool(t, modern, "obv_search", map[string]any{"query": "begroting"})
	if isErr {
		t.Fatalf("modern obv_search: %s", text)
	}
	if key, _ := lastProbe(); key != "app:app-7" {
		t.Fatalf("modern key %q, want app:app-7", key)
	}
	anon := connect(t, base+"/mcp/raad", false, nil)
	if _, isErr := callTool(t, anon, "ori_search", map[string]any{"query": "parkeren"}); isErr {
		t.Fatal("ori_search failed")
	}
	if key, _ := lastProbe(); key != "addr:127.0.0.1" {
		t.Fatalf("anonymous modern key %q, want addr:127.0.0.1", key)
	}

	// The other connector offers the state and parliament platforms.
	rijk := connect(t, base+"/mcp/rijk", true, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"tk_search", map[string]any{"query": "motie", "limit": 3}, "2022D37914"},
		{"tk_fetch", map[string]any{"id": "2022D37914"}, "opentk_fetch"},
		{"tk_fracties", nil, "ChristenUnie"},
		{"tk_commissies", map[string]any{"name": "fin"}, "FIN"},
		{"opentk_search", map[string]any{"query": "stikstof"}, "2023D41173"},
		{"opentk_fetch", map[string]any{"id": "2023D41173", "max_chars": 500}, `"next_offset":500`},
		{"ob_search", map[string]any{"query": "asbest"}, "gmb-2023-174296"},
		{"ob_fetch", map[string]any{"id": "gmb-2023-174296"}, "Wij Willem-Alexander"},
		{"rechtspraak_search", map[string]any{"court": "AGAMS", "date_from": "1998-01-01"}, "ECLI:NL:RBARN:1998:AA1005"},
		{"rechtspraak_fetch", map[string]any{"ecli": "ECLI:NL:RBDHA:2013:15631"}, "Inhoudsindicatie"},
		{"rechtspraak_lists", map[string]any{"list": "Rechtsgebieden"}, "Ambtenarenrecht"},
	} {
		text, isErr := callTool(t, rijk, c.tool, c.args)
		if isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s: isError=%v, want %q in\n%s", c.tool, isErr, c.want, text)
		}
	}
	alles := connect(t, base+"/mcp/alles", false, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"oa_search", map[string]any{"query": "woo"}, "utrecht-000001"},
		{"oa_fetch", map[string]any{"id": "utrecht-000001"}, "Eerste pagina."},
		{"obv_sources", map[string]any{"organization_type": "provincie"}, "provincie-utrecht"},
		{"obv_laadstatus", map[string]any{"organization": "soest"}, "failing"},
		{"ori_fetch", map[string]any{"id": "42"}, "Volledige tekst."},
	} {
		text, isErr := callTool(t, alles, c.tool, c.args)
		if isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s: isError=%v, want %q in\n%s", c.tool, isErr, c.want, text)
		}
	}
	// max_text_chars caps the page whatever the client asks.
	text, _ = callTool(t, alles, "opentk_fetch", map[string]any{"id": "2023D41173", "max_chars": 100000})
	if res := decodeResult(t, text); len([]rune(res["text"].(string))) != 3000 {
		t.Fatalf("max_text_chars not applied: %d", len([]rune(res["text"].(string))))
	}
}

func TestArgumentChecksAndPlatformFailures(t *testing.T) {
	fixturesPresent(t)
	f := newFakePlatforms(t)
	port := testproc.FreePort(t)
	site := fakeSite(t, f, port, twoConnectors)
	// ori's route goes nowhere: a platform that is down.
	site = strings.Replace(site, "reverse_proxy "+f.addr("ori"), fmt.Sprintf("reverse_proxy 127.0.0.1:%d", testproc.FreePort(t)), 1)
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/alles", port), true, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"rechtspraak_fetch", map[string]any{"ecli": "ECLI:NL:HR:14"}, "not a valid ECLI"},
		{"obv_search", map[string]any{"query": "x", "organization": "Soest"}, `did you mean "soest"`},
		{"obv_search", map[string]any{"query": "x", "organization": "utrech"}, "Did you mean: provincie-utrecht, utrecht"},
		{"obv_search", map[string]any{"query": "x", "limit": 1000}, "limit 1000 is out of range: use 1 to 100"},
		{"obv_search", map[string]any{"query": "x", "limit": "ten"}, `limit must be a number, got "ten"`},
		{"obv_search", map[string]any{"query": 42}, "query must be a string, got a number"},
		{"obv_search", map[string]any{"query": "x", "date_from": "1-2-2024"}, "YYYY-MM-DD"},
		{"obv_search", map[string]any{"query": "x", "colour": "red"}, "unknown argument(s) colour"},
		{"obv_fetch", map[string]any{}, "id is required"},
		{"obv_fetch", map[string]any{"id": "document:notubiz:gemeente:soest:99", "offset": -5}, "offset -5 is out of range"},
		{"rechtspraak_search", map[string]any{"court": "Maanhof"}, "Unknown court"},
		{"obv_search", map[string]any{"query": "overbudget"}, "OpenBesluitvorming is over budget, retry in 7 s: the platform itself answered HTTP 429"},
		{"obv_search", map[string]any{"query": "kapot"}, "unreachable or failing (HTTP 500)"},
		{"obv_fetch", map[string]any{"id": "agenda_item:x:y:z:1"}, "Not found on OpenBesluitvorming"},
		{"ori_search", map[string]any{"query": "x"}, "Open Raadsinformatie is unreachable or failing (HTTP 502)"},
	} {
		text, isErr := callTool(t, c, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: isError=%v, want %q in %q", tc.tool, tc.args, isErr, tc.want, text)
		}
	}
	// Other platforms keep answering, and the health tool tells.
	if text, isErr := callTool(t, c, "tk_search", map[string]any{"query": "motie"}); isErr {
		t.Fatalf("tk after failures: %s", text)
	}
	text, _ := callTool(t, c, "besluitbron_platforms", nil)
	var h struct {
		Platforms []struct {
			Key    string
			Health struct {
				State       string `json:"state"`
				RetryAfterS int    `json:"retry_after_seconds"`
			}
		}
	}
	_ = json.Unmarshal([]byte(text), &h)
	states := map[string]string{}
	for _, p := range h.Platforms {
		states[p.Key] = p.Health.State
	}
	if states["ori"] != "failing" || states["tk"] != "ok" || states["rechtspraak"] != "unknown" && states["rechtspraak"] != "ok" || len(states) != 7 {
		t.Fatalf("health: %v\n%s", states, text)
	}
	// Unknown tool: a JSON-RPC error.
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	if _, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "nope"}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown tool: %v", err)
	}
}

func post(t *testing.T, url, host, origin, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	return request(t, http.DefaultClient, "POST", url, host, origin, body, hdr)
}

// request makes one raw request as an MCP client would (JSON, SSE
// accepted) and returns the answer with its body read.
func request(t *testing.T, c *http.Client, method, url, host, origin, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestBadInputAndGuards(t *testing.T) {
	fixturesPresent(t)
	f := newFakePlatforms(t)
	port := testproc.FreePort(t)
	site := fakeSite(t, f, port, twoConnectors+`
	handle /mcp/small {
		mcp small {
			platforms obv
			max_body 2KB
			allowed_origins https://claude.ai
		}
	}`)
	// A platform route that loops back into a connector.
	site = strings.Replace(site, "reverse_proxy "+f.addr("ori")+" {\n\t\t\theader_up Host {upstream_hostport}\n\t\t}", "mcp loop", 1)
	testcaddy.Load(t, site)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

	for _, tc := range []struct {
		name, url, host, origin, body string
		status                        int
		want                          string
	}{
		{"not json", "/mcp/alles", "", "", `{"jsonrpc":`, 400, "-32700"},
		{"batch", "/mcp/alles", "", "", `[` + init + `]`, 400, "-32700"},
		{"rebinding host", "/mcp/alles", "evil.example.com", "http://evil.example.com", init, 403, "DNS rebinding"},
		{"foreign origin", "/mcp/alles", "", "http://evil.example.com", init, 403, "Origin"},
		{"allowed origin", "/mcp/small", "", "https://claude.ai", init, 200, "protocolVersion"},
		{"same origin", "/mcp/alles", "", base, init, 200, "protocolVersion"},
		{"localhost host", "/mcp/alles", fmt.Sprintf("localhost:%d", port), fmt.Sprintf("http://localhost:%d", port), init, 200, "protocolVersion"},
		{"oversized", "/mcp/small", "", "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 3000) + `"}}`, 413, "larger than 2000 bytes"},
		{"unknown session", "/mcp/alles", "", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 404, "Invalid session ID"},
	} {
		resp, body := post(t, base+tc.url, tc.host, tc.origin, tc.body, map[string]string{"Mcp-Session-Id": map[bool]string{true: "mcp-session-00000000-0000-4000-8000-000000000000"}[tc.name == "unknown session"], "Mcp-Protocol-Version": map[bool]string{true: "2025-11-25"}[tc.name == "unknown session"]})
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: HTTP %d %q, want %d with %q", tc.name, resp.StatusCode, body, tc.status, tc.want)
		}
	}

	// Within a session: unknown method, bad JSON-RPC version, bad params.
	resp, _ := post(t, base+"/mcp/alles", "", "", init, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":3,"method":"resources/destroy"}`, "-32601"},
		{`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, "-32600"},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"obv_search","arguments":"query"}}`, "arguments must be a JSON object"},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"obv_search","arguments":{"query":"x","limit":1e12}}}`, "out of range"},
	} {
		resp, body := post(t, base+"/mcp/alles", "", "", tc.body, hdr)
		if resp.StatusCode >= 500 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: HTTP %d %s, want %q", tc.body, resp.StatusCode, body, tc.want)
		}
	}
	// The recursion guard: the ori route leads back to a connector.
	resp, body := post(t, base+"/mcp/alles", "", "", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ori_search","arguments":{"query":"x"}}}`, hdr)
	if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "led back to an MCP connector") {
		t.Errorf("recursion: HTTP %d %s", resp.StatusCode, body)
	}
	// DELETE ends the session; its id is then refused.
	req, _ := http.NewRequest("DELETE", base+"/mcp/alles", nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", r, err)
	}
	if issuedRegistry(t).Has(sid) {
		t.Fatal("terminated id still issued")
	}
	resp, _ = post(t, base+"/mcp/alles", "", "", `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, hdr)
	if resp.StatusCode != 404 {
		t.Fatalf("terminated session: HTTP %d", resp.StatusCode)
	}
	_ = bytes.MinRead
}

func TestSessionSurvivesReloadAndMaintenance(t *testing.T) {
	fixturesPresent(t)
	f := newFakePlatforms(t)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fakeSite(t, f, port, twoConnectors))
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port)
	// The client lives through the reload below (see testcaddy.AcrossReloads).
	c := connectWith(t, url, true, nil, &http.Client{Transport: testcaddy.AcrossReloads})
	sid := c.GetSessionId()
	if _, isErr := callTool(t, c, "obv_search", map[string]any{"query": "x"}); isErr {
		t.Fatal("before reload")
	}
	conn1 := pooled(t, "raad")

	// Reload with raad now also offering tk.
	testcaddy.Reload(t, fakeSite(t, f, port, strings.Replace(twoConnectors, "platforms obv ori oa", "platforms obv ori oa tk", 1)))
	conn2 := pooled(t, "raad")
	if conn1 != conn2 {
		t.Fatal("the connector was rebuilt by the reload")
	}
	if c.GetSessionId() != sid {
		t.Fatal("session id changed")
	}
	text, isErr := callTool(t, c, "tk_search", map[string]any{"query": "motie"})
	if isErr {
		t.Fatalf("same session after reload: %s", text)
	}
	if key, _ := lastProbe(); key != "mcp:"+sid {
		t.Fatalf("key after reload %q", key)
	}

	// The maintenance refresh runs as the shared session, through the route.
	m := conn2.settings().loadStatus["obv"]
	if m == nil {
		t.Fatal("no load status keeper for a connector offering obv")
	}
	before := f.hits("obv")
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	if err := m.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if key, internal := lastProbe(); key != session.Shared || !internal || f.hits("obv") != before+1 {
		t.Fatalf("maintenance key %q internal %v hits %d->%d", key, internal, before, f.hits("obv"))
	}
	text, isErr = callTool(t, c, "obv_laadstatus", nil)
	if isErr || !strings.Contains(text, `"from_cache":true`) || !strings.Contains(text, "soest") {
		t.Fatalf("laadstatus: %s", text)
	}
	if f.hits("obv") != before+1 {
		t.Fatal("laadstatus asked the platform although the maintenance had a fresh copy")
	}
}

func pooled(t testing.TB, name string) *connector {
	var c *connector
	connectors.Range(func(k, v any) bool {
		if k == name {
			c = v.(*connector)
		}
		return true
	})
	if c == nil {
		t.Fatalf("no pooled connector %s", name)
	}
	return c
}
