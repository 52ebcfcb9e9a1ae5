package tk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

// realDocuments pulls the real Document objects nested in the recorded
// Besluit answers and wraps them in a /Document envelope.
func realDocuments(t *testing.T) []byte {
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
	out, _ := json.Marshal(map[string]any{"@odata.context": "x", "value": docs})
	return out
}

func TestParseSearchRealDocuments(t *testing.T) {
	p, err := ParseSearch(realDocuments(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	h := p.Hits[0]
	if h.ID != "2022D37914" || h.Type != "Motie (gewijzigd/nader)" || h.Date != "2022-10-04" ||
		!strings.HasPrefix(h.Title, "Gewijzigde motie van het lid Leijten") ||
		h.URL != "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/Document(e5a7184c-f464-481f-b2ce-792191eeb012)/resource" {
		t.Fatalf("hit = %+v", h)
	}
	if !p.TotalApprox {
		t.Fatal("without @odata.count the total must be marked approximate")
	}
	var env struct {
		Value []json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(realDocuments(t), &env)
	d, err := ParseDocument(env.Value[0])
	if err != nil || d.Meta["guid"] != "e5a7184c-f464-481f-b2ce-792191eeb012" || d.Meta["content_type"] != "application/pdf" ||
		!strings.Contains(d.Text, "opentk_fetch) with number 2022D37914") {
		t.Fatalf("doc = %+v %v", d, err)
	}
}

func TestNextLinkFixture(t *testing.T) {
	var env envelope
	if err := json.Unmarshal(fixture.Read(t, "tk", "odata-besluit-nextlink.json"), &env); err != nil || !strings.HasSuffix(env.NextLink, "$skip=500") {
		t.Fatalf("nextLink = %q %v", env.NextLink, err)
	}
}

func TestParseFractieFixtures(t *testing.T) {
	l, err := ParseList(fixture.Read(t, "tk", "odata-fractie.json"))
	if err != nil || len(l) != 1 || l[0].Label != "Brinkman" || l[0].Extra["afkorting"] != "BRINK" || l[0].Extra["datuminactief"] != "2012-09-19" {
		t.Fatalf("%+v %v", l, err)
	}
	l, err = ParseList(fixture.Read(t, "tk", "odata-fractie-value-items.json"))
	if err != nil || len(l) != 2 || l[1].Label != "Socialistische Partij" || l[1].Extra["aantalzetels"] != "5" {
		t.Fatalf("%+v %v", l, err)
	}
}

func TestRequests(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: "stikstof o'brien", DateFrom: "2024-01-01", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := "/OData/v4/2.0/Document?$filter=Verwijderd%20eq%20false%20and%20(contains(Titel,'stikstof')%20or%20contains(Onderwerp,'stikstof'))%20and%20(contains(Titel,'o''brien')%20or%20contains(Onderwerp,'o''brien'))%20and%20Datum%20ge%202024-01-01T00:00:00Z&$orderby=Datum%20desc&$top=10&$skip=0&$count=true"
	if r.Path != want {
		t.Fatalf("path\n%s\nwant\n%s", r.Path, want)
	}
	if _, err := SearchRequest(SearchParams{Limit: 10}); err == nil {
		t.Fatal("open search accepted")
	}
	if _, err := SearchRequest(SearchParams{Query: "x", Limit: 1000}); err == nil || !strings.Contains(err.Error(), "1 to 100") {
		t.Fatal(err)
	}
	if r, err := DocumentRequest("2023d41173"); err != nil || !strings.Contains(r.Path, "DocumentNummer%20eq%20'2023D41173'") {
		t.Fatal(r, err)
	}
	if r, err := DocumentRequest("7A9B77F1-0000-4000-8000-000000000001"); err != nil || r.Path != Root+"/Document(7a9b77f1-0000-4000-8000-000000000001)" {
		t.Fatal(r, err)
	}
	if _, err := DocumentRequest("../../etc"); err == nil {
		t.Fatal("accepted junk")
	}
}
