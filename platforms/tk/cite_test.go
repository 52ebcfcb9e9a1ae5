package tk

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
)

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ kst, vj, soort, nummer, date, want string }{
		{"kst-36200-VII-12", "2023-2024", "Brief regering", "2023D41173", "2023-10-03", "Kamerstukken II 2023/24, 36200 VII, nr. 12"},
		{"kst-35727-7", "2022-2023", "Motie", "2022D37914", "2022-10-04", "Kamerstukken II 2022/23, 35727, nr. 7"},
		{"kst-35727-7", "", "Motie", "2022D37914", "2022-10-04", "Kamerstukken II, 35727, nr. 7"},
		{"", "2023-2024", "Brief regering", "2023D41173", "2023-10-03", "Tweede Kamer, Brief regering 2023D41173, 3 oktober 2023"},
		{"", "", "", "2023D41173", "2023-10-03", "Tweede Kamer, 2023D41173, 3 oktober 2023"},
		{"", "", "Motie", "2023D41173", "", "Tweede Kamer, Motie 2023D41173"},
		{"", "", "  Brief \n regering ", "2023D41173", "2023-10-03T00:00:00", "Tweede Kamer, Brief regering 2023D41173"},
		// A malformed kamerstuk falls back to the document number.
		{"kst--", "2023-2024", "Motie", "2023D41173", "2023-10-03", "Tweede Kamer, Motie 2023D41173, 3 oktober 2023"},
		{"kst-", "", "", "", "", ""},
		// Without a document number (a GUID only, junk) nothing.
		{"", "", "Motie", "", "2023-10-03", ""},
		{"", "", "Motie", "e5a7184c-f464-481f-b2ce-792191eeb012", "2023-10-03", ""},
		{"", "", "Motie", "2023d41173", "2023-10-03", ""},
		{"", "", strings.Repeat("x", 500), "2023D41173", "", "Tweede Kamer, " + strings.Repeat("x", 79) + "… 2023D41173"},
	} {
		if got := Citation(c.kst, c.vj, c.soort, c.nummer, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q, %q, %q) = %q, want %q", c.kst, c.vj, c.soort, c.nummer, c.date, got, c.want)
		}
	}
}

// The real documents of the recorded answers (no dossier expanded in
// them) are cited by number; with their dossier expanded, the same
// document is the kamerstuk, with its own Vergaderjaar 2022-2023.
func TestCitationRealDocuments(t *testing.T) {
	body, names := realDocuments(t)
	e := entityOf(t, schemaOf(t, legacyRoot, map[string][]string{"Document": names}), "Document")
	p, err := Search(e, SearchParams{Query: "motie", Limit: 10}, func(adapters.Request) ([]byte, error) { return body, nil })
	if err != nil || len(p.Hits) != 2 {
		t.Fatal(err, p)
	}
	want := []string{
		"Tweede Kamer, Motie (gewijzigd/nader) 2022D37914, 4 oktober 2022",
		"Tweede Kamer, Motie 2022D41154, 12 oktober 2022",
	}
	for i, h := range p.Hits {
		if h.Citation != want[i] {
			t.Errorf("hit %d: %q, want %q", i, h.Citation, want[i])
		}
	}
	d, err := ParseDocument(e, body)
	if err != nil || d.Citation != want[0] {
		t.Fatalf("%q %v", d.Citation, err)
	}

	var env struct {
		Value []map[string]any `json:"value"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	de := dossierEntity(t, legacyRoot, names, []string{"Id", "Nummer", "Toevoeging"})
	doc := env.Value[0]
	doc["Kamerstukdossier"] = []any{map[string]any{"Nummer": 35727, "Toevoeging": nil}}
	b, _ := json.Marshal(map[string]any{"value": []any{doc}})
	p, err = Search(de, SearchParams{Query: "motie", Limit: 10}, func(adapters.Request) ([]byte, error) { return b, nil })
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Citation != "Kamerstukken II 2022/23, 35727, nr. 7" {
		t.Fatalf("%+v %v", p, err)
	}
}

// A document read from the SyncFeed is cited as the OData one.
func TestCitationFeedDocument(t *testing.T) {
	doc := `<document id="808fcd50-a0dc-4f60-8b9d-c404a2eb5b2e" verwijderd="false"><soort>Brief regering</soort><documentNummer>2023D41173</documentNummer><datum>2023-10-03T00:00:00+02:00</datum><vergaderjaar>2023-2024</vergaderjaar></document>`
	d, err := ParseFeedDocument([]byte(doc))
	if err != nil || d.Citation != "Tweede Kamer, Brief regering 2023D41173, 3 oktober 2023" {
		t.Fatalf("%q %v", d.Citation, err)
	}
}
