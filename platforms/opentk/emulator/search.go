package emulator

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// ---- tokenizer (like SQLite FTS5 unicode61: lower case, no diacritics) ----

type tok struct {
	text       string // folded
	start, end int    // byte offsets in the source
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func tokenize(s string) []tok {
	var out []tok
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, tok{corpus.Fold(s[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, tok{corpus.Fold(s[start:]), start, len(s)})
	}
	return out
}

// ---- FTS5 query subset ----

// syntaxError mirrors SQLite's "fts5: syntax error near ..." message.
type syntaxError struct{ near string }

func (e *syntaxError) Error() string { return fmt.Sprintf("fts5: syntax error near \"%s\"", e.near) }

type qnode interface{}

type (
	qPhrase struct {
		words  []string
		prefix bool // last word is a prefix
	}
	qAnd  struct{ l, r qnode }
	qOr   struct{ l, r qnode }
	qNot  struct{ l, r qnode } // l AND NOT r
	qNear struct{ phrases []qPhrase }
)

type qtoken struct {
	kind string // "word", "phrase", "AND", "OR", "NOT", "(", ")", "NEAR", ","
	text string
	pfx  bool
}

func lexQuery(s string) ([]qtoken, error) {
	var out []qtoken
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '"':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(rs) {
					return nil, &syntaxError{string(rs[i:])}
				}
				if rs[j] == '"' {
					if j+1 < len(rs) && rs[j+1] == '"' {
						b.WriteRune('"')
						j += 2
						continue
					}
					break
				}
				b.WriteRune(rs[j])
				j++
			}
			t := qtoken{kind: "phrase", text: b.String()}
			j++
			if j < len(rs) && rs[j] == '*' {
				t.pfx = true
				j++
			}
			out = append(out, t)
			i = j
		case r == '(' || r == ')' || r == ',':
			out = append(out, qtoken{kind: string(r)})
			i++
		case isWordRune(r) || r == '_' || r > 127:
			j := i
			for j < len(rs) && (isWordRune(rs[j]) || rs[j] == '_' || rs[j] > 127) {
				j++
			}
			w := string(rs[i:j])
			t := qtoken{kind: "word", text: w}
			switch w {
			case "AND", "OR", "NOT":
				t.kind = w
			case "NEAR":
				if j < len(rs) && rs[j] == '(' {
					t.kind = "NEAR"
				}
			}
			if j < len(rs) && rs[j] == '*' {
				t.pfx = true
				j++
			}
			out = append(out, t)
			i = j
		default:
			return nil, &syntaxError{string(r)}
		}
	}
	return out, nil
}

type qparser struct {
	toks []qtoken
	i    int
}

func parseQuery(s string) (qnode, error) {
	toks, err := lexQuery(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, &syntaxError{""}
	}
	p := &qparser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, &syntaxError{p.toks[p.i].kind + p.toks[p.i].text}
	}
	return n, nil
}

func (p *qparser) peek() *qtoken {
	if p.i < len(p.toks) {
		return &p.toks[p.i]
	}
	return nil
}

func (p *qparser) or() (qnode, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t != nil && t.kind == "OR"; t = p.peek() {
		p.i++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = qOr{l, r}
	}
	return l, nil
}

func (p *qparser) and() (qnode, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t != nil && (t.kind == "AND" || t.kind == "word" || t.kind == "phrase" || t.kind == "(" || t.kind == "NEAR"); t = p.peek() {
		if t.kind == "AND" {
			p.i++
		}
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = qAnd{l, r}
	}
	return l, nil
}

func (p *qparser) not() (qnode, error) {
	l, err := p.primary()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t != nil && t.kind == "NOT"; t = p.peek() {
		p.i++
		r, err := p.primary()
		if err != nil {
			return nil, err
		}
		l = qNot{l, r}
	}
	return l, nil
}

func phraseOf(t qtoken) qPhrase {
	var words []string
	for _, w := range tokenize(t.text) {
		words = append(words, w.text)
	}
	return qPhrase{words: words, prefix: t.pfx}
}

func (p *qparser) primary() (qnode, error) {
	t := p.peek()
	if t == nil {
		return nil, &syntaxError{""}
	}
	p.i++
	switch t.kind {
	case "word", "phrase":
		return phraseOf(*t), nil
	case "(":
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c == nil || c.kind != ")" {
			return nil, &syntaxError{"("}
		}
		p.i++
		return n, nil
	case "NEAR":
		if c := p.peek(); c == nil || c.kind != "(" {
			return nil, &syntaxError{"NEAR"}
		}
		p.i++
		var near qNear
		for {
			c := p.peek()
			if c == nil {
				return nil, &syntaxError{"NEAR("}
			}
			p.i++
			switch c.kind {
			case "word", "phrase":
				near.phrases = append(near.phrases, phraseOf(*c))
				continue
			case ",":
				if n := p.peek(); n != nil && n.kind == "word" {
					p.i++ // the distance
				}
				continue
			case ")":
			default:
				return nil, &syntaxError{c.kind}
			}
			break
		}
		if len(near.phrases) == 0 {
			return nil, &syntaxError{"NEAR"}
		}
		return near, nil
	}
	return nil, &syntaxError{t.kind}
}

// ---- matching ----

// docIndex is the searchable part of one document.
type docIndex struct {
	text     string
	toks     []tok
	soort    string // Document only: its Soort (for moties, vragenantwoorden)
	datum    string // YYYY-MM-DD
	category string // one of the six of items.go
	doc      int    // Document: index in the TK data; -1 otherwise
	item     *item  // the other categories
}

// matchPhrase returns the token positions where phrase starts.
func matchPhrase(d *docIndex, ph qPhrase) []int {
	if len(ph.words) == 0 {
		return nil
	}
	var out []int
	for i := 0; i+len(ph.words) <= len(d.toks); i++ {
		ok := true
		for j, w := range ph.words {
			t := d.toks[i+j].text
			last := j == len(ph.words)-1
			if last && ph.prefix {
				if !strings.HasPrefix(t, w) {
					ok = false
					break
				}
			} else if t != w {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// eval returns whether d matches and the matched token positions (with
// their phrase lengths) for scoring and snippets.
func evalQuery(n qnode, d *docIndex, hits map[int]int) bool {
	switch n := n.(type) {
	case qPhrase:
		pos := matchPhrase(d, n)
		for _, p := range pos {
			hits[p] = len(n.words)
		}
		return len(pos) > 0
	case qAnd:
		l := evalQuery(n.l, d, hits)
		r := evalQuery(n.r, d, hits)
		return l && r
	case qOr:
		l := evalQuery(n.l, d, hits)
		r := evalQuery(n.r, d, hits)
		return l || r
	case qNot:
		if !evalQuery(n.l, d, hits) {
			return false
		}
		return !evalQuery(n.r, d, map[int]int{})
	case qNear:
		ok := true
		for _, ph := range n.phrases {
			if !evalQuery(ph, d, hits) {
				ok = false
			}
		}
		return ok
	}
	return false
}

// snippet is FTS5's snippet(docsearch,-1,'<b>','</b>','...',20): a window
// of 20 tokens around the first hit with the hits in bold.
func snippet(d *docIndex, hits map[int]int) string {
	first := len(d.toks)
	for p := range hits {
		first = min(first, p)
	}
	if first == len(d.toks) {
		first = 0
	}
	start := max(first-5, 0)
	end := min(start+20, len(d.toks))
	if end == 0 {
		return ""
	}
	bold := map[int]bool{}
	for p, n := range hits {
		for k := 0; k < n; k++ {
			bold[p+k] = true
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("...")
	}
	for i := start; i < end; i++ {
		t := d.toks[i]
		if i > start {
			b.WriteString(d.text[d.toks[i-1].end:t.start])
		}
		if bold[i] {
			b.WriteString("<b>" + d.text[t.start:t.end] + "</b>")
		} else {
			b.WriteString(d.text[t.start:t.end])
		}
	}
	if end < len(d.toks) {
		b.WriteString("...")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// bm25 is a negative score like SQLite's bm25(): lower is better. More
// hits and shorter texts score better.
func bm25(hits int, docLen, avgLen float64) float64 {
	const k1, b = 1.2, 0.75
	tf := float64(hits)
	idf := math.Log(3)
	return -idf * (tf * (k1 + 1)) / (tf + k1*(1-b+b*docLen/avgLen))
}
