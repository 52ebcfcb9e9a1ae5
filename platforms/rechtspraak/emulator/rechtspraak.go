// Package emulator emulates the open-data service of the Dutch judiciary
// (https://data.rechtspraak.nl) offline and deterministically:
//
//   - GET /uitspraken/zoeken: the Atom feed of ECLIs (type, repeated creator
//     and subject, date once or twice, modified once or twice, return=DOC,
//     replaces, max, from, sort);
//   - GET /uitspraken/content?id=<ECLI>[&return=META]: the open-rechtspraak
//     document (RDF metadata, inhoudsindicatie, uitspraak or conclusie);
//   - GET /Waardelijst/{Instanties,InstantiesBuitenlands,Rechtsgebieden,
//     Proceduresoorten,FormeleRelaties,NietNederlandseUitspraken}.
//
// The index (some 140,000 ECLIs of the real courts since 1998, with LJNs
// before 2013, metadata-only ECLIs and withdrawn ones) is built from the seed
// on the first request, compactly; titles, summaries and document texts are
// written out per ECLI when an answer shows it.
package emulator

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// MaxResults is the largest page of the search feed (and its default).
const MaxResults = 1000

// Config configures the emulator.
type Config struct {
	// Seed selects the generated index.
	Seed int64
	// Clock is the clock (nil = clock.Wall). ECLIs modified after its now
	// are not visible; the index runs from 1998 to the year of its now at
	// the first request.
	Clock clock.Clock
}

type handler struct {
	cfg    Config
	once   sync.Once
	ix     *index
	feedID atomic.Int64

	viewMu sync.Mutex
	view   *view // the feed's order for a span of the clock (view.go)
}

// New returns the emulator's HTTP handler.
func New(cfg Config) http.Handler {
	cfg.Clock = clock.Or(cfg.Clock)
	return &handler{cfg: cfg}
}

func (h *handler) index() *index {
	h.once.Do(func() { h.ix = sharedIndex(h.cfg.Seed, h.cfg.Clock.Now().Year()) })
	return h.ix
}

// indexes holds the built indexes by seed and last year, for every
// handler of the process: an index never changes once built, and a test
// binary makes many emulators with the same seed. Each is some 6 MB.
var indexes corpus.Shared[indexKey, *index]

type indexKey struct {
	seed     int64
	lastYear int
}

func sharedIndex(seed int64, lastYear int) *index {
	return indexes.Get(indexKey{seed, lastYear}, func() *index { return buildIndex(seed, lastYear) })
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// The real service runs on IIS: paths are case-insensitive.
	p := strings.ToLower(strings.TrimSuffix(r.URL.Path, "/"))
	switch {
	case p == "/uitspraken/zoeken":
		h.serveSearch(w, r)
	case p == "/uitspraken/content":
		h.serveContent(w, r)
	case strings.HasPrefix(p, "/waardelijst/"):
		h.serveList(w, r, strings.TrimPrefix(p, "/waardelijst/"))
	default:
		notFound(w, r)
	}
}

func writeXML(w http.ResponseWriter, r *http.Request, status int, body string) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, body)
	}
}

// badRequest answers 400 with a plain-text explanation.
func badRequest(w http.ResponseWriter, msg string) {
	http.Error(w, msg, http.StatusBadRequest)
}

func notFound(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "Not found: "+r.URL.Path, http.StatusNotFound)
}

// serverError mimics the HTML error page the real service returns where its
// own code fails (an impossible date, for example): not XML.
func serverError(w http.ResponseWriter, detail string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(`<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>Runtime Error</title></head>
<body>
<h1>Server Error in '/' Application.</h1>
<h2><i>` + htmlEsc(detail) + `</i></h2>
<hr width=100% size=1 color=silver>
<p><b>Description:</b> An unhandled exception occurred during the execution of the current web request.</p>
<p><b>Exception Details:</b> System.ArgumentOutOfRangeException: Year, Month, and Day parameters describe an un-representable DateTime.</p>
</body>
</html>
`))
}

var htmlEsc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace

// amsterdam converts t to Dutch local time and returns it with the offset
// (EU summer-time rules; no tzdata needed).
func amsterdam(t time.Time) (time.Time, string) {
	t = t.UTC()
	y := t.Year()
	start := lastSunday(y, time.March).Add(time.Hour) // 01:00 UTC
	end := lastSunday(y, time.October).Add(time.Hour) // 01:00 UTC
	if !t.Before(start) && t.Before(end) {
		return t.Add(2 * time.Hour), "+02:00"
	}
	return t.Add(time.Hour), "+01:00"
}

func lastSunday(y int, m time.Month) time.Time {
	d := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// xb is a small XML writer.
type xb struct{ strings.Builder }

func (b *xb) raw(s string) { b.WriteString(s) }

func (b *xb) el(name, text string) {
	b.WriteString("<" + name + ">" + esc(text) + "</" + name + ">")
}

func (b *xb) elA(name, text string, attrs ...string) {
	b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		b.WriteString(" " + attrs[i] + `="` + esc(attrs[i+1]) + `"`)
	}
	if text == "" {
		b.WriteString(" />")
		return
	}
	b.WriteString(">" + esc(text) + "</" + name + ">")
}

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace
