package ob

import (
	"context"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

func TestCitationForms(t *testing.T) {
	const tk, ek = "Tweede Kamer der Staten-Generaal", "Eerste Kamer der Staten-Generaal"
	for _, c := range []struct{ id, creator, vj, want string }{
		{"stb-2018-84", "", "", "Stb. 2018, 84"},
		{"stcrt-2020-1234", "Ministerie van Financiën", "", "Stcrt. 2020, 1234"},
		{"gmb-2016-146361", "Kampen", "", "Gmb. 2016, 146361"},
		{"prb-2021-5678", "Gelderland", "", "Prb. 2021, 5678"},
		{"wsb-2022-12", "Rijnland", "", "Wsb. 2022, 12"},
		{"bgr-2023-77", "", "", "Bgr. 2023, 77"},
		{"trb-2019-120", "", "", "Trb. 2019, 120"},
		{"kst-36410-5", tk, "2023-2024", "Kamerstukken II 2023/24, 36410, nr. 5"},
		{"kst-36200-VII-12", tk, "2023-2024", "Kamerstukken II 2023/24, 36200 VII, nr. 12"},
		{"kst-35979-H", ek, "2022-2023", "Kamerstukken I 2022/23, 35979, H"},
		{"kst-36410-5", tk, "", "Kamerstukken II, 36410, nr. 5"},
		{"kst-36410-5", "", "2023-2024", "Kamerstukken 2023/24, 36410, nr. 5"},
		{"h-tk-20232024-12-3", "", "", "Handelingen II 2023/24, nr. 12, item 3"},
		{"h-ek-20222023-20-7", "", "", "Handelingen I 2022/23, nr. 20, item 7"},
		{"ah-tk-20232024-123", "", "", "Aanhangsel Handelingen II 2023/24, nr. 123"},
		{"ah-ek-20192020-5", "", "", "Aanhangsel Handelingen I 2019/20, nr. 5"},
		// Before 2011/12 the numbers are pages: no citation.
		{"h-tk-20002001-4541-4560", "", "", ""},
		{"h-tk-20232024-12", "", "", ""},
		{"h-tk-20232025-12-3", "", "", ""},
		{"ah-tk-20232024-12-3", "", "", ""},
		{"kv-tk-2024Z01234", tk, "", ""},
		{"blg-1054321", "", "", ""},
		{"", "", "", ""},
		{"stb-", "", "", ""},
		{"kst--", tk, "2023-2024", ""},
		{"kst-36410-5-n1", tk, "2023-2024", ""},
		{"h-tk-", "", "", ""},
		{strings.Repeat("kst-1", 300), tk, "2023-2024", ""},
		{"gmb-2016-" + strings.Repeat("1", 200), "", "", ""},
	} {
		if got := Citation(c.id, c.creator, c.vj); got != c.want {
			t.Errorf("Citation(%q, %q, %q) = %q, want %q", c.id, c.creator, c.vj, got, c.want)
		}
		// Every citation written reads back to its identifier.
		if id, ok := ParseCitation(c.want); c.want != "" && (!ok || id != c.id) {
			t.Errorf("ParseCitation(%q) = %q, %v; want %q", c.want, id, ok, c.id)
		}
	}
}

// Citations as people write them, to the publication's identifier; a
// Handelingen citation only in the form Citation writes.
func TestParseCitation(t *testing.T) {
	refcheck.Check(t, ParseCitation, map[string]string{
		"Stb. 2018, 84": "stb-2018-84", "Gmb. 2016, 146361": "gmb-2016-146361", "Stcrt. 2006, nr. 73": "stcrt-2006-73", "stb 2018 84": "stb-2018-84",
		"Kamerstukken II 2023/24, 36410, nr. 5": "kst-36410-5", "kamerstukken ii 2023/24, 36200 vii, nr. 12": "kst-36200-VII-12",
		"Handelingen II 2023/24, nr. 12, item 3": "h-tk-20232024-12-3", "handelingen i 2022/23, nr. 20, item 7": "h-ek-20222023-20-7",
		"Handelingen II 2023/2024, nr. 12, item 3": "h-tk-20232024-12-3", " Aanhangsel Handelingen II 2023/24, nr. 123 ": "ah-tk-20232024-123",
		// Not one: Handelingen cited by page, without item, an item of an
		// Aanhangsel, a vergaderjaar that is not one; no citation at all.
		"Handelingen II 2005/06, nr. 12, item 3": "", "Handelingen II 2023/24, nr. 12": "", "Aanhangsel Handelingen II 2023/24, nr. 12, item 3": "",
		"Handelingen II 2023/25, nr. 12, item 3": "", "Handelingen 2023/24, nr. 12, item 3": "", "Handelingen II 2023/24, nr. 0, item 3": "",
		"stb-2018-84": "", "de begroting 2024": "", "": "", " ": "", "\n": "",
		"Handelingen II 2023/24, nr. 12, item " + strings.Repeat("3", 300): "", strings.Repeat("Handelingen II ", 20): "",
	})
}

// The references a prompt takes for a publication: an identifier of a
// series a reference names, as ValidID writes it, or a citation.
func TestRecognize(t *testing.T) {
	refcheck.Check(t, recognize, map[string]string{
		"stb-2018-84": "stb-2018-84", "STB-2018-84": "stb-2018-84", " gmb-2016-146361 ": "gmb-2016-146361",
		"kst-36410-5": "kst-36410-5", "kst-36200-VII-12": "kst-36200-vii-12", "h-tk-20232024-12-3": "h-tk-20232024-12-3",
		"ah-ek-20192020-5": "ah-ek-20192020-5", "blg-1054321": "blg-1054321", "stcrt-2006-73-p10-SC74601": "stcrt-2006-73-p10-sc74601",
		"Stb. 2018, 84": "stb-2018-84", "Kamerstukken II 2023/24, 36410, nr. 5": "kst-36410-5",
		// Another word and a hyphen is as likely something else; not an
		// identifier; empty; too long.
		"kv-tk-2024Z01234": "", "obv-gm0363-5a8f1e2c": "", "abc-def": "", "stb": "", "stb-": "", "kst--": "", "stb-2018-84 x": "",
		"BWBR0005537": "", "ECLI:NL:HR:2014:952": "", "2023D41173": "", "CVDR100394_2": "", "": "", " ": "", "\t": "",
		"stb-" + strings.Repeat("1", 300): "",
	})
}

// The identifier of the publication that made a law or regulation, as
// their metadata write it, in its case.
func TestIsDatedID(t *testing.T) {
	for in, want := range map[string]bool{
		"gmb-2016-146361": true, "stcrt-2006-73-p10-SC74601": true, "stb-2018-84": true, "prb-2019-1234": true,
		"kst-36410-5": false, "gmb-": false, "Gmb. 2016, 146361": false, "GMB-2016-146361": false, " gmb-2016-146361": false,
		"Weekblad Soest, 13-09-2011": false, "": false, "gmb-2016-" + strings.Repeat("1", 300): false,
	} {
		if got := IsDatedID(in); got != want {
			t.Errorf("IsDatedID(%q) = %v", in, got)
		}
	}
}

// The real search record cites its Gemeenteblad, and a fetch keeps the
// citation on the document.
func TestCitationRealRecord(t *testing.T) {
	rec := fixture.Read(t, "ob", "sru-record-gmb.fragment.xml")
	r, err := ParseRecord(rec)
	if err != nil || r.Hit.Citation != "Gmb. 2023, 174296" {
		t.Fatalf("%q %v", r.Hit.Citation, err)
	}
	body := `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + string(rec) + `</records></searchRetrieveResponse>`
	p, _, err := ParseSearch([]byte(body))
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Citation != "Gmb. 2023, 174296" {
		t.Fatalf("%+v %v", p, err)
	}
	got, err := ParseLookup([]byte(body), "gmb-2023-174296")
	if err != nil || got.Hit.Citation != "Gmb. 2023, 174296" {
		t.Fatalf("%+v %v", got.Hit, err)
	}
}

// A kamerstuk record, in the real record's shape with the kamerstuk
// fields the live service writes (as platforms/ob/emulator does):
// the vergaderjaar and the chamber come from the record.
func TestCitationKamerstukRecord(t *testing.T) {
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	rec = strings.ReplaceAll(rec, "gmb-2023-174296", "kst-36200-VII-12")
	rec = strings.Replace(rec, `<creator scheme="OVERHEID.Gemeente">Bergeijk</creator>`, `<creator scheme="OVERHEID.StatenGeneraal">Tweede Kamer der Staten-Generaal</creator>`, 1)
	rec = strings.Replace(rec, "<publicatienummer>174296</publicatienummer>", "<dossiernummer>36200-VII</dossiernummer><ondernummer>12</ondernummer><vergaderjaar>2023-2024</vergaderjaar>", 1)
	r, err := ParseRecord([]byte(rec))
	if err != nil || r.Hit.Citation != "Kamerstukken II 2023/24, 36200 VII, nr. 12" {
		t.Fatalf("%q %v", r.Hit.Citation, err)
	}
	// Without the vergaderjaar it is left out, never guessed from the date.
	r, _ = ParseRecord([]byte(strings.Replace(rec, "<vergaderjaar>2023-2024</vergaderjaar>", "", 1)))
	if r.Hit.Citation != "Kamerstukken II, 36200 VII, nr. 12" {
		t.Fatalf("%q", r.Hit.Citation)
	}
}

// The surface's fetch carries the record's citation on the document.
func TestCitationFetch(t *testing.T) {
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	lookup := []byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`)
	env := adapters.Env{Memo: new(adapters.Memo), Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) {
		if strings.HasPrefix(r.Path, FRBRPrefix) {
			return fixture.Read(t, "ob", "op-stcrt-2015-47076.xml"), nil
		}
		return lookup, nil
	}}
	d, err := Surface(func() []string { return publicBases(t) }).Fetch(context.Background(), env, "gmb-2023-174296", "")
	if err != nil || d.Citation != "Gmb. 2023, 174296" || d.Text == "" {
		t.Fatalf("%q %v", d.Citation, err)
	}
}
