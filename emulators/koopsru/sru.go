// Package koopsru is what the emulators of KOOP's laws (bwb) and local
// regulations (cvdr) share: the searchRetrieve envelope of KOOP's SRU
// service in versions 1.2 and 2.0, its diagnostics, a small CQL (clauses
// joined by "and") and an XML writer. The envelope is the one the
// Officiële Bekendmakingen emulator writes (platforms/ob/emulator,
// after KOOP's stylesheets and the SRU standard): no real BWB or CVDR
// search answer exists (testdata/fixtures/README.md).
package koopsru

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Namespaces of the envelope and the records' gzd wrapper.
const (
	NSSRU20      = "http://docs.oasis-open.org/ns/search-ws/sruResponse"
	NSDiag20     = "http://docs.oasis-open.org/ns/search-ws/diagnostic"
	NSSRU12      = "http://www.loc.gov/zing/srw/"
	NSDiag12     = "http://www.loc.gov/zing/srw/diagnostic/"
	NSGZD        = "http://standaarden.overheid.nl/sru"
	RecordSchema = "http://standaarden.overheid.nl/sru/"
)

// Version is an SRU version's number and namespaces.
type Version struct{ V, NS, Diag string }

// The versions the service answers.
var (
	V12 = Version{"1.2", NSSRU12, NSDiag12}
	V20 = Version{"2.0", NSSRU20, NSDiag20}
)

// Diag is an SRU diagnostic (info:srw/diagnostic/1/<Code>).
type Diag struct {
	Code    int
	Details string
	Message string
}

// diagMessages are the standard's messages of the diagnostics the
// emulators give.
var diagMessages = map[int]string{
	4: "Unsupported operation", 5: "Unsupported version", 6: "Unsupported parameter value",
	7: "Mandatory parameter not supplied", 10: "Query syntax error", 16: "Unsupported index",
	19: "Unsupported relation", 36: "Term in invalid format for index or relation", 61: "First record position out of range",
}

// Diagf is diagnostic code with its details.
func Diagf(code int, details string) *Diag {
	return &Diag{Code: code, Details: details, Message: diagMessages[code]}
}

// Request is a searchRetrieve as the emulators read it.
type Request struct {
	Version Version
	Query   string
	Start   int // 1-based
	Max     int
}

// ReadRequest reads an SRU request: version (1.2 or 2.0, default 1.2,
// the one public clients of these connections send), operation
// searchRetrieve, query, startRecord, maximumRecords (default def, capped
// at max). x-connection and other parameters are not checked.
func ReadRequest(q url.Values, def, max int) (Request, *Diag) {
	r := Request{Version: V12, Start: 1, Max: def}
	switch q.Get("version") {
	case "", "1.2":
	case "2.0":
		r.Version = V20
	default:
		return r, Diagf(5, "1.2")
	}
	if op := q.Get("operation"); op != "searchRetrieve" && !(op == "" && q.Has("query")) {
		return r, Diagf(4, op)
	}
	if !q.Has("query") || strings.TrimSpace(q.Get("query")) == "" {
		return r, Diagf(7, "query")
	}
	r.Query = q.Get("query")
	if s := q.Get("startRecord"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return r, Diagf(6, "startRecord")
		}
		r.Start = n
	}
	if s := q.Get("maximumRecords"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return r, Diagf(6, "maximumRecords")
		}
		r.Max = min(n, max)
	}
	return r, nil
}

// Response renders a searchRetrieveResponse of total matches: records are
// the page's records' recordData contents, from position start; a
// non-nil d is a diagnostic instead. nsDecls are the namespace
// declarations the records' prefixes need, put on the root.
func Response(ver Version, total int, records []string, start int, nsDecls string, d *Diag) string {
	b := &XB{}
	b.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.Raw(`<sru:searchRetrieveResponse xmlns:sru="` + ver.NS + `" xmlns:gzd="` + NSGZD + `"` + nsDecls + `>`)
	b.El("sru:version", ver.V)
	if d != nil {
		b.El("sru:numberOfRecords", "0")
		b.Raw(`<sru:diagnostics><diag:diagnostic xmlns:diag="` + ver.Diag + `">`)
		b.El("diag:uri", "info:srw/diagnostic/1/"+strconv.Itoa(d.Code))
		if d.Details != "" {
			b.El("diag:details", d.Details)
		}
		b.El("diag:message", d.Message)
		b.Raw("</diag:diagnostic></sru:diagnostics></sru:searchRetrieveResponse>\n")
		return b.String()
	}
	b.El("sru:numberOfRecords", strconv.Itoa(total))
	if len(records) > 0 {
		b.Raw("<sru:records>")
		for i, rec := range records {
			b.Raw("<sru:record>")
			b.El("sru:recordSchema", RecordSchema)
			b.El("sru:recordPacking", "xml")
			b.Raw("<sru:recordData>" + rec + "</sru:recordData>")
			b.El("sru:recordPosition", strconv.Itoa(start+i))
			b.Raw("</sru:record>")
		}
		b.Raw("</sru:records>")
	}
	if next := start + len(records); len(records) > 0 && next <= total {
		b.El("sru:nextRecordPosition", strconv.Itoa(next))
	}
	b.Raw("</sru:searchRetrieveResponse>\n")
	return b.String()
}

// Page cuts the page a request asks for out of n matches: the indexes
// [from, to), or a diagnostic for a start past the last match.
func Page(r Request, n int) (from, to int, d *Diag) {
	if n > 0 && r.Start > n {
		return 0, 0, Diagf(61, strconv.Itoa(r.Start))
	}
	from = min(r.Start-1, n)
	return from, min(from+r.Max, n), nil
}

// WriteXML answers body as XML (HEAD: the headers only).
func WriteXML(w http.ResponseWriter, r *http.Request, body string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(body))
}

// Amsterdam formats a wall-clock time of the Netherlands with its offset
// (+01:00 in winter, +02:00 in summer; EU rules, no tzdata needed), as
// the repository's manifests write their times.
func Amsterdam(wall time.Time) string {
	off := "+01:00"
	y := wall.Year()
	if !wall.Before(lastSunday(y, time.March)) && wall.Before(lastSunday(y, time.October)) {
		off = "+02:00"
	}
	return wall.Format("2006-01-02T15:04:05") + off
}

// Instant formats the instant t in Dutch local time, as Amsterdam.
func Instant(t time.Time) string {
	wall := t.UTC().Add(time.Hour)
	if strings.HasSuffix(Amsterdam(wall), "+02:00") {
		wall = t.UTC().Add(2 * time.Hour)
	}
	return Amsterdam(wall)
}

func lastSunday(y int, m time.Month) time.Time {
	d := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// XB is a small XML writer.
type XB struct{ strings.Builder }

// Raw writes s as is.
func (b *XB) Raw(s string) { b.WriteString(s) }

// El writes an element with escaped text.
func (b *XB) El(name, text string) {
	b.WriteString("<" + name + ">" + Esc(text) + "</" + name + ">")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// Esc escapes text for XML.
func Esc(s string) string { return escaper.Replace(s) }
