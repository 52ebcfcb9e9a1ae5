package bwb

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// node is one element of a toestand, with its attributes and its
// content in order (text and elements), so a part can be cut out and
// rendered as text.
type node struct {
	name  string
	attrs []xml.Attr
	items []item
}

// attr is the value of n's attribute called name (any prefix), "" when
// it has none.
func (n *node) attr(name string) string {
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// item is one piece of an element's content: text, or an element.
type item struct {
	text string
	el   *node
}

// maxDepth bounds the nesting a toestand may have. The deepest real one
// nests about fifteen elements (wetgeving, boek, titel, afdeling,
// artikel, lid, lijst, li, al, ...); an answer nested far deeper is not
// a toestand, and walking it must not exhaust the stack.
const maxDepth = 200

var errTooDeep = errors.New("elements nested deeper than a toestand nests them")

// parseTree reads an XML document into its root element. A byte order
// mark, any declared charset and unknown entities are taken as they
// come; anything else malformed is an error.
func parseTree(body []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(adapters.TrimBOM(body)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var stack []*node
	var root *node
	for {
		// RawToken: the elements are told apart by local name only, and
		// it skips the namespace bookkeeping Token does per element.
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, errTooDeep
			}
			n := &node{name: t.Name.Local, attrs: t.Attr}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.items = append(p.items, item{el: n})
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.items = append(p.items, item{text: string(t)})
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no element")
	}
	return root, nil
}

// child is n's first child element called name.
func (n *node) child(name string) *node {
	for _, it := range n.items {
		if it.el != nil && it.el.name == name {
			return it.el
		}
	}
	return nil
}

// walk calls f on n and every element below it in document order;
// where f returns false, walk does not go below that element.
func (n *node) walk(f func(*node) bool) {
	if !f(n) {
		return
	}
	for _, it := range n.items {
		if it.el != nil {
			it.el.walk(f)
		}
	}
}

// plain is n's character data, all of it, squashed to one line.
func (n *node) plain() string {
	var sb strings.Builder
	n.walk(func(e *node) bool {
		for _, it := range e.items {
			if it.el == nil {
				sb.WriteString(it.text)
				sb.WriteString(" ")
			}
		}
		return true
	})
	return adapters.Squash(sb.String())
}

// silent are elements whose content is metadata, not text of the law:
// the publications and citation forms of each part, KOOP's processing
// notes.
var silent = map[string]bool{"meta-data": true, "bwb-inputbestand": true, "bwb-wijzigingen": true,
	"redactionele-correcties": true, "jcis": true, "brondata": true}

// blocks end a line in the text.
var blocks = map[string]bool{"al": true, "kop": true, "lid": true, "li": true, "artikel": true, "intitule": true,
	"citeertitel": true, "wie": true, "considerans.al": true, "afkondiging": true, "ondertekening": true,
	"slotformulering": true, "tussenkop": true, "row": true, "title": true, "specificatie-item": true,
	"hoofdstuk": true, "paragraaf": true, "afdeling": true, "titeldeel": true, "bijlage": true, "boek": true,
	"deel": true, "regeling-sluiting": true, "noot": true, "structuurtekst": true, "preambule": true}

// text renders n as text: one line per block, metadata left out.
func (n *node) text() string {
	var sb strings.Builder
	var write func(e *node)
	write = func(e *node) {
		if silent[e.name] {
			return
		}
		for _, it := range e.items {
			if it.el != nil {
				write(it.el)
			} else {
				sb.WriteString(strings.Map(flat, it.text))
			}
		}
		if blocks[e.name] {
			sb.WriteString("\n")
		} else {
			sb.WriteString(" ")
		}
	}
	write(n)
	var lines []string
	for _, l := range strings.Split(sb.String(), "\n") {
		if l = tight.Replace(adapters.Squash(l)); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// flat turns the source's own line breaks into spaces: lines end where
// blocks end.
func flat(r rune) rune {
	if r == '\n' || r == '\r' || r == '\t' {
		return ' '
	}
	return r
}

// tight removes the space an inline element's end leaves before
// punctuation ("Binnenlandse Zaken , R. W." is "Binnenlandse Zaken, R. W.").
var tight = strings.NewReplacer(" ,", ",", " .", ".", " ;", ";", " :", ":", " )", ")", "( ", "(")
