package adapters

import (
	"strings"
)

// expandSimple expands template as RFC 6570 (sections 3.2.2 and 3.2.8)
// does for the two kinds of expression BesluitBron's resource templates
// use: a simple variable, {id}, and a form-style query, {?page,date}.
// ok is false for a template with any other operator, a modifier (a
// prefix or an explode) or a malformed expression: ExpandURI then asks
// the library.
//
// It exists because github.com/yosida95/uritemplate/v3 (v3.0.2)
// percent-encodes a character outside ASCII by its code point's low
// bytes rather than by its UTF-8 bytes (é becomes %E9, U+202E %20%2E,
// and a NUL is dropped), so a resource URI of an id with such a
// character read back (the same library's Match, which decodes
// correctly) as another id. expand_test.go holds it to the library's
// answers on ASCII and to the library's Match on everything.
func expandSimple(template string, vars map[string]string) (string, bool) {
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return "", false
			}
			b.WriteString(rest)
			return b.String(), true
		}
		if strings.IndexByte(rest[:open], '}') >= 0 {
			return "", false
		}
		b.WriteString(rest[:open])
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", false
		}
		expr := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		query := strings.HasPrefix(expr, "?")
		if query {
			expr = expr[1:]
		}
		first := true
		for _, name := range strings.Split(expr, ",") {
			if !varName(name) {
				return "", false
			}
			// An undefined variable is left out (RFC 6570 2.3); so is an
			// empty one, as ExpandURI always did.
			v := vars[name]
			if v == "" {
				continue
			}
			if query {
				b.WriteByte(map[bool]byte{true: '?', false: '&'}[first])
				b.WriteString(name)
				b.WriteByte('=')
			} else if !first {
				b.WriteByte(',')
			}
			first = false
			pctEncodeUnreserved(&b, v)
		}
	}
}

// varName reports whether s is a variable name without a modifier.
func varName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// pctEncodeUnreserved writes s with every byte of its UTF-8 form
// percent-encoded but RFC 3986's unreserved characters.
func pctEncodeUnreserved(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}
