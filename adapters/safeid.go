package adapters

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// CheckIDChars refuses an identifier that could steer a request built
// from it out of the place the platform package puts it: every
// platform's own id check calls it before its pattern, so no pattern has
// to get these cases right by itself. An id of any platform BesluitBron
// reads is letters, digits and a few joiners (':', '-', '_', '.'), so
// refusing the rest costs no real reference.
//
// Refused, each named in the error:
//   - path separators '/' and '\', and "." or ".." as a whole id or as
//     any part between separators of either kind;
//   - percent-encoded separators, dots and percent signs (%2f, %5c, %2e,
//     %25, in any case), which a later decoder would turn into the above;
//   - '?', '#' and ';', which end a path or start parameters (';' in
//     "..;/" passes some servers' traversal checks);
//   - control and format characters (a NUL, a newline, a bidi override);
//   - look-alike dots and slashes: any character that Unicode's
//     compatibility form (NFKC) turns into a dot, a slash or a backslash
//     (the fullwidth and small full stops, the one-dot leader, the
//     fullwidth solidus), the ideographic full stops, which some URL
//     parsers take for a dot (IDNA's label separators), and the slashes
//     NFKC leaves alone (fraction, division, big solidus, set minus).
func CheckIDChars(id string) error {
	if why := unsafeIDChar(id); why != "" {
		return fmt.Errorf("id %q holds %s, which no BesluitBron reference holds: copy the id from a search result", Cut(id, 80), why)
	}
	return nil
}

// unsafeIDChar says what CheckIDChars refuses in id, "" when nothing.
func unsafeIDChar(id string) string {
	for i, r := range id {
		switch {
		case r == '/' || r == '\\':
			return fmt.Sprintf("a path separator %q", r)
		case r == '?' || r == '#' || r == ';':
			return fmt.Sprintf("%q, which would end the path", r)
		case r == '%' && percentEscapesSeparator(id[i+1:]):
			return fmt.Sprintf("an encoded separator or dot %q", Cut(id[i:], 3))
		case r == unicode.ReplacementChar || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("the control or format character %U", r)
		case r > unicode.MaxASCII && looksLikeSeparator(r):
			return fmt.Sprintf("the look-alike %U of a dot or slash", r)
		}
	}
	if id == "." || id == ".." {
		return "only dots"
	}
	return ""
}

// percentEscapesSeparator reports whether rest (what follows a '%')
// encodes a dot, a slash, a backslash or a percent sign.
func percentEscapesSeparator(rest string) bool {
	if len(rest) < 2 {
		return false
	}
	switch strings.ToLower(rest[:2]) {
	case "2e", "2f", "5c", "25":
		return true
	}
	return false
}

// looksLikeSeparator reports whether r is taken for a dot or a slash by
// a normaliser along a request's way: NFKC makes it one, or it is one of
// the full stops IDNA treats as a dot.
func looksLikeSeparator(r rune) bool {
	switch r {
	case '\u3002', '\uFF61', // ideographic and halfwidth ideographic full stop
		'\u2044', '\u2215', '\u29F8', // fraction, division and big slash
		'\u2216', '\u29F9': // set minus and big reverse slash
		return true
	}
	return strings.ContainsAny(norm.NFKC.String(string(r)), `./\`)
}
