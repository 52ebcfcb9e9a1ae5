package fanout

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/subcall"
)

// readFixture reads a real platform payload from testdata/fixtures (see
// its README): <platform>/<file>.
func readFixture(t *testing.T, name string) string {
	t.Helper()
	platform, file, _ := strings.Cut(name, "/")
	return string(fixture.Read(t, platform, file))
}

// TestDedupKamerstukAndECLI: the real SRU record (gmb-2023-174296) made
// into a kamerstuk (identifier, preferredUrl and itemUrls kst-36200-VII-12,
// as OB writes kamerstukken) and an OpenTK hit whose link is OpenTK's
// /op/<official-publication id> redirect for the same kamerstuk fold into
// one hit led by OB; a Rechtspraak hit (the real content.xml's ECLI) and
// an ORI hit whose link names that ECLI fold into one led by Rechtspraak.
func TestDedupKamerstukAndECLI(t *testing.T) {
	rec := strings.ReplaceAll(readFixture(t, "ob/sru-record-gmb.fragment.xml"), "gmb-2023-174296", "kst-36200-VII-12")
	rec = strings.ReplaceAll(rec, "officielepublicaties/gmb/2023/", "officielepublicaties/kst/36200-VII/")
	sru := `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`
	content := readFixture(t, "rechtspraak/content.xml")
	const ecli = "ECLI:NL:RBDHA:2013:15631"
	if !strings.Contains(content, ecli) {
		t.Fatalf("content.xml is not the ruling %s any more", ecli)
	}
	opentkJSON := `{"results":[{"nummer":"2023D41173","datum":"2023-04-19T00:00:00","category":"Document","onderwerp":"Vaststelling begroting","snip":"...","relurl":"op/kst-36200-VII-12"},
		{"nummer":"2023D00001","datum":"2023-01-02T00:00:00","category":"Document","onderwerp":"Andere brief","snip":"...","relurl":"document.html?nummer=2023D00001"}],"milliseconds":3}`
	oriJSON := `{"hits":{"total":{"value":1},"hits":[{"_id":"77","_index":"ori_utrecht_1","_source":{"name":"Raadsvoorstel na uitspraak","last_discussed_at":"2014-05-01T00:00:00","original_url":"https://uitspraken.rechtspraak.nl/InzienDocument?id=` + ecli + `"}}]}}`
	do := func(_ context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
		body := map[string]string{"ob": sru, "opentk": opentkJSON, "rechtspraak": content, "ori": oriJSON}[platform]
		if platform == "ori" && !strings.Contains(req.Path, "_search") {
			return &subcall.Answer{Status: 404}, nil // organisation names: none
		}
		return &subcall.Answer{Status: 200, Body: []byte(body)}, nil
	}
	e, _ := engine(t, do, "opentk", "ob", "rechtspraak", "ori")
	res := e.Search(context.Background(), Query{Words: "begroting " + ecli}, nil)
	for _, o := range res.Outcomes {
		if o.State != StateAnswered {
			t.Fatalf("%s: %s %s", o.Platform, o.State, o.Error)
		}
	}
	byID := map[string]Hit{}
	for _, h := range res.Hits {
		byID[h.Platform+" "+h.ID] = h
	}
	kst, ok := byID["ob kst-36200-VII-12"]
	if !ok || len(kst.Also) != 1 || kst.Also[0].Platform != "opentk" || kst.Also[0].ID != "2023D41173" {
		t.Errorf("kamerstuk: %+v, want OB's hit with OpenTK's 2023D41173 in also (hits %v)", kst, keys(byID))
	}
	r, ok := byID["rechtspraak "+ecli]
	if !ok || len(r.Also) != 1 || r.Also[0].Platform != "ori" {
		t.Errorf("ruling: %+v, want Rechtspraak's hit with ORI's in also (hits %v)", r, keys(byID))
	}
	if _, ok := byID["opentk 2023D00001"]; !ok || len(res.Hits) != 3 {
		t.Errorf("hits %v: want the kamerstuk, the ruling and OpenTK's other letter", keys(byID))
	}
	// Every hit, and every duplicate folded into also, names its document
	// as a resource: its platform's besluitbron:// URI for its id.
	for _, h := range res.Hits {
		if want := e.surfaces[h.Platform].URI(h.ID, h.Type); h.URI != want || !strings.HasPrefix(h.URI, "besluitbron://"+h.Platform+"/") {
			t.Errorf("hit %s %s: uri %q, want %q", h.Platform, h.ID, h.URI, want)
		}
		for _, l := range h.Also {
			if want := e.surfaces[l.Platform].URI(l.ID, ""); l.URI != want || !strings.HasPrefix(l.URI, "besluitbron://"+l.Platform+"/") {
				t.Errorf("also %s %s of %s: uri %q, want %q", l.Platform, l.ID, h.ID, l.URI, want)
			}
		}
	}
}

// TestCitationAndURIInTheAnswer: a platform's citation and resource URI
// reach the merged hit, a folded duplicate keeps its own in also, and a
// lead without a citation takes its duplicate's (the same document). In
// JSON the public page is source_url, as in every platform tool; no
// "url" is left.
func TestCitationAndURIInTheAnswer(t *testing.T) {
	const ecli = "ECLI:NL:RBDHA:2013:15631"
	keys := []string{"rechtspraak", "ori", "ob"}
	per := [][]Hit{
		{hitOf("rechtspraak", "Rechtspraak", adapters.Hit{ID: ecli, Title: "Uitspraak", Citation: ecli,
			URI: "besluitbron://rechtspraak/" + ecli, URL: "https://uitspraken.rechtspraak.nl/details?id=" + ecli})},
		{hitOf("ori", "Open Raadsinformatie", adapters.Hit{ID: "77", Title: "Raadsvoorstel",
			URI: "besluitbron://ori/77", URL: "https://uitspraken.rechtspraak.nl/InzienDocument?id=" + ecli})},
		{hitOf("ob", "Officiële Bekendmakingen", adapters.Hit{ID: "stb-2018-84", Title: "Wet", Citation: "Stb. 2018, 84",
			URI: "besluitbron://ob/stb-2018-84"})},
	}
	hits := Merge(keys, per, SortRelevance)
	if len(hits) != 2 {
		t.Fatalf("hits %+v, want the ruling (ORI folded in) and the law", hits)
	}
	byID := map[string]Hit{}
	for _, h := range hits {
		byID[h.ID] = h
	}
	r := byID[ecli]
	if r.Citation != ecli || r.URI != "besluitbron://rechtspraak/"+ecli || len(r.Also) != 1 || r.Also[0].URI != "besluitbron://ori/77" {
		t.Errorf("ruling %+v", r)
	}
	if law := byID["stb-2018-84"]; law.Citation != "Stb. 2018, 84" || law.URI != "besluitbron://ob/stb-2018-84" {
		t.Errorf("law %+v", law)
	}
	// Officiële Bekendmakingen leads a kamerstuk; when its hit gave no
	// citation, the merged hit carries the one OpenTK gave.
	const kst = "Kamerstukken II 2023/24, 36200-VII, nr. 12"
	folded := Merge([]string{"opentk", "ob"}, [][]Hit{
		{hitOf("opentk", "OpenTK", adapters.Hit{ID: "2023D41173", Citation: kst, URL: "https://www.openkamer.nl/op/kst-36200-VII-12"})},
		{hitOf("ob", "Officiële Bekendmakingen", adapters.Hit{ID: "kst-36200-VII-12", URI: "besluitbron://ob/kst-36200-VII-12"})},
	}, SortRelevance)
	if len(folded) != 1 || folded[0].Platform != "ob" || folded[0].Citation != kst || len(folded[0].Also) != 1 || folded[0].Also[0].Citation != kst {
		t.Errorf("kamerstuk %+v: want OB's hit with OpenTK's citation", folded)
	}
	b, _ := json.Marshal(hits)
	for _, want := range []string{`"source_url":"https://uitspraken.rechtspraak.nl/details?id=` + ecli + `"`, `"citation":"Stb. 2018, 84"`, `"uri":"besluitbron://ori/77"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), `"url"`) {
		t.Errorf("JSON still names a url:\n%s", b)
	}
}

func keys(m map[string]Hit) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestIdentifiers: what counts as the same document.
func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		id, url string
		want    string
	}{
		{"kst-36200-VII-12", "https://zoek.officielebekendmakingen.nl/kst-36200-VII-12.html", "kst:KST-36200-VII-12"},
		{"kst-36200-vii-12", "", "kst:KST-36200-VII-12"},
		{"kst-26100-1", "", "kst:KST-26100-1"},
		{"kst-35979-H", "", "kst:KST-35979-H"},
		{"kst-26100-1-n1", "https://zoek.officielebekendmakingen.nl/kst-26100-1-n1.html", ""},
		{"stb-2018-84", "https://zoek.officielebekendmakingen.nl/stb-2018-84.html", ""},
		{"2023D41173", "https://berthub.eu/tkconv/document.html?nummer=2023D41173", "tkdoc:2023D41173"},
		{"x", "https://berthub.eu/tkconv/op/kst-36200-VII-12", "kst:KST-36200-VII-12"},
		{"x", "https://berthub.eu/tkconv/getdoc/2023d41173", "tkdoc:2023D41173"},
		{"ECLI:NL:HR:2014:952", "", "ecli:ECLI:NL:HR:2014:952"},
		{"document:notubiz:gemeente:soest:12345", "https://api.openbesluitvorming.nl/x", ""},
	} {
		got := strings.Join(identifiers(Hit{ID: tc.id, URL: tc.url}), " ")
		if !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
			t.Errorf("identifiers(%q, %q) = %q, want %q", tc.id, tc.url, got, tc.want)
		}
	}
}

// TestMergeOrder: newest first, undated last; two hits of one platform
// under one identifier stay two hits.
func TestMergeOrder(t *testing.T) {
	keys := []string{"obv", "tk"}
	per := [][]Hit{
		{{Platform: "obv", ID: "a", Date: "2024-01-02"}, {Platform: "obv", ID: "b"}, {Platform: "obv", ID: "c", Date: "2025-05-05T10:00:00"}},
		{{Platform: "tk", ID: "2023D41173", Date: "2024-06-01"}, {Platform: "tk", ID: "2023D41173", Date: "2020-01-01"}},
	}
	var got []string
	for _, h := range Merge(keys, per, SortDate) {
		got = append(got, fmt.Sprintf("%s/%s", h.Platform, h.ID))
	}
	want := "obv/c tk/2023D41173 obv/a tk/2023D41173 obv/b"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// realTKDocument is the real Document object nested in the recorded
// Besluit answer (testdata/fixtures/tk/odata-besluit-expand.json; its v4
// names: DocumentNummer, Volgnummer), as a map to vary.
func realTKDocument(t *testing.T) map[string]any {
	t.Helper()
	var env struct {
		Value []struct {
			Zaak []struct {
				Document []map[string]any `json:"Document"`
			} `json:"Zaak"`
		} `json:"value"`
	}
	if err := json.Unmarshal([]byte(readFixture(t, "tk/odata-besluit-expand.json")), &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Value) == 0 || len(env.Value[0].Zaak) == 0 || len(env.Value[0].Zaak[0].Document) == 0 {
		t.Fatal("no Document in odata-besluit-expand.json")
	}
	return env.Value[0].Zaak[0].Document[0]
}

// TestDedupTKDocumentAndItsPublication: the Gegevensmagazijn's search
// asks for each document's dossier ($expand=Kamerstukdossier with its
// Nummer and Toevoeging), so a TK hit carries its kamerstuk number, and
// the TK document and Officiële Bekendmakingen' publication of
// kst-36200-VII-12 are one hit, led by OB, with TK in also. The
// documents are the real Document object (volgnummer and dossier varied)
// and the real SRU record made into that kamerstuk; the $metadata is the
// TK emulator's for the old version, whose names the real object has.
// Volgnummer 13 of the same dossier, and volgnummer 12 of dossier 36200
// without the addition VII, are other kamerstukken and stay apart.
func TestDedupTKDocumentAndItsPublication(t *testing.T) {
	rec := strings.ReplaceAll(readFixture(t, "ob/sru-record-gmb.fragment.xml"), "gmb-2023-174296", "kst-36200-VII-12")
	rec = strings.ReplaceAll(rec, "officielepublicaties/gmb/2023/", "officielepublicaties/kst/36200-VII/")
	sru := `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`
	doc := func(nummer string, volgnummer int, dossiers ...map[string]any) map[string]any {
		d := realTKDocument(t)
		d["DocumentNummer"], d["Id"] = nummer, "e5a7184c-f464-481f-b2ce-7921910"+nummer[5:]
		d["Volgnummer"], d["Kamerstukdossier"] = volgnummer, dossiers
		return d
	}
	vii := map[string]any{"Nummer": 36200, "Toevoeging": "VII"}
	plain := map[string]any{"Nummer": 36200, "Toevoeging": nil}
	tkAnswer, err := json.Marshal(map[string]any{"@odata.context": "x", "value": []any{
		doc("2022D37914", 12, vii), doc("2022D37915", 13, vii), doc("2022D37916", 12, plain)}})
	if err != nil {
		t.Fatal(err)
	}
	var tkSearch string
	do := func(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
		switch {
		case platform == "ob":
			return &subcall.Answer{Status: 200, Body: []byte(sru)}, nil
		case strings.HasSuffix(req.Path, "/$metadata"):
			return serve(ctx, emulators()["tk"], req), nil
		}
		tkSearch = req.Path
		return &subcall.Answer{Status: 200, Body: tkAnswer}, nil
	}
	e, err := New(Options{Do: do, Platforms: []string{"tk", "ob"}, Clock: fakeclock.New(day), Adapters: registry.Settings{Values: map[string]any{"tk": "/OData/v4/2.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	res := e.Search(context.Background(), Query{Words: "motie"}, nil)
	for _, o := range res.Outcomes {
		if o.State != StateAnswered {
			t.Fatalf("%s: %s %s", o.Platform, o.State, o.Error)
		}
	}
	if u, _ := url.Parse(tkSearch); u == nil || u.Query().Get("$expand") != "Kamerstukdossier($select=Nummer,Toevoeging)" {
		t.Errorf("the TK search does not ask for the dossier: %s", tkSearch)
	}
	byID := map[string]Hit{}
	for _, h := range res.Hits {
		byID[h.Platform+" "+h.ID] = h
	}
	kst, ok := byID["ob kst-36200-VII-12"]
	if !ok || len(kst.Also) != 1 || kst.Also[0].Platform != "tk" || kst.Also[0].ID != "2022D37914" || kst.Kamerstuk != "kst-36200-VII-12" {
		t.Errorf("kamerstuk: %+v, want OB's hit with TK's 2022D37914 in also (hits %v)", kst, keys(byID))
	}
	for id, want := range map[string]string{"2022D37915": "kst-36200-VII-13", "2022D37916": "kst-36200-12"} {
		if h, ok := byID["tk "+id]; !ok || len(h.Also) != 0 || h.Kamerstuk != want {
			t.Errorf("tk %s: %+v, want a hit of its own with kamerstuk %s", id, h, want)
		}
	}
	if len(res.Hits) != 3 {
		t.Errorf("hits %v: want the folded kamerstuk and TK's two others", keys(byID))
	}
}
