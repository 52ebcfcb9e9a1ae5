// Package shape compares the structure of two JSON or XML documents, not
// their values: emulator tests hold an emulated answer against a real sample
// (or a documentation example full of placeholders) and fail when a field,
// element, attribute or namespace the sample has is missing or has another
// JSON type. With NoExtra (or Exact) the check also runs the other way: a
// field of the emulated answer that neither the sample nor an Allow entry
// (a documented field, with its source named at the call site) knows is
// reported as invented.
//
// JSON paths are written as dot-separated keys with "[]" for array elements:
// "results[].entityId", "motion.votes[].voter". The root is "".
//
// XML paths are slash-separated elements written as "{namespace-uri}local"
// (just "local" for no namespace), with attributes as a last segment
// "@name" or "@{uri}name": "{http://www.w3.org/2005/Atom}feed/{http://www.w3.org/2005/Atom}entry/{http://www.w3.org/2005/Atom}link/@rel".
// With IgnoreNamespaces the URIs are dropped: "feed/entry/link/@rel".
package shape

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
)

// Option changes how a comparison is made.
type Option func(*options)

type options struct {
	ignore     []string
	noNS       bool
	anywhere   bool
	at         string
	nullOK     bool
	allowEmpty bool
	noExtra    bool     // see NoExtra
	allow      []string // see Allow
}

// Ignore skips the given paths of want and everything below them. Use it for
// fields a doc example shows but the emulator leaves out on purpose.
func Ignore(paths ...string) Option {
	return func(o *options) { o.ignore = append(o.ignore, paths...) }
}

// IgnoreNamespaces compares XML local names only (for fixtures whose
// namespaces were stripped by whoever saved them).
func IgnoreNamespaces() Option { return func(o *options) { o.noNS = true } }

// Anywhere lets an XML fragment's root match any element of got with the
// same name (at any depth): the fragment's paths are then checked below
// each such element together.
func Anywhere() Option { return func(o *options) { o.anywhere = true } }

// At compares want against the part of got at the JSON path (for example
// "results[]" to hold a one-item fragment against the first result).
func At(path string) Option { return func(o *options) { o.at = path } }

// NullOK accepts a JSON null in got wherever want has any type.
func NullOK() Option { return func(o *options) { o.nullOK = true } }

// AllowEmpty accepts an empty JSON array in got where want's array has
// elements (the elements are then not compared).
func AllowEmpty() Option { return func(o *options) { o.allowEmpty = true } }

func build(opts []Option) *options {
	o := &options{}
	for _, f := range opts {
		f(o)
	}
	return o
}

func (o *options) ignored(path string) bool {
	for _, p := range o.ignore {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// JSONShape fails t when got lacks a key path of want or has another JSON
// type there. Arrays are compared by their first element.
func JSONShape(t testing.TB, got, want []byte, opts ...Option) {
	t.Helper()
	for _, p := range CompareJSON(got, want, opts...) {
		t.Error(p)
	}
}

// XMLShape fails t when got lacks an element or attribute path of want.
func XMLShape(t testing.TB, got, want []byte, opts ...Option) {
	t.Helper()
	for _, p := range CompareXML(got, want, opts...) {
		t.Error(p)
	}
}

// CompareJSON returns the differences JSONShape reports, one per line.
func CompareJSON(got, want []byte, opts ...Option) []string {
	o := build(opts)
	var g, w any
	if err := decodeJSON(got, &g); err != nil {
		return []string{"got is not JSON: " + err.Error()}
	}
	if err := decodeJSON(want, &w); err != nil {
		return []string{"want is not JSON: " + err.Error()}
	}
	var probs []string
	if o.at != "" {
		sub, err := navigate(g, o.at)
		if err != nil {
			return []string{err.Error()}
		}
		g = sub
	}
	compareJSON(o, o.at, g, w, &probs)
	if o.noExtra {
		kinds := map[string]map[string]bool{}
		jsonKinds(o.at, w, kinds)
		extraJSON(o, o.at, g, kinds, &probs)
	}
	return probs
}

func decodeJSON(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

func navigate(v any, path string) (any, error) {
	cur := v
	for _, seg := range splitJSONPath(path) {
		if seg == "[]" {
			a, ok := cur.([]any)
			if !ok || len(a) == 0 {
				return nil, fmt.Errorf("%s: no array element in got", path)
			}
			cur = a[0]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not inside an object in got", path, seg)
		}
		if cur, ok = m[seg]; !ok {
			return nil, fmt.Errorf("%s: key %q missing in got", path, seg)
		}
	}
	return cur, nil
}

func splitJSONPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for strings.HasSuffix(part, "[]") {
			// "a[][]" → "a", "[]", "[]"
			i := strings.Index(part, "[]")
			if i > 0 {
				out = append(out, part[:i])
			}
			out = append(out, "[]")
			part = part[i+2:]
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func compareJSON(o *options, path string, got, want any, probs *[]string) {
	if o.ignored(path) || want == nil {
		return
	}
	show := path
	if show == "" {
		show = "(root)"
	}
	if got == nil && o.nullOK {
		return
	}
	if gt, wt := jsonType(got), jsonType(want); gt != wt {
		*probs = append(*probs, fmt.Sprintf("%s: got %s, want %s", show, gt, wt))
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := join(path, k)
			if o.ignored(p) {
				continue
			}
			gv, ok := g[k]
			if !ok {
				*probs = append(*probs, fmt.Sprintf("%s: missing (want %s)", p, jsonType(w[k])))
				continue
			}
			compareJSON(o, p, gv, w[k], probs)
		}
	case []any:
		g := got.([]any)
		if len(w) == 0 {
			return
		}
		if len(g) == 0 {
			if !o.allowEmpty && !o.ignored(path+"[]") {
				*probs = append(*probs, fmt.Sprintf("%s: got an empty array, want elements", show))
			}
			return
		}
		compareJSON(o, path+"[]", g[0], w[0], probs)
	}
}

// CompareXML returns the differences XMLShape reports, one per line.
func CompareXML(got, want []byte, opts ...Option) []string {
	o := build(opts)
	gp, err := XMLPaths(got, o.noNS)
	if err != nil {
		return []string{"got is not XML: " + err.Error()}
	}
	wp, err := XMLPaths(want, o.noNS)
	if err != nil {
		return []string{"want is not XML: " + err.Error()}
	}
	have := map[string]bool{}
	for _, p := range gp {
		have[p] = true
	}
	if o.anywhere && len(wp) > 0 {
		root := xmlSegments(wp[0])[0]
		for _, p := range gp {
			segs := xmlSegments(p)
			for i, s := range segs {
				if s == root {
					have[strings.Join(segs[i:], "/")] = true
				}
			}
		}
	}
	var probs []string
	for _, p := range wp {
		if o.ignored(p) {
			continue
		}
		if !have[p] {
			probs = append(probs, p+": missing in got")
		}
	}
	if o.noExtra {
		extraXML(o, gp, wp, &probs)
	}
	return probs
}

// XMLPaths lists the distinct element and attribute paths of an XML
// document in document order (namespace declarations are not attributes).
// With noNS the namespace URIs are left out.
func XMLPaths(b []byte, noNS bool) ([]string, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	name := func(n xml.Name) string {
		if noNS || n.Space == "" {
			return n.Local
		}
		return "{" + n.Space + "}" + n.Local
	}
	var stack []string
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	roots := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 {
				roots++
			}
			stack = append(stack, name(el.Name))
			p := strings.Join(stack, "/")
			add(p)
			for _, a := range el.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				add(p + "/@" + name(a.Name))
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if roots == 0 {
		return nil, fmt.Errorf("no root element")
	}
	return out, nil
}

// xmlSegments splits an XML path at its slashes, but not at those inside
// a namespace URI ("{http://purl.org/dc/terms/}title").
func xmlSegments(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}
