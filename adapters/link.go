package adapters

import (
	"net/url"
	"strings"
	"unicode"
)

// MaxLinkLen bounds a link handed on: well past any real document page's
// address, short enough that no answer is padded through it.
const MaxLinkLen = 2048

// Why a link from a platform answer was dropped (Hit.URLDropped,
// Document.URLDropped).
const (
	LinkNotHTTP     = "not an http(s) URL"
	LinkNotAbsolute = "not an absolute http(s) URL with a host"
	LinkHasUser     = "the URL names a user before its host"
	LinkHasControl  = "the URL holds a control or format character"
	LinkTooLong     = "the URL is longer than 2048 bytes"
	LinkNotURL      = "not a URL"
)

// CheckLink is the one check of a link BesluitBron hands on (a document's
// page or file as a platform answer names it, a source link in the
// reader's address): the MCP tools, the JSON API and the HTML pages pass
// what it passes and nothing else, since assistants and browsers render
// the links they get. It keeps only an absolute http or https URL with a
// host, written back in Go's canonical form (scheme in lower case,
// spaces escaped), and otherwise returns "" and why: other schemes
// (javascript:, data:, vbscript:, file:, however written), relative and
// protocol-relative (//host) links, a user before the host
// (https://gemeente.nl@elders.example reads as gemeente.nl), control and
// format characters (a newline, a bidi override that turns how the link
// reads) and links past MaxLinkLen. White space around the link is
// trimmed, since XML and JSON answers carry it; inside, it is escaped.
// An empty link is neither kept nor dropped.
func CheckLink(raw string) (link, dropped string) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return "", ""
	case len(s) > MaxLinkLen:
		return "", LinkTooLong
	case strings.IndexFunc(s, controlOrFormat) >= 0:
		return "", LinkHasControl
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", LinkNotURL
	case u.Scheme != "http" && u.Scheme != "https":
		return "", LinkNotHTTP
	case u.Host == "" || u.Opaque != "" || strings.ContainsAny(u.Host, `\ `):
		return "", LinkNotAbsolute
	case u.User != nil:
		return "", LinkHasUser
	}
	// Go keeps a query as written; a space in it would end the link where
	// an assistant's text shows it.
	if strings.IndexFunc(u.RawQuery, unicode.IsSpace) >= 0 {
		var b strings.Builder
		for _, r := range u.RawQuery {
			if unicode.IsSpace(r) {
				b.WriteString(url.PathEscape(string(r)))
			} else {
				b.WriteRune(r)
			}
		}
		u.RawQuery = b.String()
	}
	return u.String(), ""
}

// SetURL sets the hit's link to raw when CheckLink keeps it, and says
// otherwise why it was dropped.
func (h *Hit) SetURL(raw string) { h.URL, h.URLDropped = CheckLink(raw) }

// SetURL sets the document's link to raw when CheckLink keeps it, and
// says otherwise why it was dropped.
func (d *Document) SetURL(raw string) { d.URL, d.URLDropped = CheckLink(raw) }

// controlOrFormat tells the characters no link holds: control and format
// characters, and bytes that are no UTF-8; an ASCII link is decided
// without Unicode's tables.
func controlOrFormat(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	return r == unicode.ReplacementChar || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
