package bwb

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

func TestCitationForms(t *testing.T) {
	const ro = "Wet op de rechterlijke organisatie"
	for _, c := range []struct{ name, kind, label, date, want string }{
		{ro, "", "", "", ro},
		{ro, "", "", "2024-01-01", ro + " (geldend op 1 januari 2024)"},
		{ro, "artikel", "Artikel 3", "2024-01-01", "art. 3 " + ro + " (geldend op 1 januari 2024)"},
		{"Burgerlijk Wetboek Boek 6", "artikel", "Artikel 6:162", "", "art. 6:162 Burgerlijk Wetboek Boek 6"},
		{ro, "artikel", "artikel 2a.", "", "art. 2a " + ro},
		{"Wijzigingswet", "artikel", "Artikel I", "", "art. I Wijzigingswet"},
		{ro, "hoofdstuk", "Hoofdstuk 2", "", "hoofdstuk 2 " + ro},
		// Other parts, or a label without a number: the regulation alone.
		{ro, "paragraaf", "§ 2", "", ro},
		{ro, "artikel", "Artikel", "", ro},
		{ro, "artikel", "Artikel 3 (oud) en meer", "", ro},
		{ro, "artikel", "Art", "", ro},
		{ro, "artikel", strings.Repeat("9", 60), "", ro},
		{ro, "", "", "1 januari 2024", ro},
		{"", "artikel", "Artikel 3", "2024-01-01", ""},
		{"  ", "", "", "", ""},
	} {
		if got := Citation(c.name, c.kind, c.label, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q, %q) = %q, want %q", c.name, c.kind, c.label, c.date, got, c.want)
		}
	}
}

// The real toestanden are cited by their citeertitel; one without a
// citeertitel by its intitule and the Staatscourant that made it. A fetch
// adds the part and the day its text was in force.
func TestCitationRealToestand(t *testing.T) {
	small := toestand(t, "toestand-BWBR0003984_1986-06-26.xml")
	if small.name() != "Vaststelling nummers kandidatenlijsten centrales van overheidspersoneel" {
		t.Fatal(small.name())
	}
	big := toestand(t, "toestand-BWBR0008326_2011-01-01.xml")
	if big.Citeertitel != "Regeling belastingcapaciteit" || big.name() != "Regeling belastingcapaciteit" {
		t.Fatal(big.name())
	}
	// The same without its citeertitel (the element removed).
	real := string(fixture.Read(t, "bwb", "toestand-BWBR0008326_2011-01-01.xml"))
	i, j := strings.Index(real, "<citeertitel"), strings.Index(real, "</citeertitel>")
	if i < 0 || j < i {
		t.Fatal("fixture has no citeertitel")
	}
	ts, err := ParseToestand([]byte(real[:i] + real[j+len("</citeertitel>"):]))
	if err != nil || ts.Citeertitel != "" || ts.name() != "Regeling belastingcapaciteit, Stcrt. 1996, 239" {
		t.Fatalf("%q %v", ts.name(), err)
	}

	var calls []string
	get := fakeRepository(t, &calls)
	law, err := Fetch(get, FetchParams{ID: "BWBR0008326", Date: "2022-09-01", Article: "3"}, "2024-01-01")
	if err != nil || law.Document.Citation != "art. 3 Regeling belastingcapaciteit (geldend op 1 september 2022)" {
		t.Fatalf("%q %v", law.Document.Citation, err)
	}
	// Without a date: today's version, cited by the day it came in force.
	law, err = Fetch(get, FetchParams{ID: "BWBR0008326"}, "2023-03-01")
	if err != nil || law.Document.Citation != "Regeling belastingcapaciteit (geldend op 18 februari 2023)" {
		t.Fatalf("%q %v", law.Document.Citation, err)
	}
}

// A search hit is cited by its title.
func TestCitationSearch(t *testing.T) {
	body := `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records><record><recordData><gzd><originalData><meta>` +
		`<owmskern><identifier>BWBR0001830</identifier><title>Wet op de rechterlijke organisatie</title><type>wet</type></owmskern>` +
		`<bwbipm><geldigheidsperiode_startdatum>2024-01-01</geldigheidsperiode_startdatum></bwbipm></meta></originalData></gzd></recordData></record></records></searchRetrieveResponse>`
	p, err := ParseSearch([]byte(body))
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Citation != "Wet op de rechterlijke organisatie" {
		t.Fatalf("%+v %v", p, err)
	}
}
