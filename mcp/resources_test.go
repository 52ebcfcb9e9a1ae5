package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/mcpkit"
)

const resourceConnectors = `	handle /mcp/alles {
		mcp alles {
			platforms obv tk opentk ob rechtspraak bwb cvdr
			max_text_chars 400
		}
	}
	handle /mcp/raad {
		mcp raad {
			platforms obv
		}
	}`

func readResource(c *client.Client, uri string) (*mcpgo.ReadResourceResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	return c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: uri}})
}

// hitOf calls a search tool and returns its first hit and the result's
// resource_link items.
func hitOf(t *testing.T, c *client.Client, tool string, args map[string]any) (map[string]any, []mcpgo.ResourceLink) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %s", tool, err, mcpkit.ResultText(res))
	}
	var links []mcpgo.ResourceLink
	for _, ct := range res.Content {
		if l, ok := ct.(mcpgo.ResourceLink); ok {
			links = append(links, l)
		}
	}
	hits, _ := decodeResult(t, mcpkit.ResultText(res))["results"].([]any)
	if len(hits) == 0 {
		t.Fatalf("%s found nothing", tool)
	}
	return hits[0].(map[string]any), links
}

// A client can hold on to a document: every hit names its resource URI
// (in structuredContent and as a resource_link) and its citation, and
// resources/read reads that URI through the same cache as the tools,
// paged, with the cache's lifetime as its ttlMs; a URI that names no
// document, or a malformed one, gets the protocol's error and costs no
// platform call when malformed. Both eras.
func TestDocumentsAsResources(t *testing.T) {
	keys := []string{"obv", "tk", "opentk", "ob", "rechtspraak", "bwb", "cvdr"}
	site, port := emulatorSite(t, keys, resourceConnectors)
	testcaddy.Load(t, site)
	base := fmt.Sprintf("http://127.0.0.1:%d/mcp/", port)
	rsEmu := emulatorBase(t, site, "rechtspraak")
	for _, legacy := range []bool{true, false} {
		era := map[bool]string{true: "2025-11-25", false: "2026-07-28"}[legacy]
		t.Run(era, func(t *testing.T) {
			c := connect(t, base+"alles", legacy, nil)
			ctx := context.Background()
			// The capabilities a client learns (initialize, or in the
			// 2026-07-28 era server/discover as well).
			caps := []mcpgo.ServerCapabilities{c.GetServerCapabilities()}
			if !legacy {
				d, err := c.Discover(ctx, mcpgo.DiscoverRequest{})
				if err != nil {
					t.Fatalf("server/discover: %v", err)
				}
				caps = append(caps, d.Capabilities)
			}
			for _, cp := range caps {
				if cp.Resources == nil || cp.Prompts == nil || cp.Completions == nil || cp.Tools == nil {
					t.Errorf("capabilities %+v: want tools, resources, prompts and completions", cp)
				}
			}

			tpls, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, tp := range tpls.ResourceTemplates {
				have[tp.URITemplate.Raw()] = true
			}
			for _, want := range []string{"besluitbron://rechtspraak/{ecli}{?page}", "besluitbron://tk/document/{nummer}{?page}",
				"besluitbron://ob/{id}{?page}", "besluitbron://obv/{id}{?page}", "besluitbron://bwb/{id}{?date,article,page}",
				"besluitbron://cvdr/{id}{?page}", "besluitbron://opentk/{category}/{id}{?page}", "besluitbron://tk/entiteit/{guid}{?page}"} {
				if !have[want] {
					t.Errorf("resources/templates/list lacks %s: %v", want, have)
				}
			}
			lists, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, r := range lists.Resources {
				listed[r.URI] = true
			}
			if !listed["besluitbron://rechtspraak/courts"] || !listed["besluitbron://obv/organisations"] || len(lists.Resources) > 10 {
				t.Errorf("resources/list: %v", listed)
			}
			courts, err := readResource(c, "besluitbron://rechtspraak/courts")
			if err != nil || len(courts.Contents) != 1 || !strings.Contains(courts.Contents[0].(mcpgo.TextResourceContents).Text, "Hoge Raad") {
				t.Fatalf("courts: %v %+v", err, courts)
			}

			// A ruling found by the tool links to itself; reading the link
			// after the tool's fetch costs no platform call.
			hit, links := hitOf(t, c, "rechtspraak_search", map[string]any{"court": "HR", "limit": 3})
			ecli, uri := hit["id"].(string), hit["uri"].(string)
			if uri != "besluitbron://rechtspraak/"+url.PathEscape(strings.ReplaceAll(ecli, ":", "%3A")) && uri != "besluitbron://rechtspraak/"+strings.ReplaceAll(ecli, ":", "%3A") {
				t.Errorf("hit %s has uri %q", ecli, uri)
			}
			if cit, _ := hit["citation"].(string); !strings.Contains(cit, ecli) {
				t.Errorf("hit %s has citation %q", ecli, cit)
			}
			if len(links) == 0 || links[0].URI != uri || !strings.Contains(links[0].Name, ecli) {
				t.Errorf("resource_link items %+v, want the first for %s", links, uri)
			}
			r, err := readResource(c, uri)
			if err != nil || len(r.Contents) != 1 {
				t.Fatalf("read %s: %v %+v", uri, err, r)
			}
			tc := r.Contents[0].(mcpgo.TextResourceContents)
			if tc.MIMEType != "text/markdown" || !strings.HasPrefix(tc.Text, "# ") || !strings.Contains(tc.Text, "Citation: ") || tc.Meta["citation"] != hit["citation"] {
				t.Errorf("read %s: %s %q %v", uri, tc.MIMEType, adapterCut(tc.Text), tc.Meta)
			}
			if !legacy {
				if _, ok := r.TTL(); !ok || r.CacheScope != mcpgo.CacheScopePublic {
					t.Errorf("read hints: scope %q", r.CacheScope)
				}
			}
			// An ECLI as people write it, colons and all, is the same
			// document (its colons encoded, as the template expands them).
			raw := "besluitbron://rechtspraak/" + ecli
			if rr, err := readResource(c, raw); err != nil || rr.Contents[0].(mcpgo.TextResourceContents).Meta["citation"] != hit["citation"] {
				t.Errorf("read %s: %v", raw, err)
			}

			// Long text comes in pages of max_text_chars.
			if pages, _ := tc.Meta["pages"].(float64); pages < 2 {
				t.Fatalf("a ruling in pages of 400 characters has %v pages", tc.Meta["pages"])
			}
			next, _ := tc.Meta["next_page_uri"].(string)
			p2, err := readResource(c, next)
			if err != nil || p2.Contents[0].(mcpgo.TextResourceContents).Text == tc.Text || !strings.Contains(p2.Contents[0].(mcpgo.TextResourceContents).Text, "Page 2 of") {
				t.Errorf("page 2 (%s): %v", next, err)
			}

			// Refusals: the protocol's errors, and no platform call for a
			// malformed reference.
			notFound := mcpgo.ErrResourceNotFound
			if !legacy {
				notFound = mcpgo.ErrInvalidParams // 2026-07-28's resource not found
			}
			if _, err := readResource(c, uri+"?page=9999"); !errors.Is(err, mcpgo.ErrInvalidParams) || !strings.Contains(err.Error(), "last page") {
				t.Errorf("page past the end: %v", err)
			}
			before := testproc.EmulatorRequests(t, rsEmu)
			for _, bad := range []string{"besluitbron://rechtspraak/not-an-ecli", uri + "?page=0", uri + "?page=x",
				"besluitbron://bwb/BWBR0005537?date=yesterday", "besluitbron://bwb/" + strings.Repeat("x", 300), "besluitbron://tk/entiteit/2023D41173"} {
				if _, err := readResource(c, bad); !errors.Is(err, mcpgo.ErrInvalidParams) {
					t.Errorf("malformed %s: %v, want invalid params", adapterCut(bad), err)
				}
			}
			if got := testproc.EmulatorRequests(t, rsEmu); got != before {
				t.Errorf("malformed references cost %d platform calls", got-before)
			}
			for _, missing := range []string{"besluitbron://rechtspraak/ECLI%3ANL%3AHR%3A2099%3A99999", "besluitbron://nowhere/x", "https://example.org/x",
				"besluitbron://tk/entiteit/00000000-0000-4000-8000-000000000000"} {
				_, err := readResource(c, missing)
				if !errors.Is(err, notFound) || !strings.Contains(err.Error(), "not found") {
					t.Errorf("missing %s: %v, want resource not found", missing, err)
				}
			}

			// search_all links its merged hits as every search does.
			sres, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "search_all",
				Arguments: map[string]any{"query": "begroting", "limit": 5}}})
			if err != nil || sres.IsError {
				t.Fatalf("search_all: %v %s", err, mcpkit.ResultText(sres))
			}
			uris := map[string]bool{}
			for _, h := range decodeResult(t, mcpkit.ResultText(sres))["hits"].([]any) {
				if u, _ := h.(map[string]any)["uri"].(string); u != "" {
					uris[u] = true
				}
			}
			linked := 0
			for _, ct := range sres.Content {
				if l, ok := ct.(mcpgo.ResourceLink); ok && uris[l.URI] {
					linked++
				}
			}
			if len(uris) == 0 || linked != len(uris) {
				t.Errorf("search_all: %d hits with a uri, %d resource_link items for them", len(uris), linked)
			}

			// A law's URI pins the version read and the article.
			law, _ := hitOf(t, c, "bwb_search", map[string]any{"query": "belastingcapaciteit", "in_force_on": "2003-05-01"})
			lr, err := readResource(c, law["uri"].(string))
			if err != nil || !strings.Contains(lr.Contents[0].(mcpgo.TextResourceContents).Text, "wetten.overheid.nl") {
				t.Errorf("read %s: %v", law["uri"], err)
			}

			// Another connector offers only its own platforms' documents.
			raad := connect(t, base+"raad", legacy, nil)
			if _, err := readResource(raad, uri); !errors.Is(err, notFound) {
				t.Errorf("raad read a ruling: %v", err)
			}
		})
	}
}

func adapterCut(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// resources/read goes through the same chain as the tools: after a tool
// call, reading the same document is a cache hit (no platform call), its
// ttlMs is the cache entry's remaining lifetime and its scope public.
func TestResourceReadSharesTheToolsCache(t *testing.T) {
	site, port := chainSite(t, t.TempDir())
	testcaddy.Load(t, site)
	emu := regexp.MustCompile(`http://:(\d+) \{\s*besluitbron_emulator obv`).FindStringSubmatch(site)
	emuBase := "http://127.0.0.1:" + emu[1]
	for _, legacy := range []bool{true, false} {
		c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), legacy, nil)
		src := decodeResult(t, mustTool(t, c, "obv_sources", nil))
		org := src["organizations"].([]any)[1].(map[string]any)["key"].(string)
		hit, _ := hitOf(t, c, "obv_search", map[string]any{"organization": org, "limit": 5})
		doc := decodeResult(t, mustTool(t, c, "obv_fetch", map[string]any{"id": hit["id"]}))
		uri := doc["document"].(map[string]any)["uri"].(string)
		if uri != hit["uri"] {
			t.Errorf("the fetched document's uri %q is not its hit's %q", uri, hit["uri"])
		}
		before := testproc.EmulatorRequests(t, emuBase)
		r, err := readResource(c, uri)
		if err != nil {
			t.Fatal(err)
		}
		tc := r.Contents[0].(mcpgo.TextResourceContents)
		if tc.Meta["from_cache"] != true || testproc.EmulatorRequests(t, emuBase) != before {
			t.Errorf("read after obv_fetch: from_cache %v, %d platform calls", tc.Meta["from_cache"], testproc.EmulatorRequests(t, emuBase)-before)
		}
		if !strings.Contains(tc.Text, doc["text"].(string)[:min(100, len(doc["text"].(string)))]) {
			t.Errorf("the read's text is not the tool's:\n%s", adapterCut(tc.Text))
		}
		if !legacy {
			ttl, ok := r.TTL()
			if !ok || ttl <= 0 || ttl > 31*24*3600*1000 || r.CacheScope != mcpgo.CacheScopePublic {
				t.Errorf("hints of a cached document: ttlMs %d %v, scope %q", ttl, ok, r.CacheScope)
			}
		}
	}
}

// BenchmarkResourceReadVsFetchTool compares resources/read of a cached
// document with tools/call of its fetch tool on the same cached answer
// (docs/benchmarks.md, issue 22): both through mcp-go's client, the same
// connection and the same cache entry.
func BenchmarkResourceReadVsFetchTool(b *testing.B) {
	site, port := chainSite(b, b.TempDir())
	testcaddy.Load(b, site)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	c := connectWith(&testing.T{}, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), false, nil, hc)
	src := decodeResult(&testing.T{}, mustTool(b, c, "obv_sources", nil))
	org := src["organizations"].([]any)[1].(map[string]any)["key"].(string)
	res := decodeResult(&testing.T{}, mustTool(b, c, "obv_search", map[string]any{"organization": org, "limit": 5}))
	hit := res["results"].([]any)[0].(map[string]any)
	args := map[string]any{"id": hit["id"], "max_chars": 8000}
	mustTool(b, c, "obv_fetch", args) // warm the cache
	uri := hit["uri"].(string)
	b.Run("tools_call_fetch", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if text := mustTool(b, c, "obv_fetch", args); i == 0 && !strings.Contains(text, `"from_cache":true`) {
				b.Fatalf("fetch not from the cache: %.300s", text)
			}
		}
	})
	b.Run("resources_read", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, err := readResource(c, uri)
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 && r.Contents[0].(mcpgo.TextResourceContents).Meta["from_cache"] != true {
				b.Fatal("read not from the cache")
			}
		}
	})
}

func TestEncodeColons(t *testing.T) {
	for in, want := range map[string]string{
		"besluitbron://rechtspraak/ECLI:NL:HR:2014:952":             "besluitbron://rechtspraak/ECLI%3ANL%3AHR%3A2014%3A952",
		"besluitbron://rechtspraak/ECLI%3ANL%3AHR%3A2014%3A952":     "besluitbron://rechtspraak/ECLI%3ANL%3AHR%3A2014%3A952",
		"besluitbron://bwb/BWBR0005537?date=2024-01-01&article=3:4": "besluitbron://bwb/BWBR0005537?date=2024-01-01&article=3%3A4",
		"besluitbron://obv/meeting:ibabs:gemeente:x?page=2":         "besluitbron://obv/meeting%3Aibabs%3Agemeente%3Ax?page=2",
		"https://example.org/a:b":                                   "https://example.org/a:b",
		"besluitbron://ob/stb-2018-84":                              "besluitbron://ob/stb-2018-84",
	} {
		if got := encodeColons(in); got != want {
			t.Errorf("encodeColons(%q) = %q, want %q", in, got, want)
		}
	}
	b, err := withURI([]byte(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"a:b","_meta":{"x":1}}}`), "a%3Ab")
	if err != nil || !strings.Contains(string(b), `"uri":"a%3Ab"`) || !strings.Contains(string(b), `"_meta":{"x":1}`) || !strings.Contains(string(b), `"id":7`) {
		t.Errorf("withURI: %s %v", b, err)
	}
}

// mcp-go's own refusal of a read (a URI no template matches) gets the
// URI as data.uri (SEP-2164); a result, an error with data of its own and
// what is not JSON pass as they came.
func TestReadErrorsNameTheirURI(t *testing.T) {
	const uri = "besluitbron://nowhere/x"
	for _, tc := range []struct{ name, body, want string }{
		{"mcp-go's not found", `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Resource not found"}}`,
			`{"error":{"code":-32602,"data":{"uri":"besluitbron://nowhere/x"},"message":"Resource not found"},"id":7,"jsonrpc":"2.0"}` + "\n"},
		{"data of its own", `{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"x","data":{"uri":"other"}}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"x","data":{"uri":"other"}}}`},
		{"a result", `{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"u","text":"an \"error\" in the text"}]}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"u","text":"an \"error\" in the text"}]}}`},
		{"not JSON", `"error" <html>`, `"error" <html>`},
	} {
		rec := httptest.NewRecorder()
		rw := newHeldWriter(rec)
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusBadRequest)
		_, _ = rw.Write([]byte(tc.body))
		rw.finish(&heldOutcome{}, json.RawMessage("7"), uri)
		if rec.Code != http.StatusBadRequest || rec.Body.String() != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.name, rec.Code, rec.Body, tc.want)
		}
	}
}
