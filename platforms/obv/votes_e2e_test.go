package obv_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	_ "github.com/besluitbron/besluitbron/mcp" // the mcp directive
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// votesSite is obv's production chain (platform_cache, platform_limit
// with the table's budget of 60 units a minute, reverse proxy) in front
// of the OBV emulator (its own bucket on, on a fake clock: a 429 would
// show), with a connector offering obv; it returns the connector's URL
// the log of the paths the emulator was asked, and a way to have the
// detail of one entity answered otherwise (a hostile platform), and the
// emulator's own URL.
func votesSite(t *testing.T) (string, func() []string, func(id string, status int, body string), string) {
	t.Helper()
	h := emulator.New(emulator.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	var mu sync.Mutex
	var log []string
	type answer struct {
		status int
		body   string
	}
	instead := map[string]answer{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.URL.RequestURI())
		a, ok := instead[r.URL.Path]
		mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(a.status)
			_, _ = w.Write([]byte(a.body))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_cache obv {
			dir %s
		}
		platform_limit obv
		reverse_proxy %s {
			header_up Host {upstream_hostport}
		}
	}
	handle /mcp/raad {
		mcp raad {
			platforms obv
			status_refresh off
		}
	}
}
`, port, filepath.Join(t.TempDir(), "cache"), strings.TrimPrefix(up.URL, "http://")))
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		l := log
		log = nil
		return l
	}
	set := func(id string, status int, body string) {
		mu.Lock()
		instead["/api/entities/"+id] = answer{status, body}
		mu.Unlock()
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), take, set, up.URL
}

func votesClient(t *testing.T, url string) *client.Client { return mcptest.Connect(t, url) }

// callVotes calls obv_votes; the text and structured content must agree.
func callVotes(t *testing.T, c *client.Client, args map[string]any) (map[string]any, string, bool) {
	t.Helper()
	return mcptest.Call(t, c, "obv_votes", args)
}

func count(log []string, part string) int {
	n := 0
	for _, l := range log {
		if strings.Contains(l, part) {
			n++
		}
	}
	return n
}

// obv_votes end to end, through the connector, the cache and the
// platform's budget to the emulator: an iBabs council's motions (a search
// for motions and a detail each: per-member votes per group, adding up
// to the tally), none asked again for the same question or for one of
// its motions by id; a Notubiz council's, which say no per-member votes
// were published; a party filter from the cache; an unknown motion; bad
// input refused before any request.
func TestVotesToolThroughCacheAndBudget(t *testing.T) {
	url, take, _, _ := votesSite(t)
	c := votesClient(t, url)

	args := map[string]any{"organization": "houten", "limit": 4}
	res, text, isErr := callVotes(t, c, args)
	if isErr {
		t.Fatalf("obv_votes %v: %s", args, text)
	}
	log := take()
	// The sources list (to check the key), one search for motions, one
	// detail per motion.
	if count(log, "/api/sources") != 1 || count(log, "/api/search?") != 1 || count(log, "entityType=Motion") != 1 ||
		count(log, "/api/entities/motion%3A") != 4 || len(log) != 6 {
		t.Fatalf("requests %v", log)
	}
	if res["from_cache"] != false || res["platform"] != "obv" || res["count"].(float64) != 4 || res["budget_units"].(float64) != 5 {
		t.Fatalf("result %v", res)
	}
	var withVotes map[string]any
	for _, x := range res["motions"].([]any) {
		m := x.(map[string]any)
		if !strings.HasPrefix(m["id"].(string), "motion:ibabs:gemeente:houten:") || m["organization"] != "houten" || m["council"] != "Houten" ||
			m["date"] == "" || m["result"] == "" || !strings.HasPrefix(m["uri"].(string), "besluitbron://obv/") {
			t.Fatalf("motion %v", m)
		}
		if m["consistent"] != true {
			t.Fatalf("emulator motion does not add up: %v", m)
		}
		if m["per_member"] == true && withVotes == nil {
			withVotes = m
		}
	}
	if withVotes == nil {
		t.Fatalf("no motion with per-member votes in %s", text)
	}
	// Per-member votes add up per group and to the tally.
	tally := withVotes["tally"].(map[string]any)
	voor, tegen := 0.0, 0.0
	for _, x := range withVotes["groups"].([]any) {
		g := x.(map[string]any)
		v, _ := g["voor"].(float64)
		tg, _ := g["tegen"].(float64)
		if v+tg != g["members"].(float64) || len(asList(g["voor_members"])) != int(v) || len(asList(g["tegen_members"])) != int(tg) {
			t.Fatalf("group %v", g)
		}
		voor, tegen = voor+v, tegen+tg
	}
	if tally["in_favour"].(float64) != voor || tally["against"].(float64) != tegen {
		t.Fatalf("tally %v, groups count %v voor %v tegen", tally, voor, tegen)
	}

	// The same question again: from the cache, no request.
	again, _, _ := callVotes(t, c, args)
	if log := take(); len(log) != 0 || again["from_cache"] != true {
		t.Fatalf("the same question asked the platform again: %v (from_cache %v)", log, again["from_cache"])
	}
	// One of its motions by id: its detail is in the cache already.
	one, text, isErr := callVotes(t, c, map[string]any{"id": withVotes["id"]})
	if isErr || one["count"].(float64) != 1 || one["from_cache"] != true || one["budget_units"].(float64) != 1 {
		t.Fatalf("by id: %s", text)
	}
	if log := take(); len(log) != 0 {
		t.Fatalf("a cached motion asked the platform: %v", log)
	}
	m := one["motions"].([]any)[0].(map[string]any)
	if fmt.Sprint(m["groups"]) != fmt.Sprint(withVotes["groups"]) || m["summary"] != withVotes["summary"] {
		t.Fatalf("by id %v\nby search %v", m, withVotes)
	}

	// Only one group's votes: the tally stays.
	group := withVotes["groups"].([]any)[0].(map[string]any)["group"].(string)
	only, _, _ := callVotes(t, c, map[string]any{"id": withVotes["id"], "party": strings.ToLower(group)})
	om := only["motions"].([]any)[0].(map[string]any)
	if gs := om["groups"].([]any); len(gs) != 1 || gs[0].(map[string]any)["group"] != group || fmt.Sprint(om["tally"]) != fmt.Sprint(tally) {
		t.Fatalf("party %s: %v", group, om)
	}
	none, _, _ := callVotes(t, c, map[string]any{"id": withVotes["id"], "party": "Piratenpartij"})
	if note, _ := none["note"].(string); !strings.Contains(note, `No motion here shows votes of a group named "Piratenpartij"`) || !strings.Contains(note, group) {
		t.Fatalf("unknown party: %v", none)
	}
	if log := take(); len(log) != 0 {
		t.Fatalf("party filters asked the platform: %v", log)
	}

	// A Notubiz council publishes no per-member votes: each motion says so.
	nres, text, isErr := callVotes(t, c, map[string]any{"organization": "soest", "limit": 3})
	if isErr || nres["count"].(float64) == 0 {
		t.Fatalf("soest: %s", text)
	}
	for _, x := range nres["motions"].([]any) {
		m := x.(map[string]any)
		want := "no per-member votes published"
		if r := m["result"]; r == "ingetrokken" || r == "aangehouden" {
			want = "published as " + r.(string) + ": not put to the vote"
		} else if !strings.Contains(m["summary"].(string), want) {
			t.Fatalf("notubiz motion's summary %v", m)
		}
		if m["per_member"] != false || len(m["groups"].([]any)) != 0 || !strings.HasPrefix(m["note"].(string), want) {
			t.Fatalf("notubiz motion %v", m)
		}
	}
	if log := take(); count(log, "/api/search?") != 1 || count(log, "/api/entities/motion%3Anotubiz") != int(nres["count"].(float64)) {
		t.Fatalf("soest asked %v", log)
	}

	// A motion that does not exist says so, after one request.
	if _, text, isErr := callVotes(t, c, map[string]any{"id": "motion:ibabs:gemeente:houten:no-such-motion"}); !isErr || !strings.Contains(text, "OpenBesluitvorming has no motion motion:ibabs:gemeente:houten:no-such-motion") {
		t.Fatalf("unknown motion: %v %s", isErr, text)
	}
	if log := take(); len(log) != 1 {
		t.Fatalf("unknown motion asked %v", log)
	}

	// Bad input: refused, saying what to fix, with no request.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "give a motion's id"},
		{map[string]any{"id": "document:notubiz:gemeente:soest:12345"}, "not a motion"},
		{map[string]any{"id": "motion:ibabs:gemeente:houten:1", "organization": "houten"}, "give either id"},
		{map[string]any{"query": "zon", "limit": 11}, "limit"},
		{map[string]any{"query": "zon", "party": strings.Repeat("x", 61)}, "party must be"},
		{map[string]any{"query": "zon", "date_from": "2025-02-30"}, "date_from"},
		{map[string]any{"query": "?!"}, "holds no word"},
	} {
		_, text, isErr := callVotes(t, c, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError=%v %q, want %q", tc.args, isErr, text, tc.want)
		}
	}
	if log := take(); len(log) != 0 {
		t.Fatalf("bad input asked the platform: %v", log)
	}
	// An unknown organisation is told from the sources list in the memo.
	if _, text, isErr := callVotes(t, c, map[string]any{"organization": "Houten"}); !isErr || !strings.Contains(text, `did you mean "houten"`) {
		t.Fatalf("organisation by label: %v %s", isErr, text)
	}
	if log := take(); len(log) != 0 {
		t.Fatalf("an organisation checked against the memo asked the platform: %v", log)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// A hostile platform through the whole chain: a detail whose tally the
// votes contradict, with an option no schema names, is shown as found
// with its problems; a detail the platform fails fails the call, saying
// what happened, and nothing of it is cached.
func TestVotesToolHostilePlatform(t *testing.T) {
	url, take, set, upstream := votesSite(t)
	c := votesClient(t, url)
	// Two motions' ids, from the emulator itself (nothing in the cache).
	resp, err := http.Get(upstream + "/api/search?organization=houten&entityType=Motion&limit=2")
	if err != nil {
		t.Fatal(err)
	}
	var found struct{ Results []struct{ EntityID string } }
	if err := json.NewDecoder(resp.Body).Decode(&found); err != nil || len(found.Results) != 2 {
		t.Fatalf("%v %v", found, err)
	}
	resp.Body.Close()
	ids := []string{found.Results[0].EntityID, found.Results[1].EntityID}
	take()

	set(ids[0], 200, `{"entityId":"`+ids[0]+`","entityType":"Motion","organization":"Houten","motion":{"name":"M vijandig","result":"aangenomen",
		"tally":{"in_favour":5,"against":1,"onthoudingen":2},"votes":[{"option":"voor","voter_name":"A","group_name":"X"},{"option":"onthouden","voter_name":"B","group_name":"X"},{"option":"tegen","voter_name":"C","group_name":"X"}]}}`)
	res, text, isErr := callVotes(t, c, map[string]any{"id": ids[0]})
	if isErr {
		t.Fatalf("hostile detail: %s", text)
	}
	m := res["motions"].([]any)[0].(map[string]any)
	probs := fmt.Sprint(m["problems"])
	if m["consistent"] != false || !strings.Contains(probs, "the tally gives 5 voor, but 1 members voted voor") ||
		!strings.Contains(probs, `vote option "onthouden" (of B) is neither voor nor tegen`) ||
		m["tally"].(map[string]any)["other"].(map[string]any)["onthoudingen"].(float64) != 2 || !strings.Contains(m["summary"].(string), "DOES NOT ADD UP") {
		t.Fatalf("hostile motion %v", m)
	}
	if g := m["groups"].([]any)[0].(map[string]any); g["vote"] != "verdeeld" || g["other_votes"].([]any)[0].(map[string]any)["vote"] != "onthouden" {
		t.Fatalf("group %v", g)
	}

	// The platform fails the second detail: the call fails and says so.
	set(ids[1], 500, `{"error":"Zoeken mislukt","request_id":"x"}`)
	if _, text, isErr := callVotes(t, c, map[string]any{"id": ids[1]}); !isErr || !strings.Contains(strings.ToLower(text), "500") {
		t.Fatalf("failed detail: %v %s", isErr, text)
	}
	take()
	if _, _, isErr := callVotes(t, c, map[string]any{"id": ids[1]}); !isErr {
		t.Fatal("a failed answer was cached")
	}
	if log := take(); len(log) != 1 {
		t.Fatalf("asked again: %v", log)
	}
}
