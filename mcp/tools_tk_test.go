package mcp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// tkUpstream is a TK emulator behind an httptest server that logs the
// paths it is asked and can be made to misbehave.
type tkUpstream struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []string
	// failMetadata makes $metadata answer 503.
	failMetadata atomic.Bool
	// dropProperty removes this property from every $metadata answer.
	dropProperty string
}

func newTKUpstream(t *testing.T, pageSize int, dropProperty string) *tkUpstream {
	h := emu.New(emu.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), PageSize: pageSize})
	u := &tkUpstream{dropProperty: dropProperty}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.log = append(u.log, r.URL.RequestURI())
		u.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/$metadata") {
			if u.failMetadata.Load() {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			if u.dropProperty != "" {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				re := regexp.MustCompile(`<Property Name="` + regexp.QuoteMeta(u.dropProperty) + `" [^>]*/>`)
				w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
				w.WriteHeader(rec.Code)
				_, _ = w.Write(re.ReplaceAll(rec.Body.Bytes(), nil))
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *tkUpstream) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	l := u.log
	u.log = nil
	return l
}

// tkSite routes /platforms/tk to up and serves the given connectors, each
// "name root" offering tk only (root "" keeps the default).
func tkSite(t *testing.T, up *tkUpstream, connectors ...string) int {
	return tkSiteWith(t, up, "", connectors...)
}

// tkSiteWith is tkSite with global options (a besluitbron block).
func tkSiteWith(t *testing.T, up *tkUpstream, global string, connectors ...string) int {
	port := testproc.FreePort(t)
	var cs strings.Builder
	for _, c := range connectors {
		name, root, _ := strings.Cut(c, " ")
		opt := ""
		if root != "" {
			opt = "\n\t\t\ttk_odata_root " + root
		}
		fmt.Fprintf(&cs, "\thandle /mcp/%s {\n\t\tmcp %s {\n\t\t\tplatforms tk%s\n\t\t}\n\t}\n", name, name, opt)
	}
	testcaddy.Load(t, fmt.Sprintf("{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n%s}\nhttp://:%d {\n%s\n%s}\n",
		global, port, routes(map[string]string{"tk": strings.TrimPrefix(up.srv.URL, "http://")}, false), cs.String()))
	return port
}

func tkCall(t *testing.T, c *client.Client, tool string, args map[string]any) map[string]any {
	t.Helper()
	text, isErr := callTool(t, c, tool, args)
	if isErr {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	return decodeResult(t, text)
}

// The tools work against both OData versions, each with its own names;
// a root that does not answer leaves searches with an error that says so,
// and fetches by GUID go through the SyncFeed.
func TestTKToolsBothVersions(t *testing.T) {
	up := newTKUpstream(t, 0, "")
	port := tkSite(t, up, "tkv5", "tkv4 /OData/v4/2.0", "tkv9 /OData/v9")
	url := func(n string) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp/%s", port, n) }
	var guid string
	for _, n := range []string{"tkv5", "tkv4"} {
		t.Run(n, func(t *testing.T) {
			c := connect(t, url(n), false, nil)
			up.take()
			res := tkCall(t, c, "tk_search", map[string]any{"query": "stikstof", "date_from": "2024-01-01", "limit": 5})
			hits := res["results"].([]any)
			if len(hits) != 5 || res["has_more"] != true {
				t.Fatalf("search: %v", res)
			}
			first := hits[0].(map[string]any)
			if id := first["id"].(string); len(id) != 10 || id[4] != 'D' || first["date"].(string) < "2024-01-01" {
				t.Fatalf("hit %v", first)
			}
			log := up.take()
			root := map[string]string{"tkv5": "/OData/v5", "tkv4": "/OData/v4/2.0"}[n]
			if len(log) != 2 || log[0] != root+"/$metadata" || !strings.HasPrefix(log[1], root+"/Document?") ||
				!strings.Contains(log[1], "Datum%20ge%202024-01-01T00:00:00+01:00") && !strings.Contains(log[1], "Datum%20ge%202024-01-01T00:00:00%2B01:00") {
				t.Fatalf("requests %v", log)
			}
			doc := tkCall(t, c, "tk_fetch", map[string]any{"id": first["id"]})["document"].(map[string]any)
			meta := doc["meta"].(map[string]any)
			guid = meta["guid"].(string)
			if doc["id"] != first["id"] || meta["via"] != nil {
				t.Fatalf("fetch: %v", doc)
			}
			again := tkCall(t, c, "tk_fetch", map[string]any{"id": guid})["document"].(map[string]any)
			if again["id"] != first["id"] {
				t.Fatalf("fetch by GUID: %v", again)
			}
			if log := up.take(); len(log) != 2 {
				t.Fatalf("$metadata asked again: %v", log)
			}
			com := tkCall(t, c, "tk_commissies", nil)
			if com["count"].(float64) != 37 {
				t.Fatalf("commissies: %v", com["count"])
			}
			if all := tkCall(t, c, "tk_commissies", map[string]any{"include_inactive": true}); all["count"].(float64) != 41 {
				t.Fatalf("all commissies: %v", all["count"])
			}
			if fr := tkCall(t, c, "tk_fracties", map[string]any{"name": "vvd"}); fr["count"].(float64) != 1 {
				t.Fatalf("fracties: %v", fr)
			}
			if text, isErr := callTool(t, c, "tk_fetch", map[string]any{"id": "1999D99999"}); !isErr || !strings.Contains(text, "has no document 1999D99999") {
				t.Fatalf("unknown number: %s", text)
			}
		})
	}

	c := connect(t, url("tkv9"), false, nil)
	text, isErr := callTool(t, c, "tk_search", map[string]any{"query": "stikstof"})
	if !isErr || !strings.Contains(text, "/OData/v9/$metadata could not be read") || !strings.Contains(text, "tk_odata_root") || !strings.Contains(text, "HTTP 404") {
		t.Fatalf("wrong root: %s", text)
	}
	doc := tkCall(t, c, "tk_fetch", map[string]any{"id": guid})["document"].(map[string]any)
	if doc["meta"].(map[string]any)["via"] != "syncfeed" || !strings.HasSuffix(doc["source_url"].(string), "/SyncFeed/2.0/Resources/"+guid) {
		t.Fatalf("fetch through the SyncFeed: %v", doc)
	}
	if text, isErr := callTool(t, c, "tk_fetch", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}); !isErr || !strings.Contains(text, "/OData/v9/$metadata") {
		t.Fatalf("unknown GUID with a broken root: %s", text)
	}
}

// The OData root is set once, in the besluitbron block's platform tk: a
// connector without its own tk_odata_root asks that root.
func TestTKRootFromTheApp(t *testing.T) {
	up := newTKUpstream(t, 0, "")
	port := tkSiteWith(t, up, "\tbesluitbron {\n\t\tplatform tk {\n\t\t\todata_root /OData/v4/2.0\n\t\t}\n\t}\n", "tkapp")
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/tkapp", port), false, nil)
	up.take()
	tkCall(t, c, "tk_search", map[string]any{"query": "stikstof", "limit": 1})
	if log := up.take(); len(log) == 0 || log[0] != "/OData/v4/2.0/$metadata" {
		t.Fatalf("the connector asked %v, not the app's root /OData/v4/2.0", log)
	}
}

// A server that pages below 100 rows is followed to the end.
func TestTKToolsFollowNextLink(t *testing.T) {
	up := newTKUpstream(t, 7, "")
	port := tkSite(t, up, "tkpaged")
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/tkpaged", port), false, nil)
	if res := tkCall(t, c, "tk_commissies", map[string]any{"include_inactive": true}); res["count"].(float64) != 41 {
		t.Fatalf("commissies: %v", res["count"])
	}
	log := up.take()
	if len(log) != 7 { // $metadata, then 6 pages of at most 7
		t.Fatalf("%d requests: %v", len(log), log)
	}
	res := tkCall(t, c, "tk_search", map[string]any{"query": "motie", "limit": 20})
	if n := len(res["results"].([]any)); n != 20 {
		t.Fatalf("%d results", n)
	}
	if log := up.take(); len(log) != 3 {
		t.Fatalf("%d requests: %v", len(log), log)
	}
}

// A field the service lacks under every known name gives an error naming
// it, only for the tools that need it; a $metadata failure is not kept.
func TestTKToolsMissingFieldAndMetadataFailure(t *testing.T) {
	up := newTKUpstream(t, 0, "Nummer")
	port := tkSite(t, up, "tkmissing")
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/tkmissing", port), false, nil)
	up.failMetadata.Store(true)
	text, isErr := callTool(t, c, "tk_commissies", nil)
	if !isErr || !strings.Contains(text, "could not be read") || !strings.Contains(text, "HTTP 503") {
		t.Fatalf("metadata failure: %s", text)
	}
	up.failMetadata.Store(false)
	text, isErr = callTool(t, c, "tk_search", map[string]any{"query": "stikstof"})
	if !isErr || !strings.Contains(text, "no property for the document number (looked for Nummer or DocumentNummer) on Document") {
		t.Fatalf("missing field: %s", text)
	}
	if res := tkCall(t, c, "tk_commissies", nil); res["count"].(float64) != 37 {
		t.Fatalf("commissies: %v", res["count"])
	}
	// Bad arguments cost no request at all.
	up.take()
	for _, args := range []map[string]any{{"limit": 101, "query": "x"}, {"date_from": "2024-13-01"}, {"query": "x", "date_from": "2024-02-02", "date_to": "2024-02-01"}, {}} {
		if text, isErr := callTool(t, c, "tk_search", args); !isErr || !strings.Contains(text, "Invalid arguments") {
			t.Fatalf("%v: %s", args, text)
		}
	}
	for _, id := range []string{"../../$metadata", "2023D1' or true", strings.Repeat("a", 900)} {
		if text, isErr := callTool(t, c, "tk_fetch", map[string]any{"id": id}); !isErr || !strings.Contains(text, "Invalid arguments") {
			t.Fatalf("%q: %s", id, text)
		}
	}
	if log := up.take(); len(log) != 0 {
		t.Fatalf("bad arguments reached the platform: %v", log)
	}
}

// Many sessions asking at once share one resolved schema and get the
// same, complete answers.
func TestTKToolsConcurrentSessions(t *testing.T) {
	up := newTKUpstream(t, 0, "")
	port := tkSite(t, up, "tkmany")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp/tkmany", port)
	const sessions = 24
	clients := make([]*client.Client, sessions)
	for i := range clients {
		clients[i] = connect(t, url, i%2 == 0, nil)
	}
	var wg sync.WaitGroup
	errs := make(chan string, sessions)
	for _, c := range clients {
		wg.Add(1)
		go func(c *client.Client) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), hangBound)
			defer cancel()
			res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "tk_commissies"}})
			if err != nil {
				errs <- err.Error()
				return
			}
			text := ""
			for _, ct := range res.Content {
				if tc, ok := ct.(mcpgo.TextContent); ok {
					text += tc.Text
				}
			}
			if res.IsError || !bytes.Contains([]byte(text), []byte(`"count":37`)) {
				errs <- text
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	n := 0
	for _, p := range up.take() {
		if strings.HasSuffix(p, "/$metadata") {
			n++
		}
	}
	// Calls that start before the first schema is memoised each read
	// $metadata once; none reads it twice.
	if n < 1 || n > sessions {
		t.Fatalf("$metadata asked %d times", n)
	}
}
