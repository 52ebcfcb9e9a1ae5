package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	rechtspraak "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"

	_ "github.com/besluitbron/besluitbron/mcp" // the mcp directive
)

// secretDirName is in the index's path and in nothing else: a public
// answer that holds it names the server's files.
const secretDirName = "geheim-zB7q-rechtspraakindex"

// TestCaseLawFailureNamesNoInternals breaks the case-law index three ways
// and asks every public surface about it. The public answers (/search as
// JSON and HTML, the rechtspraak_search and search_all tools, /status and
// /status.json) say the kind of failure and never the index's directory
// nor the system's words for the cause; the admin API and the log still
// have both, for the operator.
func TestCaseLawFailureNamesNoInternals(t *testing.T) {
	for _, c := range []struct {
		name    string
		kind    string // the public text
		cause   string // a part of the operator's error the public must not see
		arrange func(t *testing.T, root string) (dir string)
	}{
		{
			name: "corrupt", kind: "index unavailable: corrupt", cause: "metadata corrupt",
			arrange: func(t *testing.T, root string) string {
				dir := filepath.Join(root, secretDirName)
				ix, _, err := caselaw.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				if err := ix.Close(); err != nil {
					t.Fatal(err)
				}
				writeTestFile(t, filepath.Join(dir, "index", "index_meta.json"), "not an index")
				return dir
			},
		},
		{
			name: "unusable", kind: "index unavailable: write failed", cause: "not a directory",
			arrange: func(t *testing.T, root string) string {
				// A plain file where the index's parent directory should be.
				writeTestFile(t, filepath.Join(root, secretDirName), "a file")
				return filepath.Join(root, secretDirName, "caselaw")
			},
		},
		{
			name: "not ours", kind: "index unavailable: directory not ours", cause: "aantekeningen-8Kp.txt",
			arrange: func(t *testing.T, root string) string {
				dir := filepath.Join(root, secretDirName)
				writeTestFile(t, filepath.Join(dir, "index", "aantekeningen-8Kp.txt"), "mine")
				return dir
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := c.arrange(t, root)
			h := loadCaseLawHouse(t, dir, "all")
			internals := []string{secretDirName, root, c.cause}

			st := h.await(t, "the index's failure", func(st caselawStatusForTest) bool { return st.Error != "" })
			if st.Error != c.kind {
				t.Errorf("/status.json says %q, want %q", st.Error, c.kind)
			}
			public := map[string]string{
				"/status.json":    get(t, h.base+"/status.json", nil),
				"/status":         get(t, h.base+"/status", nil),
				"/search JSON":    get(t, h.base+"/search?q=huurovereenkomst", http.Header{"Accept": {"application/json"}}),
				"/search HTML":    get(t, h.base+"/search?q=huurovereenkomst", nil),
				"/search HTML en": get(t, h.base+"/search?q=huurovereenkomst&lang=en", nil),
			}
			var status struct {
				Replicas []struct {
					Platform, Name string
					Status         struct{ Error string }
				}
			}
			if err := json.Unmarshal([]byte(public["/status.json"]), &status); err != nil || len(status.Replicas) != 1 {
				t.Fatalf("/status.json's replicas: %v, %+v", err, status.Replicas)
			}
			if r := status.Replicas[0]; r.Platform != "rechtspraak" || r.Name != "caselaw" || r.Status.Error != c.kind {
				t.Errorf("/status.json's replica: %+v, want rechtspraak's caselaw failing with %q", r, c.kind)
			}
			var outcome struct {
				Outcomes []struct{ Platform, State, Reason, Error string }
			}
			if err := json.Unmarshal([]byte(public["/search JSON"]), &outcome); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, o := range outcome.Outcomes {
				if o.Platform == "rechtspraak" {
					found = true
					if o.Reason != "index_unavailable" || !strings.Contains(o.Error, c.kind) {
						t.Errorf("/search JSON: Rechtspraak %+v, want reason index_unavailable saying %q", o, c.kind)
					}
				}
			}
			if !found {
				t.Errorf("/search JSON has no outcome for Rechtspraak: %s", public["/search JSON"])
			}

			mc := mcptest.Connect(t, h.base+"/mcp/rechtspraak")
			text, isError := callMCPTool(t, mc, "rechtspraak_search", map[string]any{"query": "huurovereenkomst"})
			if !isError || !strings.Contains(text, c.kind) {
				t.Errorf("rechtspraak_search: isError %v, %q; want an error saying %q", isError, text, c.kind)
			}
			public["rechtspraak_search"] = text
			public["rechtspraak_search sort=DESC"], _ = callMCPTool(t, mc, "rechtspraak_search", map[string]any{"query": "huurovereenkomst", "sort": "DESC"})
			public["search_all"], _ = callMCPTool(t, mc, "search_all", map[string]any{"query": "huurovereenkomst"})

			for surface, body := range public {
				for _, secret := range internals {
					if strings.Contains(body, secret) {
						t.Errorf("%s names %q:\n%s", surface, secret, body)
					}
				}
			}

			// The operator's views keep the detail.
			admin := get(t, h.admin+"/besluitbron/caselaw", nil)
			var report struct{ Dir, Error string }
			if err := json.Unmarshal([]byte(admin), &report); err != nil {
				t.Fatal(err)
			}
			if report.Dir != dir || !strings.Contains(report.Error, dir) || !strings.Contains(report.Error, c.cause) {
				t.Errorf("the admin API does not have the detail: %s", admin)
			}
			if generic := get(t, h.admin+"/besluitbron/replica/rechtspraak", nil); generic != admin {
				t.Errorf("the generic admin route says\n%s\nthe older one\n%s", generic, admin)
			}
			logged, err := os.ReadFile(h.log)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(logged), secretDirName) || !strings.Contains(string(logged), c.cause) {
				t.Errorf("the log does not have the detail:\n%s", logged)
			}
		})
	}
}

// caselawStatusForTest is the part of /status.json's case-law index this
// test reads.
type caselawStatusForTest struct {
	Error     string `json:"error"`
	Decisions uint64 `json:"decisions"`
}

type mcpCaseLawHouse struct{ base, admin, log string }

// loadCaseLawHouse runs a site, the Rechtspraak route and an MCP
// connector over the case-law index in dir, harvesting since, with the
// admin API on and the log in a file.
func loadCaseLawHouse(t *testing.T, dir, since string) mcpCaseLawHouse {
	t.Helper()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	emu := httptest.NewServer(rechtspraak.New(rechtspraak.Config{Seed: 1, Clock: fakeclock.New(at)}))
	t.Cleanup(emu.Close)
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	h := mcpCaseLawHouse{base: fmt.Sprintf("http://127.0.0.1:%d", port), admin: fmt.Sprintf("http://127.0.0.1:%d", adminPort),
		log: filepath.Join(t.TempDir(), "caddy.log")}
	testcaddy.Load(t, fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	log {
		output file %s
	}
	besluitbron {
		allow_private 127.0.0.1/8
		caselaw {
			since %s
			dir %s
		}
		platform rechtspraak {
			base_url %s
		}
	}
}
http://:%d {
	handle_path /platforms/rechtspraak/* {
		route {
			platform_cache rechtspraak
			platform_limit rechtspraak
			platform_proxy rechtspraak
		}
	}
	handle /mcp/rechtspraak {
		mcp rechtspraak {
			platforms rechtspraak
		}
	}
	besluitbron_site {
		platforms rechtspraak
		deadline 1m
	}
}
`, adminPort, h.log, since, dir, emu.URL, port))
	return h
}

// await polls /status.json until ok says so: an event, with a bound.
func (h mcpCaseLawHouse) await(t *testing.T, what string, ok func(caselawStatusForTest) bool) caselawStatusForTest {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var st struct{ CaseLaw *caselawStatusForTest }
		if err := json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st); err != nil {
			t.Fatal(err)
		}
		if st.CaseLaw != nil && ok(*st.CaseLaw) {
			return *st.CaseLaw
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %+v", what, st.CaseLaw)
		}
		time.Sleep(20 * time.Millisecond) // a poll of the house's state, not a wait for time to pass
	}
}

func writeTestFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// callMCPTool calls a tool and returns its text, then its structured
// content as JSON, and isError.
func callMCPTool(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	text, structured, isError := callMCPToolParts(t, c, name, args)
	return text + structured, isError
}

func callMCPToolParts(t *testing.T, c *client.Client, name string, args map[string]any) (text, structured string, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcptest.HangBound)
	defer cancel()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var sb strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		js, _ := json.Marshal(res.StructuredContent)
		structured = string(js)
	}
	return sb.String(), structured, res.IsError
}
