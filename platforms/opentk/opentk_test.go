package opentk

import (
	"strings"
	"testing"
)

// No recorded OpenTK answer exists (fixtures README); this body follows
// the fields tkserv.cc writes and the nummer/relurl forms of search.cc, one
// hit per category, newest first.
const searchBody = `{"milliseconds":12,"results":[
{"bijgewerkt":"2023-10-13T09:00:00.0000000Z","category":"Document","datum":"2023-10-12T00:00:00","nummer":"2023D41173","onderwerp":"Stikstofbeleid","persoonnummer":-1,"relurl":"get/2023D41173","score":-12.5,"snip":"over <b>stikstof</b> en natuur"},
{"bijgewerkt":"","category":"Activiteit","datum":"2023-10-11T10:00:00","nummer":"2023A06512","onderwerp":"Stikstof","persoonnummer":-1,"relurl":"activiteit.html?nummer=2023A06512","score":-3,"snip":""},
{"bijgewerkt":"","category":"Verslag","datum":"2023-10-10T00:00:00","nummer":"9e79de98-e914-4dc8-8dc7-6d7cb09b93d7","onderwerp":"Commissiedebat stikstof","persoonnummer":-1,"relurl":"verslag.html?vergaderingid=9e79de98-e914-4dc8-8dc7-6d7cb09b93d7","score":-2,"snip":""},
{"bijgewerkt":"","category":"Toezegging","datum":"2023-10-09","nummer":"TZ202310-067","onderwerp":"De minister zegt toe","persoonnummer":-1,"relurl":"toezegging.html?nummer=TZ202310-067","score":-1,"snip":""},
{"bijgewerkt":"","category":"PersoonGeschenk","datum":"2023-10-08","nummer":"8064a13e-3827-4f30-a657-f0ff85f5a344","onderwerp":"Geschenk aan Jan de Vries: boek","persoonnummer":4321,"relurl":"persoon.html?nummer=4321#8064a13e-3827-4f30-a657-f0ff85f5a344","score":-1,"snip":""},
{"bijgewerkt":"","category":"OODocument","datum":"2023-10-07","nummer":"eef2edec-019e-4085-8e2e-4d3f42686431_1","onderwerp":"Woo-besluit","persoonnummer":-1,"relurl":"oo.html?nummer=eef2edec-019e-4085-8e2e-4d3f42686431_1","score":-1,"snip":""}]}`

func TestParseSearchCategories(t *testing.T) {
	p, err := ParseSearch([]byte(searchBody), 0, 10)
	if err != nil || p.Total != 6 || p.HasMore || len(p.Hits) != 6 {
		t.Fatalf("%+v %v", p, err)
	}
	want := map[string]string{
		"Document":        Public + "/get/2023D41173",
		"Activiteit":      Public + "/activiteit.html?nummer=2023A06512",
		"Verslag":         Public + "/verslag.html?vergaderingid=9e79de98-e914-4dc8-8dc7-6d7cb09b93d7",
		"Toezegging":      Public + "/toezegging.html?nummer=TZ202310-067",
		"PersoonGeschenk": Public + "/persoon.html?nummer=4321#8064a13e-3827-4f30-a657-f0ff85f5a344",
		"OODocument":      Public + "/oo.html?nummer=eef2edec-019e-4085-8e2e-4d3f42686431_1",
	}
	for i, h := range p.Hits {
		if h.Type != Categories[i] || h.URL != want[h.Type] {
			t.Errorf("hit %d: %+v", i, h)
		}
	}
	h := p.Hits[0]
	if h.ID != "2023D41173" || h.Date != "2023-10-12" || h.Snippet != "over stikstof en natuur" {
		t.Fatalf("%+v", h)
	}
	// the window keeps the platform's order (newest first)
	p, _ = ParseSearch([]byte(searchBody), 2, 2)
	if len(p.Hits) != 2 || !p.HasMore || p.Hits[0].Type != Verslag || p.Hits[1].Type != Toezegging {
		t.Fatalf("%+v", p)
	}
	// a hit without relurl gets the link its category has
	p, _ = ParseSearch([]byte(`{"results":[{"nummer":"TZ202310-067","category":"Toezegging","relurl":""}],"milliseconds":1}`), 0, 1)
	if p.Hits[0].URL != Public+"/toezegging.html?nummer=TZ202310-067" {
		t.Fatal(p.Hits[0].URL)
	}
	if _, err := ParseSearch([]byte(`<html>`), 0, 1); err == nil {
		t.Fatal("html accepted")
	}
	for _, c := range Categories {
		if What(c) == What("x") {
			t.Errorf("%s undescribed", c)
		}
	}
	if !Fetchable(Document) || !Fetchable(Verslag) || Fetchable(Activiteit) || Fetchable(Toezegging) || Fetchable(PersoonGeschenk) || Fetchable(OODocument) {
		t.Fatal("fetchable")
	}
}

func TestRequests(t *testing.T) {
	r, err := SearchRequest("stikstof", true, "")
	if err != nil || r.Method != "POST" || !strings.Contains(string(r.Body), "name=\"q\"\r\n\r\nstikstof") || !strings.Contains(string(r.Body), "name=\"soorten\"\r\n\r\nalles") || !strings.HasPrefix(r.ContentType, "multipart/form-data") {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := SearchRequest(" ", false, ""); err == nil {
		t.Fatal("empty accepted")
	}
	if _, err := SearchRequest("x", false, "all"); err == nil || !strings.Contains(err.Error(), "alles") {
		t.Fatal(err)
	}
	if r, err := DocumentRequest("2023d41173"); err != nil || r.Path != "/getdoc/2023D41173" {
		t.Fatal(r, err)
	}
	if _, err := DocumentRequest("../admin"); err == nil {
		t.Fatal("junk accepted")
	}
	if r, err := MinutesRequest("9E79DE98-e914-4dc8-8dc7-6d7cb09b93d7"); err != nil || r.Path != "/verslag.html?vergaderingid=9e79de98-e914-4dc8-8dc7-6d7cb09b93d7" {
		t.Fatal(r, err)
	}
	if _, err := MinutesRequest("2023D41173"); err == nil {
		t.Fatal("document number accepted as meeting id")
	}
	for _, ok := range []string{"TZ202310-067", "2023A06512", "eef2edec-019e-4085-8e2e-4d3f42686431_1"} {
		if _, err := ValidItem(ok); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"", "a/b", "x?y=1", "a#b", strings.Repeat("a", 101)} {
		if _, err := ValidItem(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	d, err := ParseDocument("2023D41173", Document, []byte("<html><head><title>Brief &amp; zo</title><style>x{}</style></head><body><h1>Kop</h1><p>Eerste alinea.</p><p>Tweede</p></body></html>"))
	if err != nil || d.Title != "Brief & zo" || d.Text != "Kop\nEerste alinea.\nTweede" || d.Type != Document {
		t.Fatalf("%+v %v", d, err)
	}
	d, _ = ParseDocument("9e79de98-e914-4dc8-8dc7-6d7cb09b93d7", Verslag, []byte("<html><body><p>Notulen</p></body></html>"))
	if d.URL != Public+"/verslag.html?vergaderingid=9e79de98-e914-4dc8-8dc7-6d7cb09b93d7" || d.Type != Verslag {
		t.Fatalf("%+v", d)
	}
}
