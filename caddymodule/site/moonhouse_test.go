package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	bwbemulator "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
	cvdremulator "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
	obemulator "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	obvemulator "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	rsemulator "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	tkemulator "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// moonPlatforms are the six platforms BesluitBron keeps a replica of,
// in the order the question names them.
var moonPlatforms = []string{"obv", "tk", "bwb", "cvdr", "ob", "rechtspraak"}

// moonEmulator is one platform's emulator behind its own server, which
// counts every request that reaches it (whatever it answers) and, once
// stopped, answers each with 503, as a platform that is down.
type moonEmulator struct {
	key      string
	srv      *httptest.Server
	requests atomic.Int64
	stopped  atomic.Bool
	mu       sync.Mutex
	paths    []string // the requests counted since the last reset, the first few
}

func newMoonEmulator(t *testing.T, key string, emu http.Handler) *moonEmulator {
	t.Helper()
	m := &moonEmulator{key: key}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.requests.Add(1)
		m.mu.Lock()
		if len(m.paths) < 10 {
			m.paths = append(m.paths, r.URL.RequestURI())
		}
		m.mu.Unlock()
		if m.stopped.Load() {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// reset starts counting anew.
func (m *moonEmulator) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests.Store(0)
	m.paths = nil
}

// seen is the requests counted since the last reset, and the first few.
func (m *moonEmulator) seen() (int64, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests.Load(), slices.Clone(m.paths)
}

// moonHouse is one house in front of the six emulators, with an MCP
// connector over all six at /mcp/all and the site's fan-out.
type moonHouse struct {
	base, admin string
	emus        map[string]*moonEmulator
	// proc is the house's own process (the product binary) for the
	// sized figures; nil when the house runs in the test's process.
	proc *testproc.Process
}

// startMoonHouse starts the six emulators on small deterministic corpora
// (fake clocks) and one house in front of them. With replicas, the house
// keeps the six replicas (each its own folder, each scope covering the
// emulators' recent years) and startMoonHouse returns once every one has
// completed a pass, with their harvests paused, so every request an
// emulator counts from then on is a visitor's. Without, every question
// goes to the platforms, as before issue 36. capacity, when not 0, is
// every platform's budget (units); else the KOOP services get 100 so
// their harvests, which take only what visitors leave, are not paced at
// KOOP's 2 a second.
//
// OpenBesluitvorming lists two of its organisations (listingOnly), so
// the council replica, which keeps every source listed, reads two
// sources' exports instead of 327 and still holds all of what the
// platform lists: a question naming no source is its to answer.
//
// The house's background refresh of OpenBesluitvorming's load status is
// off (status_refresh off), so no request of its own is counted.
func startMoonHouse(t *testing.T, replicas bool, capacity int) moonHouse {
	t.Helper()
	return startMoonHouseSized(t, replicas, capacity, nil)
}

// moonSizes replaces what startMoonHouse starts on small corpora: the
// figures at the platforms' real sizes (moonshot_size_figures_test.go).
type moonSizes struct {
	// Emulators are the platforms' emulators, by key; a platform not
	// named keeps its small one.
	Emulators map[string]http.Handler
	// Replicas are the replica blocks of the besluitbron app (dir, since,
	// sources of each). The house does not wait for them: a replica that
	// resumes from an index built before shows that pass as complete at
	// once, so the caller waits for a pass of the house's own.
	Replicas string
}

// A sized house runs as its own process, the product binary
// (testproc.Start), as it would be deployed: in the test's process its
// garbage collector would also mark the emulators' corpora, about
// 470 MiB at the real sizes against the house's own few MiB, and each
// cycle (about half a second of CPU) would land on the questions
// measured beside it.

// startMoonHouseSized is startMoonHouse with sizes (nil: the small
// corpora, as startMoonHouse).
func startMoonHouseSized(t *testing.T, replicas bool, capacity int, sizes *moonSizes) moonHouse {
	t.Helper()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	handlers := map[string]http.Handler{
		"obv":         listingOnly(obvemulator.New(obvemulator.Config{Seed: 1, Clock: fakeclock.New(at), NoRateLimit: true}), "soest", "utrecht"),
		"tk":          tkemulator.New(tkemulator.Config{Seed: 1, Clock: fakeclock.New(at), Documents: 400}),
		"bwb":         bwbemulator.New(bwbemulator.Config{Clock: fakeclock.New(at), Generated: 400, PageCap: 100}),
		"cvdr":        cvdremulator.NewWith(cvdremulator.Config{Generated: 400, PageCap: 100}),
		"ob":          obemulator.New(obemulator.Config{Seed: 1, Clock: fakeclock.New(at)}),
		"rechtspraak": rsemulator.New(rsemulator.Config{Seed: 1, Clock: fakeclock.New(at)}),
	}
	if sizes != nil {
		for k, emu := range sizes.Emulators {
			handlers[k] = emu
		}
	}
	emus := map[string]*moonEmulator{}
	for _, k := range moonPlatforms {
		emus[k] = newMoonEmulator(t, k, handlers[k])
	}
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	h := moonHouse{base: fmt.Sprintf("http://127.0.0.1:%d", port), admin: fmt.Sprintf("http://127.0.0.1:%d", adminPort), emus: emus}
	dir := func(name string) string { return filepath.Join(t.TempDir(), name) }
	var routes strings.Builder
	for _, k := range moonPlatforms {
		fmt.Fprintf(&routes, `
	handle_path /platforms/%[1]s/* {
		route {
			platform_cache %[1]s
			platform_limit %[1]s
			platform_proxy %[1]s
		}
	}`, k)
	}
	var kept strings.Builder
	switch {
	case replicas && sizes != nil:
		kept.WriteString(sizes.Replicas)
	case replicas:
		fmt.Fprintf(&kept, `
		replica obv {
			dir %s
			since 2024
		}
		replica tk {
			dir %s
			sources document
		}
		replica bwb {
			dir %s
			since 2000
		}
		replica cvdr {
			dir %s
			since 2024
		}
		replica ob {
			dir %s
			since 2026
		}
		caselaw {
			dir %s
			since 2026-11-01
		}`, dir("council"), dir("parliament"), dir("laws"), dir("local-regulations"), dir("publications"), dir("caselaw"))
	}
	var platformBlocks strings.Builder
	for _, k := range moonPlatforms {
		c := capacity
		if c == 0 && (k == "bwb" || k == "cvdr" || k == "ob") {
			c = 100
		}
		fmt.Fprintf(&platformBlocks, "\n\t\tplatform %s {\n\t\t\tbase_url %s\n", k, emus[k].srv.URL)
		if c != 0 {
			fmt.Fprintf(&platformBlocks, "\t\t\tcapacity %d\n", c)
		}
		platformBlocks.WriteString("\t\t}")
	}
	all := strings.Join(moonPlatforms, " ")
	config := fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	log {
		output file %s
	}
	besluitbron {
		allow_private 127.0.0.1/8%s%s
	}
}
http://:%d {%s
	handle /mcp/all {
		mcp all {
			platforms %s
			status_refresh off
		}
	}
	besluitbron_site {
		platforms %s
		deadline 1m
	}
}
`, adminPort, dir("caddy.log"), kept.String(), platformBlocks.String(), port, routes.String(), all, all)
	if sizes != nil {
		path := dir("Caddyfile")
		if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		h.proc = testproc.Start(t, path, dir("xdg"), h.base+"/status.json")
		return h
	}
	testcaddy.Load(t, config)
	if replicas {
		h.awaitReplicas(t)
	}
	return h
}

// awaitReplicas returns once every replica has completed a pass, then
// pauses their harvests, so no page of a feed is counted as a visitor's.
// Each look is a request to the house, paced by its answer; the deadline
// only bounds a hang.
func (h moonHouse) awaitReplicas(t *testing.T) {
	t.Helper()
	started := time.Now()
	deadline := started.Add(5 * time.Minute)
	for {
		var st struct {
			Replicas []struct {
				Platform string
				Status   struct {
					CompleteUpTo string `json:"complete_up_to"`
					Error        string `json:"error"`
				}
			}
		}
		if err := json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st); err != nil {
			t.Fatal(err)
		}
		complete := map[string]bool{}
		for _, r := range st.Replicas {
			if r.Status.Error != "" {
				t.Fatalf("the %s replica stopped: %s", r.Platform, r.Status.Error)
			}
			complete[r.Platform] = r.Status.CompleteUpTo != ""
		}
		left := slices.DeleteFunc(slices.Clone(moonPlatforms), func(k string) bool { return complete[k] })
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for the replicas of %v to complete a pass: %+v", left, st.Replicas)
		}
	}
	t.Logf("every replica complete after %v", time.Since(started).Round(time.Second))
	for _, k := range moonPlatforms {
		if code, body := adminPost(t, h.admin+"/besluitbron/replica/"+k+"/pause"); code != http.StatusOK || !strings.Contains(body, `"paused":true`) {
			t.Fatalf("pausing the %s replica: %d %s", k, code, body)
		}
	}
}

// stop ends a house that runs as its own process (a sized one), so that
// the next one measured runs alone.
func (h moonHouse) stop() {
	if h.proc != nil {
		h.proc.Kill()
	}
}

// resetCounts starts every emulator's count anew.
func (h moonHouse) resetCounts() {
	for _, e := range h.emus {
		e.reset()
	}
}

// listingOnly is emu with /api/sources cut to the organisations keep:
// OpenBesluitvorming as it would be with only those implemented.
func listingOnly(emu http.Handler, keep ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/sources" {
			emu.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, r)
		var list struct {
			Sources []map[string]any `json:"sources"`
		}
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &list) != nil {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		list.Sources = slices.DeleteFunc(list.Sources, func(s map[string]any) bool {
			key, _ := s["key"].(string)
			return !slices.Contains(keep, key)
		})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
	})
}

// purgeCaches empties every platform's cache through the admin API and
// zeroes the emulators' counts: the caches outlive a reload (a
// caddy.UsagePool per platform), so a house that measures what questions
// cost starts from none of another house's answers.
func (h moonHouse) purgeCaches(t *testing.T) {
	t.Helper()
	for _, k := range moonPlatforms {
		req, _ := http.NewRequest(http.MethodDelete, h.admin+"/besluitbron/cache/"+k, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("purging %s's cache: %s", k, res.Status)
		}
	}
	h.resetCounts()
}
