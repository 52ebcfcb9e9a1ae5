package oa

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/linkcheck"
)

// A search answer and a document in Open Archivaris' documented shape
// (docs/emulators.md; no recorded answer exists in testdata/fixtures)
// with a hostile link: no such link is handed on, and the result says
// so. A path on the platform ("/api/v1/documents/d1") is read against
// its public host, as before; a protocol-relative one is not a path.
func TestHostileLinks(t *testing.T) {
	const search = `{"query":"x","total":7,"page":1,"per_page":1,"pages":7,"results":[{"id":"d1","title":"Besluit","body":"utrecht","body_name":"Utrecht","government_type":"gemeente","document_date":"2024-01-02","page_count":3,"snippet":"x y","url":LINK}]}`
	const doc = `{"id":"d1","title":"Besluit","body":{"key":"utrecht","name":"Utrecht"},"document_date":"2024-01-02","source":"Utrecht","source_url":LINK,"text":"een twee"}`
	for _, bad := range append(linkcheck.Hostile, "/api/v1/documents/d1") {
		v, _ := json.Marshal(bad)
		pg, err := ParseSearch([]byte(strings.Replace(search, "LINK", string(v), 1)), 0)
		if err != nil || len(pg.Hits) != 1 {
			t.Fatalf("%q: %+v %v", bad, pg, err)
		}
		linkcheck.Check(t, "hit "+bad, pg.Hits[0].URL, pg.Hits[0].URLDropped, "openarchivaris.nl")
		d, err := ParseDocument([]byte(strings.Replace(doc, "LINK", string(v), 1)))
		if err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		linkcheck.Check(t, "document "+bad, d.URL, d.URLDropped, "openarchivaris.nl")
	}
	if pg, _ := ParseSearch([]byte(strings.Replace(search, "LINK", `"/api/v1/documents/d1"`, 1)), 0); pg.Hits[0].URL != Public+"/api/v1/documents/d1" {
		t.Fatalf("%+v", pg.Hits[0])
	}
}
