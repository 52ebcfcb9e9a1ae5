package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
)

// Issue 31 point 10: no shared result object reaches mcp-go. mcp-go v1.2.1
// decorates the result a tool handler returns in place (decorateResult in
// its server/response.go writes resultType and _meta.serverInfo into it on
// a 2026-07-28 request). A *CallToolResult kept and handed out again (a
// cache of results, a parsed answer's result reused) would be written by
// one call while another encodes it, and the modern fields would reach the
// replies of 2025-era clients. Each call must get its own result.

// TestNoSharedToolResult holds every tool to that: on a cache hit, two calls
// of the same tool with the same arguments return two results that share
// nothing mcp-go writes, so decorating the first as mcp-go does leaves the
// second bare; and the same calls made at once in both eras, through the
// connector (under -race in the full tier), give each 2025-era reply no
// resultType and no serverInfo and each 2026-07-28 reply both.
func TestNoSharedToolResult(t *testing.T) {
	base := cachedSite(t)
	modern := connect(t, base, false, nil)
	legacy := connect(t, base, true, nil)
	corpus := toolCorpus(t, modern)
	conn := pooled(t, "alles")

	u, _ := url.Parse(base)
	port, _ := strconv.Atoi(u.Port())
	o := subrequest.Origin{Server: serverOnPort(t, port), Host: u.Host, RemoteAddr: "127.0.0.1:0", Key: "addr:127.0.0.1"}
	ctx := subrequest.WithOrigin(context.Background(), o)
	info := mcpgo.Implementation{Name: "besluitbron-alles", Version: "test"}
	for _, call := range corpus {
		tool := conn.mcp.GetTool(call.name)
		if tool == nil {
			t.Fatalf("%s: not offered", call.name)
		}
		req := mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: call.name, Arguments: call.args}}
		first, err := tool.Handler(ctx, req)
		if err != nil || first == nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		// What mcp-go's decorateResult does to a 2026-07-28 call's result.
		first.SetResultType(mcpgo.ResultTypeComplete)
		first.EnsureResultMeta().SetServerInfo(info)
		if len(first.Content) > 0 {
			first.Content[0] = mcpgo.NewTextContent("written by the first call")
		}
		second, err := tool.Handler(ctx, req)
		if err != nil || second == nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		if second == first {
			t.Fatalf("%s: the second call returned the first call's result object", call.name)
		}
		if second.ResultType != "" || second.Meta != nil {
			t.Errorf("%s: the second call's result carries the first call's decoration: resultType %q, _meta %v", call.name, second.ResultType, second.Meta)
		}
		if len(second.Content) > 0 {
			if tc, ok := second.Content[0].(mcpgo.TextContent); ok && tc.Text == "written by the first call" {
				t.Errorf("%s: the two results share their content", call.name)
			}
		}
	}

	// The same through the connector, both eras at once.
	eras := []rawEra{{name: "2025-11-25", session: legacy.GetSessionId()}, {name: "2026-07-28", modern: true}}
	if eras[0].session == "" {
		t.Fatal("the 2025-era client has no session")
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, call := range corpus {
				e := eras[(g+i)%2]
				body, hdr := rawToolCall(e, g*1000+i, call.name, call.args)
				resp, b := postRaw(t, hc, base, body, hdr)
				if msg := decorationProblem(e, resp, b); msg != "" {
					errs <- fmt.Sprintf("%s %s: %s", e.name, call.name, msg)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}

// decorationProblem says what is wrong with a tools/call reply of era e:
// a 2025-era result must carry neither resultType nor _meta (mcp-go keeps
// legacy replies as they were), a 2026-07-28 result both.
func decorationProblem(e rawEra, resp *http.Response, body []byte) string {
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("HTTP %d: %s", resp.StatusCode, body)
	}
	var reply struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.Result == nil {
		return fmt.Sprintf("no result: %s", body)
	}
	rt, hasRT := reply.Result["resultType"]
	meta, hasMeta := reply.Result["_meta"]
	switch {
	case !e.modern && (hasRT || hasMeta):
		return fmt.Sprintf("a 2025-era reply carries 2026-07-28 fields: resultType %s, _meta %s", rt, meta)
	case e.modern && string(rt) != `"complete"`:
		return fmt.Sprintf("resultType %s, want \"complete\"", rt)
	case e.modern:
		var m struct {
			ServerInfo *mcpgo.Implementation `json:"io.modelcontextprotocol/serverInfo"`
		}
		if json.Unmarshal(meta, &m) != nil || m.ServerInfo == nil || m.ServerInfo.Name != "besluitbron-alles" {
			return fmt.Sprintf("_meta %s lacks the server's serverInfo", meta)
		}
	}
	return ""
}
