package cvdr

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ title, org, id, pub, want string }{
		{"Beleidsregels verkeersveiligheid en parkeren", "Kampen", "CVDR100394_2", "gmb-2016-146361",
			"Beleidsregels verkeersveiligheid en parkeren, Kampen (CVDR100394/2), Gmb. 2016, 146361"},
		{"Verordening", "Gelderland", "CVDR101010_2", "prb-2019-1234", "Verordening, Gelderland (CVDR101010/2), Prb. 2019, 1234"},
		{"Keur", "Rijnland", "CVDR101010_3", "wsb-2020-5", "Keur, Rijnland (CVDR101010/3), Wsb. 2020, 5"},
		{"Verordening", "Soest", "CVDR101010_2", "", "Verordening, Soest (CVDR101010/2)"},
		{"Verordening", "", "101010_2", "", "Verordening (CVDR101010/2)"},
		{"Verordening", "Soest", "CVDR0101010_02", "Weekblad Soest, 13-09-2011", "Verordening, Soest (CVDR101010/2)"},
		{"Verordening", "Soest", "CVDR101010_2", "gmb-", "Verordening, Soest (CVDR101010/2)"},
		{"Verordening", "Soest", "CVDR101010_2", "kst-36410-5", "Verordening, Soest (CVDR101010/2)"},
		{"", "Soest", "CVDR101010_2", "gmb-2016-1", ""},
		{"Verordening", "Soest", "", "gmb-2016-1", ""},
		{"Verordening", "Soest", "CVDR101010", "gmb-2016-1", ""},
		{"Verordening", "Soest", "../1_1", "", ""},
		{"Verordening", "Soest", "CVDR" + strings.Repeat("1", 200) + "_1", "", ""},
	} {
		if got := Citation(c.title, c.org, c.id, c.pub); got != c.want {
			t.Errorf("Citation(%q, %q, %q, %q) = %q, want %q", c.title, c.org, c.id, c.pub, got, c.want)
		}
	}
}

// The real regulations: Kampen's names its Gemeenteblad, Spijkenisse's a
// local weekly, which is left out. Search hits carry the same citation.
func TestCitationRealRegulations(t *testing.T) {
	want := map[string]string{
		"CVDR100394_2.xml": "Beleidsregels verkeersveiligheid en parkeren, Kampen (CVDR100394/2), Gmb. 2016, 146361",
		"112779_1.xml":     "",
	}
	old, err := ParseRegulation(fixture.Read(t, "cvdr", "112779_1.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want["112779_1.xml"] = old.Title + ", Spijkenisse (CVDR112779/1)"
	for name, w := range want {
		d, err := ParseRegulation(fixture.Read(t, "cvdr", name))
		if err != nil || d.Citation != w {
			t.Errorf("%s: %q, want %q (%v)", name, d.Citation, w, err)
		}
	}
	p, err := ParseSearch(searchAnswer(t, "CVDR100394_2.xml", "112779_1.xml"), "")
	if err != nil || len(p.Hits) != 2 || p.Hits[0].Citation != want["CVDR100394_2.xml"] || p.Hits[1].Citation != want["112779_1.xml"] {
		t.Fatalf("%+v %v", p, err)
	}
	get := func(adapters.Request) ([]byte, error) { return fixture.Read(t, "cvdr", "CVDR100394_2.xml"), nil }
	if d, err := Fetch(get, "CVDR100394_2"); err != nil || d.Citation != want["CVDR100394_2.xml"] {
		t.Fatalf("%q %v", d.Citation, err)
	}
}
