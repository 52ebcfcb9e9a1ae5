package emulator

import "strings"

// Navigation in $filter and $orderby, as the OData v4 URL conventions
// write it (lambda operators; property paths through navigation
// properties); which navigations are single-valued is read from the
// Besluit fixtures (docs/emulators.md, Tweede Kamer):
//
//   - a path through single-valued navigation properties to a property:
//     Agendapunt/Activiteit/Datum ge 2024-01-01T00:00:00+01:00;
//   - any/all over a collection-valued one, with a range variable:
//     Zaak/any(z:z/Nummer eq '2022Z17826').
//
// A lambda's body may hold paths over its variable. ASP.NET OData
// services cap how deep lambdas nest (MaxAnyAllExpressionDepth, 1 by
// default); the Kamer publishes no cap, so the emulator serves one level
// only: a client that nests deeper fails here before it can fail there.

// maxLambdaDepth is how deep any/all may nest.
const maxLambdaDepth = 1

// rangeVar is a lambda's variable and the type it ranges over.
type rangeVar struct {
	name string
	t    *entityType
}

// navStep is one navigation property on a path.
type navStep struct {
	name string
	def  navDef
	t    *entityType // the type it leads to
}

// pathNode is a property reached from $it or a range variable through
// single-valued navigation properties.
type pathNode struct {
	from string // range variable, "" for $it
	navs []navStep
	prop propNode
}

// lambdaNode is any/all over a collection-valued navigation property
// reached from $it or a range variable (through single-valued ones).
type lambdaNode struct {
	from string
	navs []navStep // the last one is the collection
	all  bool
	v    string // range variable, "" for any() without one
	body node   // nil for any()
}

func (p *parser) isVar(name string) bool {
	for _, v := range p.vars {
		if v.name == name {
			return true
		}
	}
	return false
}

func (p *parser) varType(name string) *entityType {
	for i := len(p.vars) - 1; i >= 0; i-- {
		if p.vars[i].name == name {
			return p.vars[i].t
		}
	}
	return nil
}

// typeOf is the version's type of a navigation property's target.
func (p *parser) typeOf(name string) *entityType {
	if p.ver != nil {
		return p.ver.typeByName(name)
	}
	return odataV4.typeByName(name)
}

// parsePath parses a path or a lambda whose first token t was read.
func (p *parser) parsePath(t token) (node, error) {
	segs := strings.Split(t.text, "/")
	for _, s := range segs {
		if s == "" {
			return nil, qerr("Syntax error at position %d in '%s'.", t.pos, p.src)
		}
	}
	var cur *entityType
	from := ""
	if vt := p.varType(segs[0]); vt != nil {
		from, cur, segs = segs[0], vt, segs[1:]
	} else {
		et, ok := p.sch.(*entityType)
		if !ok {
			return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", segs[0], p.sch.typeName())
		}
		cur = et
	}
	if len(segs) == 0 {
		return nil, qerr("The query specified in the URI is not valid. A range variable '%s' can only be used with a property.", from)
	}
	var navs []navStep
	for k, s := range segs {
		last := k == len(segs)-1
		if last && (s == "any" || s == "all") && p.peek().kind == tLParen {
			if len(navs) == 0 || navs[len(navs)-1].def.single {
				return nil, qerr("The query specified in the URI is not valid. The '%s' lambda can only be applied to a collection-valued navigation property in '%s'.", s, p.src)
			}
			return p.parseLambda(from, navs, s == "all")
		}
		if last {
			k, ok := cur.kindOf(s)
			if !ok {
				return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", s, cur.typeName())
			}
			for _, n := range navs {
				if !n.def.single {
					return nil, qerr("The query specified in the URI is not valid. The parent value for a property access of a property '%s' is not a single value. Property access can only be applied to a single value.", s)
				}
			}
			return pathNode{from: from, navs: navs, prop: propNode{s, cur.position(s), k}}, nil
		}
		def, ok := navigations()[cur.name][s]
		if !ok {
			return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", s, cur.typeName())
		}
		if len(navs) > 0 && !navs[len(navs)-1].def.single {
			return nil, qerr("The query specified in the URI is not valid. The parent value for a property access of a property '%s' is not a single value. Property access can only be applied to a single value.", s)
		}
		next := p.typeOf(def.target)
		navs = append(navs, navStep{name: s, def: def, t: next})
		cur = next
	}
	return nil, qerr("Syntax error at position %d in '%s'.", t.pos, p.src)
}

// parseLambda parses "(v:body)" or "()" after Nav/any or Nav/all.
func (p *parser) parseLambda(from string, navs []navStep, all bool) (node, error) {
	if len(p.vars) >= maxLambdaDepth {
		return nil, qerr("The query specified in the URI is not valid. The Any/All nesting limit of '%d' has been exceeded. 'MaxAnyAllExpressionDepth' can be configured on ODataQuerySettings or EnableQueryAttribute.", maxLambdaDepth)
	}
	p.next() // (
	n := lambdaNode{from: from, navs: navs, all: all}
	if p.peek().kind == tRParen {
		p.next()
		if all {
			return nil, qerr("The query specified in the URI is not valid. 'all' requires a lambda expression in '%s'.", p.src)
		}
		return n, nil
	}
	v := p.next()
	if v.kind != tIdent || strings.Contains(v.text, "/") || p.peek().kind != tColon {
		return nil, qerr("Syntax error: a range variable and ':' expected at position %d in '%s'.", v.pos, p.src)
	}
	if p.isVar(v.text) {
		return nil, qerr("The query specified in the URI is not valid. The range variable '%s' has already been declared.", v.text)
	}
	p.next() // :
	n.v = v.text
	p.vars = append(p.vars, rangeVar{v.text, navs[len(navs)-1].t})
	body, err := p.parseOr()
	p.vars = p.vars[:len(p.vars)-1]
	if err != nil {
		return nil, err
	}
	if staticKind(body) != kBool {
		return nil, qerr("The query specified in the URI is not valid. The lambda expression must evaluate to a single boolean value.")
	}
	if p.next().kind != tRParen {
		return nil, qerr("Syntax error: ')' expected at position %d in '%s'.", p.toks[p.i-1].pos, p.src)
	}
	n.body = body
	return n, nil
}

// follow walks navs from the row the path starts at; rows reached.
func follow(get getter, from string, navs []navStep) []rowRef {
	start := get.it
	if from != "" {
		start = get.vars[from]
	}
	cur := []rowRef{start}
	for _, n := range navs {
		var next []rowRef
		ts := get.d.set(n.def.target)
		for _, r := range cur {
			for _, j := range n.def.resolve(get.d, r.i) {
				next = append(next, rowRef{ts, n.t, j})
			}
		}
		cur = next
	}
	return cur
}

func evalPath(n pathNode, get getter) any {
	rows := follow(get, n.from, n.navs)
	if len(rows) == 0 {
		return nil // a null navigation gives a null property
	}
	return normalize(rows[0].value(n.prop.pos))
}

func evalLambda(n lambdaNode, get getter) any {
	rows := follow(get, n.from, n.navs)
	if n.body == nil {
		return len(rows) > 0
	}
	for _, r := range rows {
		inner := getter{d: get.d, it: get.it, vars: map[string]rowRef{n.v: r}}
		for k, v := range get.vars {
			inner.vars[k] = v
		}
		if evalBool(n.body, inner) != n.all {
			return !n.all
		}
	}
	return n.all
}
