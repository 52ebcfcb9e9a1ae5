package obv

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ org, title, date, want string }{
		{"Soest", "Raadsvoorstel begroting 2024", "2024-11-07", "Soest, Raadsvoorstel begroting 2024, 7 november 2024"},
		{"Soest", "Soest, raadsvoorstel", "2024-11-07", "Soest, raadsvoorstel, 7 november 2024"},
		{"", "Raadsvoorstel", "2024-11-07", "Raadsvoorstel, 7 november 2024"},
		{"Soest", "Raadsvoorstel", "7 november 2024", "Soest, Raadsvoorstel"},
		{"", "045-2022 M Essenkade", "", ""},
		{"Soest", "", "2024-11-07", ""},
		{"Soest", strings.Repeat("x", 2000), "", "Soest, " + strings.Repeat("x", 2000)},
	} {
		if got := Citation(c.org, c.title, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q) = %q, want %q", c.org, c.title, c.date, got, c.want)
		}
	}
}

// The operator's own documented answers: the search hit and the
// document are cited by organisation, title and date; the meeting by its
// title; the motion, which names no organisation or date, not at all.
func TestCitationDocumentedPayloads(t *testing.T) {
	p, err := ParseSearch(fixture.Read(t, "obv", "search.json"))
	if err != nil || p.Hits[0].Citation != "Soest, Raadsvoorstel begroting 2024, 7 november 2024" {
		t.Fatalf("%+v %v", p, err)
	}
	for name, want := range map[string]string{
		"entity-document.json": "Soest, Raadsvoorstel begroting 2024, 7 november 2024",
		"entity-meeting.json":  "Soest, Raadsvergadering 2024-11-07, 7 november 2024",
		"entity-motion.json":   "",
	} {
		d, err := ParseEntity(fixture.Read(t, "obv", name))
		if err != nil || d.Citation != want {
			t.Errorf("%s: %q, want %q (%v)", name, d.Citation, want, err)
		}
	}
	// A hit without a title is labelled by its kind, which is no title
	// to cite.
	p, _ = ParseSearch([]byte(`{"results":[{"entityId":"document:x:gemeente:soest:1","entityTypeLabel":"Document","organization":"Soest","sortDate":"2024-11-07 00:00:00"}]}`))
	if p.Hits[0].Title != "Document" || p.Hits[0].Citation != "" {
		t.Fatalf("%+v", p.Hits[0])
	}
}
