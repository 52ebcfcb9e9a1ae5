package koopsru

import (
	"strings"
	"unicode"
)

// Clause is one CQL search clause: index relation term.
type Clause struct {
	Index string // lower case
	Rel   string // ==, =, <, >, <=, >=, all, any
	Term  string
}

// Indexes name the indexes an emulator serves and the relations each
// takes.
type Indexes map[string][]string

// Parse reads a CQL query of clauses joined by "and" (any case), each
// "index relation term" with a bare or double-quoted term (backslash
// escapes), against indexes. An index it does not know is diagnostic 16,
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
		c := Clause{Index: strings.ToLower(toks[i].s), Rel: strings.ToLower(toks[i+1].s), Term: toks[i+2].s}
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
}

// tokens splits a query into words, relation symbols and quoted terms.
func tokens(s string) ([]token, bool) {
	var out []token
	r := []rune(s)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '"':
			var sb strings.Builder
			i++
			for ; i < len(r) && r[i] != '"'; i++ {
				if r[i] == '\\' && i+1 < len(r) {
					i++
				}
				sb.WriteRune(r[i])
			}
			if i >= len(r) {
				return nil, false
			}
			i++
			out = append(out, token{s: sb.String(), quoted: true})
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
			j := i
			for j < len(r) && !unicode.IsSpace(r[j]) && !strings.ContainsRune(`"=<>()`, r[j]) {
				j++
			}
			out = append(out, token{s: string(r[i:j])})
			i = j
		}
	}
	return out, true
}

// Words are the lower-case words of s (letters and digits).
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// MatchText tells whether text matches term under a word relation: all
// (every word of term), any (one of them), = (the words in a row), ==
// (the same text, case aside).
func MatchText(text, rel, term string) bool {
	if rel == "==" {
		return strings.EqualFold(strings.TrimSpace(text), strings.TrimSpace(term))
	}
	have := Words(text)
	want := Words(term)
	if len(want) == 0 {
		return false
	}
	in := map[string]bool{}
	for _, w := range have {
		in[w] = true
	}
	switch rel {
	case "any":
		for _, w := range want {
			if in[w] {
				return true
			}
		}
		return false
	case "all":
		for _, w := range want {
			if !in[w] {
				return false
			}
		}
		return true
	}
	for i := 0; i+len(want) <= len(have); i++ {
		run := true
		for j, w := range want {
			run = run && have[i+j] == w
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
