package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"

	_ "github.com/besluitbron/besluitbron/caddymodule/site"
)

// A platform whose answer names a javascript: link as a document's page
// (ORI's original_url) hands it to no assistant and no app: the search and
// fetch tools' results and the /search JSON API leave source_url out and
// say in source_url_dropped that it was dropped; an honest link passes.
func TestHostileLinksReachNoClient(t *testing.T) {
	var link atomic.Value
	ori := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := json.Marshal(link.Load().(string))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_index":"ori_alkmaar_1","_id":"42","_source":{"name":"Raadsvoorstel parkeren","last_discussed_at":"2019-05-07T00:00:00","has_organization_name":"Alkmaar","original_url":`+string(v)+`,"md_text":"Volledige tekst."}}]}}`)
	}))
	t.Cleanup(ori.Close)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	besluitbron {
		platform ori {
			base_url %s
		}
	}
}
http://:%d {
	route /platforms/ori/* {
		uri strip_prefix /platforms/ori
		reverse_proxy %s
	}
	handle /mcp/lokaal {
		mcp lokaal {
			platforms ori
		}
	}
	handle /search {
		besluitbron_site {
			platforms ori
		}
	}
}
`, ori.URL, port, strings.TrimPrefix(ori.URL, "http://")))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	c := connect(t, base+"/mcp/lokaal", false, nil)

	for i, bad := range []string{"javascript:alert(document.domain)", " JaVaScRiPt:alert(1)", "data:text/html,<script>alert(1)</script>"} {
		link.Store(bad)
		// Each round asks other words, so no cache answers for the last.
		words := fmt.Sprintf("parkeren%d", i)
		search, isErr := callTool(t, c, "ori_search", map[string]any{"query": words})
		fetch, fetchErr := callTool(t, c, "ori_fetch", map[string]any{"id": "42"})
		if isErr || fetchErr {
			t.Fatalf("%q: %s\n%s", bad, search, fetch)
		}
		hit := decodeResult(t, search)["results"].([]any)[0].(map[string]any)
		doc := decodeResult(t, fetch)
		if d, ok := doc["document"].(map[string]any); ok {
			doc = d
		}
		api := searchAPI(t, base, words)
		for what, got := range map[string]map[string]any{"ori_search": hit, "ori_fetch": doc, "/search": api} {
			if got["source_url"] != nil || got["source_url_dropped"] != "not an http(s) URL" {
				t.Errorf("%q, %s: source_url %v, source_url_dropped %v", bad, what, got["source_url"], got["source_url_dropped"])
			}
		}
		for what, text := range map[string]string{"ori_search": search, "ori_fetch": fetch} {
			if strings.Contains(strings.ToLower(text), "javascript:") || strings.Contains(text, "data:text") {
				t.Errorf("%q: %s hands the link on:\n%s", bad, what, text)
			}
		}
	}
	link.Store("https://alkmaar.example/raadsvoorstel.pdf")
	text, _ := callTool(t, c, "ori_search", map[string]any{"query": "honest"})
	hit := decodeResult(t, text)["results"].([]any)[0].(map[string]any)
	if api := searchAPI(t, base, "honest"); hit["source_url"] != "https://alkmaar.example/raadsvoorstel.pdf" || hit["source_url_dropped"] != nil ||
		api["source_url"] != "https://alkmaar.example/raadsvoorstel.pdf" || api["source_url_dropped"] != nil {
		t.Errorf("an honest link: %v / %v", hit, api)
	}
}

// searchAPI asks the /search JSON API for words on ORI alone and returns
// the first hit.
func searchAPI(t *testing.T, base, words string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/search?platforms=ori&q="+words, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Hits []map[string]any `json:"hits"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &res); err != nil || resp.StatusCode != 200 || len(res.Hits) == 0 {
		t.Fatalf("/search: HTTP %d %v: %s", resp.StatusCode, err, b)
	}
	return res.Hits[0]
}
