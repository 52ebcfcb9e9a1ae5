package mcp

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/subcall"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy"
)

// productSite is OpenBesluitvorming's production chain (platform_cache,
// platform_limit, platform_proxy) in front of its emulator, with a
// connector, and the given response_header_timeout; it returns the site,
// its port and the emulator's base URL.
func productSite(t *testing.T, dataDir, headerTimeout string) (string, int, string) {
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
		uri strip_prefix /platforms/obv
		platform_cache obv {
			dir %s
		}
		platform_limit obv
		platform_proxy obv http://127.0.0.1:%d {
			allow_private 127.0.0.1/8
			response_header_timeout %s
		}
	}
	handle /mcp/raad {
		mcp raad {
			platforms obv
			status_refresh off
			# The cap's answer is 33 MiB: under -race, beside CI's other
			# packages, streaming it took longer than the default 8 s.
			search_deadline 2m
		}
	}
}
`, emu, port, filepath.Join(dataDir, "cache"), emu, headerTimeout), port, fmt.Sprintf("http://127.0.0.1:%d", emu)
}

// addFault adds an emulator fault over its control API.
func addFault(t *testing.T, emu, fault string) {
	t.Helper()
	r, err := http.Post(emu+"/_emulator/faults", "application/json", strings.NewReader(fault))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("adding fault %s: HTTP %d", fault, r.StatusCode)
	}
}

// TestAnswerOverTheCap: a platform answer larger than the 32 MiB a
// sub-request holds is an error for that call only. A tool says so
// (isError), the fan-out names the platform failed with the reason, and
// the process (this test's) lives on to answer the next call. Before the
// fix, platform_proxy's abort on the full recorder went up through
// subrequest.Do unrecovered and, in the fan-out's goroutine, ended the
// process.
func TestAnswerOverTheCap(t *testing.T) {
	site, port, emu := productSite(t, t.TempDir(), "60s")
	testcaddy.Load(t, site)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), false, nil)
	src := decodeResult(t, mustTool(t, c, "obv_sources", nil))
	org := src["organizations"].([]any)[1].(map[string]any)["key"].(string)
	id := firstID(t, c, "obv_search", map[string]any{"organization": org, "limit": 5})
	over := subcall.MaxAnswerBytes + 1<<20
	addFault(t, emu, fmt.Sprintf(`{"pad_bytes":%d}`, over))

	// A tool: isError naming the cap; nothing stored.
	for range 2 {
		text, isErr := callTool(t, c, "obv_fetch", map[string]any{"id": id})
		if !isErr || !strings.Contains(text, "32 MiB") {
			t.Fatalf("obv_fetch of an answer over the cap: isError %v: %s", isErr, text)
		}
	}

	// The fan-out: OpenBesluitvorming failed, with the reason.
	text, isErr := callTool(t, c, "search_all", map[string]any{"query": "stikstof", "platforms": "obv", "organisation": org})
	if isErr {
		t.Fatalf("search_all: %s", text)
	}
	res := decodeResult(t, text)
	o := res["outcomes"].([]any)[0].(map[string]any)
	if o["state"] != fanout.StateFailed || o["reason"] != fanout.ReasonUnexpectedAnswer || !strings.Contains(o["error"].(string), "32 MiB") {
		t.Fatalf("search_all's outcome for an answer over the cap: %v", o)
	}

	// The process lives on, and the same calls answer once the platform
	// does again.
	req, _ := http.NewRequest(http.MethodDelete, emu+"/_emulator/faults", nil)
	if r, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		r.Body.Close()
	}
	doc := decodeResult(t, mustTool(t, c, "obv_fetch", map[string]any{"id": id, "max_chars": 200}))
	if doc["document"].(map[string]any)["id"] != id {
		t.Fatalf("obv_fetch after the fault: %v", doc)
	}
	text, _ = callTool(t, c, "search_all", map[string]any{"query": "stikstof", "platforms": "obv", "organisation": org})
	if o := decodeResult(t, text)["outcomes"].([]any)[0].(map[string]any); o["state"] != fanout.StateAnswered {
		t.Fatalf("search_all after the fault: %v", o)
	}
}

// TestStalledPlatformTool: a platform that accepts a tool's request and
// never answers (the emulator's latency fault of ten minutes, ended when
// the proxy hangs up) gives the tool an isError result once
// response_header_timeout has passed, saying when to try again; the
// process goes on and the tool answers once the platform does.
func TestStalledPlatformTool(t *testing.T) {
	site, port, emu := productSite(t, t.TempDir(), "500ms")
	testcaddy.Load(t, site)
	// The emulator builds its data at its first request, which may take
	// longer than the header timeout under -race: warm it directly.
	if r, err := http.Get(emu + "/api/status"); err != nil {
		t.Fatal(err)
	} else {
		r.Body.Close()
	}
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), false, nil)
	addFault(t, emu, `{"path_prefix":"/api/search","latency":"10m"}`)
	args := map[string]any{"query": "stikstof", "limit": 5}
	text, isErr := callTool(t, c, "obv_search", args)
	if !isErr || !strings.Contains(text, "HTTP 504") || !strings.Contains(text, "60 seconds") {
		t.Fatalf("obv_search of a stalled platform: isError %v: %s", isErr, text)
	}
	req, _ := http.NewRequest(http.MethodDelete, emu+"/_emulator/faults", nil)
	if r, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		r.Body.Close()
	}
	mustTool(t, c, "obv_search", args)
}
