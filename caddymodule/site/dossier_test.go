package site_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator/timelinechain"

	_ "github.com/besluitbron/besluitbron/mcp"
)

// dossierHouse is the site offering sitePlatforms, and a connector
// offering tk ob bwb, each platform through its production chain
// (platform_cache, platform_limit with the table's budget, proxy) to the
// handlers ups; each upstream's requests are logged, and down[key] makes
// it answer 503.
type dossierHouse struct {
	base string
	mu   sync.Mutex
	log  map[string][]string
	down map[string]*atomic.Bool
}

func (h *dossierHouse) take() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for k, l := range h.log {
		out[k] = len(l)
	}
	h.log = map[string][]string{}
	return out
}

func loadDossierHouse(t *testing.T, ups map[string]http.Handler, sitePlatforms string) *dossierHouse {
	t.Helper()
	h := &dossierHouse{log: map[string][]string{}, down: map[string]*atomic.Bool{}}
	keys := make([]string, 0, len(ups))
	for k := range ups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dir := t.TempDir()
	var routes strings.Builder
	for _, key := range keys {
		handler, down := ups[key], &atomic.Bool{}
		h.down[key] = down
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.mu.Lock()
			h.log[key] = append(h.log[key], r.URL.RequestURI())
			h.mu.Unlock()
			if down.Load() {
				http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
				return
			}
			handler.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		fmt.Fprintf(&routes, `
	route /platforms/%[1]s/* {
		uri strip_prefix /platforms/%[1]s
		platform_cache %[1]s {
			dir %[2]s
		}
		platform_limit %[1]s
		platform_proxy %[1]s %[3]s {
			allow_private 127.0.0.1/8
		}
	}`, key, filepath.Join(dir, key), srv.URL)
	}
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {%s
	handle /mcp/kamer {
		mcp kamer {
			platforms tk ob bwb
			status_refresh off
		}
	}
	besluitbron_site {
		platforms %s
		deadline 1m
	}
}
`, port, routes.String(), sitePlatforms))
	h.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	return h
}

func (h *dossierHouse) get(t *testing.T, path, accept string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", h.base+path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func dossierPath(q url.Values) string { return "/dossier?" + q.Encode() }

var (
	stepRE     = regexp.MustCompile(`<li class="tl-step tl-([a-z_]+)">\s*<p class="tl-head">(?:<time datetime="([0-9-]+)">)?`)
	readLinkRE = regexp.MustCompile(`href="(/lezen\?[^"]+)"`)
)

// The dossier page (issue 37, point 4) through the production chain: the
// form without a dossier; a bill's whole way as a timeline (the Kamer's
// papers, decisions and votes, the Staatsblad publication, the law
// version in force) in date order, each step with its kind in words and
// its link, in the requests the MCP tool makes; nothing asked again from
// the cache; the JSON answer holds the tool's own steps and missing
// links; bad input asks nothing.
func TestDossierPage(t *testing.T) {
	ups, bills, others := timelinechain.Chain(t, 1)
	h := loadDossierHouse(t, ups, "tk ob bwb")
	bill := bills[0]

	status, body, _ := h.get(t, "/dossier", "")
	if status != 200 || !strings.Contains(body, `<form class="dossier-form"`) || strings.Contains(body, `class="timeline"`) {
		t.Fatalf("the form: %d %.400s", status, body)
	}
	h.take()

	page := dossierPath(url.Values{"dossier": {bill}, "law": {"BWBR9100000"}})
	status, body, _ = h.get(t, page, "")
	if status != 200 {
		t.Fatalf("%s: %d %.800s", page, status, body)
	}
	if got := h.take(); got["tk"] != 4 || got["ob"] != 1 || got["bwb"] != 2 {
		t.Fatalf("requests %v", got)
	}
	steps := stepRE.FindAllStringSubmatch(body, -1)
	kinds := map[string]int{}
	var dates []string
	for _, s := range steps {
		kinds[s[1]]++
		if s[2] != "" {
			dates = append(dates, s[2])
		}
	}
	if kinds["vote"] == 0 || kinds["document"] == 0 || kinds["publication"] != 1 || kinds["law_version"] != 1 || !sort.StringsAreSorted(dates) {
		t.Fatalf("steps %v, dates %v", kinds, dates)
	}
	for _, want := range []string{
		"<h1>Dossier " + bill + "</h1>",
		`<span class="tl-kind">Stemming</span>`, `<span class="tl-kind">Publicatie</span>`, `<span class="tl-kind">Wetsversie</span>`,
		`<dd><time datetime="2027-01-01">2027-01-01</time></dd>`, // the law version's first day in force
		`href="https://wetten.overheid.nl/BWBR9100000/2027-01-01"`,
		"<h2 id=\"sources-h\">Herkomst</h2>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	links := readLinkRE.FindAllStringSubmatch(body, -1)
	if !strings.Contains(fmt.Sprint(links), "/lezen?id=stb-2026-900&amp;platform=ob") {
		t.Errorf("the Staatsblad publication is not linked to the reader: %v", links)
	}
	// A kamerstuk of the dossier, in the reader, links back to its way.
	paper := regexp.MustCompile(`<li class="tl-step tl-document">[\s\S]*?<p class="tl-title"><a href="(/lezen\?id=[0-9]{4}D[0-9]+&amp;platform=tk)">`).FindStringSubmatch(body)
	if paper == nil {
		t.Fatal("no paper of the dossier links to the reader")
	}
	status, read, _ := h.get(t, strings.ReplaceAll(paper[1], "&amp;", "&"), "")
	if status != 200 || !strings.Contains(read, `<p class="dossier-link"><a href="/dossier?dossier=`+bill+`">Tijdlijn van dossier `+bill+`</a></p>`) {
		t.Fatalf("%s: %d %.1500s", paper[1], status, read)
	}
	h.take()
	// An activity or a decision is a record of the Kamer's, with its URI
	// and citation, but no document the reader fetches: only its source
	// link.
	records := 0
	for _, kind := range []string{"activity", "decision"} {
		for _, li := range regexp.MustCompile(`<li class="tl-step tl-`+kind+`">[\s\S]*?</li>`).FindAllString(body, -1) {
			records++
			if strings.Contains(li, `href="/lezen`) || !strings.Contains(li, "besluitbron://tk/entiteit/") || !strings.Contains(li, `class="cite">Tweede Kamer, `) {
				t.Errorf("a %s step: %s", kind, li)
			}
		}
	}
	if records == 0 {
		t.Errorf("no activity or decision step on the page")
	}
	if strings.Contains(body, `class="tl-missing"`) {
		t.Errorf("a whole chain lists a missing link")
	}
	// A vote links to the reader's chart of it: what was voted on, by its
	// zaak number.
	voteLink := regexp.MustCompile(`<li class="tl-step tl-vote">[\s\S]*?<p class="tl-title"><a href="(/lezen\?id=[0-9]{4}Z[0-9]+&amp;platform=tk)">`).FindStringSubmatch(body)
	if voteLink == nil {
		t.Fatalf("no vote links to its chart")
	}
	h.take()
	status, chart, _ := h.get(t, strings.ReplaceAll(voteLink[1], "&amp;", "&"), "")
	if status != 200 || !strings.Contains(chart, `<section class="votes"`) || !strings.Contains(chart, `class="vbar"`) {
		t.Fatalf("%s: %d %.600s", voteLink[1], status, chart)
	}
	h.take()

	// Again, and as JSON: from the cache.
	status, jsonBody, hdr := h.get(t, page, "application/json")
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("JSON: %d %s", status, jsonBody)
	}
	if got := h.take(); len(got) != 0 {
		t.Fatalf("the same timeline asked the platforms again: %v", got)
	}
	var page1 struct {
		Dossier    string            `json:"dossier"`
		Title      string            `json:"title"`
		Count      int               `json:"count"`
		Steps      []any             `json:"steps"`
		Missing    []any             `json:"missing"`
		Provenance map[string]string `json:"provenance"`
	}
	if err := json.Unmarshal([]byte(jsonBody), &page1); err != nil {
		t.Fatal(err)
	}
	if page1.Dossier != bill || page1.Count != len(steps) || len(page1.Steps) != len(steps) || len(page1.Missing) != 0 || page1.Provenance["tk"] == "" {
		t.Fatalf("JSON %.600s", jsonBody)
	}
	// The MCP tool gives the same steps and missing links: one builder.
	res, text, isErr := mcptest.Call(t, mcptest.Connect(t, h.base+"/mcp/kamer"), "dossier_timeline", map[string]any{"dossier": bill, "law": "BWBR9100000"})
	if isErr || !reflect.DeepEqual(res["steps"], page1.Steps) || !reflect.DeepEqual(res["missing"], page1.Missing) ||
		page1.Title == "" || res["title"] != page1.Title || !strings.Contains(body, `<p class="dossier-title">`+html.EscapeString(page1.Title)+`</p>`) {
		t.Fatalf("the tool and the page differ:\ntool %.800s\npage %.800s", text, jsonBody)
	}
	h.take()

	// Without a law the BWB's link is missing, said, not guessed; in
	// English with lang=en.
	status, body, _ = h.get(t, dossierPath(url.Values{"dossier": {bill}, "lang": {"en"}}), "")
	if status != 200 || !strings.Contains(body, `<h2 id="missing-h">Missing links</h2>`) || !strings.Contains(body, `law version in force`) ||
		strings.Contains(body, "tl-law_version") || !strings.Contains(body, `<span class="tl-kind">Publication</span>`) {
		t.Fatalf("without law: %d %.1500s", status, body)
	}
	h.take()

	// Bad input: refused before any request.
	for _, q := range []url.Values{
		{"dossier": {"abc"}}, {"dossier": {"362"}}, {"dossier": {"36200-VII"}, "toevoeging": {"VIII"}},
		{"dossier": {bill}, "law": {"Gemeentewet"}}, {"dossier": {bill}, "law": {strings.Repeat("B", 41)}},
	} {
		status, body, _ := h.get(t, dossierPath(q), "")
		if status != 400 || !strings.Contains(body, `role="alert"`) {
			t.Errorf("%v: %d %.300s", q, status, body)
		}
		if status, body, _ := h.get(t, dossierPath(q), "application/json"); status != 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%v as JSON: %d %.300s", q, status, body)
		}
	}
	if got := h.take(); len(got) != 0 {
		t.Fatalf("bad input asked %v", got)
	}

	// A dossier the Kamer has nothing of: 404, saying so.
	status, body, _ = h.get(t, dossierPath(url.Values{"dossier": {"99999"}}), "")
	if status != 404 || !strings.Contains(body, "has no document and no zaak in dossier 99999") {
		t.Fatalf("unknown dossier: %d %.600s", status, body)
	}

	// Officiële Bekendmakingen down: the Kamer's steps stand and the
	// Staatsblad link is missing with what happened.
	h.down["ob"].Store(true)
	status, body, _ = h.get(t, dossierPath(url.Values{"dossier": {others[0]}}), "")
	if status != 200 || !strings.Contains(body, `class="tl-missing"`) || !strings.Contains(body, "Staatsblad publication") ||
		!strings.Contains(body, "503") || !strings.Contains(body, "tl-step") {
		t.Fatalf("ob down: %d %.2000s", status, body)
	}
	h.down["ob"].Store(false)
	// The Kamer down: the page says so, with the status the reader uses.
	h.down["tk"].Store(true)
	status, body, _ = h.get(t, dossierPath(url.Values{"dossier": {others[1]}}), "")
	if status < 500 || !strings.Contains(body, "De tijdlijn kon niet worden gelezen") || !strings.Contains(body, "Tweede Kamer") {
		t.Fatalf("tk down: %d %.800s", status, body)
	}
	h.down["tk"].Store(false)
}

// A site that offers no platform holding the dossier itself has no
// dossier page to show: it says so, and asks nothing.
func TestDossierPageNeedsTheKamer(t *testing.T) {
	ups, _, _ := timelinechain.Chain(t, 0)
	h := loadDossierHouse(t, ups, "ob bwb")
	status, body, _ := h.get(t, dossierPath(url.Values{"dossier": {"36410"}}), "")
	if status != 404 || !strings.Contains(body, "Deze site biedt geen platform dat Kamerstukdossiers bevat") {
		t.Fatalf("%d %.500s", status, body)
	}
	if got := h.take(); len(got) != 0 {
		t.Fatalf("asked %v", got)
	}
}
