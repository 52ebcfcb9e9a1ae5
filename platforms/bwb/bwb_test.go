package bwb

import (
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

func manifest(t *testing.T) Manifest {
	t.Helper()
	m, err := ParseManifest(fixture.Read(t, "bwb", "manifest-BWBR0045754.xml"), "BWBR0045754")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestManifestFixture(t *testing.T) {
	m := manifest(t)
	if len(m.Versions) != 4 || m.Latest != "2023-04-01_0" {
		t.Fatalf("%+v", m)
	}
	first := m.Versions[0]
	if first.Label != "2022-05-01_0" || first.From != "2022-05-01" || first.Until != "2022-07-31" || first.Item != "BWBR0045754_2022-05-01_0.xml" {
		t.Fatalf("%+v", first)
	}
	for date, want := range map[string]string{"2022-05-01": "2022-05-01_0", "2022-07-31": "2022-05-01_0", "2022-08-01": "2022-08-01_0",
		"2023-03-31": "2023-02-18_0", "2030-01-01": "2023-04-01_0"} {
		if v, err := m.InForceOn(date); err != nil || v.Label != want {
			t.Errorf("in force on %s: %+v %v", date, v, err)
		}
	}
	_, err := m.InForceOn("2021-12-31")
	var de *DateError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "not yet in force on 2021-12-31") || !strings.Contains(err.Error(), "2022-05-01") {
		t.Fatalf("before the first version: %v", err)
	}
	if v := m.Current("2021-01-01"); v.Label != "2023-04-01_0" {
		t.Fatalf("current before it existed: %+v", v)
	}
	r, err := ToestandRequest("BWBR0045754", m.Versions[3])
	if err != nil || r.Path != "/bwb/BWBR0045754/2023-04-01_0/xml/BWBR0045754_2023-04-01_0.xml" {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := ParseManifest(fixture.Read(t, "bwb", "manifest-BWBR0045754.xml"), "BWBR0008326"); err == nil {
		t.Fatal("another regulation's manifest accepted")
	}
}

func toestand(t *testing.T, name string) *Toestand {
	t.Helper()
	ts, err := ParseToestand(fixture.Read(t, "bwb", name))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestToestandFixtures(t *testing.T) {
	small := toestand(t, "toestand-BWBR0003984_1986-06-26.xml")
	if small.ID != "BWBR0003984" || small.InForce != "1986-06-26" || small.Kind != "ministeriele-regeling" ||
		small.Title != "Vaststelling nummers kandidatenlijsten centrales van overheidspersoneel" {
		t.Fatalf("%+v", small)
	}
	text := small.Text()
	if !strings.Contains(text, "Artikel 1\nBij verkiezingen op grond van artikel 124 van het Algemeen Rijksambtenarenreglement") ||
		strings.Contains(text, "AB86/U760") || strings.Contains(text, "jci1.3") {
		t.Fatalf("text with metadata or without its articles:\n%s", text)
	}
	pubs := small.Publications()
	if len(pubs) != 1 || pubs[0].Label != "Stcrt. 1986, 120" || pubs[0].OBID != "stcrt-1986-120" || pubs[0].Issued != "1986-06-26" || pubs[0].Effect != "nieuwe-regeling" {
		t.Fatalf("%+v", pubs)
	}

	big := toestand(t, "toestand-BWBR0008326_2011-01-01.xml")
	if big.Title != "Regeling belastingcapaciteit" {
		t.Fatal(big.Title)
	}
	var labels []string
	for _, p := range big.Publications() {
		labels = append(labels, p.Label+"="+p.OBID)
	}
	if got := strings.Join(labels, " "); got != "Stcrt. 1996, 239=stcrt-1996-239 Stcrt. 2006, 73=stcrt-2006-73-p10-SC74601 Stcrt. 2006, 45=stcrt-2006-45-p12-SC74024 Supplement-Stcrt. 2001, 214=" {
		t.Fatal(got)
	}
	// The version of 2011-01-01 brings no text of its own: the last
	// change in force before it (article 1, 2006-04-14) is where it came
	// from.
	if s := big.Sources(); len(s) != 1 || s[0].OBID != "stcrt-2006-73-p10-SC74601" {
		t.Fatalf("%+v", s)
	}
	refs := References(big.Publications())
	if len(refs) != 3 || refs[0].Relation != adapters.RelEnactedBy || refs[1].Relation != adapters.RelAmendedBy || refs[0].Platform != "ob" {
		t.Fatalf("%+v", refs)
	}
}

func TestParts(t *testing.T) {
	big := toestand(t, "toestand-BWBR0008326_2011-01-01.xml")
	a, err := big.Article("Artikel 3", "")
	if err != nil || a.Label != "Artikel 3" || a.InForce != "2006-03-08" || !strings.HasPrefix(a.Text, "Artikel 3\n") ||
		len(a.Sources) != 1 || a.Sources[0].OBID != "stcrt-2006-45-p12-SC74024" {
		t.Fatalf("%+v %v", a, err)
	}
	if strings.Contains(a.Text, "Artikel 4") {
		t.Fatal("article 3 runs into article 4")
	}
	// Within a chapter, and a chapter by its sign.
	if a, err := big.Article("5", "§ 3"); err != nil || a.Label != "Artikel 5" {
		t.Fatalf("%+v %v", a, err)
	}
	ch, err := big.Chapter("paragraaf 2")
	if err != nil || ch.Label != "§ 2" || !strings.Contains(ch.Text, "Artikel 2") || !strings.Contains(ch.Text, "Artikel 4") || strings.Contains(ch.Text, "Artikel 5") {
		t.Fatalf("%+v %v", ch.Label, err)
	}
	if b, err := big.Chapter("bijlage 2"); err != nil || b.Label != "Bijlage 2" || b.Sources[0].Label != "Supplement-Stcrt. 2001, 214" {
		t.Fatalf("%+v %v", b.Label, err)
	}
	// Not there: the error names what there is.
	_, err = big.Article("7", "")
	var pe *PartError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `no article "7"`) || !strings.Contains(err.Error(), "it has: 1, 2, 3, 4, 5, 6") {
		t.Fatalf("%v", err)
	}
	if _, err := big.Article("5", "§ 1"); err == nil || !strings.Contains(err.Error(), "it has: 1") {
		t.Fatalf("article outside its chapter: %v", err)
	}
	if _, err := big.Chapter("Hoofdstuk 9"); err == nil || !strings.Contains(err.Error(), `no hoofdstuk "Hoofdstuk 9": this version has none`) {
		t.Fatalf("%v", err)
	}
	if _, err := big.Chapter("9"); err == nil || !strings.Contains(err.Error(), "§ 1, § 2, § 3, Bijlage 1, Bijlage 2") {
		t.Fatalf("%v", err)
	}
}

func TestSearchRequest(t *testing.T) {
	r, err := SearchRequest(SearchParams{Words: `belasting "capaciteit"`, Type: "MINISTERIELE-regeling", InForceOn: "2011-06-01", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/sru/Search?", "x-connection=BWB", "version=1.2", "maximumRecords=5", "startRecord=1",
		"overheidbwb.titel+all+%22belasting+%5C%22capaciteit%5C%22%22", "dcterms.type%3D%3Dministeriele-regeling", "overheidbwb.geldigheidsdatum%3D%3D2011-06-01"} {
		if !strings.Contains(r.Path, want) {
			t.Errorf("%s lacks %s", r.Path, want)
		}
	}
	for _, bad := range []SearchParams{{Limit: 5}, {Words: "x", Limit: 0}, {Words: "x", Limit: 5, Offset: 5000},
		{Words: "x", Type: "decree", Limit: 5}, {Words: "x", InForceOn: "1-1-2020", Limit: 5}, {Words: `"()*`, Limit: 5}} {
		if _, err := SearchRequest(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// The search record's shape is what public clients of KOOP's BWB
// connection read (no recorded answer exists; docs/emulators.md).
func TestParseSearch(t *testing.T) {
	rec := `<srw:record><srw:recordData><gzd:gzd><gzd:originalData><overheidbwb:meta><owmskern>` +
		`<dcterms:identifier>%s</dcterms:identifier><dcterms:title>Regeling belastingcapaciteit</dcterms:title>` +
		`<dcterms:type>ministeriele-regeling</dcterms:type><overheid:authority>Binnenlandse Zaken</overheid:authority></owmskern>` +
		`<bwbipm><overheidbwb:rechtsgebied>belastingrecht</overheidbwb:rechtsgebied><overheidbwb:geldigheidsperiode_startdatum>2011-01-01</overheidbwb:geldigheidsperiode_startdatum>` +
		`<overheidbwb:geldigheidsperiode_einddatum>9999-12-31</overheidbwb:geldigheidsperiode_einddatum></bwbipm></overheidbwb:meta></gzd:originalData></gzd:gzd></srw:recordData></srw:record>`
	body := `<srw:searchRetrieveResponse xmlns:srw="http://www.loc.gov/zing/srw/"><srw:numberOfRecords>3</srw:numberOfRecords><srw:records>` +
		strings.ReplaceAll(rec, "%s", "BWBR0008326") + strings.ReplaceAll(rec, "%s", "BWBR0008326") + strings.ReplaceAll(rec, "%s", "../x") +
		`</srw:records></srw:searchRetrieveResponse>`
	p, err := ParseSearch([]byte(body))
	if err != nil || len(p.Hits) != 1 || !p.TotalApprox || p.HasMore {
		t.Fatalf("%+v %v", p, err)
	}
	h := p.Hits[0]
	if h.ID != "BWBR0008326" || h.Type != "ministeriele-regeling" || h.Source != "Binnenlandse Zaken" || h.Date != "2011-01-01" ||
		h.Snippet != "In force from 2011-01-01; legal area: belastingrecht" || h.URL != "https://wetten.overheid.nl/BWBR0008326" {
		t.Fatalf("%+v", h)
	}
}

// A prompt takes a BWB identifier as ValidID does, in upper case; a
// reference with more than the identifier is the search's.
func TestRecognize(t *testing.T) {
	recognize := Surface().Recognize
	refcheck.Check(t, recognize, map[string]string{
		"BWBR0005537": "BWBR0005537", "bwbr0005537": "BWBR0005537", " BwbV0001000\n": "BWBV0001000",
		"": "", " ": "", "\t": "", "BWBR000553": "", "BWBR00055370": "", "BWBX0005537": "", "BWBR0005537 artikel 3": "",
		"http://wetten.overheid.nl/BWBR0004825/": "", "bwb:BWBR0005537": "", "BWBR" + strings.Repeat("0", 300): "",
	})
}

func TestParseReference(t *testing.T) {
	for in, want := range map[string][3]string{
		"http://wetten.overheid.nl/BWBR0004825/":                       {"BWBR0004825", "", ""},
		"1.0:v:BWB:BWBR0002320&artikel=30f&g=2013-07-03":               {"BWBR0002320", "30f", "2013-07-03"},
		"jci1.3:c:BWBR0001950&artikel=129b":                            {"BWBR0001950", "129b", ""},
		"https://wetten.overheid.nl/jci1.3:c:BWBR0005537&artikel=3:40": {"BWBR0005537", "3:40", ""},
	} {
		id, art, date, ok := ParseReference(in)
		if !ok || [3]string{id, art, date} != want {
			t.Errorf("%s: %s %s %s %v", in, id, art, date, ok)
		}
	}
	if _, _, _, ok := ParseReference("1.1:CVDR77862_1"); ok {
		t.Fatal("a CVDR reference read as a law")
	}
}

// fakeRepository answers the manifest of id (the real one of
// BWBR0045754, relabelled) and each of its versions with the real toestand
// of BWBR0008326, relabelled and dated, counting the calls.
func fakeRepository(t *testing.T, calls *[]string) func(adapters.Request) ([]byte, error) {
	man := strings.ReplaceAll(string(fixture.Read(t, "bwb", "manifest-BWBR0045754.xml")), "BWBR0045754", "BWBR0008326")
	text := string(fixture.Read(t, "bwb", "toestand-BWBR0008326_2011-01-01.xml"))
	return func(r adapters.Request) ([]byte, error) {
		*calls = append(*calls, r.Path)
		switch {
		case r.Path == "/bwb/BWBR0008326/manifest.xml":
			return []byte(man), nil
		case strings.HasPrefix(r.Path, "/bwb/BWBR0008326/"):
			date := strings.SplitN(strings.TrimPrefix(r.Path, "/bwb/BWBR0008326/"), "_", 2)[0]
			return []byte(strings.Replace(text, `inwerkingtreding="2011-01-01"`, `inwerkingtreding="`+date+`"`, 1)), nil
		}
		return nil, &adapters.RouteError{Platform: "bwb", Kind: adapters.KindNotFound, Status: 404}
	}
}

func TestFetch(t *testing.T) {
	var calls []string
	get := fakeRepository(t, &calls)
	law, err := Fetch(get, FetchParams{ID: "bwbr0008326", Date: "2022-09-01", Article: "art. 3"}, "2024-01-01")
	if err != nil {
		t.Fatal(err)
	}
	d := law.Document
	if law.Version.Label != "2022-08-01_0" || d.Meta["in_force_from"] != "2022-08-01" || d.Meta["in_force_until"] != "2023-02-17" ||
		d.Meta["part"] != "Artikel 3" || d.Meta["came_from"] != "Stcrt. 2006, 45" || d.URL != "https://wetten.overheid.nl/BWBR0008326/2022-08-01" ||
		!strings.HasPrefix(d.Text, "Artikel 3") || len(d.References) != 1 || d.References[0].ID != "stcrt-2006-45-p12-SC74024" {
		t.Fatalf("%+v", law)
	}
	if len(calls) != 2 {
		t.Fatalf("calls: %v", calls)
	}
	// Without a date, today's version, whole.
	law, err = Fetch(get, FetchParams{ID: "BWBR0008326"}, "2023-03-01")
	if err != nil || law.Version.Label != "2023-02-18_0" || law.Part != nil || !strings.Contains(law.Document.Text, "Bijlage 2") {
		t.Fatalf("%+v %v", law.Version, err)
	}

	// Bad input: no call where none is needed.
	calls = nil
	for _, p := range []FetchParams{{ID: "BWB0008326"}, {ID: "../etc/passwd"}, {ID: "BWBR0008326", Date: "1 mei 2022"}, {ID: "BWBR0008326", Article: "artikel"}} {
		var inv *adapters.InvalidError
		if _, err := Fetch(get, p, "2024-01-01"); !errors.As(err, &inv) {
			t.Errorf("%+v: %v", p, err)
		}
	}
	if len(calls) != 0 {
		t.Fatalf("bad input cost calls: %v", calls)
	}
	// A date before the regulation existed: the manifest only.
	_, err = Fetch(get, FetchParams{ID: "BWBR0008326", Date: "1990-01-01"}, "2024-01-01")
	var de *DateError
	if !errors.As(err, &de) || len(calls) != 1 {
		t.Fatalf("%v %v", err, calls)
	}
	// An unknown regulation, an article it does not have.
	if _, err := Fetch(get, FetchParams{ID: "BWBR0000001"}, "2024-01-01"); !errors.Is(err, adapters.ErrNoDocument) || !strings.Contains(err.Error(), "no regulation BWBR0000001") {
		t.Fatalf("%v", err)
	}
	var pe *PartError
	if _, err := Fetch(get, FetchParams{ID: "BWBR0008326", Article: "99"}, "2024-01-01"); !errors.As(err, &pe) {
		t.Fatalf("%v", err)
	}
}
