package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	tkemulator "github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
)

// parliamentHouse is a site, the Tweede Kamer's route and an MCP
// connector over BesluitBron's replica of the SyncFeed, keeping its
// documents; searches counts the platform's own document searches
// (OData), feedPages the SyncFeed pages it served. down makes every
// platform request fail with 503.
type parliamentHouse struct {
	base                string
	searches, feedPages *atomic.Int64
	down                *atomic.Bool
	emu                 http.Handler
}

func loadParliamentHouse(t *testing.T) parliamentHouse {
	t.Helper()
	emu := tkemulator.New(tkemulator.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), Documents: 400})
	var searches, feedPages atomic.Int64
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/Document"):
			searches.Add(1)
		case strings.HasSuffix(r.URL.Path, "/SyncFeed/2.0/Feed"):
			feedPages.Add(1)
		}
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	h := parliamentHouse{base: fmt.Sprintf("http://127.0.0.1:%d", port), searches: &searches, feedPages: &feedPages, down: &down, emu: emu}
	testcaddy.Load(t, fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	besluitbron {
		allow_private 127.0.0.1/8
		replica tk {
			dir %s
			sources document
		}
		platform tk {
			base_url %s
		}
	}
}
http://:%d {
	handle_path /platforms/tk/* {
		route {
			platform_cache tk
			platform_limit tk
			platform_proxy tk
		}
	}
	handle /mcp/tk {
		mcp tk {
			platforms tk
		}
	}
	besluitbron_site {
		platforms tk
		deadline 1m
	}
}
`, adminPort, filepath.Join(t.TempDir(), "parliament"), srv.URL, port))
	return h
}

// awaitCaughtUp asks /status.json until the parliament replica has
// completed a pass: each look is a request to the house, paced by its
// answer; the deadline only bounds a hang.
func (h parliamentHouse) awaitCaughtUp(t *testing.T) (records int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var st struct {
			Replicas []struct {
				Platform string
				Status   struct {
					Entities     int    // the replica's unit names its count
					CompleteUpTo string `json:"complete_up_to"`
				}
			}
		}
		if err := json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st); err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Replicas {
			if r.Platform == "tk" && r.Status.CompleteUpTo != "" {
				return r.Status.Entities
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for the parliament replica: %+v", st.Replicas)
		}
	}
}

type tkSearchOut struct {
	Total      int
	FetchedAt  string `json:"fetched_at"`
	Provenance string
	Results    []struct {
		ID, Type, Title, Date string
		URL                   string `json:"source_url"`
	}
}

// tk_search and the fan-out answer words from the replica once it has
// caught up: no platform search. The replica's hits are the platform's
// (its search matches parts of words too, so it may find more, never
// fewer), newest first. A word the replica does not hold goes to the
// platform and says why; with the platform down, the replica still
// answers, marked with its freshness.
func TestParliamentSearchAnsweredByTheReplica(t *testing.T) {
	h := loadParliamentHouse(t)
	if n := h.awaitCaughtUp(t); n != 400 {
		t.Fatalf("the replica holds %d documents, the platform 400", n)
	}
	mc := mcptest.Connect(t, h.base+"/mcp/tk")
	call := func(args map[string]any) (tkSearchOut, int64) {
		t.Helper()
		before := h.searches.Load()
		_, structured, isError := callMCPToolParts(t, mc, "tk_search", args)
		if isError {
			t.Fatalf("tk_search %v: %s", args, structured)
		}
		var o tkSearchOut
		if err := json.Unmarshal([]byte(structured), &o); err != nil {
			t.Fatalf("tk_search %v: %v in %s", args, err, structured)
		}
		return o, h.searches.Load() - before
	}

	// A word of a document's subject, as the platform has it.
	probe, _ := call(map[string]any{"soort": "Motie", "limit": 1})
	if len(probe.Results) != 1 {
		t.Fatalf("no motion to take a word from: %+v", probe)
	}
	word := ""
	for _, w := range strings.Fields(probe.Results[0].Title) {
		if len(w) > len(word) && strings.Trim(w, ".,:;()") == w {
			word = w
		}
	}
	local, asked := call(map[string]any{"query": word, "limit": 100})
	if asked != 0 || local.Total == 0 || !strings.Contains(local.Provenance, "complete up to") || local.FetchedAt == "" {
		t.Fatalf("%q: asked the platform %d times, %+v", word, asked, local)
	}
	byID := map[string]bool{}
	for i, r := range local.Results {
		byID[r.ID] = true
		if i > 0 && local.Results[i-1].Date < r.Date {
			t.Errorf("not newest first: %s before %s", local.Results[i-1].Date, r.Date)
		}
		if !strings.HasPrefix(r.URL, "https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Resources/") {
			t.Errorf("%s links to %q", r.ID, r.URL)
		}
	}
	// Held to the platform's documents, read from its feed: the hits
	// are exactly those whose title or subject holds the word or a word
	// of its Dutch stem, so every one holding it whole; the platform's
	// own search, matching parts of words, finds those too.
	whole, stem, part := matching(t, h.emu, word)
	if local.Total > 100 || local.Total != len(local.Results) {
		t.Fatalf("%q matches %d, more than one page", word, local.Total)
	}
	if len(byID) != len(stem) {
		t.Errorf("%q: %d hits, %d documents hold it or its stem", word, len(byID), len(stem))
	}
	for id := range stem {
		if !byID[id] {
			t.Errorf("%s holds %q or its stem but is not a hit", id, word)
		}
	}
	for id := range whole {
		if !stem[id] {
			t.Errorf("%s holds %q whole but not its stem", id, word)
		}
	}
	t.Logf("%q: %d hits from the replica (%d hold it whole); the platform's search by parts of words would find %d", word, len(byID), len(whole), len(part))

	// The fan-out: no platform search either.
	before := h.searches.Load()
	body := get(t, h.base+"/search?q="+url.QueryEscape(word)+"&platforms=tk", http.Header{"Accept": {"application/json"}})
	var fan struct {
		Outcomes []struct {
			Platform, State, Provenance string
			Hits                        int
		}
	}
	if err := json.Unmarshal([]byte(body), &fan); err != nil {
		t.Fatal(err)
	}
	if h.searches.Load() != before || len(fan.Outcomes) != 1 || fan.Outcomes[0].Hits == 0 || !strings.Contains(fan.Outcomes[0].Provenance, "complete up to") {
		t.Fatalf("the fan-out asked the platform %d times: %s", h.searches.Load()-before, body)
	}

	// A word no title holds whole goes to the platform, which says why.
	miss, asked := call(map[string]any{"query": "xyzzyplugh"})
	if asked != 1 || !strings.HasPrefix(miss.Provenance, "asked the Tweede Kamer: the replica holds no match") {
		t.Fatalf("a miss: asked %d, %+v", asked, miss)
	}

	// The platform down: the replica still answers, marked with its
	// freshness; what only the platform could answer fails as before.
	h.down.Store(true)
	again, asked := call(map[string]any{"query": word, "limit": 100})
	if asked != 0 || again.Total != local.Total || again.Provenance != local.Provenance {
		t.Fatalf("with the platform down: %+v", again)
	}
	if _, _, isError := callMCPToolParts(t, mc, "tk_search", map[string]any{"query": "plughxyzzy"}); !isError {
		t.Fatal("a miss with the platform down answered")
	}
}

// matching reads the platform's documents from its feed and returns the
// numbers of those whose title or subject holds word as a whole word,
// and as a part of one (case-insensitive).
func matching(t *testing.T, emu http.Handler, word string) (whole, stem, part map[string]bool) {
	t.Helper()
	whole, stem, part = map[string]bool{}, map[string]bool{}, map[string]bool{}
	w := strings.ToLower(word)
	dutch, err := registry.NewCache().AnalyzerNamed(nl.AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	stems := func(text string) []string {
		var out []string
		for _, tok := range dutch.Analyze([]byte(text)) {
			out = append(out, string(tok.Term))
		}
		return out
	}
	wordStems := stems(word)
	for token := int64(0); ; {
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, feed.Request("Document", token).Path, nil))
		p, err := feed.ParsePage(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entities) == 0 {
			return whole, stem, part
		}
		for _, e := range p.Entities {
			text := strings.ToLower(e.Fields["titel"] + " " + e.Fields["onderwerp"])
			id := e.Fields["documentNummer"]
			if strings.Contains(text, w) {
				part[id] = true
			}
			if slices.Contains(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), w) {
				whole[id] = true
			}
			held := append(stems(e.Fields["titel"]), stems(e.Fields["onderwerp"])...)
			all := len(wordStems) > 0
			for _, ws := range wordStems {
				all = all && slices.Contains(held, ws)
			}
			if all {
				stem[id] = true
			}
		}
		token = p.Next
	}
}
