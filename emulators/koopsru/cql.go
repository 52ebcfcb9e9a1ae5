package koopsru

import (
	"strings"
	"unicode"
)

// Clause is one CQL search clause: index relation term.
type Clause struct {
	Index string // lower case
	Rel   string // ==, =, <, >, <=, >=, all, any
	// Term is the term with its escapes resolved: what dates and
	// identifiers compare with.
	Term string
	// masks marks the runes of Term that were masking characters (an
	// unescaped *, ? or ^); MatchText reads them.
	masks []bool
}

// Indexes name the indexes an emulator serves and the relations each
// takes.
type Indexes map[string][]string

// Parse reads a CQL query of clauses joined by "and" (any case), each
// "index relation term" with a bare or double-quoted term, against
// indexes. Terms follow the masking rules of the CQL context set 1.2
// (Library of Congress, SRU standards): an unescaped * masks any run of
// characters, ? exactly one, ^ at the start or end of a word anchors it
// to the start or end of the field; a backslash makes the next ", \, *, ?
// or ^ literal, and before any other character is an error (10). An index it does not know is diagnostic 16,
// a relation the index does not take 19, anything else it cannot read
// (or, not, parentheses, sortBy: which the real service takes, and the
// adapters never send) 10.
func Parse(cql string, indexes Indexes) ([]Clause, *Diag) {
	toks, ok := tokens(cql)
	if !ok || len(toks) == 0 {
		return nil, Diagf(10, cql)
	}
	var out []Clause
	for i := 0; ; {
		if i+3 > len(toks) {
			return nil, Diagf(10, cql)
		}
		c := Clause{Index: strings.ToLower(toks[i].s), Rel: strings.ToLower(toks[i+1].s), Term: toks[i+2].s, masks: toks[i+2].masks}
		if toks[i].quoted || toks[i+1].quoted {
			return nil, Diagf(10, cql)
		}
		rels, known := indexes[c.Index]
		if !known {
			return nil, Diagf(16, c.Index)
		}
		takes := false
		for _, r := range rels {
			takes = takes || r == c.Rel
		}
		if !takes {
			return nil, Diagf(19, c.Rel)
		}
		out = append(out, c)
		i += 3
		if i == len(toks) {
			return out, nil
		}
		if toks[i].quoted || !strings.EqualFold(toks[i].s, "and") {
			return nil, Diagf(10, cql)
		}
		i++
	}
}

type token struct {
	s      string
	quoted bool
	masks  []bool // per rune of s: an unescaped masking character
}

// escapable are the characters a backslash makes literal in a term (the
// CQL context set's masking rules); maskChars those that mask unescaped.
const (
	escapable = "\"\\*?^"
	maskChars = "*?^"
)

// tokens splits a query into words, relation symbols and quoted terms.
// It fails on an unterminated quote, a parenthesis and a backslash that
// escapes nothing the masking rules name.
func tokens(s string) ([]token, bool) {
	var out []token
	r := []rune(s)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '"':
			t, n, ok := term(r[i+1:], func(c rune) bool { return c == '"' })
			if !ok || i+1+n >= len(r) {
				return nil, false
			}
			t.quoted = true
			out = append(out, t)
			i += n + 2
		case strings.ContainsRune("=<>", c):
			j := i + 1
			for j < len(r) && strings.ContainsRune("=<>", r[j]) {
				j++
			}
			out = append(out, token{s: string(r[i:j])})
			i = j
		case c == '(' || c == ')':
			return nil, false
		default:
			t, n, ok := term(r[i:], func(c rune) bool { return unicode.IsSpace(c) || strings.ContainsRune(`"=<>()`, c) })
			if !ok {
				return nil, false
			}
			out = append(out, t)
			i += n
		}
	}
	return out, true
}

// term reads a term from the start of r up to the first unescaped rune
// that ends it, resolving escapes and marking the masking characters; n
// is how many runes of r it took.
func term(r []rune, ends func(rune) bool) (t token, n int, ok bool) {
	var sb strings.Builder
	for ; n < len(r) && !ends(r[n]); n++ {
		c, masked := r[n], strings.ContainsRune(maskChars, r[n])
		if c == '\\' {
			if n+1 >= len(r) || !strings.ContainsRune(escapable, r[n+1]) {
				return token{}, 0, false
			}
			n++
			c, masked = r[n], false
		}
		sb.WriteRune(c)
		t.masks = append(t.masks, masked)
	}
	t.s = sb.String()
	return t, n, true
}

// Words are the lower-case words of s (letters and digits).
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// unit is one rune of a search term: a literal, or a masking character.
type unit struct {
	r    rune
	mask bool
}

// pattern is one word of a search term: its units, and whether a ^
// anchored it to the start or the end of the field.
type pattern struct {
	units       []unit
	first, last bool
}

// isWordRune tells the runes that make a word: letters and digits, as
// Words splits text, and the masks that stand for them.
func isWordRune(u unit) bool {
	return unicode.IsLetter(u.r) || unicode.IsDigit(u.r) || u.mask && (u.r == '*' || u.r == '?')
}

// units are the clause's term, lower case, each rune marked masked or not.
func (c Clause) units() []unit {
	var out []unit
	for i, r := range []rune(c.Term) {
		out = append(out, unit{unicode.ToLower(r), i < len(c.masks) && c.masks[i]})
	}
	return out
}

// patterns are the words of the term. Any rune that is no letter, digit or
// mask separates words, a literal (escaped) mask character included; a
// masking ^ before or after a word anchors it, inside a word it only
// separates (the masking rules give it no meaning there).
func (c Clause) patterns() []pattern {
	var out []pattern
	var cur pattern
	anchorNext := false
	flush := func(last bool) {
		if len(cur.units) > 0 {
			cur.last = last
			out = append(out, cur)
		}
		cur = pattern{}
	}
	us := c.units()
	for i, u := range us {
		switch {
		case isWordRune(u):
			if len(cur.units) == 0 {
				cur.first, anchorNext = anchorNext, false
			}
			cur.units = append(cur.units, u)
		case u.mask && u.r == '^':
			inWord := len(cur.units) > 0 && i+1 < len(us) && isWordRune(us[i+1])
			if len(cur.units) > 0 {
				flush(!inWord)
			} else {
				anchorNext = true
			}
		default:
			flush(false)
			anchorNext = false
		}
	}
	flush(false)
	return out
}

// glob tells whether the runes of s match units: a masking * stands for
// any run of runes, a masking ? for exactly one, anything else for itself.
// On a mismatch it retries from the last * with one rune more taken by
// it, which keeps the cost at len(units)*len(s) whatever the masks.
func glob(units []unit, s []rune) bool {
	ui, si, star, taken := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case ui < len(units) && units[ui].mask && units[ui].r == '*':
			star, taken = ui, si
			ui++
		case ui < len(units) && (units[ui].mask && units[ui].r == '?' || !units[ui].mask && units[ui].r == s[si]):
			ui++
			si++
		case star >= 0:
			taken++
			ui, si = star+1, taken
		default:
			return false
		}
	}
	for ui < len(units) && units[ui].mask && units[ui].r == '*' {
		ui++
	}
	return ui == len(units)
}

// at tells whether pattern p matches the word at position i of have.
func (p pattern) at(have [][]rune, i int) bool {
	return (!p.first || i == 0) && (!p.last || i == len(have)-1) && glob(p.units, have[i])
}

// MatchText tells whether text matches the clause's term under its word
// relation: all (every word of the term), any (one of them), = (the words
// in a row), == (the whole text, case aside), each word or text under the
// term's masks.
func (c Clause) MatchText(text string) bool {
	if c.Rel == "==" {
		units := c.units()
		for len(units) > 0 && unicode.IsSpace(units[0].r) {
			units = units[1:]
		}
		for len(units) > 0 && unicode.IsSpace(units[len(units)-1].r) {
			units = units[:len(units)-1]
		}
		for i := range units {
			units[i].mask = units[i].mask && units[i].r != '^' // strings are anchored already
		}
		return glob(units, []rune(strings.ToLower(strings.TrimSpace(text))))
	}
	var have [][]rune
	for _, w := range Words(text) {
		have = append(have, []rune(w))
	}
	want := c.patterns()
	if len(want) == 0 {
		return false
	}
	found := func(p pattern) bool {
		for i := range have {
			if p.at(have, i) {
				return true
			}
		}
		return false
	}
	switch c.Rel {
	case "any":
		for _, p := range want {
			if found(p) {
				return true
			}
		}
		return false
	case "all":
		for _, p := range want {
			if !found(p) {
				return false
			}
		}
		return true
	}
	for i := 0; i+len(want) <= len(have); i++ {
		run := true
		for j, p := range want {
			run = run && p.at(have, i+j)
		}
		if run {
			return true
		}
	}
	return false
}

// MatchDate compares a YYYY-MM-DD value with term under rel (==, =, <,
// >, <=, >=); an empty value matches nothing.
func MatchDate(value, rel, term string) bool {
	if value == "" {
		return false
	}
	switch rel {
	case "==", "=":
		return value == term
	case "<":
		return value < term
	case ">":
		return value > term
	case "<=":
		return value <= term
	case ">=":
		return value >= term
	}
	return false
}

// IsDate tells whether s is written YYYY-MM-DD.
func IsDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
