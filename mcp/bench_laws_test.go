package mcp

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// lawSite is the production chain for the laws (platform_cache,
// platform_limit, a proxy to the bwb emulator) with a connector, and
// Caddy's admin API on its own port so a benchmark can purge the cache.
func lawSite(t testing.TB, dataDir string) (site string, port, admin int) {
	port, admin, emu := testproc.FreePort(t), testproc.FreePort(t), testproc.FreePort(t)
	return fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
}
http://:%d {
	besluitbron_emulator bwb
}
http://:%d {
	route /platforms/bwb/* {
		uri strip_prefix /platforms/bwb
		platform_cache bwb {
			dir %s
		}
		platform_limit bwb {
			capacity 1000000
			window   1s
		}
		reverse_proxy 127.0.0.1:%d
	}
	handle /mcp/rijk {
		route {
			mcp rijk {
				platforms bwb
				max_text_chars 100000
			}
		}
	}
}
`, admin, emu, port, filepath.Join(dataDir, "cache"), emu), port, admin
}

// BenchmarkLawArticle compares bwb_fetch of one article of a law with the
// whole version, on a cache hit and on a miss (the cache purged before
// each call, outside the timer), and reports the bytes each answer holds
// (docs/benchmarks.md, "Laws and local regulations"). The law is the
// largest toestand the emulator holds: the real Regeling
// belastingcapaciteit (110 KB of XML).
func BenchmarkLawArticle(b *testing.B) {
	site, port, admin := lawSite(b, b.TempDir())
	testcaddy.Load(b, site)
	tr, _ := newTransport(fmt.Sprintf("http://127.0.0.1:%d/mcp/rijk", port), http.DefaultClient)
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
	purge := func() {
		resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/besluitbron/cache/bwb/purge", admin), "", nil)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("purge: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"article", map[string]any{"id": "BWBR0008326", "article": "3"}},
		{"whole", map[string]any{"id": "BWBR0008326", "max_chars": 100000}},
	} {
		for _, hit := range []bool{true, false} {
			b.Run(tc.name+map[bool]string{true: "/hit", false: "/miss"}[hit], func(b *testing.B) {
				text := mustTool(b, c, "bwb_fetch", tc.args) // warm
				if strings.Contains(text, `"next_offset"`) {
					b.Fatalf("the answer is paged: %.300s", text)
				}
				for i := 0; i < b.N; i++ {
					if !hit {
						b.StopTimer()
						purge()
						b.StartTimer()
					}
					text = mustTool(b, c, "bwb_fetch", tc.args)
					if i == 0 && strings.Contains(text, `"from_cache":true`) != hit {
						b.Fatalf("from_cache is not %v: %.300s", hit, text)
					}
				}
				b.ReportMetric(float64(len(text)), "answer-bytes")
			})
		}
	}
}
