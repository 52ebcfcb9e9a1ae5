package koopsru

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	emu "github.com/besluitbron/besluitbron/emulators/koopsru"
)

func TestTerm(t *testing.T) {
	for in, want := range map[string]string{
		"fiets parkeren":    `"fiets parkeren"`,
		`wat?`:              `"wat\?"`,
		`^begin eind^`:      `"\^begin eind\^"`,
		`belasting*`:        `"belasting\*"`,
		`"aanhalen"`:        `"\"aanhalen\""`,
		`a\b`:               `"a\\b"`,
		`art. 2(1) a/b <x>`: `"art. 2(1) a/b <x>"`,
		"a\x00b\tc\u0085d":  `"a b c d"`,
		"x \xff y":          `"x y"`,
		`? ^ * -- x`:        `"x"`,
		`? "" \`:            ``,
		"   ":               ``,
	} {
		if got := Term(in); got != want {
			t.Errorf("Term(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzTerm: whatever a user types, Term is empty or one balanced quoted
// term in which every CQL special character is escaped, holding the user's
// words exactly; and KOOP's emulators read it back as those words, with
// no mask.
func FuzzTerm(f *testing.F) {
	for _, s := range []string{"fiets parkeren", `wat?`, `^a b^`, `x*`, `"q"`, `a\b`, `\"`, `\\\"`, "a\x00b", "\xff?", `()=<>/`, "é ü 中文"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		term := Term(s)
		words := strings.Join(Words(s), " ")
		if term == "" {
			if words != "" {
				t.Fatalf("no term for the words %q", words)
			}
			return
		}
		if !utf8.ValidString(term) {
			t.Fatalf("%q is not UTF-8", term)
		}
		r := []rune(term)
		if len(r) < 2 || r[0] != '"' || r[len(r)-1] != '"' {
			t.Fatalf("%q is not one quoted term", term)
		}
		var lit strings.Builder
		for i := 1; i < len(r)-1; i++ {
			c := r[i]
			switch {
			case c == '\\':
				if i+1 >= len(r)-1 || !strings.ContainsRune(`"\*?^`, r[i+1]) {
					t.Fatalf("%q: a backslash escapes nothing CQL names", term)
				}
				i++
				c = r[i]
			case strings.ContainsRune(`"*?^`, c):
				t.Fatalf("%q: unescaped %q", term, c)
			case unicode.IsControl(c):
				t.Fatalf("%q: control character", term)
			}
			lit.WriteRune(c)
		}
		if lit.String() != words {
			t.Fatalf("%q holds %q, not the words %q", term, lit.String(), words)
		}
		cs, d := emu.Parse("t == "+term, emu.Indexes{"t": {"=="}})
		if d != nil || len(cs) != 1 || cs[0].Term != words {
			t.Fatalf("the emulator reads %q as %+v %+v", term, cs, d)
		}
		// Unmasked, the term matches only its own words: a masked ? or *
		// would also match them with a letter changed or added.
		if !cs[0].MatchText(words) || cs[0].MatchText(words+"x") || cs[0].MatchText(mutate(words)) {
			t.Fatalf("%q matches as a mask", term)
		}
	})
}

// mutate changes the first ?, * or ^ of s into a letter (s itself when it
// has none, which the caller's check then rejects as not matching).
func mutate(s string) string {
	if i := strings.IndexAny(s, "?*^"); i >= 0 {
		return s[:i] + "q" + s[i+1:]
	}
	return s + "x"
}
