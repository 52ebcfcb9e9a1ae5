package emulator

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// kind is the EDM type of a property or a literal.
type kind int

const (
	kNull kind = iota
	kString
	kInt
	kBool
	kDate // Edm.DateTimeOffset, stored as an RFC 3339 string
	kGUID
)

func (k kind) edm() string {
	switch k {
	case kString:
		return "Edm.String"
	case kInt:
		return "Edm.Int32"
	case kBool:
		return "Edm.Boolean"
	case kDate:
		return "Edm.DateTimeOffset"
	case kGUID:
		return "Edm.Guid"
	}
	return "null"
}

// queryError is a bad $filter/$orderby/$select: the server answers 400.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }

func qerr(format string, args ...any) error { return &queryError{fmt.Sprintf(format, args...)} }

// ---- lexer ----

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tGUID
	tDate
	tLParen
	tRParen
	tComma
	tColon
)

type token struct {
	kind tokKind
	text string
	pos  int
}

var (
	reGUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	reDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?`)
	reNum  = regexp.MustCompile(`^-?\d+(\.\d+)?`)
)

func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '(':
			out = append(out, token{tLParen, "(", i})
			i++
			continue
		case c == ')':
			out = append(out, token{tRParen, ")", i})
			i++
			continue
		case c == ',':
			out = append(out, token{tComma, ",", i})
			i++
			continue
		case c == ':':
			// the range variable of a lambda: Zaak/any(z:z/Nummer eq '…')
			out = append(out, token{tColon, ":", i})
			i++
			continue
		case c == '\'':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, qerr("Syntax error: unterminated string literal at position %d in '%s'.", i, s)
			}
			out = append(out, token{tString, b.String(), i})
			i = j
			continue
		}
		rest := s[i:]
		if m := reGUID.FindString(rest); m != "" {
			out = append(out, token{tGUID, strings.ToLower(m), i})
			i += len(m)
			continue
		}
		if m := reDate.FindString(rest); m != "" && len(m) >= 10 && (len(rest) == len(m) || !isIdentChar(rest[len(m)])) {
			out = append(out, token{tDate, m, i})
			i += len(m)
			continue
		}
		if m := reNum.FindString(rest); m != "" {
			out = append(out, token{tNumber, m, i})
			i += len(m)
			continue
		}
		if isIdentStart(c) {
			j := i
			for j < len(s) && (isIdentChar(s[j]) || s[j] == '/') {
				j++
			}
			word := s[i:j]
			if j < len(s) && s[j] == '\'' {
				// typed literal of OData v3: guid'…', datetime'…'
				return nil, qerr("The query specified in the URI is not valid. Syntax error at position %d in '%s'.", j, s)
			}
			out = append(out, token{tIdent, word, i})
			i = j
			continue
		}
		return nil, qerr("Syntax error: character '%c' is not valid at position %d in '%s'.", c, i, s)
	}
	out = append(out, token{tEOF, "", len(s)})
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// ---- AST ----

// node is a parsed $filter expression.
type node interface{}

type (
	binNode struct {
		op   string
		l, r node
	}
	notNode  struct{ x node }
	propNode struct {
		name string
		pos  int
		kind kind
	}
	litNode struct {
		kind kind
		v    any // string, int64, bool, time.Time, nil
	}
	callNode struct {
		fn   string
		args []node
	}
)

// schema gives the kinds of an entity type's properties.
type schema interface {
	kindOf(name string) (kind, bool)
	position(name string) int
	typeName() string
}

type parser struct {
	toks []token
	i    int
	src  string
	sch  schema
	// ver is the API version whose types navigation properties lead to
	// (nil: v4's).
	ver *apiVersion
	// vars are the lambda range variables in scope, innermost last.
	vars []rangeVar
}

func parseFilter(src string, sch schema) (node, error) {
	return parseFilterIn(src, sch, nil)
}

// parseFilterIn parses a $filter of an entity type of version ver, whose
// navigation properties lead to ver's types.
func parseFilterIn(src string, sch schema, ver *apiVersion) (node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, src: src, sch: sch, ver: ver}
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		t := p.peek()
		return nil, qerr("Syntax error at position %d in '%s'.", t.pos, src)
	}
	if k := staticKind(n); k != kBool {
		return nil, qerr("The $filter expression must evaluate to a single boolean value.")
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == w
}

func (p *parser) parseOr() (node, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.isWord("or") {
		p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		if err := p.checkBool(l, r, "Or"); err != nil {
			return nil, err
		}
		l = binNode{"or", l, r}
	}
	return l, nil
}

func (p *parser) parseAnd() (node, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.isWord("and") {
		p.next()
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		if err := p.checkBool(l, r, "And"); err != nil {
			return nil, err
		}
		l = binNode{"and", l, r}
	}
	return l, nil
}

func (p *parser) checkBool(l, r node, op string) error {
	if staticKind(l) != kBool || staticKind(r) != kBool {
		return qerr("A binary operator with incompatible types was detected. Found operand types '%s' and '%s' for operator kind '%s'.", staticKind(l).edm(), staticKind(r).edm(), op)
	}
	return nil
}

func (p *parser) parseNot() (node, error) {
	if p.isWord("not") {
		p.next()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		if staticKind(x) != kBool {
			return nil, qerr("A unary operator with an incompatible type was detected. Found operand type '%s' for operator kind 'Not'.", staticKind(x).edm())
		}
		return notNode{x}, nil
	}
	return p.parseCmp()
}

var cmpOps = map[string]string{"eq": "Equal", "ne": "NotEqual", "gt": "GreaterThan", "ge": "GreaterThanOrEqual", "lt": "LessThan", "le": "LessThanOrEqual"}

func (p *parser) parseCmp() (node, error) {
	l, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind != tIdent {
		return l, nil
	}
	opName, ok := cmpOps[t.text]
	if !ok {
		if t.text == "and" || t.text == "or" {
			return l, nil
		}
		return nil, qerr("Syntax error at position %d in '%s'.", t.pos, p.src)
	}
	p.next()
	r, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	lk, rk := staticKind(l), staticKind(r)
	if !compatible(lk, rk) {
		return nil, qerr("A binary operator with incompatible types was detected. Found operand types '%s' and '%s' for operator kind '%s'.", lk.edm(), rk.edm(), opName)
	}
	if t.text != "eq" && t.text != "ne" && (lk == kBool || rk == kBool) {
		return nil, qerr("A binary operator with incompatible types was detected. Found operand types '%s' and '%s' for operator kind '%s'.", lk.edm(), rk.edm(), opName)
	}
	// a date-only literal compared to a DateTimeOffset property is accepted
	if ln, ok := r.(litNode); ok && lk == kDate && ln.kind == kDate {
		r = ln
	}
	return binNode{t.text, l, r}, nil
}

func compatible(a, b kind) bool {
	if a == kNull || b == kNull {
		return true
	}
	return a == b
}

func (p *parser) parsePrimary() (node, error) {
	t := p.next()
	switch t.kind {
	case tLParen:
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if p.next().kind != tRParen {
			return nil, qerr("Syntax error: ')' expected at position %d in '%s'.", p.toks[p.i-1].pos, p.src)
		}
		return n, nil
	case tString:
		return litNode{kString, t.text}, nil
	case tGUID:
		return litNode{kGUID, t.text}, nil
	case tDate:
		tm, err := parseLiteralTime(t.text)
		if err != nil {
			return nil, qerr("The query specified in the URI is not valid. '%s' is not a valid Edm.DateTimeOffset literal.", t.text)
		}
		return litNode{kDate, tm}, nil
	case tNumber:
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, qerr("The query specified in the URI is not valid. '%s' is not a supported numeric literal.", t.text)
		}
		return litNode{kInt, n}, nil
	case tIdent:
		switch t.text {
		case "true", "false":
			return litNode{kBool, t.text == "true"}, nil
		case "null":
			return litNode{kNull, nil}, nil
		}
		if strings.Contains(t.text, "/") || p.isVar(t.text) {
			return p.parsePath(t)
		}
		if p.peek().kind == tLParen {
			return p.parseCall(t)
		}
		k, ok := p.sch.kindOf(t.text)
		if !ok {
			return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", t.text, p.sch.typeName())
		}
		return propNode{t.text, p.sch.position(t.text), k}, nil
	}
	if t.kind == tEOF {
		return nil, qerr("Syntax error: expression expected at end of '%s'.", p.src)
	}
	return nil, qerr("Syntax error at position %d in '%s'.", t.pos, p.src)
}

var funcs = map[string]struct {
	args []kind
	ret  kind
}{
	"contains":   {[]kind{kString, kString}, kBool},
	"startswith": {[]kind{kString, kString}, kBool},
	"endswith":   {[]kind{kString, kString}, kBool},
	"tolower":    {[]kind{kString}, kString},
	"toupper":    {[]kind{kString}, kString},
	"year":       {[]kind{kDate}, kInt},
	"month":      {[]kind{kDate}, kInt},
	"day":        {[]kind{kDate}, kInt},
}

func (p *parser) parseCall(name token) (node, error) {
	f, ok := funcs[name.text]
	if !ok {
		return nil, qerr("The query specified in the URI is not valid. An unknown function with name '%s' was found. This may also be a function import or a key lookup on a navigation property, which is not allowed.", name.text)
	}
	p.next() // (
	var args []node
	if p.peek().kind != tRParen {
		for {
			a, err := p.parseOr()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.peek().kind == tComma {
				p.next()
				continue
			}
			break
		}
	}
	if p.next().kind != tRParen {
		return nil, qerr("Syntax error: ')' expected in call to '%s' in '%s'.", name.text, p.src)
	}
	if len(args) != len(f.args) {
		return nil, qerr("The query specified in the URI is not valid. No function signature for the function with name '%s' matches the specified arguments.", name.text)
	}
	for i, a := range args {
		if k := staticKind(a); k != f.args[i] && k != kNull {
			return nil, qerr("The query specified in the URI is not valid. No function signature for the function with name '%s' matches the specified arguments. The function signatures considered are: %s(%s).", name.text, name.text, f.args[i].edm())
		}
	}
	return callNode{name.text, args}, nil
}

func staticKind(n node) kind {
	switch n := n.(type) {
	case binNode, notNode:
		return kBool
	case propNode:
		return n.kind
	case litNode:
		return n.kind
	case callNode:
		return funcs[n.fn].ret
	case pathNode:
		return n.prop.kind
	case lambdaNode:
		return kBool
	}
	return kNull
}

func parseLiteralTime(s string) (time.Time, error) {
	if len(s) == 10 {
		return time.Parse("2006-01-02", s)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}

// ---- evaluation ----

// getter is the row a filter is evaluated on ($it) and the range
// variables of the lambdas around the expression.
type getter struct {
	d    *Data
	it   rowRef
	vars map[string]rowRef
}

// rowRef is one row of a set as a type shows it.
type rowRef struct {
	s *set
	t *entityType
	i int
}

func (r rowRef) value(pos int) any { return r.t.value(r.s.rows[r.i], pos) }

func evalBool(n node, get getter) bool {
	v := eval(n, get)
	b, _ := v.(bool)
	return b
}

func eval(n node, get getter) any {
	switch n := n.(type) {
	case binNode:
		switch n.op {
		case "and":
			return evalBool(n.l, get) && evalBool(n.r, get)
		case "or":
			return evalBool(n.l, get) || evalBool(n.r, get)
		}
		l, r := eval(n.l, get), eval(n.r, get)
		k := staticKind(n.l)
		if k == kNull {
			k = staticKind(n.r)
		}
		c, ok := compareValues(l, r, k)
		switch n.op {
		case "eq":
			return ok && c == 0 || (l == nil && r == nil)
		case "ne":
			return !(ok && c == 0 || (l == nil && r == nil))
		}
		if !ok {
			return false
		}
		switch n.op {
		case "gt":
			return c > 0
		case "ge":
			return c >= 0
		case "lt":
			return c < 0
		case "le":
			return c <= 0
		}
		return false
	case notNode:
		return !evalBool(n.x, get)
	case propNode:
		return normalize(get.it.value(n.pos))
	case pathNode:
		return evalPath(n, get)
	case lambdaNode:
		return evalLambda(n, get)
	case litNode:
		return n.v
	case callNode:
		args := make([]any, len(n.args))
		for i, a := range n.args {
			args[i] = eval(a, get)
		}
		switch n.fn {
		case "contains", "startswith", "endswith":
			a, ok1 := args[0].(string)
			b, ok2 := args[1].(string)
			if !ok1 || !ok2 {
				return false
			}
			switch n.fn {
			case "contains":
				return strings.Contains(a, b)
			case "startswith":
				return strings.HasPrefix(a, b)
			default:
				return strings.HasSuffix(a, b)
			}
		case "tolower", "toupper":
			a, ok := args[0].(string)
			if !ok {
				return nil
			}
			if n.fn == "tolower" {
				return strings.ToLower(a)
			}
			return strings.ToUpper(a)
		case "year", "month", "day":
			t, ok := asTime(args[0])
			if !ok {
				return nil
			}
			switch n.fn {
			case "year":
				return int64(t.Year())
			case "month":
				return int64(t.Month())
			default:
				return int64(t.Day())
			}
		}
	}
	return nil
}

func normalize(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	}
	return v
}

func asTime(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v, true
	case string:
		t, err := parseLiteralTime(v)
		return t, err == nil
	}
	return time.Time{}, false
}

// compareValues compares a and b of kind k; ok is false when either is null.
func compareValues(a, b any, k kind) (int, bool) {
	a, b = normalize(a), normalize(b)
	if a == nil || b == nil {
		return 0, false
	}
	switch k {
	case kDate:
		// same layout and offset: the strings order like the times
		if x, ok := a.(string); ok {
			if y, ok := b.(string); ok && len(x) == len(y) && len(x) > 6 && x[len(x)-6:] == y[len(y)-6:] {
				return strings.Compare(x, y), true
			}
		}
		ta, ok1 := asTime(a)
		tb, ok2 := asTime(b)
		if !ok1 || !ok2 {
			return 0, false
		}
		return ta.Compare(tb), true
	case kInt:
		x, ok1 := a.(int64)
		y, ok2 := b.(int64)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	case kBool:
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		if !ok1 || !ok2 {
			return 0, false
		}
		if x == y {
			return 0, true
		}
		if !x {
			return -1, true
		}
		return 1, true
	case kGUID:
		x, _ := a.(string)
		y, _ := b.(string)
		return strings.Compare(strings.ToLower(x), strings.ToLower(y)), true
	}
	x, ok1 := a.(string)
	y, ok2 := b.(string)
	if !ok1 || !ok2 {
		return 0, false
	}
	return strings.Compare(x, y), true
}
