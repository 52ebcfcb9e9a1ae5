package ori

import "testing"

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ org, title, date, want string }{
		{"Alkmaar", "Raadsvoorstel parkeren", "2019-05-07", "Alkmaar, Raadsvoorstel parkeren, 7 mei 2019"},
		{"Alkmaar", "Alkmaar: parkeren", "2019-05-07", "Alkmaar: parkeren, 7 mei 2019"},
		{"", "Statenvoorstel", "", ""},
		{"", "", "", ""},
	} {
		if got := Citation(c.org, c.title, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q) = %q, want %q", c.org, c.title, c.date, got, c.want)
		}
	}
}

// No real ORI answer exists (fixtures README): body is the one built from
// the index mapping. The organisation is cited only by the name its
// Organization object gives, never by the index's key.
func TestCitationParsed(t *testing.T) {
	p, err := ParseSearch([]byte(body), 0, map[string]string{"81234": "Alkmaar"})
	if err != nil || p.Hits[0].Citation != "Alkmaar, Raadsvoorstel parkeren, 7 mei 2019" || p.Hits[1].Citation != "" {
		t.Fatalf("%+v %v", p, err)
	}
	p, _ = ParseSearch([]byte(body), 0, nil)
	if p.Hits[0].Citation != "Raadsvoorstel parkeren, 7 mei 2019" {
		t.Fatalf("%q", p.Hits[0].Citation)
	}
	d, err := ParseDocument([]byte(body), map[string]string{"81234": "Alkmaar"})
	if err != nil || d.Citation != "Alkmaar, Raadsvoorstel parkeren, 7 mei 2019" {
		t.Fatalf("%q %v", d.Citation, err)
	}
}
