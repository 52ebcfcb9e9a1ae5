package cvdr

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	emu "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
)

// Each CQL special character a user types reaches the emulator as a
// literal, escaped (adapters/koopsru.Term), and the emulator, reading
// the masking rules of the CQL context set, finds what the literal word
// finds. The same query with the character unescaped (the control) finds
// the other way, or is refused: what the escape changes is visible. The
// words searched are Kampen's rules on verkeersveiligheid and parkeren.
func TestSpecialCharactersStayLiteral(t *testing.T) {
	h := emu.New()
	var received []string
	get := func(r adapters.Request) ([]byte, error) {
		u, _ := url.Parse(r.Path)
		received = append(received, u.Query().Get("query"))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.Method, "http://cvdr.test"+r.Path, nil))
		if rec.Code != http.StatusOK {
			return nil, adapters.Classify("cvdr", rec.Code, false, 0, false, rec.Body.Bytes())
		}
		return rec.Body.Bytes(), nil
	}
	for _, c := range []struct {
		words, sent, unescaped string
		found                  bool // by the literal words
	}{
		{`verkeers*`, `"verkeers\*"`, `"verkeers*"`, false},
		{`parke?en`, `"parke\?en"`, `"parke?en"`, false},
		{`verkeersveiligheid?`, `"verkeersveiligheid\?"`, `"verkeersveiligheid?"`, true},
		{`^verkeersveiligheid`, `"\^verkeersveiligheid"`, `"^verkeersveiligheid"`, true},
		{`verkeersveiligheid^`, `"verkeersveiligheid\^"`, `"verkeersveiligheid^"`, true},
		{`"parkeren"`, `"\"parkeren\""`, `""parkeren""`, true},
		{`verkeersveiligheid\parkeren`, `"verkeersveiligheid\\parkeren"`, `"verkeersveiligheid\parkeren"`, true},
	} {
		received = nil
		r, err := SearchRequest(SearchParams{Words: c.words, Limit: 10})
		if err != nil {
			t.Fatalf("%s: %v", c.words, err)
		}
		body, err := get(r)
		if err != nil {
			t.Fatalf("%s: %v", c.words, err)
		}
		p, err := ParseSearch(body, "")
		if err != nil || (len(p.Hits) > 0) != c.found {
			t.Errorf("%s: %d hits, want found=%v (%v)", c.words, len(p.Hits), c.found, err)
		}
		if len(received) != 1 || strings.TrimSpace(received[0]) != "keyword all "+c.sent {
			t.Errorf("%s: the emulator received %q", c.words, received)
		}
		control, err := get(adapters.Get(SearchPath, url.Values{"x-connection": {"cvdr"}, "query": {"keyword all " + c.unescaped}}))
		if err != nil {
			t.Fatal(err)
		}
		if cp, err := ParseSearch(control, ""); err == nil && (len(cp.Hits) > 0) == c.found {
			t.Errorf("%s unescaped finds the same: the test cannot tell", c.unescaped)
		}
	}
	// An organisation is a term as well.
	received = nil
	r, _ := SearchRequest(SearchParams{Organisation: "Kamp?n", Limit: 10})
	if body, err := get(r); err != nil || strings.Contains(string(body), "CVDR100394") || received[0] != `dcterms.creator="Kamp\?n"` {
		t.Errorf("%q %v", received, err)
	}
}
