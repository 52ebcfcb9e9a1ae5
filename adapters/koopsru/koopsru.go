// Package koopsru is what the platforms KOOP serves over SRU share
// (Officiële Bekendmakingen, the laws of wetten.overheid.nl and the local
// regulations of lokaleregelgeving.overheid.nl): the searchRetrieve
// envelope and its diagnostics, the lenient XML decoding their answers
// need, and the quoting of words in a CQL query. Each platform package
// keeps its own record type and indexes.
package koopsru

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/adapters"
)

// Response is one searchRetrieveResponse whose records decode into R
// (each <record> element, whatever its namespace prefix).
type Response[R any] struct {
	Total int // numberOfRecords
	// Next is nextRecordPosition, 0 on the last page.
	Next    int
	Records []R
}

// Parse decodes a searchRetrieveResponse. A diagnostic in the answer (the
// platform refused the query) and any other root are errors that name
// what came back.
func Parse[R any](body []byte) (Response[R], error) {
	var raw struct {
		XMLName     xml.Name
		Number      int `xml:"numberOfRecords"`
		Records     []R `xml:"records>record"`
		Next        int `xml:"nextRecordPosition"`
		Diagnostics []struct {
			Message string `xml:"message"`
			Details string `xml:"details"`
		} `xml:"diagnostics>diagnostic"`
	}
	if err := Decode(body, &raw); err != nil {
		return Response[R]{}, fmt.Errorf("SRU answer is not the expected XML: %v", err)
	}
	if len(raw.Diagnostics) > 0 {
		d := raw.Diagnostics[0]
		return Response[R]{}, fmt.Errorf("the platform refused the search: %s", adapters.Cut(strings.TrimSpace(d.Message+" "+d.Details), 300))
	}
	if raw.XMLName.Local != "searchRetrieveResponse" {
		return Response[R]{}, fmt.Errorf("SRU answer has root <%s>, expected <searchRetrieveResponse>", adapters.Cut(raw.XMLName.Local, 60))
	}
	if raw.Number < 0 || raw.Next < 0 {
		return Response[R]{}, fmt.Errorf("SRU answer counts %d records from position %d", raw.Number, raw.Next)
	}
	return Response[R]{Total: raw.Number, Next: raw.Next, Records: raw.Records}, nil
}

// Decode decodes one KOOP XML answer into v: a byte order mark, any
// declared charset (KOOP writes UTF-8) and unknown entities are taken
// as they come, since the platforms' real files carry all three.
func Decode(body []byte, v any) error {
	dec := xml.NewDecoder(bytes.NewReader(adapters.TrimBOM(body)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return dec.Decode(v)
}

// Words are the words of s as the user typed them, split at white space.
// Control characters and bytes that are no UTF-8 are no part of a word
// and become spaces, and a run with no letter or digit ("?", "--") is
// left out: no index holds it, and a query of nothing else would list
// everything. Every other character stays, since Term quotes and escapes
// what CQL would read otherwise.
func Words(s string) []string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, " "))
	var out []string
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			out = append(out, w)
		}
	}
	return out
}

// cqlEscaped are the characters a backslash makes literal inside a quoted
// CQL term, by the masking rules of the CQL context set 1.2 (Library of
// Congress, SRU standards): " would end the term, \ would escape the next
// character, * and ? would mask characters and ^ anchor a word to the
// start or end of the field (it must be escaped inside a word too). Each
// is escaped, not dropped, so the word reaches KOOP as typed: "wat?" is
// the word wat and a question mark, not wat and any one character more.
// ( ) = < > / need nothing: inside quotes they are part of the term.
var cqlEscaped = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `*`, `\*`, `?`, `\?`, `^`, `\^`)

// Term is s as one quoted CQL term holding its words, each literal ("" when
// s holds no word).
func Term(s string) string {
	w := Words(s)
	if len(w) == 0 {
		return ""
	}
	return `"` + cqlEscaped.Replace(strings.Join(w, " ")) + `"`
}

// CheckPage checks a search's page against the service's bounds: a limit
// of 1 to maxLimit and an offset of 0 to maxOffset (KOOP's SRU services
// fail on deeper pages).
func CheckPage(limit, offset, maxLimit, maxOffset int) error {
	if limit < 1 || limit > maxLimit {
		return fmt.Errorf("limit %d is out of range: use 1 to %d", limit, maxLimit)
	}
	if offset < 0 || offset > maxOffset {
		return fmt.Errorf("offset %d is out of range: use 0 to %d (the platform fails on deeper pages; add words instead)", offset, maxOffset)
	}
	return nil
}

// SearchRetrieve is the query of an SRU 1.2 searchRetrieve on one of the
// repository connections (x-connection: BWB, cvdr), the version public
// clients of those services use, asking for limit records from offset
// (0-based; SRU counts from 1).
func SearchRetrieve(connection, cql string, offset, limit int) url.Values {
	return url.Values{
		"x-connection":   {connection},
		"operation":      {"searchRetrieve"},
		"version":        {"1.2"},
		"query":          {cql},
		"startRecord":    {strconv.Itoa(offset + 1)},
		"maximumRecords": {strconv.Itoa(limit)},
	}
}
