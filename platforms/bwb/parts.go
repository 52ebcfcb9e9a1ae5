package bwb

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Part is one article or chapter of a toestand.
type Part struct {
	Kind  string // the element: artikel, hoofdstuk, paragraaf, ...
	Label string // as the toestand labels it: Artikel 1, § 2, Hoofdstuk 3
	// InForce is the day this part's text came in force (its inwerking),
	// "" when the toestand does not say.
	InForce string
	// Sources are the publications its text came from; Publications all
	// those its brondata names.
	Sources      []Publication
	Publications []Publication
	Text         string
}

// divisions are the elements that group articles, in the order a bare
// number is looked for among them ("chapter 2" means a hoofdstuk first).
var divisions = []string{"hoofdstuk", "titeldeel", "afdeling", "paragraaf", "subparagraaf", "boek", "deel", "bijlage"}

// divisionWords are the words a chapter may be asked by, to the element.
var divisionWords = map[string]string{"hoofdstuk": "hoofdstuk", "chapter": "hoofdstuk", "titeldeel": "titeldeel",
	"afdeling": "afdeling", "paragraaf": "paragraaf", "§": "paragraaf", "par": "paragraaf", "par.": "paragraaf",
	"subparagraaf": "subparagraaf", "boek": "boek", "deel": "deel", "titel": "titeldeel", "bijlage": "bijlage"}

// number is a part's number as asked or as written, compared loosely:
// "Artikel 3:40." and "3:40" are the same, as are "§ 1" and "1".
func number(s string) string {
	s = strings.ToLower(adapters.Squash(s))
	for _, w := range []string{"artikel", "art.", "art"} {
		if rest, ok := strings.CutPrefix(s, w); ok {
			s = rest
			break
		}
	}
	return strings.TrimSuffix(strings.ReplaceAll(s, " ", ""), ".")
}

// numberOf is the number a part carries: its kop's nr, else the last
// word of its label attribute.
func numberOf(n *node) string {
	if k := n.child("kop"); k != nil {
		if nr := k.child("nr"); nr != nil {
			return number(nr.plain())
		}
	}
	if f := strings.Fields(n.attr("label")); len(f) > 0 {
		return number(f[len(f)-1])
	}
	return ""
}

// labelOf is how a part is named: its label attribute, else its kop's
// label and nr.
func labelOf(n *node) string {
	if l := adapters.Squash(n.attr("label")); l != "" {
		return adapters.Cut(l, 80)
	}
	if k := n.child("kop"); k != nil {
		var parts []string
		for _, name := range []string{"label", "nr"} {
			if c := k.child(name); c != nil {
				parts = append(parts, c.plain())
			}
		}
		if l := adapters.Squash(strings.Join(parts, " ")); l != "" {
			return adapters.Cut(l, 80)
		}
	}
	return n.name
}

// PartError is a part the toestand does not hold, with the parts of that
// kind it does hold.
type PartError struct {
	ID, Version, Asked, What string
	Have                     []string
}

func (e *PartError) Error() string {
	msg := fmt.Sprintf("%s (version %s) has no %s %q", e.ID, e.Version, e.What, adapters.Cut(e.Asked, 40))
	if len(e.Have) == 0 {
		return msg + ": this version has none"
	}
	have := e.Have
	if len(have) > 40 {
		have = append(have[:40:40], fmt.Sprintf("… (%d in all)", len(e.Have)))
	}
	return msg + "; it has: " + strings.Join(have, ", ")
}

// Chapter returns the division asked for: "Hoofdstuk 2", "§ 1",
// "afdeling 3.2", "bijlage 1" or a bare number (a hoofdstuk first, then
// any division in document order).
func (t *Toestand) Chapter(asked string) (Part, error) {
	n, err := t.chapter(asked)
	if err != nil {
		return Part{}, err
	}
	return t.part(n), nil
}

func (t *Toestand) chapter(asked string) (*node, error) {
	kind, nr := "", number(asked)
	if f := strings.Fields(strings.ToLower(asked)); len(f) > 1 {
		if k, ok := divisionWords[f[0]]; ok {
			kind, nr = k, number(strings.Join(f[1:], " "))
		}
	} else if len(f) == 1 && strings.HasPrefix(f[0], "§") {
		kind, nr = "paragraaf", number(strings.TrimPrefix(f[0], "§"))
	}
	isDivision := map[string]bool{}
	for _, d := range divisions {
		isDivision[d] = true
	}
	var found *node
	var have []string
	find := func(want func(*node) bool) {
		t.law.walk(func(e *node) bool {
			if silent[e.name] {
				return false
			}
			if isDivision[e.name] && want(e) && found == nil && numberOf(e) == nr {
				found = e
			}
			return true
		})
	}
	if kind != "" {
		find(func(e *node) bool { return e.name == kind })
	} else {
		find(func(e *node) bool { return e.name == "hoofdstuk" })
		if found == nil {
			find(func(*node) bool { return true })
		}
	}
	if found != nil && nr != "" {
		return found, nil
	}
	t.law.walk(func(e *node) bool {
		if isDivision[e.name] && (kind == "" || e.name == kind) {
			have = append(have, labelOf(e))
		}
		return !silent[e.name]
	})
	what := "chapter"
	if kind != "" {
		what = kind
	}
	return nil, &PartError{ID: t.ID, Version: t.InForce, Asked: asked, What: what, Have: have}
}

// Article returns the article asked for ("1", "Artikel 3:40", "art. 2a"),
// inside the division chapter when chapter is not empty.
func (t *Toestand) Article(asked, chapter string) (Part, error) {
	within := t.law
	if chapter != "" {
		n, err := t.chapter(chapter)
		if err != nil {
			return Part{}, err
		}
		within = n
	}
	nr := number(asked)
	var found *node
	var have []string
	within.walk(func(e *node) bool {
		if silent[e.name] {
			return false
		}
		if e.name == "artikel" {
			have = append(have, numberOf(e))
			if found == nil && nr != "" && numberOf(e) == nr {
				found = e
			}
		}
		return true
	})
	if found == nil {
		return Part{}, &PartError{ID: t.ID, Version: t.InForce, Asked: asked, What: "article", Have: have}
	}
	return t.part(found), nil
}

func (t *Toestand) part(n *node) Part {
	p := Part{Kind: n.name, Label: labelOf(n), Text: n.text()}
	if d := n.attr("inwerking"); dateRE.MatchString(d) {
		p.InForce = d
	}
	p.Publications = publications(n)
	p.Sources = sourcesOf(n, t.InForce, t.Publications())
	return p
}
