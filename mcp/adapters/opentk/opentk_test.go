package opentk

import (
	"strings"
	"testing"
)

// No recorded OpenTK answer exists (fixtures README); this body follows
// the fields tkserv.cc writes.
const searchBody = `{"results":[{"nummer":"2023D41173","datum":"2023-10-12T00:00:00","score":-12.5,"category":"Brief regering","onderwerp":"Stikstofbeleid","snip":"over <b>stikstof</b> en natuur","relurl":"document.html?nummer=2023D41173","bijgewerkt":"2023-10-13","persoonnummer":0},{"nummer":"2023D41174","datum":"2023-10-11","category":"Motie","onderwerp":"Motie over stikstof","snip":"","relurl":""}],"milliseconds":12}`

func TestParseSearchWindow(t *testing.T) {
	p, err := ParseSearch([]byte(searchBody), 0, 1)
	if err != nil || p.Total != 2 || !p.HasMore || len(p.Hits) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	h := p.Hits[0]
	if h.ID != "2023D41173" || h.Date != "2023-10-12" || h.Snippet != "over stikstof en natuur" || h.URL != Public+"/document.html?nummer=2023D41173" {
		t.Fatalf("%+v", h)
	}
	p, _ = ParseSearch([]byte(searchBody), 1, 10)
	if len(p.Hits) != 1 || p.HasMore || p.Hits[0].URL != DocumentURL("2023D41174") {
		t.Fatalf("%+v", p)
	}
	if _, err := ParseSearch([]byte(`<html>`), 0, 1); err == nil {
		t.Fatal("html accepted")
	}
}

func TestRequests(t *testing.T) {
	r, err := SearchRequest("stikstof", true, "")
	if err != nil || r.Method != "POST" || !strings.Contains(string(r.Body), "name=\"q\"\r\n\r\nstikstof") || !strings.HasPrefix(r.ContentType, "multipart/form-data") {
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
	d, err := ParseDocument("2023D41173", []byte("<html><head><title>Brief &amp; zo</title><style>x{}</style></head><body><h1>Kop</h1><p>Eerste alinea.</p><p>Tweede</p></body></html>"))
	if err != nil || d.Title != "Brief & zo" || d.Text != "Kop\nEerste alinea.\nTweede" {
		t.Fatalf("%+v %v", d, err)
	}
}
