package shape

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// NoExtra makes the comparison run in both directions: besides everything
// want has that got lacks, it reports every field, element or attribute of
// got that want does not have. An emulator that passes only the one-way
// check can still invent fields (a "code" in an error body, a "titel" in a
// search hit) that no real server sends; this option catches them.
//
// Only the topmost invented path is reported (its children are not
// repeated). Where want holds JSON null or an empty array the sample does
// not show the shape, so nothing below that point counts as extra.
func NoExtra() Option { return func(o *options) { o.noExtra = true } }

// Allow names paths of got that may appear although want lacks them, and
// everything below them. Use it only for fields the platform's own
// documentation or code shows but the saved sample happens not to carry;
// each call site says, in a comment, which source documents the field.
// Paths are written as for Ignore.
func Allow(paths ...string) Option {
	return func(o *options) { o.allow = append(o.allow, paths...) }
}

// Exact is JSONShape or XMLShape (chosen by got's first non-blank byte)
// with NoExtra: got must have every path of want and nothing else, except
// what opts Allow or Ignore.
func Exact(t testing.TB, got, want []byte, opts ...Option) {
	t.Helper()
	for _, p := range CompareExact(got, want, opts...) {
		t.Error(p)
	}
}

// CompareExact returns the differences Exact reports, one per line. It is
// the same check the tests run, for callers without a testing.TB (the live
// check compares real answers with it).
func CompareExact(got, want []byte, opts ...Option) []string {
	opts = append(opts[:len(opts):len(opts)], NoExtra())
	if IsJSON(got) {
		return CompareJSON(got, want, opts...)
	}
	return CompareXML(got, want, opts...)
}

// IsJSON reports whether b starts (after white space and a UTF-8 BOM) like
// a JSON object or array rather than XML.
func IsJSON(b []byte) bool {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

func (o *options) allowed(path string) bool {
	return o.ignored(path) || matchAny(o.allow, path)
}

func matchAny(list []string, path string) bool {
	for _, p := range list {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// jsonKinds records, for every path of v, the JSON types seen there; all
// array elements count, so an optional field shown on any element of a
// sample is known.
func jsonKinds(path string, v any, kinds map[string]map[string]bool) {
	if kinds[path] == nil {
		kinds[path] = map[string]bool{}
	}
	kinds[path][jsonType(v)] = true
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			jsonKinds(join(path, k), c, kinds)
		}
	case []any:
		for _, c := range x {
			jsonKinds(path+"[]", c, kinds)
		}
	}
}

// extraJSON appends the keys of got (at path, all array elements) that want
// has no key for, where want shows an object at the same place.
func extraJSON(o *options, path string, got any, kinds map[string]map[string]bool, probs *[]string) {
	if o.allowed(path) {
		return
	}
	switch g := got.(type) {
	case map[string]any:
		if !kinds[path]["object"] {
			return // want is null, another type or absent here: nothing to compare with
		}
		keys := make([]string, 0, len(g))
		for k := range g {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := join(path, k)
			if o.allowed(p) {
				continue
			}
			if kinds[p] == nil {
				*probs = append(*probs, fmt.Sprintf("%s: not in want (extra %s)", p, jsonType(g[k])))
				continue
			}
			extraJSON(o, p, g[k], kinds, probs)
		}
	case []any:
		if kinds[path+"[]"] == nil {
			return // want's array is empty or not an array: element shape unknown
		}
		seen := map[string]bool{}
		for _, e := range g {
			var sub []string
			extraJSON(o, path+"[]", e, kinds, &sub)
			for _, s := range sub {
				if !seen[s] {
					seen[s] = true
					*probs = append(*probs, s)
				}
			}
		}
	}
}

// extraXML appends the paths of got that want lacks, topmost only. With
// Anywhere only the parts of got below an element named like want's root
// are judged (the fragment says nothing about the rest).
func extraXML(o *options, gp, wp []string, probs *[]string) {
	want := map[string]bool{}
	for _, p := range wp {
		want[p] = true
	}
	var cands []string
	if o.anywhere {
		if len(wp) == 0 {
			return
		}
		root := xmlSegments(wp[0])[0]
		seen := map[string]bool{}
		for _, p := range gp {
			segs := xmlSegments(p)
			for i, s := range segs {
				if s == root {
					rel := strings.Join(segs[i:], "/")
					if !seen[rel] {
						seen[rel] = true
						cands = append(cands, rel)
					}
				}
			}
		}
	} else {
		cands = gp
	}
	for _, p := range cands {
		if want[p] || o.allowed(p) {
			continue
		}
		segs := xmlSegments(p)
		parent := strings.Join(segs[:len(segs)-1], "/")
		if parent != "" && !want[parent] {
			continue // reported at the topmost invented element already
		}
		*probs = append(*probs, p+": not in want (extra)")
	}
}
