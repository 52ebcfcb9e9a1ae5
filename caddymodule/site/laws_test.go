package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	bwbemulator "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
)

// bwb_search through Caddy over the laws' replica (KOOP's SRU harvested
// by modification date, the emulator cutting every page at 100 records
// without a word): once the replica has caught up, a search within its
// scope is answered from it, with no platform search and the provenance
// "complete up to"; a search before its scope goes to the platform and
// says why.
func TestLawsSearchAnsweredByTheReplica(t *testing.T) {
	emu := bwbemulator.New(bwbemulator.Config{Generated: 400, PageCap: 100})
	// The platform's own searches, not the harvest's pages; its budget is
	// raised so the harvest, which takes only what visitors leave, is not
	// paced at KOOP's 2 a second.
	var searches atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sru/Search" && !strings.Contains(r.URL.Query().Get("query"), "dcterms.modified") {
			searches.Add(1)
		}
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	log {
		output file %s
	}
	besluitbron {
		allow_private 127.0.0.1/8
		replica bwb {
			dir %s
			since 2000
		}
		platform bwb {
			base_url %s
			capacity 100
		}
	}
}
http://:%d {
	handle_path /platforms/bwb/* {
		route {
			platform_cache bwb
			platform_limit bwb
			platform_proxy bwb
		}
	}
	handle /mcp/laws {
		mcp laws {
			platforms bwb
		}
	}
	besluitbron_site {
		platforms bwb
		deadline 1m
	}
}
`, adminPort, filepath.Join(t.TempDir(), "caddy.log"), filepath.Join(t.TempDir(), "laws"), srv.URL, port))

	deadline := time.Now().Add(time.Minute) // bounds a hang; each look is paced by the house's answer
	for {
		var st struct {
			Replicas []struct {
				Platform string
				Status   struct {
					CompleteUpTo string `json:"complete_up_to"`
					Records      int    `json:"regulation versions"`
				}
			}
		}
		if err := json.Unmarshal([]byte(get(t, base+"/status.json", nil)), &st); err != nil {
			t.Fatal(err)
		}
		done := false
		for _, r := range st.Replicas {
			done = done || r.Platform == "bwb" && r.Status.CompleteUpTo != "" && r.Status.Records > 400
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the laws' replica did not catch up: %+v", st.Replicas)
		}
	}
	mc := mcptest.Connect(t, base+"/mcp/laws")
	call := func(args map[string]any) (provenance string, hits int, asked int64) {
		t.Helper()
		before := searches.Load()
		_, structured, isError := callMCPToolParts(t, mc, "bwb_search", args)
		if isError {
			t.Fatalf("bwb_search %v: %s", args, structured)
		}
		var o struct {
			Provenance string
			Results    []struct{ ID string }
		}
		if err := json.Unmarshal([]byte(structured), &o); err != nil {
			t.Fatal(err)
		}
		return o.Provenance, len(o.Results), searches.Load() - before
	}
	if prov, hits, asked := call(map[string]any{"query": "belastingcapaciteit"}); asked != 0 || hits != 1 || !strings.Contains(prov, "complete up to") {
		t.Errorf("within the scope: %d platform searches, %d hits, provenance %q", asked, hits, prov)
	}
	if prov, _, asked := call(map[string]any{"query": "kandidatenlijsten", "in_force_on": "1990-01-01"}); asked != 1 ||
		!strings.HasPrefix(prov, "asked Wetten (Basiswettenbestand): the replica keeps what is in force from 2000-01-01 on") {
		t.Errorf("before the scope: %d platform searches, provenance %q", asked, prov)
	}
}
