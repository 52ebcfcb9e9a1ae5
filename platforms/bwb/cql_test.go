package bwb

import (
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	emu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
)

// Each CQL special character a user types reaches the emulator as a
// literal, escaped (adapters/koopsru.Term), and the emulator, reading
// the masking rules of the CQL context set, finds what the literal word
// finds. The same query with the character unescaped (the control) finds
// the other way, or is refused: what the escape changes is visible.
// The title searched: "Regeling belastingcapaciteit" (five versions).
func TestSpecialCharactersStayLiteral(t *testing.T) {
	h := emu.New(emu.Config{})
	var calls []string
	get := emuGet(h, &calls)
	for _, c := range []struct {
		words, sent, unescaped string
		found                  bool // by the literal words
	}{
		{`belasting*`, `"belasting\*"`, `"belasting*"`, false},
		{`rege?ing`, `"rege\?ing"`, `"rege?ing"`, false},
		{`belastingcapaciteit?`, `"belastingcapaciteit\?"`, `"belastingcapaciteit?"`, true},
		{`^belastingcapaciteit`, `"\^belastingcapaciteit"`, `"^belastingcapaciteit"`, true},
		{`regeling^`, `"regeling\^"`, `"regeling^"`, true},
		{`"regeling"`, `"\"regeling\""`, `""regeling""`, true},
		{`regeling\belastingcapaciteit`, `"regeling\\belastingcapaciteit"`, `"regeling\belastingcapaciteit"`, true},
	} {
		calls = nil
		r, err := SearchRequest(SearchParams{Words: c.words, Limit: 10})
		if err != nil {
			t.Fatalf("%s: %v", c.words, err)
		}
		body, err := get(r)
		if err != nil {
			t.Fatalf("%s: %v", c.words, err)
		}
		p, err := ParseSearch(body)
		if err != nil || (len(p.Hits) > 0) != c.found {
			t.Errorf("%s: %d hits, want found=%v (%v)", c.words, len(p.Hits), c.found, err)
		}
		if got := received(t, calls); got != "overheidbwb.titel all "+c.sent {
			t.Errorf("%s: the emulator received %s", c.words, got)
		}
		// The control: the character unescaped means something else.
		control, err := get(adapters.Get(SearchPath, url.Values{"x-connection": {"BWB"}, "query": {"overheidbwb.titel all " + c.unescaped}}))
		if err != nil {
			t.Fatal(err)
		}
		if cp, err := ParseSearch(control); err == nil && (len(cp.Hits) > 0) == c.found {
			t.Errorf("%s unescaped finds the same: the test cannot tell", c.unescaped)
		}
	}
}

// received is the CQL query of the one request in calls.
func received(t *testing.T, calls []string) string {
	t.Helper()
	if len(calls) != 1 {
		t.Fatalf("%d requests: %v", len(calls), calls)
	}
	u, err := url.Parse(calls[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(u.Query().Get("query"))
}
