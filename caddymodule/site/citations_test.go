package site_test

import (
	"encoding/json"
	"html"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// visitor is the address this file's subtests come from: their own,
// so the searches the house's other subtests made from 127.0.0.1 leave
// them the whole share of site_search's per-address limit.
var visitor = &http.Client{Transport: &http.Transport{
	DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 11, 1)}}).DialContext}}

// getAs reads u (status 200) as the visitor.
func getAs(t *testing.T, u string, header http.Header) string {
	t.Helper()
	status, body := fetchWith(t, visitor, u, header)
	if status != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d\n%s", u, status, body)
	}
	return body
}

// searchJSON is GET /search as JSON: the hits' links to their documents.
type citedHit struct {
	Platform  string `json:"platform"`
	ID        string `json:"id"`
	Type      string `json:"type"`
	SourceURL string `json:"source_url"`
	Citation  string `json:"citation"`
	URI       string `json:"uri"`
	Also      []struct {
		Platform, ID, URI string
	} `json:"also"`
}

func searchJSON(t *testing.T, h house, q url.Values) []citedHit {
	t.Helper()
	body := getAs(t, h.base+"/search?"+q.Encode(), http.Header{"Accept": {"application/json"}})
	if strings.Contains(body, `"url"`) {
		t.Errorf("GET /search?%s as JSON still names a url (now source_url):\n%.500s", q.Encode(), body)
	}
	var res struct{ Hits []citedHit }
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	return res.Hits
}

// citationsOnThePage: every result links to its document (issue 22). The
// JSON's hits carry source_url and their besluitbron:// URI; a
// Rechtspraak ruling's citation holds its ECLI and an Officiële
// Bekendmakingen publication's its series (Stb., Gmb., ...) and numbers;
// the page shows each hit's citation with a copy button that carries it;
// the reader of a ruling shows the same citation and the document's
// resource URI.
func citationsOnThePage(t *testing.T, h house) {
	rulings := searchJSON(t, h, url.Values{"org": {"Hoge Raad"}, "platform": {"rechtspraak"}})
	pubs := searchJSON(t, h, url.Values{"q": {"besluit"}, "platform": {"ob"}})
	if len(rulings) == 0 || len(pubs) == 0 {
		t.Fatalf("no hits to cite: %d rulings, %d publications", len(rulings), len(pubs))
	}
	for _, hit := range append(append([]citedHit(nil), rulings...), pubs...) {
		if want := "besluitbron://" + hit.Platform + "/"; !strings.HasPrefix(hit.URI, want) {
			t.Errorf("%s %s: uri %q, want %s...", hit.Platform, hit.ID, hit.URI, want)
		}
		if hit.SourceURL == "" {
			t.Errorf("%s %s: no source_url", hit.Platform, hit.ID)
		}
	}
	ecli := regexp.MustCompile(`^ECLI:NL:[A-Z0-9]+:[0-9]{4}:[A-Z0-9]+$`)
	for _, r := range rulings {
		if !ecli.MatchString(r.ID) {
			t.Fatalf("Rechtspraak hit id %q is no ECLI", r.ID)
		}
		if !strings.Contains(r.Citation, r.ID) {
			t.Errorf("ruling %s: citation %q does not hold its ECLI", r.ID, r.Citation)
		}
	}
	series := map[string]string{"stb": "Stb.", "gmb": "Gmb.", "stcrt": "Stcrt.", "prb": "Prb.", "trb": "Trb."}
	for _, p := range pubs {
		parts := strings.Split(p.ID, "-")
		if abbr, ok := series[parts[0]]; ok && !strings.Contains(p.Citation, abbr) {
			t.Errorf("publication %s: citation %q does not name its series %s", p.ID, p.Citation, abbr)
		}
		for _, n := range parts[1:] {
			if strings.Trim(n, "0123456789") == "" && !strings.Contains(p.Citation, strings.TrimLeft(n, "0")) {
				t.Errorf("publication %s: citation %q lacks its number %s", p.ID, p.Citation, n)
			}
		}
	}

	// The page (the same searches: it takes no limit): each citation as
	// text, with a copy button carrying it.
	for _, c := range []struct {
		q    url.Values
		hits []citedHit
	}{
		{url.Values{"org": {"Hoge Raad"}, "platform": {"rechtspraak"}}, rulings},
		{url.Values{"q": {"besluit"}, "platform": {"ob"}}, pubs},
	} {
		page := getAs(t, h.base+"/search?"+c.q.Encode(), nil)
		for _, hit := range c.hits {
			if hit.Citation == "" {
				continue // an OB kind without a known citation form
			}
			esc := html.EscapeString(hit.Citation)
			if !strings.Contains(page, `<code class="copy-value">`+esc+`</code>`) || !strings.Contains(page, `data-copy="`+esc+`"`) {
				t.Errorf("the page does not show %s's citation %q with its copy button", hit.ID, hit.Citation)
			}
		}
	}

	// The reader of the first ruling: its citation, its URI.
	r := rulings[0]
	page := getAs(t, h.base+"/lezen?"+url.Values{"platform": {"rechtspraak"}, "id": {r.ID}}.Encode(), nil)
	if !strings.Contains(page, `data-copy="`+html.EscapeString(r.URI)+`"`) || !strings.Contains(page, `<code class="copy-value">`+html.EscapeString(r.URI)+`</code>`) {
		t.Errorf("the reader of %s does not show its resource URI %s", r.ID, r.URI)
	}
	cite := regexp.MustCompile(`<dd class="cite"><span class="copyable"><code class="copy-value">([^<]*)</code>`).FindStringSubmatch(page)
	if cite == nil || !strings.Contains(html.UnescapeString(cite[1]), r.ID) {
		t.Errorf("the reader of %s shows citation %q, want one that holds the ECLI", r.ID, cite)
	}
}

// readerShowsStructure: the reader of an OpenBesluitvorming document
// (its markdownText: a "# " title, "**" for the organisation, "## "
// sections) shows headings as headings and no markdown marks.
func readerShowsStructure(t *testing.T, h house) {
	var doc citedHit
	for _, q := range []string{"besluit", "woningbouw", "omgevingsvisie"} {
		for _, hit := range searchJSON(t, h, url.Values{"q": {q}, "platform": {"obv"}, "limit": {"20"}}) {
			if hit.Type == "Document" {
				doc = hit
				break
			}
		}
		if doc.ID != "" {
			break
		}
	}
	if doc.ID == "" {
		t.Fatal("no OpenBesluitvorming document among the hits")
	}
	page := getAs(t, h.base+"/lezen?"+url.Values{"platform": {"obv"}, "id": {doc.ID}, "type": {doc.Type}}.Encode(), nil)
	_, text, ok := strings.Cut(page, `<div class="doctext" id="doctext">`)
	text, _, _ = strings.Cut(text, "</div>")
	if !ok {
		t.Fatalf("the reader of %s shows no text:\n%.2000s", doc.ID, page)
	}
	for _, want := range []*regexp.Regexp{regexp.MustCompile(`<h2>[^<]+</h2>`), regexp.MustCompile(`<h3>1\. Inleiding</h3>`), regexp.MustCompile(`<strong>[^<]+</strong>`)} {
		if !want.MatchString(text) {
			t.Errorf("the reader of %s lacks %s:\n%.1500s", doc.ID, want, text)
		}
	}
	for _, mark := range []string{"**", "\n# ", "\n## ", "<p>#"} {
		if strings.Contains(text, mark) {
			t.Errorf("the reader of %s shows the markdown mark %q:\n%.1500s", doc.ID, mark, text)
		}
	}
}
