package tk

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// csdl writes a minimal $metadata document: entity type → property names.
// legacyRoot is the old version's root, kept open only until
// 2026-10-01: the adapter still reads its names.
const legacyRoot = "/OData/v4/2.0"

func csdl(types map[string][]string) []byte {
	var names []string
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="TK.DA.GGM.OData" xmlns="http://docs.oasis-open.org/odata/ns/edm">`)
	for _, n := range names {
		fmt.Fprintf(&b, `<EntityType Name="%s"><Key><PropertyRef Name="Id"/></Key>`, n)
		for _, p := range types[n] {
			fmt.Fprintf(&b, `<Property Name="%s" Type="Edm.String"/>`, p)
		}
		b.WriteString(`</EntityType>`)
	}
	b.WriteString(`<EntityContainer Name="Container">`)
	for _, n := range names {
		fmt.Fprintf(&b, `<EntitySet Name="%s" EntityType="TK.DA.GGM.OData.%s"/>`, n, n)
	}
	b.WriteString(`</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`)
	return []byte(b.String())
}

func schemaOf(t *testing.T, root string, types map[string][]string) *Schema {
	t.Helper()
	md, err := ParseMetadata(csdl(types))
	if err != nil {
		t.Fatal(err)
	}
	return NewSchema(root, md)
}

func entityOf(t *testing.T, s *Schema, set string) *Entity {
	t.Helper()
	e, err := s.Entity(set)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var (
	v4Document = []string{"Id", "Soort", "DocumentNummer", "Titel", "Onderwerp", "Datum", "Vergaderjaar", "Volgnummer", "DatumRegistratie", "Organisatie", "ContentType", "ContentLength", "Verwijderd"}
	v5Document = []string{"Id", "Soort", "Nummer", "Titel", "Onderwerp", "Datum", "Vergaderjaar", "Ondernummer", "Organisatie", "ContentType", "ContentLength", "Verwijderd"}
	commissie  = []string{"Id", "Nummer", "Soort", "Afkorting", "NaamNL", "NaamEN", "DatumActief", "DatumInactief", "Verwijderd"}
)

// The same table resolves the old and the new names; what the service
// does not have is left out of $select instead of failing.
func TestResolveRenamedFields(t *testing.T) {
	old := entityOf(t, schemaOf(t, legacyRoot, map[string][]string{"Document": v4Document}), "Document")
	nw := entityOf(t, schemaOf(t, DefaultRoot, map[string][]string{"Document": v5Document}), "Document")
	if old.Name(fNummer) != "DocumentNummer" || old.Name(fOndernummer) != "Volgnummer" || old.Name(fRegistratie) != "DatumRegistratie" {
		t.Fatalf("v4: %v", old.Names())
	}
	if nw.Name(fNummer) != "Nummer" || nw.Name(fOndernummer) != "Ondernummer" || nw.Name(fRegistratie) != "" {
		t.Fatalf("v5: %v", nw.Names())
	}
	r := DocumentRequest(nw, DocumentID{Nummer: "2023D41173"})
	if r.Path != "/OData/v5/Document?$filter=Verwijderd%20eq%20false%20and%20Nummer%20eq%20'2023D41173'&$select=Id,Verwijderd,Nummer,Soort,Titel,Onderwerp,Datum,Ondernummer,Vergaderjaar,Organisatie,ContentType,ContentLength&$orderby=Id&$top=1" {
		t.Fatalf("v5 request %s", r.Path)
	}
	r = DocumentRequest(old, DocumentID{GUID: "7a9b77f1-0000-4000-8000-000000000001"})
	if !strings.HasPrefix(r.Path, "/OData/v4/2.0/Document?$filter=Id%20eq%207a9b77f1-0000-4000-8000-000000000001&$select=Id,Verwijderd,DocumentNummer,") ||
		!strings.Contains(r.Path, "DatumRegistratie") {
		t.Fatalf("v4 request %s", r.Path)
	}
}

// A required field the service lacks under every known name fails with an
// error that names the field, the names tried and the set.
func TestResolveMissingField(t *testing.T) {
	var without []string
	for _, p := range v5Document {
		if p != "Nummer" {
			without = append(without, p)
		}
	}
	s := schemaOf(t, DefaultRoot, map[string][]string{"Document": without, "Commissie": commissie})
	_, err := s.Entity("Document")
	if err == nil || !strings.Contains(err.Error(), "no property for the document number (looked for Nummer or DocumentNummer) on Document") ||
		!strings.Contains(err.Error(), "/OData/v5") || !strings.Contains(err.Error(), "fields.go") {
		t.Fatalf("err = %v", err)
	}
	// Other sets keep working.
	if _, err := s.Entity("Commissie"); err != nil {
		t.Fatal(err)
	}
	// A set the service lacks is named too.
	if _, err := s.Entity("Fractie"); err == nil || !strings.Contains(err.Error(), "no entity set Fractie") {
		t.Fatalf("err = %v", err)
	}
	// Missing optional fields are fine: no Ondernummer, no ContentType.
	s = schemaOf(t, DefaultRoot, map[string][]string{"Document": {"Id", "Verwijderd", "Nummer", "Soort", "Titel", "Onderwerp", "Datum"}})
	e := entityOf(t, s, "Document")
	if sel := e.selectList(); sel != "Id,Verwijderd,Nummer,Soort,Titel,Onderwerp,Datum" {
		t.Fatalf("select %s", sel)
	}
}

func TestParseMetadataBadInput(t *testing.T) {
	for _, b := range []string{"", "not xml <", `{"value":[]}`, `<edmx:Edmx xmlns:edmx="x"></edmx:Edmx>`} {
		if _, err := ParseMetadata([]byte(b)); err == nil {
			t.Errorf("%q accepted", b)
		}
	}
	// BaseType properties count, and a cycle does not hang.
	md, err := ParseMetadata([]byte(`<Edmx><Schema Namespace="N"><EntityType Name="Base" BaseType="N.Document"><Property Name="Id"/></EntityType>` +
		`<EntityType Name="Document" BaseType="N.Base"><Property Name="Nummer"/></EntityType><EntitySet Name="Document" EntityType="N.Document"/></Schema></Edmx>`))
	if err != nil || !md.sets["Document"]["Id"] || !md.sets["Document"]["Nummer"] {
		t.Fatalf("%v %v", md, err)
	}
}

// realDocuments pulls the real Document objects nested in the recorded
// Besluit answers and wraps them in a /Document envelope.
func realDocuments(t *testing.T) ([]byte, []string) {
	var docs []json.RawMessage
	for _, f := range []string{"odata-besluit-expand.json", "odata-besluit-nextlink.json"} {
		var env struct {
			Value []struct {
				Zaak []struct {
					Document []json.RawMessage `json:"Document"`
				} `json:"Zaak"`
			} `json:"value"`
		}
		if err := json.Unmarshal(fixture.Read(t, "tk", f), &env); err != nil {
			t.Fatal(err)
		}
		for _, b := range env.Value {
			for _, z := range b.Zaak {
				docs = append(docs, z.Document...)
			}
		}
	}
	if len(docs) == 0 {
		t.Fatal("no documents in the fixtures")
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(docs[0], &keys)
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	out, _ := json.Marshal(map[string]any{"@odata.context": "x", "value": docs})
	return out, names
}

// The real v4 documents, read through names resolved from their own keys.
func TestParseRealDocuments(t *testing.T) {
	body, names := realDocuments(t)
	e := entityOf(t, schemaOf(t, legacyRoot, map[string][]string{"Document": names}), "Document")
	var calls int
	p, err := Search(e, SearchParams{Query: "motie", Limit: 10}, func(adapters.Request) ([]byte, error) { calls++; return body, nil })
	if err != nil || calls != 1 {
		t.Fatal(err, calls)
	}
	h := p.Hits[0]
	if h.ID != "2022D37914" || h.Type != "Motie (gewijzigd/nader)" || h.Date != "2022-10-04" ||
		!strings.HasPrefix(h.Title, "Gewijzigde motie van het lid Leijten") ||
		h.URL != "https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Resources/e5a7184c-f464-481f-b2ce-792191eeb012" {
		t.Fatalf("hit = %+v", h)
	}
	if !p.TotalApprox || p.Total != len(p.Hits) {
		t.Fatalf("without @odata.count the total must be marked approximate: %+v", p)
	}
	d, err := ParseDocument(e, body)
	if err != nil || d.Meta["guid"] != "e5a7184c-f464-481f-b2ce-792191eeb012" || d.Meta["content_type"] != "application/pdf" ||
		!strings.Contains(d.Text, "opentk_fetch) with number 2022D37914") {
		t.Fatalf("doc = %+v %v", d, err)
	}
	if _, err := ParseDocument(e, []byte(`{"value":[]}`)); err != ErrNoDocument {
		t.Fatalf("empty: %v", err)
	}
	for _, bad := range []string{`[`, `{"error":{"code":"","message":"x"}}`, `{"value":[1]}`} {
		if _, err := ParseDocument(e, []byte(bad)); err == nil || err == ErrNoDocument {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestNextLinkFixture(t *testing.T) {
	var env envelope
	if err := json.Unmarshal(fixture.Read(t, "tk", "odata-besluit-nextlink.json"), &env); err != nil || !strings.HasSuffix(env.NextLink, "$skip=500") {
		t.Fatalf("nextLink = %q %v", env.NextLink, err)
	}
	// The real link, on a Besluit entity, is followed as the server wrote it.
	e := &Entity{Set: "Besluit", root: legacyRoot, names: map[string]string{}}
	r, err := NextRequest(e, env.NextLink)
	if err != nil || !strings.HasPrefix(r.Path, "/OData/v4/2.0/Besluit?$filter=") || !strings.HasSuffix(r.Path, "$skip=500") {
		t.Fatalf("%v %v", r, err)
	}
	for _, bad := range []string{"https://evil.example/OData/v4/2.0/Fractie?$skip=1", "https://gegevensmagazijn.tweedekamer.nl/OData/v5/Besluit?$skip=1",
		"https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/Besluit/../Persoon", "%zz"} {
		if _, err := NextRequest(e, bad); err == nil {
			t.Errorf("followed %s", bad)
		}
	}
}

func fractieEntity(t *testing.T, sample []byte) *Entity {
	var env struct {
		Value []map[string]json.RawMessage `json:"value"`
	}
	var items []map[string]json.RawMessage
	if json.Unmarshal(sample, &env) == nil && env.Value != nil {
		items = env.Value
	} else if err := json.Unmarshal(sample, &items); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range items[0] {
		names = append(names, k)
	}
	return entityOf(t, schemaOf(t, legacyRoot, map[string][]string{"Fractie": names}), "Fractie")
}

func TestParseFractieFixtures(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	b := fixture.Read(t, "tk", "odata-fractie.json")
	l, err := ParseList(fractieEntity(t, b), b)
	if err != nil || l.Len() != 1 {
		t.Fatal(l, err)
	}
	if it := l.Items(false, now); len(it) != 0 {
		t.Fatalf("inactive fractie kept: %+v", it)
	}
	it := l.Items(true, now)
	if len(it) != 1 || it[0].Label != "Brinkman" || it[0].Extra["afkorting"] != "BRINK" || it[0].Extra["datuminactief"] != "2012-09-19" {
		t.Fatalf("%+v", it)
	}
	b = fixture.Read(t, "tk", "odata-fractie-value-items.json")
	l, err = ParseList(fractieEntity(t, b), b)
	it = l.Items(false, now)
	if err != nil || len(it) != 2 || it[1].Label != "Socialistische Partij" || it[1].Extra["aantalzetels"] != "5" {
		t.Fatalf("%+v %v", it, err)
	}
}

// An end date counts from the moment it names: set and not after now.
func TestEnded(t *testing.T) {
	now := time.Date(2024, 7, 1, 23, 30, 0, 0, time.UTC) // 2 July 01:30 in Amsterdam
	cases := map[string]bool{
		"":                          false,
		"2024-07-02T00:00:00+02:00": true, // midnight Amsterdam, half an hour ago
		"2024-07-02T02:00:00+02:00": false,
		"2024-07-02":                true,
		"2024-07-03":                false,
		"2012-09-19T00:00:00+02:00": true,
		"gisteren":                  true,
	}
	for v, want := range cases {
		if got := ended(v, now); got != want {
			t.Errorf("ended(%q) = %v", v, got)
		}
	}
}

func TestSearchRequestDayBounds(t *testing.T) {
	e := entityOf(t, schemaOf(t, DefaultRoot, map[string][]string{"Document": v5Document}), "Document")
	cases := []struct{ from, to, want string }{
		// winter time (+01:00) and summer time (+02:00)
		{"2024-01-15", "2024-01-15", "Datum ge 2024-01-15T00:00:00+01:00 and Datum lt 2024-01-16T00:00:00+01:00"},
		{"2024-07-01", "2024-07-01", "Datum ge 2024-07-01T00:00:00+02:00 and Datum lt 2024-07-02T00:00:00+02:00"},
		// the nights the clocks change: the day ends at the next day's offset
		{"2024-03-31", "2024-03-31", "Datum ge 2024-03-31T00:00:00+01:00 and Datum lt 2024-04-01T00:00:00+02:00"},
		{"2024-10-27", "2024-10-27", "Datum ge 2024-10-27T00:00:00+02:00 and Datum lt 2024-10-28T00:00:00+01:00"},
		{"2024-12-31", "", "Datum ge 2024-12-31T00:00:00+01:00"},
	}
	for _, c := range cases {
		r, err := SearchRequest(e, SearchParams{DateFrom: c.from, DateTo: c.to, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(r.Path)
		f := u.Query().Get("$filter")
		if f != "Verwijderd eq false and "+c.want {
			t.Errorf("%s..%s: %s", c.from, c.to, f)
		}
		if u.Query().Get("$orderby") != "Datum desc,Id desc" || u.Query().Get("$top") != "10" {
			t.Errorf("order/top: %s", r.Path)
		}
	}
	r, err := SearchRequest(e, SearchParams{Query: "stikstof o'brien", Soort: "Motie", Limit: 100, Offset: 200})
	if err != nil {
		t.Fatal(err)
	}
	want := "/OData/v5/Document?$filter=Verwijderd%20eq%20false%20and%20(contains(Titel,'stikstof')%20or%20contains(Onderwerp,'stikstof'))%20and%20(contains(Titel,'o''brien')%20or%20contains(Onderwerp,'o''brien'))%20and%20Soort%20eq%20'Motie'&$select=Id,Verwijderd,Nummer,Soort,Titel,Onderwerp,Datum,Ondernummer,Vergaderjaar,Organisatie,ContentType,ContentLength&$orderby=Datum%20desc,Id%20desc&$top=100&$skip=200&$count=true"
	if r.Path != want {
		t.Fatalf("path\n%s\nwant\n%s", r.Path, want)
	}
	for _, p := range []SearchParams{{Limit: 10}, {Query: "x", Limit: 101}, {Query: "x", Limit: 0}, {Query: "x", Limit: 5, Offset: -1},
		{DateFrom: "2024-02-30", Limit: 5}, {DateFrom: "2024-03-02", DateTo: "2024-03-01", Limit: 5}, {Query: "a b c d e f g h i", Limit: 5}} {
		if _, err := SearchRequest(e, p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestParseDocumentID(t *testing.T) {
	if id, err := ParseDocumentID(" 2023d41173 "); err != nil || id.Nummer != "2023D41173" || id.GUID != "" {
		t.Fatal(id, err)
	}
	if id, err := ParseDocumentID("7A9B77F1-0000-4000-8000-000000000001"); err != nil || id.GUID != "7a9b77f1-0000-4000-8000-000000000001" {
		t.Fatal(id, err)
	}
	for _, bad := range []string{"", "../../etc", "2023D41173' or 1 eq 1", "7a9b77f1-0000-4000-8000-00000000000"} {
		if _, err := ParseDocumentID(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// A prompt takes a document number as the fetch does, in upper case; a
// GUID says nothing of the platform and is left to the others.
func TestRecognize(t *testing.T) {
	refcheck.Check(t, recognize, map[string]string{
		"2023D41173": "2023D41173", "2023d41173": "2023D41173", " 2024Z01234\n": "2024Z01234",
		"": "", " ": "", "\t": "", "7a9b77f1-0000-4000-8000-000000000001": "", "2023D41": "", "23D41173": "", "2023D41173 x": "",
		"2023D41173' or 1 eq 1": "", "kst-36410-5": "", "2023D" + strings.Repeat("1", 300): "",
	})
}

func TestCheckRoot(t *testing.T) {
	for _, ok := range []string{"/OData/v5", "/OData/v4/2.0", "/odata"} {
		if err := CheckRoot(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "OData/v5", "/OData/v5/", "/OData/../v5", "/OData/v5?x=1", "https://x/OData", "/OData v5", "/a/./b"} {
		if err := CheckRoot(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// The one real SyncFeed entity (a fractieZetelPersoon, namespaces stripped
// by its source) is read for what it is and not taken for a document.
func TestParseFeedFixture(t *testing.T) {
	b := fixture.Read(t, "tk", "syncfeed-entry.fragment.xml")
	s := string(b)
	i, j := strings.Index(s, "<fractieZetelPersoon"), strings.Index(s, "</content>")
	if i < 0 || j < i {
		t.Fatal("fixture has no content element")
	}
	if _, err := ParseFeedDocument([]byte(s[i:j])); err == nil || !strings.Contains(err.Error(), "fractieZetelPersoon, not a document") {
		t.Fatalf("err = %v", err)
	}
	// The same element renamed to a document carries its id and fields.
	doc := strings.ReplaceAll(s[i:j], "fractieZetelPersoon", "document")
	doc = strings.Replace(doc, "<functie>Lid</functie>", "<soort>Motie</soort><documentNummer>2023D41173</documentNummer><datum>2023-08-29</datum>", 1)
	d, err := ParseFeedDocument([]byte(doc))
	if err != nil || d.Meta["guid"] != "808fcd50-a0dc-4f60-8b9d-c404a2eb5b2e" || d.ID != "2023D41173" || d.Type != "Motie" || d.Date != "2023-08-29" {
		t.Fatalf("%+v %v", d, err)
	}
}

// TestFindDocumentNumber: a document number as an id or in a link, in
// upper case; other numbers (an activity's) and numbers inside words are
// not one.
func TestFindDocumentNumber(t *testing.T) {
	for in, want := range map[string]string{
		"2023D41173": "2023D41173",
		"2023d41173": "2023D41173",
		"https://berthub.eu/tkconv/document.html?nummer=2023D41173": "2023D41173",
		"https://berthub.eu/tkconv/getdoc/2023D41173":               "2023D41173",
		"2023A06512":             "",
		"x2023D41173":            "",
		"2023D41173x":            "",
		"2023D1234567":           "",
		"":                       "",
		strings.Repeat("9", 300): "",
	} {
		got, ok := FindDocumentNumber(in)
		if got != want || ok != (want != "") {
			t.Errorf("FindDocumentNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
