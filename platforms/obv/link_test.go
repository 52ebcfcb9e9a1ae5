package obv

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/linkcheck"
)

// The real search answer and document with a hostile downloadUrl: the hit
// and the document hand it on as no link, and say so.
func TestHostileLinks(t *testing.T) {
	search := string(fixture.Read(t, "obv", "search.json"))
	entity := string(fixture.Read(t, "obv", "entity-document.json"))
	const real = `"downloadUrl": "https://..."`
	if !strings.Contains(search, real) || !strings.Contains(entity, real) {
		t.Fatal("the fixtures no longer hold their downloadUrl")
	}
	for _, bad := range append(linkcheck.Hostile, "https://example.org/file.pdf") {
		v, _ := json.Marshal(bad)
		with := `"downloadUrl": ` + string(v)
		pg, err := ParseSearch([]byte(strings.Replace(search, real, with, 1)))
		if err != nil || len(pg.Hits) != 1 {
			t.Fatalf("%q: %+v %v", bad, pg, err)
		}
		linkcheck.Check(t, "hit "+bad, pg.Hits[0].URL, pg.Hits[0].URLDropped, "example.org")
		d, err := ParseEntity([]byte(strings.Replace(entity, real, with, 1)))
		if err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		linkcheck.Check(t, "document "+bad, d.URL, d.URLDropped, "example.org")
		if strings.HasPrefix(bad, "https://example.org") && (d.URL != bad || pg.Hits[0].URL != bad) {
			t.Errorf("an honest link was not handed on: %q %q", d.URL, pg.Hits[0].URL)
		}
	}
}
