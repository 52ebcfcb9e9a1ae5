// Package emulator emulates Open Archivaris (openarchivaris.nl), an archive and
// full-text index of documents of municipalities, provinces and water
// boards.
//
// Open Archivaris publishes no API description. The JSON API served here is
// an ASSUMPTION made for BesluitBron (see docs/emulators.md): a search with
// filters for government type, body, document date and page count, one
// document's metadata, its full text page by page, and the list of bodies;
// 120 calls per minute per client, over which it answers 429 with
// Retry-After. When the real API becomes known, the proxy's oa route is
// configuration; only this emulator and the connector's tool change.
//
//	GET /api/v1/search?q=&government_type=&body=&date_from=&date_to=&min_pages=&max_pages=&sort=&page=&per_page=
//	GET /api/v1/documents/{id}
//	GET /api/v1/documents/{id}/text?page=N
//	GET /api/v1/bodies[?government_type=]
package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/emulators/fault"
)

// LimitPerMinute is the assumed rate limit: calls per client per minute.
const LimitPerMinute = 120

// Config configures the emulator.
type Config struct {
	// Seed chooses the generated archive.
	Seed int64
	// Clock is the clock (nil = clock.Wall); the rate limit follows it.
	Clock clock.Clock
	// NoRateLimit turns the limit off.
	NoRateLimit bool
}

// Emulator is the Open Archivaris emulator; it implements http.Handler.
type Emulator struct {
	cfg   Config
	now   func() time.Time
	orgs  []corpus.Org
	index map[string]int
	arch  *archive

	mu      sync.Mutex
	windows map[string][]time.Time
	limited atomic.Int64
}

type doc struct {
	org      corpus.Org
	n        int
	id       string
	title    string
	date     time.Time
	archived time.Time
	pages    int
	source   string
	snippet  string
	hay      string
}

// New returns the emulator as an http.Handler (an *Emulator).
func New(cfg Config) http.Handler { return NewEmulator(cfg) }

// NewEmulator returns the emulator with its Go API.
func NewEmulator(cfg Config) *Emulator {
	now := clock.Or(cfg.Clock).Now
	orgs := corpus.Orgs()
	e := &Emulator{cfg: cfg, now: now, orgs: orgs, index: map[string]int{}, arch: sharedArchive(cfg.Seed, len(orgs)),
		windows: map[string][]time.Time{}}
	for i, o := range orgs {
		e.index[o.Key] = i
	}
	return e
}

var (
	archiveStart = time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	archiveEnd   = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
)

// archive is the generated documents of one seed, shared by emulators
// with that seed; each organisation's part is built once, on first use.
type archive struct {
	once []sync.Once
	docs [][]*doc
}

var archives sync.Map // int64 → *archive

func sharedArchive(seed int64, n int) *archive {
	if a, ok := archives.Load(seed); ok {
		return a.(*archive)
	}
	a, _ := archives.LoadOrStore(seed, &archive{once: make([]sync.Once, n), docs: make([][]*doc, n)})
	return a.(*archive)
}

// docsOf generates an organisation's archive on first use.
func (e *Emulator) docsOf(i int) []*doc {
	e.arch.once[i].Do(func() {
		o := e.orgs[i]
		r := corpus.Rand(e.cfg.Seed, "oa", o.Key)
		end := archiveEnd
		if o.Discontinued {
			end, _ = time.Parse("2006-01-02", o.DiscontinuedAt)
		}
		n := 40 + r.IntN(120)
		sources := []string{"raadsinformatiesysteem", "raadsinformatiesysteem", "website", "woo-verzoek", "gemeenteblad"}
		out := make([]*doc, n)
		for k := range out {
			d := &doc{org: o, n: k + 1, id: fmt.Sprintf("%s-%06d", o.Key, k+1)}
			d.title = corpus.Title(r)
			d.date = corpus.Date(r, archiveStart, end).Truncate(24 * time.Hour)
			d.archived = d.date.Add(time.Duration(1+r.IntN(30*24)) * time.Hour)
			d.pages = 1 + r.IntN(60)
			d.source = sources[r.IntN(len(sources))]
			d.snippet = corpus.Sentence(r)
			d.hay = " " + strings.Join(words(d.title+" "+d.snippet+" "+o.Label), " ") + " "
			out[k] = d
		}
		sort.SliceStable(out, func(a, b int) bool { return out[a].date.Before(out[b].date) })
		e.arch.docs[i] = out
	})
	return e.arch.docs[i]
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
}

// Limited returns how many requests were answered 429.
func (e *Emulator) Limited() int64 { return e.limited.Load() }

// EmulatorStats reports the rate limiter's figures (see fault.Reporter).
func (e *Emulator) EmulatorStats() map[string]any {
	return map[string]any{"rate_limited": e.limited.Load(), "rate_limit_per_minute": LimitPerMinute}
}

// ResetEmulator forgets the rate-limit windows (see fault.Resetter).
func (e *Emulator) ResetEmulator() {
	e.mu.Lock()
	e.windows = map[string][]time.Time{}
	e.mu.Unlock()
	e.limited.Store(0)
}

// allow applies a sliding one-minute window: at most LimitPerMinute calls
// in any 60 seconds. It returns the calls left and, when refused, the
// seconds until a call fits.
func (e *Emulator) allow(key string) (remaining, retryAfter int, ok bool) {
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.windows[key]
	cut := 0
	for cut < len(w) && !w[cut].After(now.Add(-time.Minute)) {
		cut++
	}
	w = w[cut:]
	if len(w) >= LimitPerMinute {
		wait := w[0].Add(time.Minute).Sub(now)
		e.windows[key] = w
		return 0, max(1, int((wait+time.Second-1)/time.Second)), false
	}
	w = append(w, now)
	e.windows[key] = w
	if len(e.windows) > 10000 { // forget idle clients
		for k, v := range e.windows {
			if len(v) == 0 || !v[len(v)-1].After(now.Add(-time.Minute)) {
				delete(e.windows, k)
			}
		}
	}
	return LimitPerMinute - len(w), 0, true
}

// ServeHTTP routes the request.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") && !e.cfg.NoRateLimit {
		rem, retry, ok := e.allow(fault.ClientAddress(r))
		w.Header().Set("X-RateLimit-Limit", strconv.Itoa(LimitPerMinute))
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(rem))
		if !ok {
			e.limited.Add(1)
			w.Header().Set("Retry-After", strconv.Itoa(retry))
			apiError(w, http.StatusTooManyRequests, "rate_limited",
				fmt.Sprintf("Te veel verzoeken: maximaal %d per minuut. Probeer het over %d seconde(n) opnieuw.", LimitPerMinute, retry))
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		apiError(w, http.StatusMethodNotAllowed, "method_not_allowed", "Alleen GET en HEAD zijn toegestaan.")
		return
	}
	p := r.URL.Path
	switch {
	case p == "/api/v1/search":
		e.serveSearch(w, r)
	case p == "/api/v1/bodies":
		e.serveBodies(w, r)
	case strings.HasPrefix(p, "/api/v1/documents/"):
		rest := strings.TrimPrefix(p, "/api/v1/documents/")
		if id, ok := strings.CutSuffix(rest, "/text"); ok {
			e.serveText(w, r, id)
		} else {
			e.serveDocument(w, rest)
		}
	default:
		apiError(w, http.StatusNotFound, "not_found", "Onbekend pad; zie /api/v1/search, /api/v1/documents/{id} en /api/v1/bodies.")
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// Body is an organisation as Open Archivaris lists it.
type Body struct {
	Key            string `json:"key"`
	Name           string `json:"name"`
	GovernmentType string `json:"government_type"`
	Active         bool   `json:"active"`
	SucceededBy    string `json:"succeeded_by,omitempty"`
	DocumentCount  int    `json:"document_count"`
}

func (e *Emulator) body(i int) Body {
	o := e.orgs[i]
	return Body{Key: o.Key, Name: o.Label, GovernmentType: o.Type, Active: !o.Discontinued, SucceededBy: o.SucceededBy, DocumentCount: len(e.docsOf(i))}
}

var govTypes = []string{corpus.Gemeente, corpus.Provincie, corpus.Waterschap}

func (e *Emulator) serveBodies(w http.ResponseWriter, r *http.Request) {
	gt := r.URL.Query().Get("government_type")
	if gt != "" && !has(govTypes, gt) {
		apiError(w, http.StatusBadRequest, "invalid_government_type", fmt.Sprintf("Onbekend government_type %q; kies uit %s.", gt, strings.Join(govTypes, ", ")))
		return
	}
	out := []Body{}
	for i, o := range e.orgs {
		if gt == "" || o.Type == gt {
			out = append(out, e.body(i))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": len(out), "bodies": out})
}

func has(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Hit is one search result.
type Hit struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Body           string `json:"body"`
	BodyName       string `json:"body_name"`
	GovernmentType string `json:"government_type"`
	DocumentDate   string `json:"document_date"`
	PageCount      int    `json:"page_count"`
	Snippet        string `json:"snippet"`
	URL            string `json:"url"`
}

var sorts = []string{"relevance", "date_desc", "date_asc"}

func (e *Emulator) serveSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	bad := func(code, msg string) { apiError(w, http.StatusBadRequest, code, msg) }
	gt := q.Get("government_type")
	if gt != "" && !has(govTypes, gt) {
		bad("invalid_government_type", fmt.Sprintf("Onbekend government_type %q; kies uit %s.", gt, strings.Join(govTypes, ", ")))
		return
	}
	var bodies []int
	for _, b := range q["body"] {
		i, ok := e.index[b]
		if !ok {
			bad("unknown_body", fmt.Sprintf("Onbekend body %q; zie /api/v1/bodies.", b))
			return
		}
		bodies = append(bodies, i)
	}
	var from, to time.Time
	for _, name := range []string{"date_from", "date_to"} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse("2006-01-02", v)
			if err != nil {
				bad("invalid_date", fmt.Sprintf("%s %q is geen datum (JJJJ-MM-DD).", name, v))
				return
			}
			if name == "date_from" {
				from = t
			} else {
				to = t
			}
		}
	}
	if !from.IsZero() && !to.IsZero() && from.After(to) {
		bad("invalid_date", "date_from ligt na date_to.")
		return
	}
	ints := map[string]int{"min_pages": 0, "max_pages": 0, "page": 1, "per_page": 20}
	for _, name := range []string{"min_pages", "max_pages", "page", "per_page"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			bad("invalid_"+name, fmt.Sprintf("%s moet een geheel getal van minstens 1 zijn, kreeg %q.", name, v))
			return
		}
		ints[name] = n
	}
	if ints["per_page"] > 100 {
		bad("invalid_per_page", fmt.Sprintf("per_page mag hoogstens 100 zijn, kreeg %d.", ints["per_page"]))
		return
	}
	if ints["min_pages"] > 0 && ints["max_pages"] > 0 && ints["min_pages"] > ints["max_pages"] {
		bad("invalid_pages", "min_pages is groter dan max_pages.")
		return
	}
	sortBy := q.Get("sort")
	if sortBy == "" {
		sortBy = "relevance"
	}
	if !has(sorts, sortBy) {
		bad("invalid_sort", fmt.Sprintf("Onbekende sort %q; kies uit %s.", sortBy, strings.Join(sorts, ", ")))
		return
	}
	terms := words(q.Get("q"))
	if len(q.Get("q")) > 500 {
		bad("query_too_long", "q mag hoogstens 500 tekens zijn.")
		return
	}
	if len(bodies) == 0 {
		for i := range e.orgs {
			bodies = append(bodies, i)
		}
	}
	type scored struct {
		d     *doc
		score int
	}
	var hits []scored
	for _, bi := range bodies {
		if gt != "" && e.orgs[bi].Type != gt {
			continue
		}
		for _, d := range e.docsOf(bi) {
			if (!from.IsZero() && d.date.Before(from)) || (!to.IsZero() && d.date.After(to)) ||
				(ints["min_pages"] > 0 && d.pages < ints["min_pages"]) || (ints["max_pages"] > 0 && d.pages > ints["max_pages"]) {
				continue
			}
			score, ok := 0, true
			for _, t := range terms {
				c := strings.Count(d.hay, " "+t+" ")
				if c == 0 {
					ok = false
					break
				}
				score += c
			}
			if ok {
				hits = append(hits, scored{d, score})
			}
		}
	}
	sort.SliceStable(hits, func(a, b int) bool {
		switch sortBy {
		case "date_asc":
			return hits[a].d.date.Before(hits[b].d.date)
		case "relevance":
			if hits[a].score != hits[b].score {
				return hits[a].score > hits[b].score
			}
		}
		if !hits[a].d.date.Equal(hits[b].d.date) {
			return hits[a].d.date.After(hits[b].d.date)
		}
		return hits[a].d.id < hits[b].d.id
	})
	page, per := ints["page"], ints["per_page"]
	out := []Hit{}
	for i := (page - 1) * per; i < len(hits) && i < page*per; i++ {
		d := hits[i].d
		out = append(out, Hit{ID: d.id, Title: d.title, Body: d.org.Key, BodyName: d.org.Label, GovernmentType: d.org.Type,
			DocumentDate: d.date.Format("2006-01-02"), PageCount: d.pages, Snippet: d.snippet, URL: "/api/v1/documents/" + url.PathEscape(d.id)})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"query": q.Get("q"), "total": len(hits), "page": page, "per_page": per,
		"pages": (len(hits) + per - 1) / per, "results": out,
	})
}

// lookup finds a document by id ("soest-000123").
func (e *Emulator) lookup(id string) (*doc, bool) {
	k := strings.LastIndexByte(id, '-')
	if k < 0 {
		return nil, false
	}
	i, ok := e.index[id[:k]]
	if !ok {
		return nil, false
	}
	n, err := strconv.Atoi(id[k+1:])
	if err != nil || len(id[k+1:]) != 6 {
		return nil, false
	}
	for _, d := range e.docsOf(i) {
		if d.n == n {
			return d, true
		}
	}
	return nil, false
}

// Document is one document's metadata.
type Document struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Body           Body   `json:"body"`
	GovernmentType string `json:"government_type"`
	DocumentDate   string `json:"document_date"`
	ArchivedAt     string `json:"archived_at"`
	PageCount      int    `json:"page_count"`
	FileType       string `json:"file_type"`
	Source         string `json:"source"`
	SourceURL      string `json:"source_url"`
	Summary        string `json:"summary"`
	TextURL        string `json:"text_url"`
}

func (e *Emulator) serveDocument(w http.ResponseWriter, id string) {
	d, ok := e.lookup(id)
	if !ok {
		apiError(w, http.StatusNotFound, "document_not_found", fmt.Sprintf("Document %q niet gevonden.", id))
		return
	}
	writeJSON(w, http.StatusOK, Document{ID: d.id, Title: d.title, Body: e.body(e.index[d.org.Key]), GovernmentType: d.org.Type,
		DocumentDate: d.date.Format("2006-01-02"), ArchivedAt: d.archived.Format(time.RFC3339), PageCount: d.pages, FileType: "pdf",
		Source: d.source, SourceURL: "https://" + d.org.Key + ".example-ris.nl/documenten/" + strconv.Itoa(d.n) + ".pdf",
		Summary: d.snippet, TextURL: "/api/v1/documents/" + url.PathEscape(d.id) + "/text?page=1"})
}

// Text returns page p (1-based) of a document's full text.
func (e *Emulator) Text(d *doc, p int) string {
	r := corpus.Rand(e.cfg.Seed, "oa-text", d.id, p)
	t := corpus.Paragraphs(r, 3+r.IntN(3))
	if p == 1 {
		t = d.title + "\n\n" + d.org.Label + ", " + corpus.DutchDate(d.date) + "\n\n" + t
	}
	return t
}

func (e *Emulator) serveText(w http.ResponseWriter, r *http.Request, id string) {
	d, ok := e.lookup(id)
	if !ok {
		apiError(w, http.StatusNotFound, "document_not_found", fmt.Sprintf("Document %q niet gevonden.", id))
		return
	}
	p := 1
	if v := r.URL.Query().Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			apiError(w, http.StatusBadRequest, "invalid_page", fmt.Sprintf("page moet een geheel getal van minstens 1 zijn, kreeg %q.", v))
			return
		}
		p = n
	}
	if p > d.pages {
		apiError(w, http.StatusNotFound, "page_not_found", fmt.Sprintf("Document %q heeft %d pagina's; pagina %d bestaat niet.", id, d.pages, p))
		return
	}
	var next any // null on the last page
	if p < d.pages {
		next = "/api/v1/documents/" + url.PathEscape(d.id) + "/text?page=" + strconv.Itoa(p+1)
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": d.id, "page": p, "pages": d.pages, "text": e.Text(d, p), "next": next})
}
