package site_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	obvad "github.com/besluitbron/besluitbron/platforms/obv"
	obvemu "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	tkemu "github.com/besluitbron/besluitbron/platforms/tk/emulator"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy"
	_ "github.com/besluitbron/besluitbron/caddymodule/site"
)

// voteHouse is the site offering obv and tk, each through its production
// chain (cache, budget, proxy) to its emulator, whose requests are
// logged. Each budget holds 1,000 units a second instead of the table's:
// at TK's 5 a second the Tweede Kamer readings waited about 6 s for it,
// idle; the requests still pass the budget, and what is asked is
// counted, not paced (the pacing is platformlimit's tests').
type voteHouse struct {
	base string
	emu  map[string]string
	mu   sync.Mutex
	log  []string
}

func (h *voteHouse) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.log
	h.log = nil
	return l
}

func loadVoteHouse(t *testing.T) *voteHouse {
	t.Helper()
	clock := fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	h := &voteHouse{emu: map[string]string{}}
	routes := ""
	dir := t.TempDir()
	for key, handler := range map[string]http.Handler{
		"obv": obvemu.New(obvemu.Config{Seed: 1, Clock: clock, NoRateLimit: true}),
		"tk":  tkemu.New(tkemu.Config{Seed: 1, Clock: clock}),
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.mu.Lock()
			h.log = append(h.log, key+" "+r.URL.RequestURI())
			h.mu.Unlock()
			handler.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		h.emu[key] = srv.URL
		routes += fmt.Sprintf(`
	route /platforms/%[1]s/* {
		uri strip_prefix /platforms/%[1]s
		platform_cache %[1]s {
			dir %[2]s
		}
		platform_limit %[1]s {
			capacity 1000
			window 1s
		}
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
	besluitbron_site {
		platforms obv tk
		deadline 1m
	}
}
`, port, routes))
	h.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	return h
}

// emuGet asks an emulator directly (not logged as the site's).
func (h *voteHouse) emuGet(t *testing.T, key, path string, out any) {
	t.Helper()
	resp, err := http.Get(h.emu[key] + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s %s: %v\n%s", key, path, err, b)
	}
	h.take()
}

func (h *voteHouse) motions(t *testing.T, org string) []string {
	t.Helper()
	r, err := obvad.SearchRequest(obvad.SearchParams{Organization: org, EntityType: "Motion", Sort: "date_desc", Limit: 6})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(h.emu["obv"] + r.Path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p, err := obvad.ParseSearch(b)
	if err != nil || len(p.Hits) == 0 {
		t.Fatalf("motions of %s: %v", org, err)
	}
	h.take()
	var ids []string
	for _, hit := range p.Hits {
		ids = append(ids, hit.ID)
	}
	return ids
}

func (h *voteHouse) read(t *testing.T, platform, id string) string {
	t.Helper()
	status, page := fetch(t, h.base+"/lezen?"+url.Values{"platform": {platform}, "id": {id}}.Encode(), nil)
	if status != http.StatusOK {
		t.Fatalf("reader of %s %s: HTTP %d\n%s", platform, id, status, page)
	}
	return page
}

var (
	voteRowRE = regexp.MustCompile(`<div class="vrow" data-party="[^"]*">`)
	voteTrRE  = regexp.MustCompile(`(?s)<tbody>.*?</tbody>`)
	zaakRE    = regexp.MustCompile(`<p class="vote-title">Motie (\d{4}Z\d+):`)
)

// The reader shows how a document was voted on, server-rendered (no
// script), with the same cache and budget as the document: a council's
// motion from the detail its fetch already asked (the emulator sees one
// request), a council without per-member votes with the sentence that
// none are published, a Tweede Kamer motion from its zaak's decisions
// (150 seats), and by the zaak's number (no document) its votes alone;
// reading again asks nothing; a letter asks no votes.
func TestReaderShowsVotes(t *testing.T) {
	h := loadVoteHouse(t)

	var shown bool
	for _, id := range h.motions(t, "houten") {
		page := h.read(t, "obv", id)
		if log := h.take(); len(log) != 1 || !strings.HasPrefix(log[0], "obv /api/entities/motion%3A") {
			t.Fatalf("reading motion %s asked %v", id, log)
		}
		if !strings.Contains(page, `<section class="votes" aria-labelledby="votes-h">`) {
			t.Fatalf("motion %s: no votes section", id)
		}
		if voteRowRE.MatchString(page) {
			shown = true
			if rows, tbody := len(voteRowRE.FindAllString(page, -1)), voteTrRE.FindString(page); strings.Count(tbody, `<th scope="row">`) != rows {
				t.Errorf("%d bars, table %s", rows, tbody)
			}
			if !strings.Contains(page, `<caption id="vote-1-caption">Stemming per fractie:`) || strings.Contains(page, "geen stemmen per raadslid") {
				t.Errorf("motion %s:\n%s", id, page)
			}
		}
	}
	if !shown {
		t.Fatal("no houten motion showed votes per group")
	}
	var none bool
	for _, id := range h.motions(t, "soest") {
		page := h.read(t, "obv", id)
		if strings.Contains(page, "Er zijn geen stemmen per raadslid gepubliceerd") {
			none = true
			if voteRowRE.MatchString(page) {
				t.Errorf("bars per group where none are published: %s", id)
			}
		}
	}
	if !none {
		t.Fatal("no soest motion said that no per-member votes are published")
	}
	h.take()

	// A Tweede Kamer motion: the emulator's Motie documents that were
	// voted on (newest first; the newest may not have been yet).
	var docs struct {
		Value []struct{ Nummer string }
	}
	h.emuGet(t, "tk", "/OData/v5/Document?"+url.Values{"$filter": {"Soort eq 'Motie' and Verwijderd eq false"},
		"$select": {"Nummer"}, "$orderby": {"Datum desc,Id"}, "$top": {"15"}}.Encode(), &docs)
	var tkShown bool
	for _, d := range docs.Value {
		page := h.read(t, "tk", d.Nummer)
		log := h.take()
		if !strings.Contains(page, `<section class="votes"`) {
			continue
		}
		tkShown = true
		zaak, besluit := 0, 0
		for _, l := range log {
			switch {
			case strings.HasPrefix(l, "tk /OData/v5/Zaak?"):
				zaak++
			case strings.HasPrefix(l, "tk /OData/v5/Besluit?"):
				besluit++
			}
		}
		if zaak != 1 || besluit != 1 {
			t.Errorf("the votes of %s asked %v", d.Nummer, log)
		}
		for _, want := range []string{`<div class="vrow vtotal"><span class="vparty">Totaal</span>`, `(zetels)</caption>`,
			`<td class="n">150</td></tr></tfoot>`, "Stemmen - ", `<span class="vnum">voor `} {
			if !strings.Contains(page, want) {
				t.Errorf("the vote of %s lacks %s", d.Nummer, want)
			}
		}
		// The zaak voted on, by its number: its votes alone, at the
		// reader's address (the zaak is no document), from the cache.
		z := zaakRE.FindStringSubmatch(page)
		if z == nil {
			t.Fatalf("the vote of %s names no zaak", d.Nummer)
		}
		byZaak := h.read(t, "tk", z[1])
		if !strings.Contains(byZaak, `<section class="votes"`) || !strings.Contains(byZaak, "<h1>Motie "+z[1]) ||
			strings.Contains(byZaak, "levert geen tekst") || voteTrRE.FindString(byZaak) != voteTrRE.FindString(page) {
			t.Errorf("the votes of zaak %s:\n%s", z[1], byZaak)
		}
		// The fetch asks for a document of that number (none), the votes
		// for the decisions on the zaak of that number: two requests.
		if log := h.take(); len(log) != 2 || !strings.HasPrefix(log[0], "tk /OData/v5/Document?") || !strings.HasPrefix(log[1], "tk /OData/v5/Besluit?") {
			t.Errorf("the votes of a zaak asked %v", log)
		}
		if again := h.read(t, "tk", d.Nummer); again != page {
			t.Error("the second reading differs")
		}
		if log := h.take(); len(log) != 0 {
			t.Errorf("reading %s again asked %v", d.Nummer, log)
		}
		break
	}
	if !tkShown {
		t.Fatal("no Tweede Kamer motion showed its vote")
	}

	// A letter is not voted on: no zaak is asked for, no votes shown.
	h.emuGet(t, "tk", "/OData/v5/Document?"+url.Values{"$filter": {"Soort eq 'Brief regering' and Verwijderd eq false"},
		"$select": {"Nummer"}, "$orderby": {"Id"}, "$top": {"1"}}.Encode(), &docs)
	if len(docs.Value) == 0 {
		t.Fatal("the emulator has no letter")
	}
	page := h.read(t, "tk", docs.Value[0].Nummer)
	for _, l := range h.take() {
		if strings.Contains(l, "/Zaak?") || strings.Contains(l, "/Besluit?") {
			t.Errorf("a letter's reading asked %s", l)
		}
	}
	if strings.Contains(page, `class="votes"`) {
		t.Error("a letter shows votes")
	}
}
