package ori

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/linkcheck"
)

// The search answer of this package's tests (ORI's documented shape; no
// recorded ORI answer exists in testdata/fixtures) with a hostile
// original_url, and with a hostile url where original_url is absent: the
// hit and the document hand on no such link, and say so.
func TestHostileLinks(t *testing.T) {
	const real = `"original_url":"https://example.org/doc.pdf"`
	if !strings.Contains(body, real) {
		t.Fatal("the sample no longer holds its original_url")
	}
	for _, bad := range linkcheck.Hostile {
		v, _ := json.Marshal(bad)
		for _, with := range []string{`"original_url":` + string(v), `"url":` + string(v)} {
			b := []byte(strings.Replace(body, real, with, 1))
			pg, err := ParseSearch(b, 0, nil)
			if err != nil || len(pg.Hits) != 2 {
				t.Fatalf("%s: %+v %v", with, pg, err)
			}
			linkcheck.Check(t, "hit "+with, pg.Hits[0].URL, pg.Hits[0].URLDropped)
			d, err := ParseDocument(b, nil)
			if err != nil {
				t.Fatalf("%s: %v", with, err)
			}
			linkcheck.Check(t, "document "+with, d.URL, d.URLDropped)
		}
	}
	if d, err := ParseDocument([]byte(body), nil); err != nil || d.URL != "https://example.org/doc.pdf" || d.URLDropped != "" {
		t.Fatalf("%+v %v", d, err)
	}
}
