package ori

import (
	"encoding/json"
	"strings"
	"testing"
)

// No real ORI answer exists (fixtures README): this body uses the ES7
// envelope and the field names of the index mapping.
const body = `{"took":3,"hits":{"total":{"value":1234,"relation":"eq"},"hits":[{"_index":"ori_alkmaar_20190507105200","_id":"123456","_score":2.1,"_source":{"@type":"MediaObject","name":"Raadsvoorstel parkeren","last_discussed_at":"2019-05-07T19:30:00","has_organization_name":"Alkmaar","original_url":"https://example.org/doc.pdf","content_type":"application/pdf","md_text":["# Parkeren","Tekst."]},"highlight":{"text":["over <em>parkeren</em> in de binnenstad"]}}]}}`

func TestParse(t *testing.T) {
	p, err := ParseSearch([]byte(body), 0)
	if err != nil || p.Total != 1234 || !p.HasMore || p.Hits[0].Snippet != "over parkeren in de binnenstad" || p.Hits[0].Source != "Alkmaar" || p.Hits[0].Date != "2019-05-07" {
		t.Fatalf("%+v %v", p, err)
	}
	d, err := ParseDocument([]byte(body))
	if err != nil || d.Text != "# Parkeren\nTekst." {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := ParseSearch([]byte(`{"error":{"type":"index_not_found_exception"}}`), 0); err == nil {
		t.Fatal("error accepted")
	}
}

func TestRequests(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: "parkeren", Source: "Alkmaar", Limit: 10})
	if err != nil || r.Path != "/ori_alkmaar_*/_search" {
		t.Fatal(r, err)
	}
	var q map[string]any
	if err := json.Unmarshal(r.Body, &q); err != nil || q["size"].(float64) != 10 || !strings.Contains(string(r.Body), `"excludes":["text","md_text","text_pages"]`) {
		t.Fatal(string(r.Body))
	}
	if _, err := SearchRequest(SearchParams{Query: "x", Source: "../_cluster", Limit: 1}); err == nil {
		t.Fatal("bad source accepted")
	}
	if _, err := DocumentRequest("1 OR 1"); err == nil {
		t.Fatal("bad id accepted")
	}
}
