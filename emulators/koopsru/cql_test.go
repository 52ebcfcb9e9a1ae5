package koopsru

import (
	"strings"
	"testing"
)

var textIndexes = Indexes{"title": {"all", "any", "=", "=="}}

// clause parses one title clause, failing the test on a diagnostic.
func clause(t *testing.T, cql string) Clause {
	t.Helper()
	cs, d := Parse(cql, textIndexes)
	if d != nil || len(cs) != 1 {
		t.Fatalf("%s: %+v %v", cql, d, cs)
	}
	return cs[0]
}

// The masking rules of the CQL context set 1.2: unescaped * ? ^ mask and
// anchor, escaped they are the characters themselves (which, being no
// letter or digit, separate words as in the text).
func TestMasking(t *testing.T) {
	const title = "Regeling belastingcapaciteit: wat nu?"
	for cql, want := range map[string]bool{
		`title all "belasting*"`:                            true,
		`title all "belasting\*"`:                           false, // the word belasting, which the title lacks
		`title all "rege?ing"`:                              true,
		`title all "rege\?ing"`:                             false, // rege and ing
		`title all "regeling?"`:                             false, // nine letters
		`title all "nu\?"`:                                  true,  // nu and a question mark
		`title all "^regeling"`:                             true,
		`title all "^wat"`:                                  false, // not the first word
		`title all "nu^"`:                                   true,
		`title all "regeling^"`:                             false, // not the last word
		`title all "\^wat"`:                                 true,
		`title all "regeling\^"`:                            true,
		`title = "^regeling belasting*"`:                    true,
		`title = "^belasting*"`:                             false,
		`title = "wat nu"`:                                  true,
		`title any "x* ?u"`:                                 true,
		`title any "x\* \?u"`:                               false,
		`title all "*"`:                                     true,
		`title all "\"regeling\""`:                          true,
		`title all "a\\b"`:                                  false,
		`title == "regeling*"`:                              true,
		`title == "regeling\*"`:                             false,
		`title == "Regeling belastingcapaciteit: wat nu\?"`: true,
		`title == "Regeling belastingcapaciteit: wat nu?"`:  true,
		`title == "Regeling belastingcapaciteit: wat nu??"`: false,
		`title all b*g*c*t*`:                                true, // bare terms mask too
		`title all b\*g`:                                    false,
	} {
		if got := clause(t, cql).MatchText(title); got != want {
			t.Errorf("%s: %v, want %v", cql, got, want)
		}
	}
	if got := clause(t, `title all "a\\b"`).Term; got != `a\b` {
		t.Errorf("escaped backslash: %q", got)
	}
	if !clause(t, `title all "a\\b"`).MatchText(`a\b`) {
		t.Error(`a\b is the words a and b`)
	}
}

// A backslash escapes only what the masking rules name; before anything
// else, or at the end of a term, it is a syntax error.
func TestEscapeErrors(t *testing.T) {
	for _, cql := range []string{`title all "a\b"`, `title all "a\"`, `title all a\`, `title all "\n"`} {
		if _, d := Parse(cql, textIndexes); d == nil || d.Code != 10 {
			t.Errorf("%s: %+v", cql, d)
		}
	}
}

// Masks cost at most the term's length times the word's, whatever their
// number: a pattern of many stars against a long word that fails answers.
func TestGlobIsLinear(t *testing.T) {
	c := clause(t, `title all "`+strings.Repeat("*a", 500)+`b"`)
	if c.MatchText(strings.Repeat("a", 2000)) {
		t.Fatal("matched a word with no b")
	}
}
