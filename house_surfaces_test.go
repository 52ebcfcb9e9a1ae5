package besluitbron

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator/timelinechain"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// For each platform the search page offers, the three surfaces agree on
// one document: the fan-out's first hit (GET /search, one platform), the
// MCP fetch tool for that hit's reference, and the reader's page for the
// same reference name the same document, with the same title.
func TestEverySurfaceReturnsTheSameDocument(t *testing.T) {
	proxy, _ := offlineHouse(t)
	c, err := client.NewStreamableHttpClient(proxy + "/mcp/alles")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcp.Implementation{Name: "surfaces-test", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		platform, q, org, tool string
		args                   func(id, kind string) map[string]any
	}{
		{"obv", "woningbouw", "", "obv_fetch", func(id, _ string) map[string]any { return map[string]any{"id": id} }},
		{"tk", "stikstof", "", "tk_fetch", func(id, _ string) map[string]any { return map[string]any{"id": id} }},
		{"opentk", "stikstof", "", "opentk_fetch", func(id, kind string) map[string]any { return map[string]any{"id": id, "category": kind} }},
		{"ob", "verordening", "", "ob_fetch", func(id, _ string) map[string]any { return map[string]any{"id": id} }},
		{"rechtspraak", "", "HR", "rechtspraak_fetch", func(id, _ string) map[string]any { return map[string]any{"ecli": id} }},
		{"bwb", "belastingcapaciteit", "", "bwb_fetch", func(id, _ string) map[string]any { return map[string]any{"id": id} }},
		{"cvdr", "gehandicaptenparkeerplaats", "", "cvdr_fetch", func(id, _ string) map[string]any { return map[string]any{"id": id} }},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			// The fan-out.
			v := url.Values{"platforms": {tc.platform}}
			if tc.q != "" {
				v.Set("q", tc.q)
			}
			if tc.org != "" {
				v.Set("organisation", tc.org)
			}
			req, _ := http.NewRequest(http.MethodGet, proxy+"/search?"+v.Encode(), nil)
			req.Header.Set("Accept", "application/json")
			var res struct {
				Hits []struct{ Platform, ID, Type, Title string }
			}
			getJSON(t, req, &res)
			if len(res.Hits) == 0 || res.Hits[0].Platform != tc.platform {
				t.Fatalf("the fan-out found no %s hit: %+v", tc.platform, res)
			}
			hit := res.Hits[0]

			// The MCP tool, for the hit's reference.
			tr, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tc.tool, Arguments: tc.args(hit.ID, hit.Type)}})
			if err != nil {
				t.Fatal(err)
			}
			text := tr.Content[0].(mcp.TextContent).Text
			if tr.IsError {
				t.Fatalf("%s %s: %s", tc.tool, hit.ID, text)
			}
			var out struct {
				Document struct{ ID, Title string }
			}
			if err := json.Unmarshal([]byte(text), &out); err != nil {
				t.Fatalf("%s: %v\n%s", tc.tool, err, text)
			}
			if out.Document.ID != hit.ID || out.Document.Title == "" {
				t.Fatalf("the tool's document %+v for the hit %+v", out.Document, hit)
			}

			// The reader, for the same reference.
			rv := url.Values{"platform": {tc.platform}, "id": {hit.ID}}
			if hit.Type != "" {
				rv.Set("type", hit.Type)
			}
			resp, err := http.Get(proxy + "/lezen?" + rv.Encode())
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the reader answered %d for %s %s", resp.StatusCode, tc.platform, hit.ID)
			}
			if !strings.Contains(string(page), "<h1>"+html.EscapeString(out.Document.Title)) &&
				!strings.Contains(string(page), ">"+html.EscapeString(out.Document.Title)+"<") {
				t.Fatalf("the reader's page does not show the tool's title %q", out.Document.Title)
			}
		})
	}
}

func getJSON(t *testing.T, req *http.Request, v any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", req.URL, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", req.URL, err)
	}
}

// The default Caddyfile serves a dossier's timeline on the page
// (/dossier, under the site_search limit) and through the connector
// (dossier_timeline), with the same steps: one builder for both, through
// the same routes. The dossier is one the Tweede Kamer's emulator voted
// on.
func TestDossierTimelineOnThePageAndTheConnector(t *testing.T) {
	proxy, emulators := offlineHouse(t)
	tkURL, err := url.Parse(emulators["tk"][0])
	if err != nil {
		t.Fatal(err)
	}
	dossier := timelinechain.VotedDossiers(t, httputil.NewSingleHostReverseProxy(tkURL))[0]

	req, _ := http.NewRequest(http.MethodGet, proxy+"/dossier?"+url.Values{"dossier": {dossier}}.Encode(), nil)
	req.Header.Set("Accept", "application/json")
	var page struct {
		Dossier string
		Steps   []any
		Missing []any
	}
	getJSON(t, req, &page)
	if page.Dossier != dossier || len(page.Steps) == 0 {
		t.Fatalf("the page's timeline of %s: %+v", dossier, page)
	}
	res, text, isErr := mcptest.Call(t, mcptest.Connect(t, proxy+"/mcp/rijk"), "dossier_timeline", map[string]any{"dossier": dossier})
	if isErr || !reflect.DeepEqual(res["steps"], page.Steps) || !reflect.DeepEqual(res["missing"], page.Missing) {
		t.Fatalf("the connector and the page differ for %s:\n%.1000s", dossier, text)
	}
	if status, body := getFrom(t, proxy+"/dossier"); status != http.StatusOK || !strings.Contains(body, `<form class="dossier-form"`) {
		t.Fatalf("the form: %d %.300s", status, body)
	}
}
