package rechtspraak

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/linkcheck"
)

// The real search feed with a hostile link on its first entry: the hit
// links to the decision's page on uitspraken.rechtspraak.nl instead, and
// says the platform's link was dropped.
func TestHostileLinks(t *testing.T) {
	feed := string(fixture.Read(t, "rechtspraak", "zoeken.atom.xml"))
	const real = `href="https://uitspraken.rechtspraak.nl/InzienDocument?id=ECLI:NL:RBARN:1998:AA1005"`
	if !strings.Contains(feed, real) {
		t.Fatal("the fixture no longer holds its first link")
	}
	for _, bad := range linkcheck.Hostile {
		var esc strings.Builder
		xml.EscapeText(&esc, []byte(bad))
		pg, err := ParseSearch([]byte(strings.Replace(feed, real, `href="`+esc.String()+`"`, 1)), SearchParams{})
		if err != nil || len(pg.Hits) != 3 {
			t.Fatalf("%q: %+v %v", bad, pg, err)
		}
		h := pg.Hits[0]
		if h.URL != DocumentURL("ECLI:NL:RBARN:1998:AA1005") || h.URLDropped == "" {
			t.Errorf("%q: %q, dropped %q", bad, h.URL, h.URLDropped)
		}
		linkcheck.Check(t, bad, h.URL, h.URLDropped, "uitspraken.rechtspraak.nl")
		if pg.Hits[1].URLDropped != "" {
			t.Errorf("an honest link was dropped: %+v", pg.Hits[1])
		}
	}
}
