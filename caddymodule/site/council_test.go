package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	obvemulator "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// councilHouse is a site, OpenBesluitvorming's route and an MCP connector
// over BesluitBron's replica of the platform's export, harvesting one
// source; searches counts the platform's own word searches, snapshots
// the snapshots begun (a first page).
type councilHouse struct {
	base, admin, dir    string
	log                 string // Caddy's log, a file
	searches, snapshots *atomic.Int64
	exports             *atomic.Int64 // export pages the platform served
}

// loadCouncilHouse runs the house over the emulator on a fake clock,
// without its rate limit, the replica keeping one source since 2024 with
// the replica block's options extra.
func loadCouncilHouse(t *testing.T, extra string) councilHouse {
	t.Helper()
	return loadCouncilHouseWith(t, obvemulator.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), NoRateLimit: true},
		"", "since 2024\n\t\t\tsources soest\n\t\t\t"+extra)
}

// loadCouncilHouseWith runs the house over the emulator configured so,
// its replica block "replica obv <on> { dir ...; <options> }".
func loadCouncilHouseWith(t *testing.T, cfg obvemulator.Config, on, options string) councilHouse {
	t.Helper()
	emu := obvemulator.New(cfg)
	var searches, snapshots, exports atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/export/") {
			exports.Add(1)
		}
		switch {
		case r.URL.Path == "/api/search":
			searches.Add(1)
		case r.URL.Path == "/api/export/snapshot" && !r.URL.Query().Has("cursor"):
			snapshots.Add(1)
		}
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	h := councilHouse{base: fmt.Sprintf("http://127.0.0.1:%d", port), admin: fmt.Sprintf("http://127.0.0.1:%d", adminPort),
		searches: &searches, snapshots: &snapshots, exports: &exports, dir: filepath.Join(t.TempDir(), "council"), log: filepath.Join(t.TempDir(), "caddy.log")}
	testcaddy.Load(t, fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	log {
		output file %s
	}
	besluitbron {
		allow_private 127.0.0.1/8
		replica obv %s {
			dir %s
			%s
		}
		platform obv {
			base_url %s
		}
	}
}
http://:%d {
	handle_path /platforms/obv/* {
		route {
			platform_cache obv
			platform_limit obv
			platform_proxy obv
		}
	}
	handle /mcp/obv {
		mcp obv {
			platforms obv
		}
	}
	besluitbron_site {
		platforms obv
		deadline 1m
	}
}
`, adminPort, h.log, on, h.dir, options, srv.URL, port))
	return h
}

// councilStatus is the council replica on /status.json.
type councilStatus struct {
	Records      int    `json:"records"`
	CompleteUpTo string `json:"complete_up_to"`
	LastError    string `json:"last_error"`
	DiskBytes    int64  `json:"disk_bytes"`
	MaxDisk      int64  `json:"max_disk"`
	Opening      bool   `json:"opening"`
	Sources      []struct {
		Source     string
		LastChange string `json:"last_change"`
		CaughtUpAt string `json:"caught_up_at"`
		Records    int
	}
}

// await asks /status.json until ok holds of the council replica: each
// look is a request to the house, paced by its answer, never by a wait
// for time to pass; the deadline only bounds a hang.
func (h councilHouse) await(t *testing.T, what string, ok func(councilStatus) bool) councilStatus {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var st struct {
			Replicas []struct {
				Platform string
				Status   councilStatus
			}
		}
		if err := json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st); err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Replicas {
			if r.Platform == "obv" && ok(r.Status) {
				return r.Status
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %+v", what, st.Replicas)
		}
	}
}

// awaitCaughtUp waits until the council replica has completed a pass.
func (h councilHouse) awaitCaughtUp(t *testing.T) councilStatus {
	t.Helper()
	return h.await(t, "the council replica to catch up", func(st councilStatus) bool { return st.CompleteUpTo != "" })
}

// obv_search answers words from the replica once it has caught up: no
// platform search, no budget spent, and the provenance says which
// replica and how complete. A search for words inside documents, one
// outside the replica's sources, and a listing without words go to the
// platform, and say why.
func TestCouncilSearchAnsweredByTheReplica(t *testing.T) {
	h := loadCouncilHouse(t, "")
	st := h.awaitCaughtUp(t)
	if len(st.Sources) != 1 || st.Sources[0].Source != "soest" || st.Sources[0].Records != st.Records || st.Sources[0].CaughtUpAt == "" || st.Sources[0].LastChange == "" {
		t.Fatalf("per source on /status.json: %+v", st)
	}
	if page := get(t, h.base+"/status?lang=en", nil); !strings.Contains(page, "Per source (1)") || !strings.Contains(page, "<td>soest</td>") {
		t.Errorf("the status page shows no sources")
	}
	mc := mcptest.Connect(t, h.base+"/mcp/obv")
	type out struct {
		Platform    string
		FetchedAt   string `json:"fetched_at"`
		Total       int
		HasMore     bool `json:"has_more"`
		NextOffset  int  `json:"next_offset"`
		BudgetUnits int  `json:"budget_units"`
		Provenance  string
		Results     []struct {
			ID, Type, Title, Date string
			URL                   string `json:"source_url"`
		}
	}
	call := func(args map[string]any) (out, int64) {
		t.Helper()
		before := h.searches.Load()
		_, structured, isError := callMCPToolParts(t, mc, "obv_search", args)
		if isError {
			t.Fatalf("obv_search %v: %s", args, structured)
		}
		var o out
		if err := json.Unmarshal([]byte(structured), &o); err != nil {
			t.Fatalf("obv_search %v: %v in %s", args, err, structured)
		}
		return o, h.searches.Load() - before
	}

	for _, args := range []map[string]any{
		{"query": "raadsvergadering", "organization": "soest"},
		{"query": "raadsvergadering"}, // every source of the scope
		{"query": "raadsvergadering", "sort": "date_desc", "entity_type": "Document"},
	} {
		o, asked := call(args)
		if asked != 0 || o.BudgetUnits != 0 || o.Total == 0 || len(o.Results) == 0 ||
			!strings.Contains(o.Provenance, "complete up to") || o.FetchedAt == "" || o.Platform != "obv" {
			t.Fatalf("%v: asked the platform %d times, %+v", args, asked, o)
		}
		for i, r := range o.Results {
			if !strings.Contains(r.ID, ":soest:") {
				t.Errorf("%v: hit %s is outside the scope", args, r.ID)
			}
			if args["entity_type"] != nil && (r.Type != "Document" || !strings.HasPrefix(r.URL, "https://")) {
				t.Errorf("%v: hit of type %q, link %q: want documents, each linked as the platform links it", args, r.Type, r.URL)
			}
			if args["sort"] == "date_desc" && i > 0 && o.Results[i-1].Date < r.Date {
				t.Errorf("%v: %s before %s", args, o.Results[i-1].Date, r.Date)
			}
		}
	}

	// Paging through the replica: the last page says there is no more.
	first, _ := call(map[string]any{"query": "raadsvergadering", "organization": "soest", "limit": 2})
	if !first.HasMore || first.NextOffset != 2 || first.Total <= 2 {
		t.Fatalf("first page: %+v", first)
	}
	last, _ := call(map[string]any{"query": "raadsvergadering", "organization": "soest", "limit": 2, "offset": first.Total - 1})
	if last.HasMore || len(last.Results) != 1 || last.Total != first.Total {
		t.Fatalf("last page: %+v", last)
	}

	for why, args := range map[string]map[string]any{
		"full_text asks for words inside the documents": {"query": "raadsvergadering", "organization": "soest", "full_text": true},
		"outside the replica's scope":                   {"query": "raadsvergadering", "organization": "utrecht"},
		"holds no match":                                {"query": "xyzzyplugh", "organization": "soest"},
		"not by title":                                  {"query": "raadsvergadering", "sort": "title_asc"},
		"not Recording":                                 {"query": "raadsvergadering", "entity_type": "Recording"},
	} {
		o, asked := call(args)
		if asked != 1 || o.BudgetUnits == 0 || !strings.HasPrefix(o.Provenance, "asked OpenBesluitvorming: ") || !strings.Contains(o.Provenance, why) {
			t.Errorf("%v: asked the platform %d times, provenance %q", args, asked, o.Provenance)
		}
	}
	// A listing without words is the platform's, as without a replica.
	if o, asked := call(map[string]any{"organization": "soest"}); asked != 1 || o.Provenance != "" {
		t.Errorf("listing: asked %d, provenance %q", asked, o.Provenance)
	}
}

// An operator rebuilds the replica through the admin API: the index is
// removed (the log says so) and harvested anew to the same records; its
// pages come from the cache tier, which still holds them, so the
// platform is not asked again.
func TestCouncilReplicaRebuilt(t *testing.T) {
	h := loadCouncilHouse(t, "")
	before := h.awaitCaughtUp(t)
	if before.Records == 0 || h.snapshots.Load() != 1 {
		t.Fatalf("first pass: %+v, %d snapshots begun", before, h.snapshots.Load())
	}
	res, err := http.Post(h.admin+"/besluitbron/replica/obv/rebuild", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("rebuild: %d", res.StatusCode)
	}
	after := h.await(t, "the rebuilt replica to catch up", func(st councilStatus) bool {
		log, _ := os.ReadFile(h.log)
		return strings.Contains(string(log), "removed at an operator's request") && st.CompleteUpTo != ""
	})
	if after.Records != before.Records || h.snapshots.Load() != 1 {
		t.Fatalf("rebuilt: %d records, want %d; %d snapshots begun at the platform", after.Records, before.Records, h.snapshots.Load())
	}
}

// A disk budget the folder has reached holds the harvest: the status
// says so in words that name no folder, and searches go to the platform.
func TestCouncilReplicaDiskBudget(t *testing.T) {
	h := loadCouncilHouse(t, "max_disk 1KiB")
	st := h.await(t, "the disk budget to hold the harvest", func(st councilStatus) bool { return st.LastError != "" })
	if !strings.Contains(st.LastError, "disk budget is spent") || !strings.Contains(st.LastError, "max_disk of 1.0 KiB") ||
		st.MaxDisk != 1024 || st.DiskBytes < 1024 || st.Records != 0 || st.CompleteUpTo != "" {
		t.Fatalf("status %+v", st)
	}
	if strings.Contains(st.LastError, "/") {
		t.Errorf("the public error names a path: %q", st.LastError)
	}
	if page := get(t, h.base+"/status?lang=en", nil); !strings.Contains(page, "Harvesting waits: waiting for room to ask the platform: the replica&#39;s disk budget is spent") {
		t.Errorf("the status page does not say why the harvest waits:\n%s", page)
	}
	mc := mcptest.Connect(t, h.base+"/mcp/obv")
	_, structured, isError := callMCPToolParts(t, mc, "obv_search", map[string]any{"query": "raadsvergadering", "organization": "soest"})
	if isError || !strings.Contains(structured, "asked OpenBesluitvorming: the replica is still being built") {
		t.Fatalf("search while held: %s", structured)
	}
}
