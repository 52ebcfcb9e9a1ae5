package registrytest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/livecheck"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
	"github.com/besluitbron/besluitbron/platforms"

	// The product (its Caddy modules and its list of platforms) and the
	// offline build's emulator module.
	_ "github.com/besluitbron/besluitbron"
	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
)

// The libdns test (docs/architecture.md, "Adding a platform"): a platform
// is one folder that registers itself, and the house finds it everywhere
// without another file being edited. This package's proef platform
// (platform_test.go) is registered from here alone; the house is the
// default Caddyfile with the offline emulators, given the platform's
// block, route and emulator site as an operator would add them.
func TestATenthPlatformIsFoundEverywhere(t *testing.T) {
	testtier.Full(t, "the whole house in process")
	if _, ok := platforms.Get(key); !ok {
		t.Fatal("the test platform is not registered")
	}
	port := testproc.FreePort(t)
	base, _ := testcaddy.OfflineHouse(t, "../..", func(text string) string {
		text = strings.Replace(text, "\tbesluitbron {\n", "\tbesluitbron {\n\t\tplatform proef {\n\t\t\tbase_url {$BESLUITBRON_PROEF_URL}\n\t\t\tcapacity 3\n\t\t\tsearch_path /api/zoeken\n\t\t}\n", 1)
		text = strings.Replace(text, "\thandle /platforms/* {\n",
			"\thandle_path /platforms/proef/* {\n\t\troute {\n\t\t\tplatform_cache proef\n\t\t\tplatform_limit proef\n\t\t\tplatform_proxy proef\n\t\t}\n\t}\n\thandle /platforms/* {\n", 1)
		return text + fmt.Sprintf("\nhttp://:%d {\n\tbind 127.0.0.1\n\tbesluitbron_emulator proef\n}\n", port)
	})

	t.Run("the Caddyfile's platform keys and route", func(t *testing.T) {
		body := get(t, base+"/platforms/proef/api/zoeken?q=alpha&limit=5", "")
		if !strings.Contains(body, "PROEF-1") {
			t.Errorf("the platform route: %s", body)
		}
	})
	t.Run("MCP: instructions, tools, prompts, completions, resources", func(t *testing.T) {
		c, init := connect(t, base+"/mcp/alles")
		if !strings.Contains(init.Instructions, `Proefplatform "proef"`) {
			t.Errorf("the instructions leave it out: %s", init.Instructions)
		}
		ctx := context.Background()
		tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(tools.Tools, func(tl mcpgo.Tool) bool { return tl.Name == "proef_search" }) {
			t.Error("the connector does not offer proef_search")
		}
		call := mcpgo.CallToolRequest{}
		call.Params.Name, call.Params.Arguments = "proef_search", map[string]any{"query": "alpha"}
		res, err := c.CallTool(ctx, call)
		if err != nil || res.IsError || !strings.Contains(text(res.Content), "PROEF-1") {
			t.Errorf("proef_search: %v %+v", err, res)
		}
		// A bad argument is the schema's error, as for every tool.
		call.Params.Arguments = map[string]any{"query": 7}
		if res, err := c.CallTool(ctx, call); err != nil || !res.IsError {
			t.Errorf("proef_search with a number for words: %v %+v", err, res)
		}
		// Its load status: the connector's maintenance keeps it, or the
		// tool fetches it and hands it over (the status page then shows it).
		call.Params.Name, call.Params.Arguments = "proef_status", map[string]any{}
		if res, err := c.CallTool(ctx, call); err != nil || res.IsError || !strings.Contains(text(res.Content), `"ok":2`) {
			t.Errorf("proef_status: %v %+v", err, res)
		}

		prompts, err := c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(prompts.Prompts, func(p mcpgo.Prompt) bool { return p.Name == "proef_overview" }) {
			t.Error("the connector does not offer proef_overview")
		}
		gp := mcpgo.GetPromptRequest{}
		gp.Params.Name, gp.Params.Arguments = "proef_overview", map[string]string{"topic": "Beta"}
		pr, err := c.GetPrompt(ctx, gp)
		if err != nil || len(pr.Messages) != 1 || !strings.Contains(text([]mcpgo.Content{pr.Messages[0].Content}), `call proef_search {"query":"beta"}`) {
			t.Errorf("proef_overview: %v %+v", err, pr)
		}
		cr := mcpgo.CompleteRequest{}
		cr.Params.Ref = mcpgo.PromptReference{Type: "ref/prompt", Name: "proef_overview"}
		cr.Params.Argument.Name, cr.Params.Argument.Value = "topic", "ga"
		comp, err := c.Complete(ctx, cr)
		if err != nil || !slices.Equal(comp.Completion.Values, []string{"gamma"}) {
			t.Errorf("completion of topic: %v %+v", err, comp)
		}

		templates, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(templates.ResourceTemplates, func(rt mcpgo.ResourceTemplate) bool {
			return rt.URITemplate != nil && rt.URITemplate.Raw() == "besluitbron://proef/{id}{?page}"
		}) {
			t.Error("the connector has no resource template of the platform")
		}
		rr := mcpgo.ReadResourceRequest{}
		rr.Params.URI = "besluitbron://proef/PROEF-1"
		read, err := c.ReadResource(ctx, rr)
		if err != nil || len(read.Contents) == 0 {
			t.Fatalf("read the resource: %v", err)
		}
		if tc, ok := read.Contents[0].(mcpgo.TextResourceContents); !ok || !strings.Contains(tc.Text, "registry finds every platform") {
			t.Errorf("the resource: %+v", read.Contents[0])
		}
	})
	t.Run("the fan-out and /search", func(t *testing.T) {
		body := get(t, base+"/search?q=alpha", "application/json")
		var ans struct {
			Results []struct{ Platform, ID string } `json:"hits"`
		}
		if err := json.Unmarshal([]byte(body), &ans); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		if !slices.ContainsFunc(ans.Results, func(r struct{ Platform, ID string }) bool { return r.Platform == key && r.ID == "PROEF-1" }) {
			t.Errorf("/search found nothing of the platform: %s", body)
		}
	})
	t.Run("the reader", func(t *testing.T) {
		if body := get(t, base+"/lezen?platform=proef&id=PROEF-1", "text/html"); !strings.Contains(body, "registry finds every platform") {
			t.Errorf("the reader: %s", body)
		}
	})
	t.Run("the status page", func(t *testing.T) {
		body := get(t, base+"/status.json", "application/json")
		if !strings.Contains(body, `"proef"`) {
			t.Errorf("/status.json leaves it out: %s", body)
		}
		var st struct {
			LoadStatus []struct {
				Platform, Name string
				OK             int `json:"sources_ok"`
				Total          int `json:"sources"`
			} `json:"load_status"`
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(st.LoadStatus, func(l struct {
			Platform, Name string
			OK             int `json:"sources_ok"`
			Total          int `json:"sources"`
		}) bool {
			return l.Platform == key && l.Name == "Proefstatus" && l.OK == 2 && l.Total == 3
		}) {
			t.Errorf("/status.json has not its load status: %s", body)
		}
	})
	t.Run("the live check", func(t *testing.T) {
		rs, err := livecheck.Run(context.Background(), livecheck.Options{Base: base, Client: &http.Client{Timeout: 30 * time.Second}, Platforms: []string{key},
			Config: livecheck.Config{Options: map[string]platforms.Options{key: {"search_path": {"/api/zoeken"}}}}})
		if err != nil || len(rs) != 1 || !rs[0].OK() {
			t.Errorf("the live check: %v %+v", err, rs)
		}
	})
}

func get(t *testing.T, url, accept string) string {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

func connect(t *testing.T, url string) (*client.Client, *mcpgo.InitializeResult) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "registrytest", Version: "1"}
	req.Params.ProtocolVersion = mcpgo.ProtocolVersion20251125
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, init
}

func text(cs []mcpgo.Content) string {
	var sb strings.Builder
	for _, c := range cs {
		if tc, ok := c.(mcpgo.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}
