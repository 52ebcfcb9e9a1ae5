package rechtspraak

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

func TestParseSearchFixture(t *testing.T) {
	p, err := ParseSearch(fixture.Read(t, "rechtspraak", "zoeken.atom.xml"), SearchParams{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 3199182 || !p.HasMore || len(p.Hits) != 3 {
		t.Fatalf("page = %+v", p)
	}
	h := p.Hits[0]
	if h.ID != "ECLI:NL:RBARN:1998:AA1005" || h.Source != "Rechtbank Arnhem" || h.Date != "1998-12-07" ||
		h.Snippet != "" || h.URL != "https://uitspraken.rechtspraak.nl/InzienDocument?id=ECLI:NL:RBARN:1998:AA1005" {
		t.Fatalf("hit = %+v", h)
	}
	e, err := ParseSearch(fixture.Read(t, "rechtspraak", "zoeken-empty.atom.xml"), SearchParams{Offset: 1000, Limit: 10})
	if err != nil || len(e.Hits) != 0 || e.HasMore {
		t.Fatalf("empty = %+v, %v", e, err)
	}
}

func TestParseContentFixture(t *testing.T) {
	d, err := ParseContent(fixture.Read(t, "rechtspraak", "content.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "ECLI:NL:RBDHA:2013:15631" || d.Source != "Rechtbank Den Haag" || d.Date != "2013-07-03" ||
		d.Meta["case_number"] != "SGR 12/5055" || !strings.Contains(d.Meta["legal_area"], "Belastingrecht") {
		t.Fatalf("doc = %+v", d)
	}
	if !strings.HasPrefix(d.Text, "Inhoudsindicatie:\nBpm. Uitsluitend de heffingsrente") ||
		!strings.Contains(d.Text, "RECHTBANK DEN HAAG") || !strings.Contains(d.Text, "zaaknummer: SGR 12/5055") {
		t.Fatalf("text:\n%s", d.Text)
	}
	if _, err := ParseContent([]byte("<html>nope</html>")); err == nil {
		t.Fatal("accepted html")
	}
}

func TestParseListFixtures(t *testing.T) {
	inst, err := ParseList(fixture.Read(t, "rechtspraak", "waardelijst-instanties.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inst) != 5 || inst[0].Key != "http://psi.rechtspraak.nl/agam" || inst[0].Label != "Ambtenarengerecht Amsterdam" ||
		inst[0].Extra["afkorting"] != "AGAMS" || inst[0].Extra["begindate"] != "1913-01-01" {
		t.Fatalf("instanties = %+v", inst)
	}
	rg, err := ParseList(fixture.Read(t, "rechtspraak", "waardelijst-rechtsgebieden.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rg) != 2 {
		t.Fatalf("rechtsgebieden = %+v", rg)
	}
	var sub bool
	for _, it := range rg {
		if it.Label == "Ambtenarenrecht" && it.Extra["parent"] == "http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht" {
			sub = true
		}
	}
	if !sub {
		t.Fatalf("sub-area lost its parent: %+v", rg)
	}
}

func TestChecks(t *testing.T) {
	for _, ok := range []string{"ECLI:NL:HR:2014:952", "ecli:nl:rbdha:2013:15631", "ECLI:NL:RBARN:1998:AA1005"} {
		if _, err := ValidECLI(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "NL:HR:2014:952", "ECLI:NL:HR:14:952", "ECLI:NL:HR:2014:"} {
		if _, err := ValidECLI(bad); err == nil || !strings.Contains(err.Error(), "ECLI:NL:HR:2014:952") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	r, err := SearchRequest(SearchParams{Creators: []string{"http://psi.rechtspraak.nl/HR"}, DateFrom: "2024-01-01", DateTo: "2024-02-01", Limit: 10})
	if err != nil || r.Path != "/uitspraken/zoeken?creator=http%3A%2F%2Fpsi.rechtspraak.nl%2FHR&date=2024-01-01&date=2024-02-01&from=0&max=10&return=DOC" {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := SearchRequest(SearchParams{Limit: 5000}); err == nil {
		t.Fatal("limit 5000 accepted")
	}
	if _, err := ListRequest("Gerechten"); err == nil || !strings.Contains(err.Error(), "Instanties") {
		t.Fatal(err)
	}
	c, _ := ContentRequest("ECLI:NL:HR:2014:952", true)
	if c.Path != "/uitspraken/content?id=ECLI%3ANL%3AHR%3A2014%3A952&return=META" {
		t.Fatal(c.Path)
	}
}

// A prompt takes an ECLI as ValidECLI does, in upper case.
func TestRecognize(t *testing.T) {
	recognize := Surface(nil).Recognize
	refcheck.Check(t, recognize, map[string]string{
		"ECLI:NL:HR:2014:952": "ECLI:NL:HR:2014:952", "ecli:nl:hr:2014:952": "ECLI:NL:HR:2014:952", " Ecli:NL:RBDHA:2013:15631\n": "ECLI:NL:RBDHA:2013:15631",
		"ECLI:NL:RBARN:1998:AA1005": "ECLI:NL:RBARN:1998:AA1005",
		"":                          "", " ": "", "\t": "", "NL:HR:2014:952": "", "ECLI:NL:HR:14:952": "", "ECLI:NL:HR:2014:": "", "ECLI:NL:HR:2014:952 en meer": "",
		"rechtspraak:ECLI:NL:HR:2014:952": "", "BWBR0005537": "", "ECLI:NL:HR:2014:" + strings.Repeat("9", 300): "",
	})
}

// The feed does not mark conclusies; hits are labelled only by what is
// known: the type the search asked for, or the Parket bij de Hoge Raad.
func TestHitTypes(t *testing.T) {
	feed := fixture.Read(t, "rechtspraak", "zoeken.atom.xml")
	for _, c := range []struct{ searchType, want string }{{"", ""}, {"Uitspraak", "uitspraak"}, {"Conclusie", "conclusie"}} {
		p, err := ParseSearch(feed, SearchParams{Type: c.searchType, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range p.Hits {
			if h.Type != c.want {
				t.Errorf("type=%q: hit %s labelled %q, want %q", c.searchType, h.ID, h.Type, c.want)
			}
		}
	}
	// The real feed's entry, for a PHR ECLI.
	phr := strings.ReplaceAll(string(feed), "ECLI:NL:RBARN:1998:AA1005", "ECLI:NL:PHR:2023:512")
	p, err := ParseSearch([]byte(phr), SearchParams{Limit: 3})
	if err != nil || p.Hits[0].Type != "conclusie" || p.Hits[1].Type != "" {
		t.Fatalf("%+v %v", p.Hits, err)
	}
}

// A document names its type in dcterms:type (resourceIdentifier
// http://psi.rechtspraak.nl/uitspraak in the real content.xml); a conclusie
// says .../conclusie, and without dcterms:type its root element counts.
func TestContentTypes(t *testing.T) {
	real := string(fixture.Read(t, "rechtspraak", "content.xml"))
	d, err := ParseContent([]byte(real))
	if err != nil || d.Type != "uitspraak" {
		t.Fatalf("uitspraak: %q %v", d.Type, err)
	}
	concl := strings.ReplaceAll(real, "http://psi.rechtspraak.nl/uitspraak\">Uitspraak", "http://psi.rechtspraak.nl/conclusie\">Conclusie")
	concl = strings.ReplaceAll(strings.ReplaceAll(concl, "<uitspraak", "<conclusie"), "</uitspraak>", "</conclusie>")
	if d, err := ParseContent([]byte(concl)); err != nil || d.Type != "conclusie" || !strings.Contains(d.Text, "RECHTBANK DEN HAAG") {
		t.Fatalf("conclusie: %q %v", d.Type, err)
	}
	// Without dcterms:type the root element decides.
	untyped := regexp.MustCompile(`<dcterms:type[^>]*>[^<]*</dcterms:type>`).ReplaceAllString(concl, "")
	if d, err := ParseContent([]byte(untyped)); err != nil || d.Type != "conclusie" {
		t.Fatalf("untyped conclusie: %q %v", d.Type, err)
	}
}

// FindECLIs reads ECLIs out of free text as ValidECLI accepts them: any
// case in, upper case out, each once, at most n, and nothing that only
// looks like one.
func TestFindECLIs(t *testing.T) {
	text := "zie ecli:nl:hr:2014:952 en ECLI:NL:RBAMS:2023:1234, weer ECLI:NL:HR:2014:952; niet ECLI:NL:HR:14:1 of XECLI:NL:HR:2014:1"
	got := FindECLIs(text, -1)
	want := []string{"ECLI:NL:HR:2014:952", "ECLI:NL:RBAMS:2023:1234"}
	if !slices.Equal(got, want) {
		t.Fatalf("FindECLIs = %q, want %q", got, want)
	}
	if got := FindECLIs(text, 1); !slices.Equal(got, want[:1]) {
		t.Fatalf("FindECLIs(n=1) = %q", got)
	}
	for _, e := range got {
		if _, err := ValidECLI(e); err != nil {
			t.Fatalf("found %q that ValidECLI refuses: %v", e, err)
		}
	}
}

// The laws a ruling cites are references bwb_fetch reads as given
// (fixtures/rechtspraak's content.xml cites two laws and a local
// regulation).
func TestContentReferences(t *testing.T) {
	d, err := ParseContent(fixture.Read(t, "rechtspraak", "content.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range d.References {
		got = append(got, r.Platform+":"+r.ID+":"+r.Article+":"+r.Date+":"+r.Relation)
	}
	want := "bwb:BWBR0002320:30f:2013-07-03:cites bwb:BWBR0001833:11:2013-07-03:cites cvdr:CVDR267366_1:::cites"
	if strings.Join(got, " ") != want {
		t.Fatalf("%v", got)
	}
	if d.References[0].Label != "Algemene wet inzake rijksbelastingen 30f" {
		t.Fatal(d.References[0].Label)
	}
}
