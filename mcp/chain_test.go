package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	_ "github.com/besluitbron/besluitbron/caddymodule/clientlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// chainSite is the production chain for obv (client_limit, platform_cache,
// platform_limit, reverse proxy to the emulator) with a connector behind
// its own client_limit zone.
func chainSite(t testing.TB, dataDir string) (string, int) {
	port, emu := testproc.FreePort(t), testproc.FreePort(t)
	return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {
	besluitbron_emulator obv
}
http://:%d {
	route /platforms/obv/* {
		client_limit platforms {
			address 1000000 1000000
			connector 1000000 1000000
			process 1000000 1000000
		}
		uri strip_prefix /platforms/obv
		platform_cache obv {
			dir %s
		}
		platform_limit obv {
			capacity 60
			window   1m
			cost /api/search ceil(limit/24) default 24 max 100
			cost * 1
		}
		reverse_proxy 127.0.0.1:%d
	}
	handle /mcp/raad {
		route {
			client_limit raad {
				address 1000000 1000000
				session 1000000 1000000
				connector 1000000 1000000
				process 1000000 1000000
			}
			mcp raad {
				platforms obv
				status_refresh off
			}
		}
	}
}
`, emu, port, filepath.Join(dataDir, "cache"), emu), port
}

func TestThroughCacheAndBudget(t *testing.T) {
	site, port := chainSite(t, t.TempDir())
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), true, nil)
	src := decodeResult(t, mustTool(t, c, "obv_sources", nil))
	org := src["organizations"].([]any)[1].(map[string]any)["key"].(string)
	args := map[string]any{"organization": org, "limit": 5}
	first := decodeResult(t, mustTool(t, c, "obv_search", args))
	second := decodeResult(t, mustTool(t, c, "obv_search", args))
	if first["from_cache"] != false || second["from_cache"] != true {
		t.Fatalf("from_cache first=%v second=%v (%v / %v)", first["from_cache"], second["from_cache"], first["cache_status"], second["cache_status"])
	}
	if _, ok := first["queue_wait_ms"].(float64); !ok {
		t.Fatalf("no queue wait: %v", first)
	}
	// A direct app request for the same answer is the same cache entry
	// (a plain request: the cache keys on Accept and Accept-Encoding).
	plain := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := plain.Get(fmt.Sprintf("http://127.0.0.1:%d/platforms/obv/api/search?limit=5&organization=%s", port, org))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if cs := resp.Header.Get("Cache-Status"); !cachestatus.Hit(cs) {
		t.Fatalf("direct request after the tool call: Cache-Status %q", cs)
	}
}

func mustTool(t testing.TB, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
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

// BenchmarkCachedAnswer compares a tool call through a connector with a
// direct /platforms/... request for the same cached answer (docs/benchmarks/mcp.md).
func BenchmarkCachedAnswer(b *testing.B) {
	site, port := chainSite(b, b.TempDir())
	testcaddy.Load(b, site)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	tr, _ := newTransport(base+"/mcp/raad", hc)
	c := client.NewClient(tr)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	src := decodeResult(&testing.T{}, mustToolB(b, c, "obv_sources", nil))
	org := src["organizations"].([]any)[0].(map[string]any)["key"].(string)
	args := map[string]any{"organization": org, "limit": 10}
	mustToolB(b, c, "obv_search", args) // warm the cache
	url := fmt.Sprintf("%s/platforms/obv/api/search?limit=10&organization=%s", base, org)
	b.Run("direct", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			resp, err := hc.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if i == 0 && !cachestatus.Hit(resp.Header.Get("Cache-Status")) {
				b.Fatalf("direct request not from the cache: %q", resp.Header.Get("Cache-Status"))
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			text := mustToolB(b, c, "obv_search", args)
			if i == 0 && !strings.Contains(text, `"from_cache":true`) {
				b.Fatalf("tool call not from the cache: %s", text)
			}
		}
	})
}

func mustToolB(b testing.TB, c *client.Client, name string, args map[string]any) string {
	return mustTool(b, c, name, args)
}
