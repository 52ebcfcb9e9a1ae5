package oa

import "testing"

func TestCitationForms(t *testing.T) {
	for _, c := range []struct{ org, title, date, want string }{
		{"Utrecht", "Besluit", "2024-01-02", "Utrecht, Besluit, 2 januari 2024"},
		{"Utrecht", "Utrecht - Woo-besluit", "2024-01-02", "Utrecht - Woo-besluit, 2 januari 2024"},
		{"", "Besluit", "2024-01-02", "Besluit, 2 januari 2024"},
		{"", "Besluit", "", ""},
		{"Utrecht", "", "2024-01-02", ""},
	} {
		if got := Citation(c.org, c.title, c.date); got != c.want {
			t.Errorf("Citation(%q, %q, %q) = %q, want %q", c.org, c.title, c.date, got, c.want)
		}
	}
}

// Open Archivaris has no public payloads (fixtures README): the shapes
// the tolerant parser accepts are cited alike.
func TestCitationParsed(t *testing.T) {
	for _, body := range []string{
		`{"results":[{"id":"d1","title":"Besluit","date":"2024-01-02T10:00:00Z","organisation":"Utrecht"}],"total":1}`,
		`{"results":[{"id":"d1","title":"Besluit","body":"utrecht","body_name":"Utrecht","document_date":"2024-01-02"}]}`,
	} {
		p, err := ParseSearch([]byte(body), 0)
		if err != nil || p.Hits[0].Citation != "Utrecht, Besluit, 2 januari 2024" {
			t.Fatalf("%s: %+v %v", body, p, err)
		}
	}
	d, err := ParseDocument([]byte(`{"document":{"id":"d1","title":"Besluit","date":"2024-01-02","organisation":"Utrecht","text":"x"}}`))
	if err != nil || d.Citation != "Utrecht, Besluit, 2 januari 2024" {
		t.Fatalf("%q %v", d.Citation, err)
	}
	d, _ = ParseDocument([]byte(`{"id":"d1","title":"T"}`))
	if d.Citation != "" {
		t.Fatalf("%q", d.Citation)
	}
}
