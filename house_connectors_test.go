package besluitbron

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// The default Caddyfile's connectors offer the live platforms only: no ORI
// tools (switched off upstream) and no Open Archivaris tools (assumed API)
// unless an operator opts in. Councils get their local regulations, the
// State's connector the laws.
func TestDefaultConnectorTools(t *testing.T) {
	proxy, _ := offlineHouse(t)
	want := map[string]string{
		"raad":  "besluitbron_platforms cvdr_fetch cvdr_search obv_fetch obv_laadstatus obv_search obv_sources obv_votes search_all",
		"rijk":  "besluitbron_platforms bwb_ dossier_ ob_ opentk_ rechtspraak_ search_ tk_",
		"alles": "besluitbron_platforms bwb_ cvdr_ dossier_ ob_ obv_ opentk_ rechtspraak_ search_ tk_",
	}
	for name, w := range want {
		c, err := client.NewStreamableHttpClient(proxy + "/mcp/" + name)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
			ClientInfo: mcp.Implementation{Name: "house-test", Version: "1"}}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		var names []string
		prefixes := map[string]bool{}
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			if tl.Name != "besluitbron_platforms" {
				prefixes[tl.Name[:strings.Index(tl.Name, "_")+1]] = true
			}
		}
		sort.Strings(names)
		var got string
		if name == "raad" {
			got = strings.Join(names, " ")
		} else {
			var ps []string
			for p := range prefixes {
				ps = append(ps, p)
			}
			sort.Strings(ps)
			got = strings.Join(append([]string{"besluitbron_platforms"}, ps...), " ")
		}
		if got != w {
			t.Errorf("/mcp/%s offers %s\nwant %s", name, got, w)
		}
	}
}

// Without BESLUITBRON_ORI_URL, /platforms/ori answers a JSON 410 that
// points to OpenBesluitvorming; with it, the route proxies to the
// ORI-compatible index (here the emulator, as in offline mode). The
// variable is read when the Caddyfile is adapted, so the change takes
// effect with the reload.
func TestORIRouteIsOptIn(t *testing.T) {
	proxy, _ := offlineHouse(t)
	get := func() (int, string, string) {
		t.Helper()
		resp, err := http.Get(proxy + "/platforms/ori/ori_*/_search?q=woningbouw&size=1")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	if code, _, body := get(); code != 200 || !strings.Contains(body, `"hits"`) {
		t.Fatalf("with BESLUITBRON_ORI_URL: %d %.200s", code, body)
	}
	proxy, _ = offlineHouse(t, "BESLUITBRON_ORI_URL") // a reload without it
	code, ct, body := get()
	var e struct{ Error, Hint string }
	if code != http.StatusGone || ct != "application/json" || json.Unmarshal([]byte(body), &e) != nil ||
		!strings.Contains(e.Error, "2026-11-01") || !strings.Contains(e.Error, "/platforms/obv") || !strings.Contains(e.Hint, "BESLUITBRON_ORI_URL") {
		t.Fatalf("without BESLUITBRON_ORI_URL: %d %s %s", code, ct, body)
	}
}
