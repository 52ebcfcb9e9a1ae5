package tk_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	_ "github.com/besluitbron/besluitbron/caddymodule/app"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms/tk"
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// votesHouse is a house keeping the Tweede Kamer's replica (every
// category, as by default) with a connector offering tk, in front of the
// TK emulator; odata counts the platform's OData requests, feed its
// SyncFeed pages, and down makes every platform request fail with 503.
type votesHouse struct {
	mcp, admin  string
	emu         http.Handler
	odata, feed *atomic.Int64
	down        *atomic.Bool
}

func loadVotesHouse(t testing.TB, withReplica bool) votesHouse {
	t.Helper()
	h := votesHouse{emu: emu.New(emu.Config{Seed: 2, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), Documents: 400}),
		odata: new(atomic.Int64), feed: new(atomic.Int64), down: new(atomic.Bool)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.down.Load() {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		switch {
		case strings.Contains(r.URL.Path, "/OData/"):
			h.odata.Add(1)
		case strings.Contains(r.URL.Path, "/SyncFeed/"):
			h.feed.Add(1)
		}
		h.emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
	replicaBlock, capacity := "", ""
	if withReplica {
		replicaBlock = "\t\treplica tk {\n\t\t\tdir " + filepath.Join(t.TempDir(), "parliament") + "\n\t\t}\n"
		// The harvest goes through platform_limit tk like every request,
		// but at the table's 5 a second its 31 feed pages took 5 s of
		// waiting for the budget, with no CPU used: a larger budget
		// (as laws_test.go's in caddymodule/site) lets the pass complete
		// at once. What is asked of the platform is counted, not paced;
		// the pacing itself is platformlimit's tests'. The house without
		// the replica keeps the table's budget (TestFiguresTKVotes
		// reports its waits).
		capacity = "\t\t\tcapacity 1000\n"
	}
	h.mcp, h.admin = fmt.Sprintf("http://127.0.0.1:%d/mcp/tk", port), fmt.Sprintf("http://127.0.0.1:%d", adminPort)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	besluitbron {
		allow_private 127.0.0.1/8
%s		platform tk {
			base_url %s
%s		}
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
			status_refresh off
		}
	}
}
`, adminPort, replicaBlock, srv.URL, capacity, port))
	return h
}

// awaitPass asks the admin API until the replica has completed a pass:
// each look is a request to the house, paced by its answer; the deadline
// only bounds a hang.
func (h votesHouse) awaitPass(t testing.TB) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(h.admin + "/besluitbron/replica/tk")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var st struct {
			CompleteUpTo string `json:"complete_up_to"`
		}
		_ = json.Unmarshal(body, &st)
		if st.CompleteUpTo != "" {
			return st.CompleteUpTo
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for the parliament replica: %s", body)
		}
	}
}

// tk_votes and dossier_timeline from the replica: once it has completed a
// pass, a vote question by zaak, by dossier and by title words, and a
// dossier's timeline, cost the platform no request, say where they came
// from and how complete that is, and are the platform's answer; with the
// platform down they still answer, marked with the same freshness. What the replica holds nothing for goes to
// the platform, saying so.
func TestVotesAnsweredByTheReplica(t *testing.T) {
	h := loadVotesHouse(t, true)
	asOf := h.awaitPass(t)
	c := mcptest.Connect(t, h.mcp)
	call := func(args map[string]any) (map[string]any, int64) {
		t.Helper()
		before := h.odata.Load()
		res, text, isErr := mcptest.Call(t, c, "tk_votes", args)
		if isErr {
			t.Fatalf("tk_votes %v: %s", args, text)
		}
		return res, h.odata.Load() - before
	}
	raw := httptest.NewServer(h.emu) // not counted
	t.Cleanup(raw.Close)
	dossier, zaak := dossierWithVote(t, raw.URL)
	fromReplica := "BesluitBron's index of the Tweede Kamer's SyncFeed, complete up to " + asOf + " ("

	byZaak, asked := call(map[string]any{"zaak": zaak})
	if asked != 0 || byZaak["count"].(float64) != 1 || !strings.HasPrefix(byZaak["provenance"].(string), fromReplica) || byZaak["fetched_at"] != asOf {
		t.Fatalf("by zaak %s: %d OData requests, %v", zaak, asked, byZaak)
	}
	d := byZaak["decisions"].([]any)[0].(map[string]any)
	tot := d["totals"].(map[string]any)
	if d["consistent"] != true || tot["present"].(float64) != 150 || !strings.Contains(d["summary"].(string), zaak) {
		t.Fatalf("decision %v", d)
	}
	// The platform's answer to the same question: the same decision.
	odata := platformVotes(t, h.emu, zaak)
	if odata.ID != d["besluit_id"] || odata.Summary != d["summary"] || len(odata.Parties) != len(d["parties"].([]any)) {
		t.Fatalf("the platform says %+v, the replica %v", odata, d)
	}
	byDossier, asked := call(map[string]any{"dossier": dossier})
	if asked != 0 || byDossier["count"].(float64) == 0 || !strings.HasPrefix(byDossier["provenance"].(string), fromReplica) {
		t.Fatalf("by dossier %s: %d OData requests, %v", dossier, asked, byDossier)
	}
	word := longestWord(d["zaken"].([]any)[0].(map[string]any)["onderwerp"].(string))
	byWords, asked := call(map[string]any{"query": word, "date_from": "2020-01-01", "party": d["parties"].([]any)[0].(map[string]any)["party"]})
	if asked != 0 || byWords["count"].(float64) == 0 || !strings.HasPrefix(byWords["provenance"].(string), fromReplica) ||
		!strings.HasSuffix(byWords["provenance"].(string), "; the words matched whole in the zaken's titles and subjects, with their Dutch stems (the platform matches parts of words too)") {
		t.Fatalf("by %q: %d OData requests, %v", word, asked, byWords)
	}

	// The dossier's timeline (issue 37, point 5): the Kamer's part from
	// the replica too, with no request.
	timeline := func() (map[string]any, int64) {
		t.Helper()
		before := h.odata.Load()
		res, text, isErr := mcptest.Call(t, c, "dossier_timeline", map[string]any{"dossier": dossier})
		if isErr {
			t.Fatalf("dossier_timeline %s: %s", dossier, text)
		}
		return res, h.odata.Load() - before
	}
	tl, asked := timeline()
	if asked != 0 || tl["count"].(float64) == 0 || fmt.Sprint(tl["requests"]) != "map[tk:0]" ||
		!strings.Contains(tl["provenance"].(string), "tk "+fromReplica) || !strings.Contains(fmt.Sprint(tl["steps"]), "kind:vote") {
		t.Fatalf("the timeline of %s: %d OData requests, %v", dossier, asked, tl)
	}

	// The platform down: the replica answers as before.
	feedBefore := h.feed.Load()
	h.down.Store(true)
	again, asked := call(map[string]any{"zaak": zaak})
	if asked != 0 || again["provenance"] != byZaak["provenance"] || fmt.Sprint(again["decisions"]) != fmt.Sprint(byZaak["decisions"]) {
		t.Fatalf("with the platform down: %v", again)
	}
	if tlDown, asked := timeline(); asked != 0 || fmt.Sprint(tlDown["steps"]) != fmt.Sprint(tl["steps"]) {
		t.Fatalf("the timeline with the platform down: %v", tlDown)
	}
	if h.feed.Load() != feedBefore {
		t.Fatal("a feed page was counted while the platform was down")
	}
	// What the replica holds nothing for needs the platform, which is
	// down: the call fails, saying so.
	if _, text, isErr := mcptest.Call(t, c, "tk_votes", map[string]any{"zaak": "2026Z99999"}); !isErr {
		t.Fatalf("a zaak the replica does not hold answered with the platform down: %s", text)
	}
	h.down.Store(false)
	miss, asked := call(map[string]any{"zaak": "2026Z99999"})
	if asked == 0 || miss["provenance"] != "asked the Tweede Kamer: the replica holds no zaak 2026Z99999" {
		t.Fatalf("a zaak the replica does not hold: %d requests, %v", asked, miss)
	}
}

// longestWord is the longest word of s (letters only).
func longestWord(s string) string {
	w := ""
	for _, f := range strings.Fields(s) {
		if len(f) > len(w) && strings.IndexFunc(f, func(r rune) bool { return !('a' <= r && r <= 'z') }) < 0 {
			w = f
		}
	}
	return w
}

// platformVotes is the platform's decision on zaak, asked of the emulator
// directly (not counted).
func platformVotes(t *testing.T, h http.Handler, zaak string) tk.Decision {
	t.Helper()
	get := func(r adapters.Request) ([]byte, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.Method, r.Path, nil))
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("HTTP %d", rec.Code)
		}
		return rec.Body.Bytes(), nil
	}
	body, err := get(tk.MetadataRequest(tk.DefaultRoot))
	if err != nil {
		t.Fatal(err)
	}
	md, err := tk.ParseMetadata(body)
	if err != nil {
		t.Fatal(err)
	}
	p := tk.VotesParams{Zaak: zaak}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	found, err := tk.AskVotes(tk.NewSchema(tk.DefaultRoot, md), get, p)
	if err != nil || len(found.Decisions) != 1 {
		t.Fatalf("%+v %v", found, err)
	}
	return found.Decisions[0]
}
