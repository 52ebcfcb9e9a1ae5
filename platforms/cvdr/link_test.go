package cvdr

import (
	"encoding/xml"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/linkcheck"
	emu "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
)

// A search answer whose record is the real Kampen regulation's (the
// emulator builds it from testdata/fixtures/cvdr) with a hostile
// preferred_url: the hit keeps the page address made from the
// identifier and says the platform's link was dropped.
func TestHostileLinks(t *testing.T) {
	rec := httptest.NewRecorder()
	emu.New().ServeHTTP(rec, httptest.NewRequest("GET", `http://cvdr.test/sru/Search?query=dcterms.identifier%3D%3DCVDR100394_2`, nil))
	answer := rec.Body.String()
	const real = "<gzd:preferred_url>https://lokaleregelgeving.overheid.nl/CVDR100394/2</gzd:preferred_url>"
	if !strings.Contains(answer, real) {
		t.Fatalf("the answer holds no preferred_url:\n%s", answer)
	}
	for _, bad := range append(linkcheck.Hostile, "https://lokaleregelgeving.overheid.nl@evil.example/", "https://lokaleregelgeving.overheid.nl/CVDR100394/2\u202e") {
		var esc strings.Builder
		xml.EscapeText(&esc, []byte(bad))
		pg, err := ParseSearch([]byte(strings.Replace(answer, real, "<gzd:preferred_url>"+esc.String()+"</gzd:preferred_url>", 1)), "")
		if err != nil || len(pg.Hits) != 1 {
			t.Fatalf("%q: %+v %v", bad, pg, err)
		}
		h := pg.Hits[0]
		if h.URL != "https://lokaleregelgeving.overheid.nl/CVDR100394/2" || h.URLDropped == "" {
			t.Errorf("%q: %q, dropped %q", bad, h.URL, h.URLDropped)
		}
		linkcheck.Check(t, bad, h.URL, h.URLDropped, "lokaleregelgeving.overheid.nl")
	}
}
