package cvdr

import (
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

func TestParseRegulationFixtures(t *testing.T) {
	d, err := ParseRegulation(fixture.Read(t, "cvdr", "CVDR100394_2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "CVDR100394_2" || d.Title != "Beleidsregels verkeersveiligheid en parkeren" || d.Source != "Kampen" || d.Type != "regeling" ||
		d.Date != "2016-10-27" || d.URL != "https://lokaleregelgeving.overheid.nl/CVDR100394/2" ||
		d.Meta["organisation_type"] != "Gemeente" || d.Meta["concerns"] != "wijz. hfst 1 t/m 4" || d.Meta["ratified_by"] != "college van burgemeester en wethouders" {
		t.Fatalf("%+v", d)
	}
	var refs []string
	for _, r := range d.References {
		refs = append(refs, r.Platform+":"+r.ID+":"+r.Relation)
	}
	if got := strings.Join(refs, " "); got != "bwb:BWBR0004825:rests_on cvdr:CVDR77862_1:rests_on ob:gmb-2016-146361:published_as" {
		t.Fatal(got)
	}
	if !strings.Contains(d.Text, "5.Gehandicaptenparkeerplaatsen\nVerzoek om een gehandicaptenparkeerplaats") || strings.Contains(d.Text, "16ADV00361") {
		t.Fatalf("text with metadata or without its chapters:\n%s", d.Text)
	}

	old, err := ParseRegulation(fixture.Read(t, "cvdr", "112779_1.xml"))
	if err != nil {
		t.Fatal(err)
	}
	// The older form: no prefix, a publication outside Officiële
	// Bekendmakingen, a source in the CVDR:// form.
	if old.ID != "112779_1" || old.Source != "Spijkenisse" || old.Meta["in_force_until"] != "2012-04-25" ||
		old.Meta["published_in"] != "Weekblad Spijkenisse, 13-09-2011" || old.URL != "https://lokaleregelgeving.overheid.nl/CVDR112779/1" ||
		len(old.References) != 1 || old.References[0].ID != "CVDR90740_1" || old.References[0].Platform != "cvdr" {
		t.Fatalf("%+v", old)
	}
	if !strings.Contains(old.Text, "Budgetondersteuning, Inburgering en Sociale Recherche") {
		t.Fatal(old.Text)
	}
}

func TestIDs(t *testing.T) {
	for in, want := range map[string]string{"CVDR100394_2": "CVDR100394_2", "cvdr100394_2": "CVDR100394_2", "112779_1": "CVDR112779_1", " CVDR0077862_01 ": "CVDR77862_1",
		// As the version's page and its citation write it.
		"CVDR100394/2": "CVDR100394_2", "cvdr100394/2": "CVDR100394_2"} {
		if id, err := ParseID(in); err != nil || id.String() != want {
			t.Errorf("%q: %v %v", in, id, err)
		}
	}
	if _, err := ParseID("CVDR100394"); err == nil || !strings.Contains(err.Error(), "not its version") {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "BWBR0001", "../1_1", "CVDR_1", "1_1/../x", "100394/2", "CVDR100394/", "CVDR100394/2/xml", "CVDR100394_2/3"} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	r, err := DocumentRequest("112779_1")
	if err != nil || r.Path != "/cvdr/CVDR112779/1/xml/CVDR112779_1.xml" {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := DocumentRequest("0_1"); err == nil {
		t.Fatal("number zero accepted")
	}
	if r2, err := DocumentRequest("CVDR112779/1"); err != nil || r2.Path != r.Path {
		t.Fatalf("the page's form reads %+v, not %+v: %v", r2, r, err)
	}
	for in, want := range map[string]string{"1.1:CVDR77862_1": "CVDR77862_1", "CVDR://90740_1": "CVDR90740_1", "CVDR:267366_1": "CVDR267366_1"} {
		if id, ok := ParseReference(in); !ok || id != want {
			t.Errorf("%s: %s %v", in, id, ok)
		}
	}
	if _, ok := ParseReference("http://wetten.overheid.nl/BWBR0004825/"); ok {
		t.Fatal("a law read as a local regulation")
	}
}

// A prompt takes a version in each form cvdr_fetch takes, as written;
// the citation this package writes holds one of them.
func TestRecognize(t *testing.T) {
	refcheck.Check(t, recognize, map[string]string{
		"CVDR100394_2": "CVDR100394_2", "cvdr100394_2": "cvdr100394_2", "112779_1": "112779_1", " CVDR100394_2\n": "CVDR100394_2",
		"CVDR100394/2": "CVDR100394/2", "Cvdr100394/2": "Cvdr100394/2",
		"": "", " ": "", "\t": "", "CVDR100394": "", "CVDR0_1": "", "100394/2": "", "CVDR:100394_2": "", "CVDR://90740_1": "",
		"CVDR100394_2 x": "", "BWBR0005537": "", "CVDR" + strings.Repeat("1", 300) + "_1": "",
	})
	c := Citation("Verordening", "Soest", "CVDR101010_2", "")
	number := c[strings.Index(c, "(")+1 : strings.Index(c, ")")]
	if id, ok := recognize(number); !ok {
		t.Fatalf("the number %q of the citation %q is not taken (%q)", number, c, id)
	}
}

func TestSearchRequest(t *testing.T) {
	r, err := SearchRequest(SearchParams{Words: "parkeren", Organisation: "Kampen", InForceOn: "2020-01-01", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/sru/Search?", "x-connection=cvdr", "version=1.2", "keyword+all+%22parkeren%22",
		"dcterms.creator%3D%22Kampen%22", "overheidrg.inwerkingtredingDatum%3C%3D2020-01-01", "maximumRecords=10"} {
		if !strings.Contains(r.Path, want) {
			t.Errorf("%s lacks %s", r.Path, want)
		}
	}
	for _, bad := range []SearchParams{{Limit: 10}, {Words: "x", Limit: 51}, {Words: "x", Limit: 1, Offset: -1}, {Organisation: "x", InForceOn: "2020-13-01", Limit: 1}} {
		if _, err := SearchRequest(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// searchAnswer wraps the fixtures' metadata in a record of the shape the
// SRU service sends (docs/emulators.md: KOOP's envelope, the <meta> as
// in the regulation's XML, enrichedData as public clients read it).
func searchAnswer(t *testing.T, names ...string) []byte {
	var recs strings.Builder
	for _, n := range names {
		b := string(fixture.Read(t, "cvdr", n))
		m := b[strings.Index(b, "<meta"):]
		m = m[:strings.Index(m, "</meta>")+len("</meta>")]
		recs.WriteString(`<srw:record><srw:recordData><gzd><originalData>` + m + `</originalData><enrichedData><organisatietype>Gemeente</organisatietype>` +
			`<preferred_url>https://lokaleregelgeving.overheid.nl/X/1</preferred_url></enrichedData></gzd></srw:recordData></srw:record>`)
	}
	return []byte(`<srw:searchRetrieveResponse xmlns:srw="http://www.loc.gov/zing/srw/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:overheidrg="http://standaarden.overheid.nl/cvdr/meta/" xmlns:overheid="http://standaarden.overheid.nl/owms/terms/"><srw:numberOfRecords>2</srw:numberOfRecords><srw:records>` +
		recs.String() + `</srw:records></srw:searchRetrieveResponse>`)
}

func TestParseSearch(t *testing.T) {
	body := searchAnswer(t, "CVDR100394_2.xml", "112779_1.xml")
	p, err := ParseSearch(body, "")
	if err != nil || len(p.Hits) != 2 || p.TotalApprox {
		t.Fatalf("%+v %v", p, err)
	}
	if h := p.Hits[0]; h.ID != "CVDR100394_2" || h.Source != "Kampen" || h.URL != "https://lokaleregelgeving.overheid.nl/X/1" ||
		h.Snippet != "In force from 2016-10-27; wijz. hfst 1 t/m 4; ruimtelijke ordening, verkeer en vervoer" {
		t.Fatalf("%+v", h)
	}
	// In force on a day: the Spijkenisse list ran from 2011-09-14 to
	// 2012-04-25, the Kampen rules from 2016-10-27.
	for on, want := range map[string]string{"2012-01-01": "112779_1", "2012-04-25": "", "2020-01-01": "CVDR100394_2", "2011-09-13": ""} {
		p, err := ParseSearch(body, on)
		var ids []string
		for _, h := range p.Hits {
			ids = append(ids, h.ID)
		}
		if err != nil || strings.Join(ids, " ") != want || !p.TotalApprox {
			t.Errorf("in force on %s: %v %v", on, ids, err)
		}
	}
}

func TestFetch(t *testing.T) {
	var calls []string
	get := func(r adapters.Request) ([]byte, error) {
		calls = append(calls, r.Path)
		if r.Path == "/cvdr/CVDR100394/2/xml/CVDR100394_2.xml" {
			return fixture.Read(t, "cvdr", "CVDR100394_2.xml"), nil
		}
		return nil, &adapters.RouteError{Platform: "cvdr", Kind: adapters.KindNotFound, Status: 404}
	}
	if d, err := Fetch(get, "cvdr100394_2"); err != nil || d.ID != "CVDR100394_2" {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := Fetch(get, "CVDR100394_9"); !errors.Is(err, adapters.ErrNoDocument) || !strings.Contains(err.Error(), "no regulation version CVDR100394_9") {
		t.Fatal(err)
	}
	calls = nil
	var inv *adapters.InvalidError
	if _, err := Fetch(get, "CVDR100394"); !errors.As(err, &inv) || len(calls) != 0 {
		t.Fatalf("%v %v", err, calls)
	}
}

func TestReferenceToZeroIsNone(t *testing.T) {
	for _, s := range []string{"CVDR:0_1", "CVDR://12_0"} {
		if id, ok := ParseReference(s); ok {
			t.Errorf("%s read as %s", s, id)
		}
	}
}
