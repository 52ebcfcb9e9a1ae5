package mcp

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"

	"github.com/mark3labs/mcp-go/client"

	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
)

// emulatorSite runs each platform's emulator (besluitbron_emulator <key>)
// on its own loopback port, and the platform routes and connectors on
// another, the way the offline default Caddyfile does.
func emulatorSite(t *testing.T, keys []string, connectors string) (string, int) {
	port := testproc.FreePort(t)
	ups := map[string]string{}
	var emus, bases strings.Builder
	for _, k := range keys {
		p := testproc.FreePort(t)
		ups[k] = fmt.Sprintf("127.0.0.1:%d", p)
		// As in offline mode: the platform's base URL is its emulator, so
		// links in its answers (OB's itemUrl) pass upstream.CheckURL.
		fmt.Fprintf(&bases, "\t\tplatform %s {\n\t\t\tbase_url http://%s\n\t\t}\n", k, ups[k])
		fmt.Fprintf(&emus, "http://:%d {\n\tbesluitbron_emulator %s\n}\n", p, k)
	}
	return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	besluitbron {
%s	}
}
%s
http://:%d {
%s
%s
}
`, bases.String(), emus.String(), port, routes(ups, true), connectors), port
}

// emulatorBase returns the base URL emulatorSite gave platform key's
// emulator, for tests that read the emulator's own request counts.
func emulatorBase(t *testing.T, site, key string) string {
	t.Helper()
	m := regexp.MustCompile(`platform ` + regexp.QuoteMeta(key) + ` \{\s*base_url (\S+)`).FindStringSubmatch(site)
	if m == nil {
		t.Fatalf("no emulator for %s in the site", key)
	}
	return m[1]
}

var emulated = []string{"ori", "obv", "tk", "opentk", "ob", "rechtspraak", "oa"}

const emulatorConnectors = `	handle /mcp/alles {
		mcp alles {
			platforms ori obv tk opentk ob rechtspraak oa
			experimental_oa
		}
	}`

// firstID calls a search tool and returns the first result's id.
func firstID(t *testing.T, c *client.Client, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := callTool(t, c, tool, args)
	if isErr {
		t.Fatalf("%s: %s", tool, text)
	}
	res := decodeResult(t, text)
	hits, _ := res["results"].([]any)
	if len(hits) == 0 {
		t.Fatalf("%s found nothing: %s", tool, text)
	}
	h := hits[0].(map[string]any)
	for _, f := range []string{"id", "title", "date"} {
		if s, _ := h[f].(string); s == "" {
			t.Errorf("%s: hit without %s: %v", tool, f, h)
		}
	}
	return h["id"].(string)
}

func TestToolsAgainstEmulators(t *testing.T) {
	site, port := emulatorSite(t, emulated, emulatorConnectors)
	testcaddy.Load(t, site)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp/alles", port)
	for _, legacy := range []bool{true, false} {
		era := map[bool]string{true: "2025-11-25", false: "2026-07-28"}[legacy]
		t.Run(era, func(t *testing.T) {
			c := connect(t, url, legacy, nil)
			fetch := func(tool string, args map[string]any) string {
				t.Helper()
				text, isErr := callTool(t, c, tool, args)
				if isErr {
					t.Fatalf("%s %v: %s", tool, args, text)
				}
				res := decodeResult(t, text)
				if _, ok := res["from_cache"]; !ok {
					t.Errorf("%s: no from_cache", tool)
				}
				return text
			}
			// OpenBesluitvorming: sources, search one organisation, fetch.
			src := decodeResult(t, fetch("obv_sources", map[string]any{"organization_type": "gemeente"}))
			orgs := src["organizations"].([]any)
			if len(orgs) < 10 {
				t.Fatalf("obv_sources: %d organisations", len(orgs))
			}
			org := orgs[0].(map[string]any)["key"].(string)
			id := firstID(t, c, "obv_search", map[string]any{"organization": org, "limit": 5})
			doc := decodeResult(t, fetch("obv_fetch", map[string]any{"id": id, "max_chars": 1000}))
			if doc["document"].(map[string]any)["id"] != id {
				t.Errorf("obv_fetch returned %v for %s", doc["document"], id)
			}
			fetch("obv_laadstatus", map[string]any{"limit": 3})
			if text, isErr := callTool(t, c, "obv_search", map[string]any{"query": "x", "organization": "atlantis"}); !isErr || !strings.Contains(text, "Unknown organization") {
				t.Errorf("unknown organisation against the emulator: %s", text)
			}

			// Tweede Kamer and OpenTK.
			id = firstID(t, c, "tk_search", map[string]any{"date_from": "2020-01-01", "limit": 3})
			fetch("tk_fetch", map[string]any{"id": id})
			fetch("tk_fracties", nil)
			fetch("tk_commissies", nil)
			id = firstID(t, c, "opentk_search", map[string]any{"query": "stikstof"})
			fetch("opentk_fetch", map[string]any{"id": id, "max_chars": 500})

			// Officiële Bekendmakingen.
			id = firstID(t, c, "ob_search", map[string]any{"query": "begroting", "limit": 3})
			ob := decodeResult(t, fetch("ob_fetch", map[string]any{"id": id, "max_chars": 800}))
			if s, _ := ob["text"].(string); len(s) < 50 {
				t.Errorf("ob_fetch text: %q", s)
			}

			// Rechtspraak: lists, search by court abbreviation, fetch.
			fetch("rechtspraak_lists", map[string]any{"list": "Instanties", "name": "Hoge Raad"})
			id = firstID(t, c, "rechtspraak_search", map[string]any{"court": "HR", "limit": 3})
			rs := decodeResult(t, fetch("rechtspraak_fetch", map[string]any{"ecli": id, "max_chars": 800}))
			if s, _ := rs["text"].(string); len(s) < 50 {
				t.Errorf("rechtspraak_fetch text: %q", s)
			}

			// Open Raadsinformatie.
			id = firstID(t, c, "ori_search", map[string]any{"query": "begroting", "limit": 3})
			ori := decodeResult(t, fetch("ori_fetch", map[string]any{"id": id, "max_chars": 500}))
			if s, _ := ori["text"].(string); len(s) < 50 {
				t.Errorf("ori_fetch text: %q", s)
			}

			// Open Archivaris.
			id = firstID(t, c, "oa_search", map[string]any{"query": "begroting", "limit": 3})
			fetch("oa_fetch", map[string]any{"id": id, "max_chars": 500})
		})
	}
}
