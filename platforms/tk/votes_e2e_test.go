package tk_test

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
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// votesSite is tk's production chain (platform_cache, platform_limit with
// the table's budget, reverse proxy) in front of the TK emulator, with a
// connector offering tk; it returns the connector's URL and the log of
// the paths the emulator was asked.
func votesSite(t *testing.T) (string, string, func() []string) {
	t.Helper()
	h := emu.New(emu.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	var mu sync.Mutex
	var log []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.URL.RequestURI())
		mu.Unlock()
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
	route /platforms/tk/* {
		uri strip_prefix /platforms/tk
		platform_cache tk {
			dir %s
		}
		platform_limit tk
		reverse_proxy %s {
			header_up Host {upstream_hostport}
		}
	}
	handle /mcp/kamer {
		mcp kamer {
			platforms tk
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
	return fmt.Sprintf("http://127.0.0.1:%d/mcp/kamer", port), up.URL, take
}

func votesClient(t *testing.T, url string) *client.Client { return mcptest.Connect(t, url) }

// callVotes calls tk_votes; the text and structured content must agree.
func callVotes(t *testing.T, c *client.Client, args map[string]any) (map[string]any, string, bool) {
	t.Helper()
	return mcptest.Call(t, c, "tk_votes", args)
}

// tk_votes end to end: through the connector, the cache and the Kamer's
// budget to the emulator: one request for the votes (and $metadata once),
// none for the same question again; by words and a period, by zaak
// number, by dossier (two requests), with a party; bad input refused
// before any request.
func TestVotesToolThroughCacheAndBudget(t *testing.T) {
	url, upstream, take := votesSite(t)
	c := votesClient(t, url)

	args := map[string]any{"query": "motie", "date_from": "2025-01-01", "limit": 3}
	res, _, isErr := callVotes(t, c, args)
	if isErr {
		t.Fatalf("tk_votes %v failed", args)
	}
	log := take()
	if len(log) != 2 || !strings.HasSuffix(log[0], "/$metadata") || !strings.Contains(log[1], "/Besluit?") ||
		!strings.Contains(log[1], "Zaak%2Fany(z:z%2FVerwijderd%20eq%20false") {
		t.Fatalf("requests %v", log)
	}
	if res["from_cache"] != false || res["platform"] != "tk" || res["count"].(float64) != 3 || res["has_more"] != true {
		t.Fatalf("result %v", res)
	}
	ds := res["decisions"].([]any)
	for _, x := range ds {
		d := x.(map[string]any)
		tot := d["totals"].(map[string]any)
		if d["consistent"] != true || tot["present"].(float64) != 150 || d["date"].(string) < "2025-01-01" ||
			tot["voor"].(float64)+tot["tegen"].(float64)+tot["niet_deelgenomen"].(float64) != 150 ||
			!strings.HasPrefix(d["source_url"].(string), "https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Entiteiten/") {
			t.Fatalf("decision %v", d)
		}
	}
	again, _, _ := callVotes(t, c, args)
	if log := take(); len(log) != 0 || again["from_cache"] != true {
		t.Fatalf("the same question asked the platform again: %v (from_cache %v)", log, again["from_cache"])
	}

	// By the zaak number of the first decision, with its party filter.
	first := ds[0].(map[string]any)
	nummer := first["zaken"].([]any)[0].(map[string]any)["nummer"].(string)
	party := first["parties"].([]any)[0].(map[string]any)["party"].(string)
	one, _, isErr := callVotes(t, c, map[string]any{"zaak": nummer, "party": strings.ToLower(party)})
	if isErr || one["count"].(float64) != 1 {
		t.Fatalf("by zaak %s: %v", nummer, one)
	}
	d := one["decisions"].([]any)[0].(map[string]any)
	if ps := d["parties"].([]any); len(ps) != 1 || ps[0].(map[string]any)["party"] != party ||
		fmt.Sprint(d["totals"]) != fmt.Sprint(first["totals"]) || d["result"] != first["result"] {
		t.Fatalf("party %s on %s: %v", party, nummer, d)
	}
	if log := take(); len(log) != 1 || !strings.Contains(log[0], "z%2FNummer%20eq%20'"+nummer+"'") {
		t.Fatalf("requests %v", log)
	}
	// A party that voted in none says which names the votes use.
	none, _, _ := callVotes(t, c, map[string]any{"zaak": nummer, "party": "Piratenpartij"})
	if note, _ := none["note"].(string); !strings.Contains(note, `No decision here shows a vote of "Piratenpartij"`) || !strings.Contains(note, party) {
		t.Fatalf("unknown party: %v", none)
	}
	take()

	// Bad input: refused, saying what to fix, with no request.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "give exactly one of zaak"},
		{map[string]any{"zaak": "2023D41173"}, "document number (D) is read with tk_fetch"},
		{map[string]any{"dossier": "36200-VII", "query": "zorg"}, "give exactly one of"},
		{map[string]any{"query": "zorg", "ordnummer": 4}, "give dossier too"},
		{map[string]any{"query": "zorg", "party": strings.Repeat("x", 61)}, "party must be"},
		{map[string]any{"query": "zorg", "date_from": "2025-02-30"}, "date_from"},
	} {
		_, text, isErr := callVotes(t, c, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError=%v %q, want %q", tc.args, isErr, text, tc.want)
		}
	}
	if log := take(); len(log) != 0 {
		t.Fatalf("bad input asked the platform: %v", log)
	}
	// A dossier that does not exist says so.
	if _, text, isErr := callVotes(t, c, map[string]any{"dossier": "99999-ZZ"}); !isErr || !strings.Contains(text, "no zaak in dossier 99999-ZZ") {
		t.Fatalf("unknown dossier: %v %s", isErr, text)
	}
	if log := take(); len(log) != 1 || !strings.Contains(log[0], "/Zaak?") {
		t.Fatalf("unknown dossier asked %v", log)
	}

	// A dossier with votes (found in the emulator): its zaken, then their
	// votes, two requests.
	dossier, zaak := dossierWithVote(t, upstream)
	take()
	res, text, isErr := callVotes(t, c, map[string]any{"dossier": dossier})
	if isErr || res["count"].(float64) == 0 {
		t.Fatalf("dossier %s: %s", dossier, text)
	}
	if !strings.Contains(text, zaak) {
		t.Fatalf("dossier %s lacks the vote on %s: %s", dossier, zaak, text)
	}
	if log := take(); len(log) != 2 || !strings.Contains(log[0], "/Zaak?") || !strings.Contains(log[1], "/Besluit?") {
		t.Fatalf("dossier asked %v", log)
	}
	// Past the dossier's last zaak: an empty page that says so.
	past, text, isErr := callVotes(t, c, map[string]any{"dossier": dossier, "offset": 1000})
	if isErr || past["count"].(float64) != 0 || !strings.Contains(past["note"].(string), "Offset 1000 is past the") {
		t.Fatalf("offset past the end: %s", text)
	}
}

// dossierWithVote asks the emulator for a dossier one of whose zaken was
// voted on: "36428" or "36200-VII", and that zaak's number.
func dossierWithVote(t *testing.T, upstream string) (string, string) {
	t.Helper()
	resp, err := http.Get(upstream + "/OData/v4/2.0/Besluit?$filter=startswith(BesluitSoort,'Stemmen')&$expand=Zaak($expand=Kamerstukdossier)&$top=50&$orderby=Id")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Value []struct {
			Zaak []struct {
				Nummer           string
				Kamerstukdossier []struct {
					Nummer     int
					Toevoeging *string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	for _, b := range env.Value {
		if z := b.Zaak[0]; len(z.Kamerstukdossier) == 1 {
			d := fmt.Sprint(z.Kamerstukdossier[0].Nummer)
			if tv := z.Kamerstukdossier[0].Toevoeging; tv != nil && *tv != "" {
				d += "-" + *tv
			}
			return d, z.Nummer
		}
	}
	t.Fatal("no vote on a zaak in a dossier in the emulator")
	return "", ""
}
