package rechtspraak

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ ecli, court, date, want string }{
		{"ECLI:NL:HR:2024:123", "Hoge Raad", "2024-01-12", "HR 12 januari 2024, ECLI:NL:HR:2024:123"},
		{"ECLI:NL:PHR:2024:1", "Parket bij de Hoge Raad", "2024-01-12", "PHR 12 januari 2024, ECLI:NL:PHR:2024:1"},
		{"ECLI:NL:RVS:2023:4567", "Raad van State", "2023-12-06", "RvS 6 december 2023, ECLI:NL:RVS:2023:4567"},
		{"ECLI:NL:CRVB:2022:10", "Centrale Raad van Beroep", "2022-01-04", "CRvB 4 januari 2022, ECLI:NL:CRVB:2022:10"},
		{"ECLI:NL:CBB:2021:5", "College van Beroep voor het bedrijfsleven", "2021-02-02", "CBb 2 februari 2021, ECLI:NL:CBB:2021:5"},
		{"ECLI:NL:RBDHA:2013:15631", "Rechtbank Den Haag", "2013-07-03", "Rb. Den Haag 3 juli 2013, ECLI:NL:RBDHA:2013:15631"},
		{"ECLI:NL:GHAMS:2020:1", "Gerechtshof Amsterdam", "2020-03-01", "Hof Amsterdam 1 maart 2020, ECLI:NL:GHAMS:2020:1"},
		{"ECLI:NL:GHSHE:2020:2", "Gerechtshof 's-Hertogenbosch", "2020-03-02", "Hof 's-Hertogenbosch 2 maart 2020, ECLI:NL:GHSHE:2020:2"},
		{"ECLI:NL:RBARN:1998:AA1005", "Rechtbank Arnhem", "1998-12-07", "Rb. Arnhem 7 december 1998, ECLI:NL:RBARN:1998:AA1005"},
		// No court name: the ECLI's court code names it.
		{"ECLI:NL:RBDHA:2025:1", "", "2025-02-01", "Rb. Den Haag 1 februari 2025, ECLI:NL:RBDHA:2025:1"},
		{"ecli:nl:hr:2024:123", "", "2024-01-12", "HR 12 januari 2024, ECLI:NL:HR:2024:123"},
		{"ECLI:NL:GHARL:2019:9", "", "2019-05-05", "Hof Arnhem-Leeuwarden 5 mei 2019, ECLI:NL:GHARL:2019:9"},
		// Unknown court, no date, a foreign ECLI: the ECLI alone.
		{"ECLI:NL:AGAMS:1950:1", "Ambtenarengerecht Amsterdam", "1950-01-02", "ECLI:NL:AGAMS:1950:1"},
		{"ECLI:NL:OGHACMB:2020:1", "Gemeenschappelijk Hof van Justitie van Aruba", "2020-01-02", "ECLI:NL:OGHACMB:2020:1"},
		{"ECLI:NL:HR:2024:123", "Hoge Raad", "", "ECLI:NL:HR:2024:123"},
		{"ECLI:NL:HR:2024:123", "Hoge Raad", "12-01-2024", "ECLI:NL:HR:2024:123"},
		{"ECLI:DE:BGH:2020:1", "", "2020-01-01", "ECLI:DE:BGH:2020:1"},
		{"ECLI:NL:RBDHA:2013:1", "Rechtbank ", "2013-01-01", "Rb. Den Haag 1 januari 2013, ECLI:NL:RBDHA:2013:1"},
		// Not an ECLI: nothing.
		{"", "Hoge Raad", "2024-01-12", ""},
		{"ECLI:NL:HR", "Hoge Raad", "2024-01-12", ""},
		{"ECLI:NL:HR:2024:" + strings.Repeat("1", 100), "Hoge Raad", "2024-01-12", ""},
		{"12345", "Hoge Raad", "2024-01-12", ""},
	} {
		if got := Citation(c.ecli, c.court, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q) = %q, want %q", c.ecli, c.court, c.date, got, c.want)
		}
	}
}

// The real feed's hits and the real ruling carry their citations.
func TestCitationRealPayloads(t *testing.T) {
	p, err := ParseSearch(fixture.Read(t, "rechtspraak", "zoeken.atom.xml"), SearchParams{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Rb. Arnhem 7 december 1998, ECLI:NL:RBARN:1998:AA1005",
		"Rb. Leeuwarden 20 oktober 1999, ECLI:NL:RBLEE:1999:AA1049",
		"Rb. Leeuwarden 20 oktober 1999, ECLI:NL:RBLEE:1999:AA1052",
	}
	for i, h := range p.Hits {
		if h.Citation != want[i] {
			t.Errorf("hit %d: %q, want %q", i, h.Citation, want[i])
		}
	}
	body := fixture.Read(t, "rechtspraak", "content.xml")
	d, err := ParseContent(body)
	if err != nil || d.Citation != "Rb. Den Haag 3 juli 2013, ECLI:NL:RBDHA:2013:15631" {
		t.Fatalf("%q %v", d.Citation, err)
	}
	// The surface's look-up by ECLI builds its hit from the document.
	env := adapters.Env{Memo: new(adapters.Memo), Now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Get: func(context.Context, string, adapters.Request) ([]byte, error) { return body, nil }}
	pg, err := Surface(nil).Search(context.Background(), env, adapters.Question{Words: "ECLI:NL:RBDHA:2013:15631", Limit: 5})
	if err != nil || len(pg.Hits) != 1 || pg.Hits[0].Citation != d.Citation {
		t.Fatalf("%+v %v", pg, err)
	}
	doc, err := Surface(nil).Fetch(context.Background(), env, "ECLI:NL:RBDHA:2013:15631", "")
	if err != nil || doc.Citation != d.Citation {
		t.Fatalf("%q %v", doc.Citation, err)
	}
}

// The index's hits carry the court and date it holds.
func TestCitationWordHits(t *testing.T) {
	env := adapters.Env{Memo: new(adapters.Memo), Now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	pg, err := Surface(&fakeIndex{}).Search(context.Background(), env, adapters.Question{Words: "stikstof", Limit: 10})
	if err != nil || len(pg.Hits) != 1 || pg.Hits[0].Citation != "Rb. Den Haag 1 februari 2025, ECLI:NL:RBDHA:2025:1" {
		t.Fatalf("%+v %v", pg, err)
	}
}
