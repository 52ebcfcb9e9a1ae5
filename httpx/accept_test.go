package httpx

import "testing"

func TestAcceptPreference(t *testing.T) {
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, c := range []struct {
		accept     string
		json, html bool
	}{
		{"application/json", true, false},
		{browser, false, true},
		{"application/xhtml+xml", false, true},
		{"application/json, text/html;q=0.5", true, false},
		{"text/html, application/json", false, false}, // equal ranks: neither
		{"TEXT/HTML;q=0.4, application/json;q=0.4", false, false},
		{"", false, false},
		{"*/*", false, false},
		{"text/event-stream", false, false},
		{"application/json;q=0", false, false},
		{"text/html;q=0", false, false},
		{"text/html;q=nonsense", false, true},
	} {
		if got := PrefersJSON(c.accept); got != c.json {
			t.Errorf("PrefersJSON(%q) = %v", c.accept, got)
		}
		if got := PrefersHTML(c.accept); got != c.html {
			t.Errorf("PrefersHTML(%q) = %v", c.accept, got)
		}
	}
}
