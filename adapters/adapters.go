// Package adapters is BesluitBron's platform library, shared by every
// surface (the MCP tools, the fan-out search, the site's reader): the
// shape of a platform request, the compact result types, the one
// classification of a route's answer (Classify, RouteError), the errors
// every surface tells apart (ErrNoDocument, InvalidError,
// UnreachedError), and text helpers (snippets, tag stripping, bounded
// paging of full text). Each platform has its own Caddy-free subpackage
// (platforms/obv, platforms/tk, ...) that builds its requests, parses its
// real payloads and runs its lookups through a getter it is given.
package adapters

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"html"
)

// ErrNoDocument is a platform's answer that holds no document for the
// reference asked: the parsers return it (wrapped or as is), and every
// surface tells it apart with errors.Is, never by its text.
var ErrNoDocument = errors.New("no such document")

// Request is one HTTP request against a platform, relative to the
// platform's route: Path (with query) is appended to /platforms/<key>.
type Request struct {
	Method      string // GET or POST
	Path        string // path and query, starting with "/"
	Body        []byte
	ContentType string
}

// Get builds a GET request for path with query q (may be nil).
func Get(path string, q url.Values) Request {
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return Request{Method: "GET", Path: path}
}

// Hit is one compact search result.
type Hit struct {
	ID      string `json:"id"`
	Type    string `json:"type,omitempty"`
	Title   string `json:"title"`
	Date    string `json:"date,omitempty"`
	Source  string `json:"source,omitempty"`
	Snippet string `json:"snippet,omitempty"`
	// URL is the document's public page (or file) on the platform.
	URL string `json:"source_url,omitempty"`
	// URLDropped says why the platform's link was left out (CheckLink):
	// only http(s) links are handed on.
	URLDropped string `json:"source_url_dropped,omitempty"`
	// Citation is how a lawyer, journalist or clerk cites the document,
	// in the Dutch form for its kind (ECLI:NL:HR:2024:123, Kamerstukken
	// II 2023/24, 36410, nr. 5, Stb. 2018, 84): its platform package
	// sets it where the answer says enough.
	Citation string `json:"citation,omitempty"`
	// URI is the document as a BesluitBron resource (besluitbron://...),
	// which resources/read reads; Surface.Link sets it.
	URI string `json:"uri,omitempty"`
	// Kamerstuk is the kamerstuk number in Officiële Bekendmakingen' form
	// (kst-36200-VII-12: dossier, its addition, volgnummer), when the
	// platform says which kamerstuk the hit is: the fan-out folds a
	// Tweede Kamer document and its publication into one hit by it.
	Kamerstuk string `json:"kamerstuk,omitempty"`
}

// Page is one page of search results.
type Page struct {
	Total       int   `json:"total"`
	TotalApprox bool  `json:"total_is_approximate,omitempty"`
	HasMore     bool  `json:"has_more"`
	Hits        []Hit `json:"results"`
	// Provenance says where the hits came from when that is not the
	// platform itself (BesluitBron's index of Rechtspraak's feed).
	Provenance string `json:"provenance,omitempty"`
}

// Document is one fetched item: metadata plus its full text, which the
// tool pages before handing it to a model.
type Document struct {
	ID     string `json:"id"`
	Type   string `json:"type,omitempty"`
	Title  string `json:"title"`
	Date   string `json:"date,omitempty"`
	Source string `json:"source,omitempty"`
	URL    string `json:"source_url,omitempty"` // its public page (or file)
	// URLDropped as for Hit.
	URLDropped string `json:"source_url_dropped,omitempty"`
	// Citation and URI as for Hit.
	Citation string            `json:"citation,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Meta     map[string]string `json:"meta,omitempty"`
	// References are the documents it names that a fetch tool reads as
	// given: the laws a regulation or a ruling rests on, the publications
	// that made a law.
	References []Reference `json:"references,omitempty"`
	// Text is the full text; tools never return it whole.
	Text string `json:"-"`
}

// Item is one entry of a list (organisations, committees, courts...).
type Item struct {
	Key   string            `json:"key"`
	Label string            `json:"label"`
	Extra map[string]string `json:"extra,omitempty"`
}

// SnippetLen is the default length of a snippet in characters.
const SnippetLen = 240

var (
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
	spaceRE = regexp.MustCompile(`\s+`)
)

// StripTags removes HTML/XML tags and decodes entities.
func StripTags(s string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(s, " "))
}

// Squash collapses runs of white space into one space and trims.
func Squash(s string) string {
	return strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
}

// Snippet strips tags, collapses white space and cuts s to at most n
// characters (runes), ending in "…" when cut.
func Snippet(s string, n int) string {
	s = Squash(StripTags(s))
	if s == "-" {
		return ""
	}
	return Cut(s, n)
}

// Cut shortens s to at most n runes, ending in "…" when cut.
func Cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// TextPage is a bounded window on a document's full text.
type TextPage struct {
	Text       string `json:"text"`
	Offset     int    `json:"offset"`
	NextOffset int    `json:"next_offset,omitempty"` // 0: no more text
	TotalChars int    `json:"total_chars"`
}

// PageText returns at most max characters (runes) of text from offset.
func PageText(text string, offset, max int) TextPage {
	r := []rune(text)
	total := len(r)
	if offset > total {
		offset = total
	}
	end := offset + max
	if end > total {
		end = total
	}
	p := TextPage{Text: string(r[offset:end]), Offset: offset, TotalChars: total}
	if end < total {
		p.NextOffset = end
	}
	return p
}

// ParseDate accepts YYYY-MM-DD and reports a message that says what to
// fix otherwise. An empty string is allowed and returns "".
func ParseDate(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if _, err := time.Parse("2006-01-02", v); err != nil {
		return "", fmt.Errorf("%s %q is not a date: write it as YYYY-MM-DD, e.g. 2024-03-01", field, v)
	}
	return v, nil
}

// ParseDates checks a tool's date_from and date_to arguments (each empty
// or YYYY-MM-DD, from not after to) and returns them trimmed.
func ParseDates(dateFrom, dateTo string) (from, to string, err error) {
	if from, err = ParseDate("date_from", dateFrom); err != nil {
		return "", "", err
	}
	if to, err = ParseDate("date_to", dateTo); err != nil {
		return "", "", err
	}
	if from != "" && to != "" && from > to {
		return "", "", fmt.Errorf("date_from %s is after date_to %s: swap them", from, to)
	}
	return from, to, nil
}

// TrimBOM drops a UTF-8 byte order mark.
func TrimBOM(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
}

// InvalidError is a reference or an argument refused before any platform
// call; Err says what to fix.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }
