package tk

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// csdlWithDossier is csdl with Document's navigation property to its
// Kamerstukdossier (a collection, as the TK emulator's $metadata lists
// it), whose type has the properties dossier.
func csdlWithDossier(document, dossier []string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="TK.DA.GGM.OData" xmlns="http://docs.oasis-open.org/odata/ns/edm">`)
	for _, t := range []struct {
		name  string
		props []string
	}{{"Document", document}, {"Kamerstukdossier", dossier}} {
		fmt.Fprintf(&b, `<EntityType Name="%s"><Key><PropertyRef Name="Id"/></Key>`, t.name)
		for _, p := range t.props {
			fmt.Fprintf(&b, `<Property Name="%s" Type="Edm.String"/>`, p)
		}
		if t.name == "Document" {
			b.WriteString(`<NavigationProperty Name="Kamerstukdossier" Type="Collection(TK.DA.GGM.OData.Kamerstukdossier)"/>`)
		}
		b.WriteString(`</EntityType>`)
	}
	b.WriteString(`<EntityContainer Name="Container"><EntitySet Name="Document" EntityType="TK.DA.GGM.OData.Document"/>` +
		`<EntitySet Name="Kamerstukdossier" EntityType="TK.DA.GGM.OData.Kamerstukdossier"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`)
	return []byte(b.String())
}

func dossierEntity(t *testing.T, root string, document, dossier []string) *Entity {
	t.Helper()
	md, err := ParseMetadata(csdlWithDossier(document, dossier))
	if err != nil {
		t.Fatal(err)
	}
	return entityOf(t, NewSchema(root, md), "Document")
}

// TestSearchAsksForTheDossier: where the $metadata lists the dossier with
// its number and addition, a search expands them (only them) and nothing
// else of the request changes; where it lacks the navigation or the
// addition, or the document has no volgnummer, the request is the one
// before (TestSearchRequestDayBounds holds it exactly).
func TestSearchAsksForTheDossier(t *testing.T) {
	dossier := []string{"Id", "Nummer", "Toevoeging", "Titel"}
	p := SearchParams{Query: "stikstof", Limit: 10}
	r, err := SearchRequest(dossierEntity(t, DefaultRoot, v5Document, dossier), p)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := SearchRequest(entityOf(t, schemaOf(t, DefaultRoot, map[string][]string{"Document": v5Document}), "Document"), p)
	const expand = "&$expand=Kamerstukdossier($select%3DNummer,Toevoeging)"
	if r.Path != strings.Replace(plain.Path, "&$orderby=", expand+"&$orderby=", 1) {
		t.Errorf("request\n%s\nwant the plain one with %s:\n%s", r.Path, expand, plain.Path)
	}
	if u, _ := url.Parse(r.Path); u.Query().Get("$expand") != "Kamerstukdossier($select=Nummer,Toevoeging)" {
		t.Errorf("$expand %q", u.Query().Get("$expand"))
	}
	var noVolgnummer []string
	for _, f := range v5Document {
		if f != "Ondernummer" {
			noVolgnummer = append(noVolgnummer, f)
		}
	}
	for name, e := range map[string]*Entity{
		"no addition":   dossierEntity(t, DefaultRoot, v5Document, []string{"Id", "Nummer", "Titel"}),
		"no volgnummer": dossierEntity(t, DefaultRoot, noVolgnummer, dossier),
	} {
		r, err := SearchRequest(e, p)
		if err != nil || strings.Contains(r.Path, "$expand") {
			t.Errorf("%s: %s %v", name, r.Path, err)
		}
	}
}

// TestKamerstukOfRealDocument: the real Document object (v4 names,
// Volgnummer 7; a motion in the KIFID dossier 35727) with its
// Kamerstukdossier expanded as OData writes a collection navigation: the
// hit carries kst-35727-7. What does not name exactly one kamerstuk
// carries none.
func TestKamerstukOfRealDocument(t *testing.T) {
	body, names := realDocuments(t)
	var env struct {
		Value []map[string]any `json:"value"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Value[0]["Volgnummer"] != 7.0 {
		t.Fatalf("the real document's Volgnummer is %v, not 7", env.Value[0]["Volgnummer"])
	}
	sort.Strings(names)
	e := dossierEntity(t, legacyRoot, names, []string{"Id", "Nummer", "Toevoeging"})
	for _, c := range []struct {
		name       string
		dossier    any
		volgnummer any
		want       string
	}{
		{"one dossier", []any{map[string]any{"Nummer": 35727, "Toevoeging": nil}}, 7, "kst-35727-7"},
		{"with addition", []any{map[string]any{"Nummer": 36200, "Toevoeging": "VII"}}, 12, "kst-36200-VII-12"},
		{"empty addition", []any{map[string]any{"Nummer": 35727, "Toevoeging": ""}}, 7, "kst-35727-7"},
		{"single-valued", map[string]any{"Nummer": 35727, "Toevoeging": nil}, 7, "kst-35727-7"},
		{"number as text", []any{map[string]any{"Nummer": "35727"}}, 7, "kst-35727-7"},
		{"two dossiers", []any{map[string]any{"Nummer": 35727}, map[string]any{"Nummer": 36200, "Toevoeging": "VII"}}, 7, ""},
		{"no dossier", []any{}, 7, ""},
		{"null dossier", nil, 7, ""},
		{"no volgnummer", []any{map[string]any{"Nummer": 35727}}, nil, ""},
		{"v5's none", []any{map[string]any{"Nummer": 35727}}, -1, ""},
		{"bad number", []any{map[string]any{"Nummer": "35727 or 1"}}, 7, ""},
		{"bad addition", []any{map[string]any{"Nummer": 36200, "Toevoeging": "VII-../x"}}, 7, ""},
	} {
		d := env.Value[0]
		d["Kamerstukdossier"], d["Volgnummer"] = c.dossier, c.volgnummer
		b, _ := json.Marshal(map[string]any{"value": []any{d}})
		pg, err := Search(e, SearchParams{Query: "motie", Limit: 10}, func(adapters.Request) ([]byte, error) { return b, nil })
		if err != nil || len(pg.Hits) != 1 {
			t.Fatalf("%s: %v %+v", c.name, err, pg)
		}
		if got := pg.Hits[0].Kamerstuk; got != c.want {
			t.Errorf("%s: kamerstuk %q, want %q", c.name, got, c.want)
		}
	}
}

// TestKamerstukAgainstEmulator: in both versions the emulator serves the
// expanded dossier, and each hit in a dossier carries its kamerstuk, with
// the addition of a budget chapter (kst-36xxx-VII-3); hits outside a
// dossier carry none.
func TestKamerstukAgainstEmulator(t *testing.T) {
	data := emu.SharedData(1, emuNow, 0)
	kst := regexp.MustCompile(`^kst-[0-9]{5}(-[IVX]+)?-([0-9]+)$`)
	for _, root := range []string{legacyRoot, DefaultRoot} {
		var log []string
		get := emuGetter(emuHandler, &log)
		e := entityOf(t, emuSchema(t, get, root), "Document")
		withAddition, in, out := 0, 0, 0
		for _, words := range []string{"begrotingsstaten", "stikstof"} {
			p, err := Search(e, SearchParams{Query: words, Limit: 100}, get)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range p.Hits {
				i, ok := data.DocumentByNummer(h.ID)
				if !ok {
					t.Fatalf("%s: hit %s is no emulated document", root, h.ID)
				}
				d := data.Document(i)
				if d.Dossier < 0 || d.Volgnummer == 0 {
					out++
					if h.Kamerstuk != "" {
						t.Errorf("%s: %s is in no dossier but carries %s", root, h.ID, h.Kamerstuk)
					}
					if !strings.HasPrefix(h.Citation, "Tweede Kamer, ") || !strings.Contains(h.Citation, h.ID) {
						t.Errorf("%s: %s is cited as %q", root, h.ID, h.Citation)
					}
					continue
				}
				in++
				m := kst.FindStringSubmatch(h.Kamerstuk)
				if m == nil || m[2] != fmt.Sprint(d.Volgnummer) {
					t.Errorf("%s: %s (volgnummer %d) carries kamerstuk %q", root, h.ID, d.Volgnummer, h.Kamerstuk)
				}
				if m != nil && m[1] != "" {
					withAddition++
				}
				if !strings.HasPrefix(h.Citation, "Kamerstukken II ") || !strings.HasSuffix(h.Citation, fmt.Sprintf(", nr. %d", d.Volgnummer)) {
					t.Errorf("%s: %s (%s) is cited as %q", root, h.ID, h.Kamerstuk, h.Citation)
				}
			}
		}
		if in == 0 || out == 0 || withAddition == 0 {
			t.Errorf("%s: %d hits in a dossier (%d with an addition), %d outside: the test saw too little", root, in, withAddition, out)
		}
		checkRequests(t, log)
	}
}
