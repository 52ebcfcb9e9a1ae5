package emulator

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// diag is an SRU diagnostic: info:srw/diagnostic/1/<Code>.
type diag struct {
	Code    int
	Details string
	Message string
}

func (d *diag) Error() string {
	return fmt.Sprintf("diagnostic %d: %s (%s)", d.Code, d.Message, d.Details)
}

// Standard SRU diagnostics used by the emulator.
func diagf(code int, details string) *diag {
	msg := map[int]string{
		1:  "General system error",
		4:  "Unsupported operation",
		5:  "Unsupported version",
		6:  "Unsupported parameter value",
		7:  "Mandatory parameter not supplied",
		10: "Query syntax error",
		16: "Unsupported index",
		19: "Unsupported relation",
		20: "Unsupported relation modifier",
		27: "Empty term unsupported",
		36: "Term in invalid format for index or relation",
		37: "Unsupported boolean operator",
		61: "First record position out of range",
		66: "Unknown schema for retrieval",
		90: "Unsupported direction",
	}[code]
	return &diag{Code: code, Details: details, Message: msg}
}

// ---- tokens

type tokKind int

const (
	tWord tokKind = iota
	tQuoted
	tLParen
	tRParen
	tRel // = == <> < > <= >=
	tSlash
	tEOF
)

type token struct {
	kind tokKind
	text string
	pos  int
	// lit marks the runes of a quoted term's text that a backslash made
	// literal: an escaped * is the character, not a wildcard.
	lit []bool
}

func tokenize(q string) ([]token, *diag) {
	var toks []token
	rs := []rune(q)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '(':
			toks = append(toks, token{kind: tLParen, text: "(", pos: i})
			i++
		case c == ')':
			toks = append(toks, token{kind: tRParen, text: ")", pos: i})
			i++
		case c == '/':
			toks = append(toks, token{kind: tSlash, text: "/", pos: i})
			i++
		case c == '=' || c == '<' || c == '>':
			j := i + 1
			if j < len(rs) && (rs[j] == '=' || (c == '<' && rs[j] == '>')) {
				j++
			}
			toks = append(toks, token{kind: tRel, text: string(rs[i:j]), pos: i})
			i = j
		case c == '"':
			var b strings.Builder
			var lit []bool
			j := i + 1
			closed := false
			for j < len(rs) {
				if rs[j] == '\\' && j+1 < len(rs) {
					b.WriteRune(rs[j+1])
					lit = append(lit, true)
					j += 2
					continue
				}
				if rs[j] == '"' {
					closed = true
					j++
					break
				}
				b.WriteRune(rs[j])
				lit = append(lit, false)
				j++
			}
			if !closed {
				return nil, diagf(10, "unterminated quoted term at position "+strconv.Itoa(i+1))
			}
			toks = append(toks, token{kind: tQuoted, text: b.String(), pos: i, lit: lit})
			i = j
		default:
			// A word runs until whitespace, a parenthesis, a quote or a
			// relation symbol. A slash inside a word stays in it, so
			// unquoted content areas ("officielepublicaties/stb/2024") and
			// sort keys ("dt.modified/sort.descending") are single words.
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune("()\"=<>", rs[j]) {
				j++
			}
			toks = append(toks, token{kind: tWord, text: string(rs[i:j]), pos: i})
			i = j
		}
	}
	toks = append(toks, token{kind: tEOF, text: "", pos: len(rs)})
	return toks, nil
}

// ---- syntax tree

type node interface{ isNode() }

type boolNode struct {
	op          string // and, or, not
	left, right node
}

type clause struct {
	index    string // lowercased; "cql.serverchoice" for a bare term
	relation string // =, ==, <>, <, >, <=, >=, any, all, exact
	term     string
	lit      []bool // as token.lit
}

// truncated tells whether the term ends in a wildcard: an unescaped *.
func (c *clause) truncated() bool {
	r := []rune(c.term)
	n := len(r) - 1
	return n >= 0 && r[n] == '*' && !(n < len(c.lit) && c.lit[n])
}

// words is the term in lower case for the word relations, an escaped *
// (a character of the text, which no word holds) made a space.
func (c *clause) words() string {
	r := []rune(c.term)
	for i := range r {
		r[i] = unicode.ToLower(r[i])
		if r[i] == '*' && i < len(c.lit) && c.lit[i] {
			r[i] = ' '
		}
	}
	return string(r)
}

func (*boolNode) isNode() {}
func (*clause) isNode()   {}

type sortKey struct {
	index string
	desc  bool
}

type query struct {
	root node
	sort []sortKey
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func parseCQL(q string) (*query, *diag) {
	if strings.TrimSpace(q) == "" {
		return nil, diagf(10, "empty query")
	}
	toks, d := tokenize(q)
	if d != nil {
		return nil, d
	}
	p := &parser{toks: toks}
	root, d := p.scoped()
	if d != nil {
		return nil, d
	}
	out := &query{root: root}
	t := p.peek()
	if t.kind == tWord && strings.EqualFold(t.text, "sortby") {
		p.next()
		for p.peek().kind == tWord || p.peek().kind == tQuoted {
			k, d := parseSortKey(p.next().text)
			if d != nil {
				return nil, d
			}
			out.sort = append(out.sort, k)
		}
		if len(out.sort) == 0 {
			return nil, diagf(10, "sortBy without a sort key")
		}
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, diagf(10, fmt.Sprintf("unexpected %q at position %d", t.text, t.pos+1))
	}
	return out, nil
}

func parseSortKey(s string) (sortKey, *diag) {
	parts := strings.Split(s, "/")
	k := sortKey{index: strings.ToLower(parts[0])}
	if _, ok := indexes[k.index]; !ok || k.index == "cql.serverchoice" || k.index == "cql.textandindexes" || k.index == "cql.allrecords" {
		return k, diagf(16, parts[0])
	}
	for _, m := range parts[1:] {
		switch strings.ToLower(m) {
		case "sort.ascending", "ascending":
			k.desc = false
		case "sort.descending", "descending":
			k.desc = true
		case "sort.ignorecase", "sort.respectcase", "sort.missinglow", "sort.missinghigh", "sort.missingomit":
		default:
			return k, diagf(90, m)
		}
	}
	return k, nil
}

// scoped := clause { boolean clause }   (left-associative, as in CQL)
func (p *parser) scoped() (node, *diag) {
	left, d := p.clause()
	if d != nil {
		return nil, d
	}
	for {
		t := p.peek()
		if t.kind != tWord {
			return left, nil
		}
		word, mods, _ := strings.Cut(t.text, "/")
		op := strings.ToLower(word)
		switch op {
		case "and", "or", "not":
		case "prox":
			return nil, diagf(37, word)
		default:
			if strings.EqualFold(t.text, "sortby") {
				return left, nil
			}
			return nil, diagf(10, fmt.Sprintf("expected a boolean operator at position %d, found %q", t.pos+1, t.text))
		}
		if mods != "" || p.toks[p.i+1].kind == tSlash {
			return nil, diagf(10, "boolean modifiers are not supported")
		}
		p.next()
		right, d := p.clause()
		if d != nil {
			return nil, d
		}
		left = &boolNode{op: op, left: left, right: right}
	}
}

var namedRelations = map[string]bool{"any": true, "all": true, "exact": true, "adj": true, "within": true, "encloses": true}

// clause := '(' scoped ')' | term | index relation term
func (p *parser) clause() (node, *diag) {
	t := p.next()
	switch t.kind {
	case tLParen:
		n, d := p.scoped()
		if d != nil {
			return nil, d
		}
		if c := p.next(); c.kind != tRParen {
			return nil, diagf(10, fmt.Sprintf("missing ')' at position %d", c.pos+1))
		}
		return n, nil
	case tWord, tQuoted:
	case tEOF:
		return nil, diagf(10, "query ends where a search term was expected")
	default:
		return nil, diagf(10, fmt.Sprintf("unexpected %q at position %d", t.text, t.pos+1))
	}
	// Is it "index relation term"?
	nt := p.peek()
	rel := ""
	switch {
	case nt.kind == tRel:
		p.next()
		rel = nt.text
		if p.peek().kind == tSlash {
			p.next()
			m := p.next()
			return nil, diagf(20, m.text)
		}
	case nt.kind == tWord:
		w, mods, hasMod := strings.Cut(nt.text, "/")
		if namedRelations[strings.ToLower(w)] {
			p.next()
			rel = strings.ToLower(w)
			if hasMod {
				return nil, diagf(20, mods)
			}
		}
	}
	if rel == "" {
		if t.kind == tWord && isReserved(t.text) {
			return nil, diagf(10, fmt.Sprintf("unexpected %q at position %d", t.text, t.pos+1))
		}
		return &clause{index: "cql.serverchoice", relation: "=", term: t.text, lit: t.lit}, nil
	}
	if t.kind == tQuoted {
		return nil, diagf(10, "an index name cannot be quoted")
	}
	term := p.next()
	if term.kind != tWord && term.kind != tQuoted {
		return nil, diagf(10, fmt.Sprintf("missing search term after %q", rel))
	}
	switch rel {
	case "adj", "within", "encloses":
		return nil, diagf(19, rel)
	}
	idx := strings.ToLower(t.text)
	if _, ok := indexes[idx]; !ok {
		return nil, diagf(16, t.text)
	}
	c := &clause{index: idx, relation: rel, term: term.text, lit: term.lit}
	if def := indexes[idx]; def.date && c.relation != "any" && c.relation != "all" {
		if _, err := time.Parse(time.DateOnly, c.term); err != nil && !isYear(c.term) {
			return nil, diagf(36, c.term)
		}
	}
	return c, nil
}

func isReserved(w string) bool {
	switch strings.ToLower(w) {
	case "and", "or", "not", "prox", "sortby":
		return true
	}
	return false
}

func isYear(s string) bool {
	if len(s) != 4 {
		return false
	}
	_, err := strconv.Atoi(s)
	return err == nil
}

// ---- indexes and evaluation

type indexDef struct {
	get  func(p *pub) string
	date bool
	num  bool
}

var indexes = map[string]indexDef{
	"c.product-area":     {get: func(*pub) string { return "officielepublicaties" }},
	"c.content-area":     {get: (*pub).contentArea},
	"dt.identifier":      {get: func(p *pub) string { return p.ID }},
	"dt.title":           {get: func(p *pub) string { return p.Title }},
	"dt.type":            {get: func(p *pub) string { return p.Type }},
	"dt.creator":         {get: func(p *pub) string { return p.Creator }},
	"dt.subject":         {get: func(p *pub) string { return p.Subject }},
	"dt.abstract":        {get: func(p *pub) string { return p.Abstract }},
	"dt.date":            {get: func(p *pub) string { return p.Date }, date: true},
	"dt.issued":          {get: func(p *pub) string { return p.Issued }, date: true},
	"dt.available":       {get: func(p *pub) string { return p.Issued }, date: true},
	"dt.modified":        {get: func(p *pub) string { return p.Modified }, date: true},
	"w.publicatienaam":   {get: func(p *pub) string { return p.Kind.name }},
	"w.organisatietype":  {get: func(p *pub) string { return p.OrgType }},
	"w.documentstatus":   {get: func(p *pub) string { return p.Status }},
	"w.jaargang":         {get: func(p *pub) string { return strconv.Itoa(p.Year) }, num: true},
	"w.publicatienummer": {get: func(p *pub) string { return p.Number }, num: true},
	"w.dossiernummer":    {get: func(p *pub) string { return p.Dossier }},
	"w.behandelddossier": {get: behandeld}, // timeline.go
	"w.ondernummer": {get: func(p *pub) string {
		if p.Kind.code == "kst" {
			return p.Number
		}
		return ""
	}, num: true},
	"w.vergaderjaar":     {get: func(p *pub) string { return p.Vergader }},
	"cql.textandindexes": {get: func(p *pub) string { return p.text }},
	"cql.serverchoice":   {get: func(p *pub) string { return p.text }},
	"cql.allrecords":     {get: func(*pub) string { return "" }},
	"cql.keywords":       {get: func(p *pub) string { return p.text }},
}

// compile turns a parsed query into a predicate.
func compile(n node) func(*pub) bool {
	switch n := n.(type) {
	case *boolNode:
		l, r := compile(n.left), compile(n.right)
		switch n.op {
		case "and":
			return func(p *pub) bool { return l(p) && r(p) }
		case "or":
			return func(p *pub) bool { return l(p) || r(p) }
		default: // not = and-not
			return func(p *pub) bool { return l(p) && !r(p) }
		}
	case *clause:
		return compileClause(n)
	}
	return func(*pub) bool { return false }
}

func compileClause(c *clause) func(*pub) bool {
	def := indexes[c.index]
	if c.index == "cql.allrecords" {
		return func(*pub) bool { return true }
	}
	term := strings.ToLower(c.term)
	switch c.relation {
	case "==", "exact":
		if c.truncated() {
			pre := strings.TrimSuffix(term, "*")
			return func(p *pub) bool { return strings.HasPrefix(strings.ToLower(def.get(p)), pre) }
		}
		if def.date {
			return func(p *pub) bool { return strings.HasPrefix(def.get(p), term) }
		}
		return func(p *pub) bool { return strings.EqualFold(def.get(p), term) }
	case "<>":
		return func(p *pub) bool { return !strings.EqualFold(def.get(p), term) }
	case "<", ">", "<=", ">=":
		return func(p *pub) bool {
			v := strings.ToLower(def.get(p))
			if v == "" {
				return false
			}
			return compareRel(c.relation, cmp(v, term, def.num))
		}
	case "any", "all":
		words := tokens(c.words())
		if len(words) == 0 {
			return func(*pub) bool { return false }
		}
		all := c.relation == "all"
		return func(p *pub) bool {
			text := strings.ToLower(def.get(p))
			if !mayHold(text, words, all) {
				return false
			}
			have := tokens(text)
			for _, w := range words {
				found := containsWord(have, w)
				if found && !all {
					return true
				}
				if !found && all {
					return false
				}
			}
			return all
		}
	default: // "=": dates and numbers compare as values, text as a phrase
		if def.date {
			return func(p *pub) bool { return strings.HasPrefix(def.get(p), term) }
		}
		words := tokens(c.words())
		if len(words) == 0 {
			return func(*pub) bool { return false }
		}
		return func(p *pub) bool {
			text := strings.ToLower(def.get(p))
			return mayHold(text, words, true) && containsPhrase(tokens(text), words)
		}
	}
}

func compareRel(rel string, c int) bool {
	switch rel {
	case "<":
		return c < 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	default:
		return c >= 0
	}
}

func cmp(a, b string, num bool) int {
	if num {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	return strings.Compare(a, b)
}

// tokens splits lowercased text into words of letters and digits; a word
// may end in '*' (a truncation wildcard in a search term).
func tokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '*'
	})
}

// mayHold tells whether text could hold each of words (all) or one of
// them as a token: a token that matches a word (wordMatch) holds it, or
// its part before a final '*', as a substring. At millions of
// publications (Config.Scale) a search by words would spend most of its
// time splitting texts that hold none of them.
func mayHold(text string, words []string, all bool) bool {
	for _, w := range words {
		in := strings.Contains(text, strings.TrimSuffix(w, "*"))
		if in != all {
			return in
		}
	}
	return all
}

func wordMatch(have, want string) bool {
	if strings.HasSuffix(want, "*") {
		return strings.HasPrefix(have, strings.TrimSuffix(want, "*"))
	}
	return have == want
}

func containsWord(have []string, w string) bool {
	for _, h := range have {
		if wordMatch(h, w) {
			return true
		}
	}
	return false
}

func containsPhrase(have, words []string) bool {
outer:
	for i := 0; i+len(words) <= len(have); i++ {
		for j, w := range words {
			if !wordMatch(have[i+j], w) {
				continue outer
			}
		}
		return true
	}
	return false
}
