package opentk

import (
	"context"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
)

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ cat, nr, date, want string }{
		{Document, "2023D41173", "2023-10-12", "Tweede Kamer, document 2023D41173, 12 oktober 2023"},
		{Document, "2023D41173", "", "Tweede Kamer, document 2023D41173"},
		{Activiteit, "2023A06512", "2023-10-11", "Tweede Kamer, activiteit 2023A06512, 11 oktober 2023"},
		{Toezegging, "TZ202310-067", "2023-10-09", "Tweede Kamer, toezegging TZ202310-067, 9 oktober 2023"},
		{Verslag, "9e79de98-e914-4dc8-8dc7-6d7cb09b93d7", "2023-10-10", ""},
		{PersoonGeschenk, "8064a13e-3827-4f30-a657-f0ff85f5a344", "2023-10-08", ""},
		{OODocument, "eef2edec-019e-4085-8e2e-4d3f42686431_1", "2023-10-07", ""},
		{Document, "9e79de98-e914-4dc8-8dc7-6d7cb09b93d7", "", ""},
		{Document, "TZ202310-067", "", ""},
		{Toezegging, "2023D41173", "", ""},
		{Document, "", "2023-10-12", ""},
		{"", "2023D41173", "", ""},
		{Document, strings.Repeat("9", 200), "", ""},
		{Document, "2023D41173", "12-10-2023", "Tweede Kamer, document 2023D41173"},
	} {
		if got := Citation(c.cat, c.nr, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q) = %q, want %q", c.cat, c.nr, c.date, got, c.want)
		}
	}
}

// No recorded OpenTK answer exists (fixtures README): the body built
// from tkserv.cc's fields (searchBody) and the operator's own documented
// answer are what the parsers are run on.
func TestCitationParsed(t *testing.T) {
	p, err := ParseSearch([]byte(searchBody), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Tweede Kamer, document 2023D41173, 12 oktober 2023", "Tweede Kamer, activiteit 2023A06512, 11 oktober 2023",
		"", "Tweede Kamer, toezegging TZ202310-067, 9 oktober 2023", "", ""}
	for i, h := range p.Hits {
		if h.Citation != want[i] {
			t.Errorf("%s hit: %q, want %q", h.Type, h.Citation, want[i])
		}
	}
	p, err = ParseSearch(DocumentedSearch, 0, 10)
	if err != nil || p.Hits[0].Citation != "Tweede Kamer, document 2023D41173, 12 oktober 2023" {
		t.Fatalf("%+v %v", p, err)
	}
	d, err := ParseDocument("2023D41173", Document, []byte("<html><title>Brief</title><p>x</p></html>"))
	if err != nil || d.Citation != "Tweede Kamer, document 2023D41173" {
		t.Fatalf("%q %v", d.Citation, err)
	}
	d, _ = ParseDocument("9e79de98-e914-4dc8-8dc7-6d7cb09b93d7", Verslag, []byte("<html><p>Notulen</p></html>"))
	if d.Citation != "" {
		t.Fatalf("minutes cited as %q", d.Citation)
	}
	// An item OpenTK cannot render is described by the surface alone.
	d, err = Surface().Fetch(context.Background(), adapters.Env{}, "TZ202310-067", Toezegging)
	if err != nil || d.Citation != "Tweede Kamer, toezegging TZ202310-067" {
		t.Fatalf("%q %v", d.Citation, err)
	}
}
