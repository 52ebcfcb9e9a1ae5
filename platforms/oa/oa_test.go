package oa

import "testing"

// Open Archivaris has no public payloads (fixtures README); these bodies
// test the shapes the tolerant parser accepts.
func TestParseShapes(t *testing.T) {
	for _, body := range []string{
		`{"results":[{"id":"d1","title":"Besluit","date":"2024-01-02T10:00:00Z","organisation":"Utrecht","snippet":"<em>x</em> y","url":"https://openarchivaris.nl/d1"}],"total":7}`,
		`{"query":"x","total":7,"page":1,"per_page":1,"pages":7,"results":[{"id":"d1","title":"Besluit","body":"utrecht","body_name":"Utrecht","government_type":"gemeente","document_date":"2024-01-02","page_count":3,"snippet":"x y","url":"/api/v1/documents/d1"}]}`,
		`{"hits":{"total":7,"hits":[{"_id":"d1","_source":{"title":"Besluit","date":"2024-01-02","organisation":"Utrecht","highlight":["x y"],"url":"https://openarchivaris.nl/d1"}}]},"total":7}`,
	} {
		p, err := ParseSearch([]byte(body), 0)
		if err != nil || len(p.Hits) != 1 || p.Total != 7 || !p.HasMore {
			t.Fatalf("%s: %+v %v", body, p, err)
		}
		h := p.Hits[0]
		if h.ID != "d1" || h.Title != "Besluit" || h.Date != "2024-01-02" || h.Snippet != "x y" || h.Source != "Utrecht" {
			t.Fatalf("%+v", h)
		}
	}
	if _, err := ParseSearch([]byte(`{"foo":1}`), 0); err == nil {
		t.Fatal("no list accepted")
	}
	d, err := ParseDocument([]byte(`{"id":"d1","title":"T","pages":["een","twee"]}`))
	if err != nil || d.Text != "[p. 1] een\n[p. 2] twee\n" {
		t.Fatalf("%+v %v", d, err)
	}
	r, err := Endpoints{}.SearchRequest(SearchParams{Query: "woo", Limit: 5, Offset: 10})
	if err != nil || r.Path != "/api/v1/search?page=3&per_page=5&q=woo" {
		t.Fatal(r, err)
	}
	if _, err := (Endpoints{}).SearchRequest(SearchParams{Query: "woo", Limit: 5, Offset: 7}); err == nil {
		t.Fatal("offset not on a page boundary accepted")
	}
	r, _ = Endpoints{OffsetParam: "offset", SearchPath: "/s"}.SearchRequest(SearchParams{Query: "woo", Limit: 5, Offset: 7})
	if r.Path != "/s?offset=7&per_page=5&q=woo" {
		t.Fatal(r.Path)
	}
	tr, _ := Endpoints{}.TextRequest("utrecht-000001", 2)
	if tr.Path != "/api/v1/documents/utrecht-000001/text?page=2" {
		t.Fatal(tr.Path)
	}
	tp, err := ParseText([]byte(`{"id":"x","page":2,"pages":5,"text":"hallo","next":""}`))
	if err != nil || tp.Pages != 5 || tp.Text != "hallo" {
		t.Fatal(tp, err)
	}
	r, _ = Endpoints{DocumentPath: "/doc/{id}.json"}.DocumentRequest("a:b")
	if r.Path != "/doc/a:b.json" {
		t.Fatal(r.Path)
	}
	if _, err := (Endpoints{}).DocumentRequest("../x"); err == nil {
		t.Fatal("junk id")
	}
}
