package ori

import (
	"encoding/json"
	"strings"
	"testing"
)

// No real ORI answer exists (fixtures README): this body uses the ES7
// envelope and the field names of the index mapping. has_organization_name
// holds the organisation's @id (ocd_backend/models/definitions/owl.py).
const body = `{"took":3,"hits":{"total":{"value":1234,"relation":"eq"},"hits":[{"_index":"ori_alkmaar_20190507105200","_id":"123456","_score":2.1,"_source":{"@type":"MediaObject","name":"Raadsvoorstel parkeren","last_discussed_at":"2019-05-07T19:30:00","has_organization_name":"81234","original_url":"https://example.org/doc.pdf","content_type":"application/pdf","md_text":["# Parkeren","Tekst."]},"highlight":{"text":["over <em>parkeren</em> in de binnenstad"]}},{"_index":"osi_limburg_20200101000000","_id":"777","_source":{"@type":"MediaObject","name":"Statenvoorstel","has_organization_name":"99"}}]}}`

func TestParse(t *testing.T) {
	ids := OrganisationIDs([]byte(body))
	if strings.Join(ids, ",") != "81234,99" {
		t.Fatal(ids)
	}
	p, err := ParseSearch([]byte(body), 0, map[string]string{"81234": "Alkmaar"})
	if err != nil || p.Total != 1234 || !p.HasMore || p.Hits[0].Snippet != "over parkeren in de binnenstad" || p.Hits[0].Source != "Alkmaar" || p.Hits[0].Date != "2019-05-07" {
		t.Fatalf("%+v %v", p, err)
	}
	// Unresolved: the OpenBesluitvorming key from the index name (with
	// its rename), never the id.
	if p.Hits[1].Source != "provincie_limburg" {
		t.Fatalf("%+v", p.Hits[1])
	}
	p, _ = ParseSearch([]byte(body), 0, nil)
	if p.Hits[0].Source != "alkmaar" {
		t.Fatalf("%+v", p.Hits[0])
	}
	d, err := ParseDocument([]byte(body), nil)
	if err != nil || d.Text != "# Parkeren\nTekst." || d.Source != "alkmaar" {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := ParseSearch([]byte(`{"error":{"type":"index_not_found_exception"}}`), 0, nil); err == nil {
		t.Fatal("error accepted")
	}
	names, err := ParseOrganisations([]byte(`{"hits":{"hits":[{"_id":"81234","_source":{"@type":"Organization","name":"Alkmaar"}},{"_id":"5","_source":{"@type":"Person","name":"Jan"}},{"_id":"6","_source":{"@type":"Organization","name":" "}}]}}`))
	if err != nil || len(names) != 1 || names["81234"] != "Alkmaar" {
		t.Fatal(names, err)
	}
}

func TestSourceIndices(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "ori_*,osi_*,owi_*",
		"Alkmaar":             "ori_alkmaar_*,osi_alkmaar_*,owi_alkmaar_*",
		"osi_limburg":         "osi_limburg_*",
		"owi_limburg":         "owi_limburg_*",
		"provincie_limburg":   "osi_limburg_*",
		"provincie_groningen": "osi_groningen_*",
		"waterschap_limburg":  "owi_limburg_*",
	} {
		if got, err := SourceIndices(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"../_cluster", "a,b", "x*", strings.Repeat("a", 61)} {
		if _, err := SourceIndices(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for in, want := range map[string]string{"osi_limburg": "provincie_limburg", "owi_limburg": "waterschap_limburg", "osi_groningen": "provincie_groningen", "ori_groningen": "groningen", "owi_hhnk": "hhnk"} {
		if got := OBVKey(in); got != want {
			t.Errorf("OBVKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRequests(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: "parkeren", Source: "Alkmaar", Limit: 10})
	if err != nil || r.Path != "/ori_alkmaar_*,osi_alkmaar_*,owi_alkmaar_*/_search" {
		t.Fatal(r, err)
	}
	var q map[string]any
	if err := json.Unmarshal(r.Body, &q); err != nil || q["size"].(float64) != 10 || !strings.Contains(string(r.Body), `"excludes":["text","md_text","text_pages"]`) ||
		!strings.Contains(string(r.Body), `{"match":{"@type":"MediaObject"}}`) {
		t.Fatal(string(r.Body))
	}
	if r, _ := SearchRequest(SearchParams{Query: "x", Limit: 1}); r.Path != "/ori_*,osi_*,owi_*/_search" {
		t.Fatal(r.Path)
	}
	if _, err := SearchRequest(SearchParams{Query: "x", Source: "../_cluster", Limit: 1}); err == nil {
		t.Fatal("bad source accepted")
	}
	if r, err := DocumentRequest("123"); err != nil || !strings.HasPrefix(r.Path, "/ori_*,osi_*,owi_*/_search?") {
		t.Fatal(r, err)
	}
	if _, err := DocumentRequest("1 OR 1"); err == nil {
		t.Fatal("bad id accepted")
	}
	r, err = OrganisationsRequest([]string{"81234", "99"})
	if err != nil || r.Method != "POST" || !strings.Contains(string(r.Body), `"values":["81234","99"]`) {
		t.Fatal(r, err)
	}
	if _, err := OrganisationsRequest(nil); err == nil {
		t.Fatal("no ids accepted")
	}
	if _, err := OrganisationsRequest([]string{`1"]}}`}); err == nil {
		t.Fatal("bad id accepted")
	}
}
