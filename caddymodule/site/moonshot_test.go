package site_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
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

// The moonshot of issue 36: one word question to every platform
// BesluitBron keeps a replica of, at once, is answered with no request
// to any platform once every replica covers it; and with every platform
// down the same question is still answered, each platform's part marked
// with how fresh its replica is.
//
// Six emulators on small deterministic corpora (fake clocks), one house
// with the six replicas (each its own folder, each scope covering the
// question), the site's fan-out and an MCP connector over all six.
//
// The question: no word of its own is in the replicated fields of all six
// generators. The laws' replica holds titles only ("<head> <subject>
// <year>", platforms/bwb/emulator/generate.go), the local regulations'
// titles, organisations and subjects, and none of the laws' heads or
// subjects is among OpenBesluitvorming's words (emulators/corpus). Asked
// of these replicas, "regels" is answered by five (not the CVDR's),
// "verordening", "besluit", "wet", "gemeente" and "beleidsregel" by
// three or four, "kinderopvang" by three. So the question is a year,
// which every generator writes: in the laws' and the local regulations'
// titles, in council meetings' titles and agendas' descriptions, in
// parliamentary dossiers' titles ("begrotingsstaten voor het jaar
// 2026"), in official publications' titles, and in rulings' feed titles
// (their date).
//
// The house's background refresh of OpenBesluitvorming's load status is
// off (status_refresh off), so every request an emulator counts while the
// harvests are paused would be the question's.
func TestMoonshot(t *testing.T) {
	testtier.Full(t, "six replicas harvested through one house")
	const question = "2026"
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	emus := map[string]*moonEmulator{
		"obv":         newMoonEmulator(t, "obv", obvemulator.New(obvemulator.Config{Seed: 1, Clock: fakeclock.New(at), NoRateLimit: true})),
		"tk":          newMoonEmulator(t, "tk", tkemulator.New(tkemulator.Config{Seed: 1, Clock: fakeclock.New(at), Documents: 400})),
		"bwb":         newMoonEmulator(t, "bwb", bwbemulator.New(bwbemulator.Config{Clock: fakeclock.New(at), Generated: 400, PageCap: 100})),
		"cvdr":        newMoonEmulator(t, "cvdr", cvdremulator.NewWith(cvdremulator.Config{Generated: 400, PageCap: 100})),
		"ob":          newMoonEmulator(t, "ob", obemulator.New(obemulator.Config{Seed: 1, Clock: fakeclock.New(at)})),
		"rechtspraak": newMoonEmulator(t, "rechtspraak", rsemulator.New(rsemulator.Config{Seed: 1, Clock: fakeclock.New(at)})),
	}
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	base, admin := fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://127.0.0.1:%d", adminPort)
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
	all := strings.Join(moonPlatforms, " ")
	// The KOOP services' budget is raised, as in the laws' test, so their
	// harvests (which take only what visitors leave) are not paced at
	// KOOP's 2 a second.
	testcaddy.Load(t, fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	log {
		output file %s
	}
	besluitbron {
		allow_private 127.0.0.1/8
		replica obv {
			dir %s
			since 2024
			sources soest
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
		}
		platform obv {
			base_url %s
		}
		platform tk {
			base_url %s
		}
		platform bwb {
			base_url %s
			capacity 100
		}
		platform cvdr {
			base_url %s
			capacity 100
		}
		platform ob {
			base_url %s
			capacity 100
		}
		platform rechtspraak {
			base_url %s
		}
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
`, adminPort, dir("caddy.log"), dir("council"), dir("parliament"), dir("laws"), dir("local-regulations"), dir("publications"), dir("caselaw"),
		emus["obv"].srv.URL, emus["tk"].srv.URL, emus["bwb"].srv.URL, emus["cvdr"].srv.URL, emus["ob"].srv.URL, emus["rechtspraak"].srv.URL,
		port, routes.String(), all, all))

	// Every replica completes a pass: each look is a request to the
	// house, paced by its answer; the deadline only bounds a hang.
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
		if err := json.Unmarshal([]byte(get(t, base+"/status.json", nil)), &st); err != nil {
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

	// Their harvests held, so no page of a feed is counted as the
	// question's.
	for _, k := range moonPlatforms {
		if code, body := adminPost(t, admin+"/besluitbron/replica/"+k+"/pause"); code != http.StatusOK || !strings.Contains(body, `"paused":true`) {
			t.Fatalf("pausing the %s replica: %d %s", k, code, body)
		}
	}
	mc := connectMCP(t, base+"/mcp/all")
	ask := func(what string) map[string]fanout.Outcome {
		t.Helper()
		for _, e := range emus {
			e.reset()
		}
		var page, tool fanout.Result
		body := get(t, base+"/search?"+url.Values{"q": {question}, "platforms": {strings.Join(moonPlatforms, ",")}}.Encode(), http.Header{"Accept": {"application/json"}})
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatalf("%s: /search: %v in %s", what, err, body)
		}
		_, structured, isError := callMCPToolParts(t, mc, "search_all", map[string]any{"query": question, "platforms": strings.Join(moonPlatforms, ","), "limit": 5})
		if isError {
			t.Fatalf("%s: search_all: %s", what, structured)
		}
		if err := json.Unmarshal([]byte(structured), &tool); err != nil {
			t.Fatalf("%s: search_all: %v in %s", what, err, structured)
		}
		for _, k := range moonPlatforms {
			if n, paths := emus[k].seen(); n != 0 {
				t.Errorf("%s: %d requests reached the %s emulator: %v", what, n, k, paths)
			}
		}
		outcomes := map[string]fanout.Outcome{}
		for surface, res := range map[string]fanout.Result{"/search": page, "search_all": tool} {
			if res.Partial || len(res.Outcomes) != len(moonPlatforms) || len(res.Hits) == 0 {
				t.Errorf("%s: %s: partial %v, %d outcomes, %d hits", what, surface, res.Partial, len(res.Outcomes), len(res.Hits))
			}
			for _, o := range res.Outcomes {
				if o.State != fanout.StateAnswered || o.Hits == 0 || !strings.Contains(o.Provenance, "complete up to") {
					t.Errorf("%s: %s: %s %s with %d hits, provenance %q (%s)", what, surface, o.Platform, o.State, o.Hits, o.Provenance, o.Error)
				}
				if surface == "/search" {
					outcomes[o.Platform] = o
				}
			}
		}
		for _, k := range moonPlatforms {
			o := outcomes[k]
			t.Logf("%s: %-11s %s, %d hits: %s", what, k, o.State, o.Hits, o.Provenance)
		}
		return outcomes
	}
	up := ask("all up")

	// Every platform down: the same question, answered by the same
	// replicas with the same freshness. (No answer of a replica is cached:
	// the cache holds platform answers, and none was asked.)
	for _, e := range emus {
		e.stopped.Store(true)
	}
	down := ask("all down")
	// The platforms are down as the house sees them: its own route to
	// each answers an error.
	for _, k := range moonPlatforms {
		if code, _ := fetch(t, base+"/platforms/"+k+"/moonshot", nil); code < 500 {
			t.Errorf("the route to %s answered %d with its platform down", k, code)
		}
		if n, _ := emus[k].seen(); n != 1 {
			t.Errorf("the route to %s: %d requests reached its emulator, want 1", k, n)
		}
	}
	for _, k := range moonPlatforms {
		if down[k].Hits != up[k].Hits || down[k].Provenance != up[k].Provenance {
			t.Errorf("%s: up %d hits (%s), down %d hits (%s)", k, up[k].Hits, up[k].Provenance, down[k].Hits, down[k].Provenance)
		}
	}
}

// adminPost posts to Caddy's admin API, returning its status and body.
func adminPost(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Post(u, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}
