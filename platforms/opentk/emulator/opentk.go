// Package emulator emulates OpenTK (berthub.eu/tkconv, opentk.nl) offline:
// the multipart POST /search over an FTS5-like index (at most 280 results,
// words ANDed, "phrases", OR, NOT, NEAR(), prefix*), /getdoc and /getraw,
// /document.html, /commissie/<id>, /ksds?q= and /recent-kamerstukdossiers.
// Every 200 answer to a GET carries a content-hash ETag and If-None-Match
// gets 304; request bodies are capped at 1 MB (413).
//
// Its documents are the Tweede Kamer emulator's (package tk): with the same
// seed and clock, a Document's DocumentNummer is found here, and /getraw
// serves the same bytes as the Gegevensmagazijn's /resource.
package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	tk "github.com/besluitbron/besluitbron/platforms/tk/emulator"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// Config configures the emulator.
type Config struct {
	// Seed selects the generated data; the same seed as the TK emulator
	// gives the same documents.
	Seed int64
	// Clock is the clock; nil means clock.Wall. The search's "took"
	// follows it too.
	Clock clock.Clock
	// Documents is the number of documents; 0 means the TK default (8000).
	Documents int
	// Data, when set, is shared with a TK emulator instead of generated.
	Data *tk.Data
}

// MaxResults is the most results one search returns (tkserv's "limit 280").
const MaxResults = 280

// MaxBody is the request body cap (tkserv's set_payload_max_length).
const MaxBody = 1 << 20

type handler struct {
	data *tk.Data
	now  func() time.Time

	once sync.Once
	*searchIndex

	// search load, as tkserv's cost guard sees it
	inFlight    atomic.Int64
	searches    atomic.Int64
	truncated   atomic.Int64
	maxInFlight atomic.Int64
}

// EmulatorStats reports the searches for /_emulator/stats: how many ran,
// how many were cut short by the cost guard, and the most at once.
func (h *handler) EmulatorStats() map[string]any {
	return map[string]any{
		"searches":                h.searches.Load(),
		"searches_truncated":      h.truncated.Load(),
		"max_concurrent_searches": h.maxInFlight.Load(),
	}
}

// ResetEmulator zeroes the search counters.
func (h *handler) ResetEmulator() {
	h.searches.Store(0)
	h.truncated.Store(0)
	h.maxInFlight.Store(h.inFlight.Load())
}

// New returns the emulator's handler.
func New(cfg Config) http.Handler {
	now := clock.Or(cfg.Clock).Now
	d := cfg.Data
	if d == nil {
		d = tk.SharedData(cfg.Seed, now(), cfg.Documents)
	}
	return &handler{data: d, now: now}
}

// searchIndex is what /search walks: built once per TK Data and shared by
// every handler of the process that serves it, since it never changes.
type searchIndex struct {
	index     []docIndex // in tkindex's rowid order: oldest first
	items     []item
	verslagen map[string]*item // by Vergadering id and by Verslag GUID
	avgLen    float64
}

// indexes holds the search index of each TK Data the process serves.
var indexes corpus.Shared[*tk.Data, *searchIndex]

// buildIndex makes sure the handler holds its Data's search index.
func (h *handler) buildIndex() {
	h.once.Do(func() {
		h.searchIndex = indexes.Get(h.data, func() *searchIndex { return newSearchIndex(h.data) })
	})
}

// newSearchIndex builds the search index: every category of items.go, in
// the order tkindex inserts rows (by date, oldest first), which /search
// walks backwards (order by rowid desc).
func newSearchIndex(data *tk.Data) *searchIndex {
	x := &searchIndex{}
	n := data.Documents()
	x.index = make([]docIndex, 0, n+n/itemsPerDocuments)
	for i := 0; i < n; i++ {
		text := data.DocumentHead(i)
		doc := data.Document(i)
		x.index = append(x.index, docIndex{text: text, toks: tokenize(text), soort: doc.Soort, datum: doc.Datum.Format("2006-01-02"),
			category: catDocument, doc: i})
	}
	x.items = buildItems(data)
	x.verslagen = map[string]*item{}
	for k := range x.items {
		it := &x.items[k]
		x.index = append(x.index, docIndex{text: it.text, toks: tokenize(it.text), datum: it.datum, category: it.Category, doc: -1, item: it})
		if it.Category == catVerslag {
			x.verslagen[it.Nummer] = it
			x.verslagen[it.verslagID] = it
		}
	}
	sort.SliceStable(x.index, func(a, b int) bool { return x.index[a].datum < x.index[b].datum })
	total := 0
	for i := range x.index {
		total += len(x.index[i].toks)
	}
	if len(x.index) > 0 {
		x.avgLen = float64(total) / float64(len(x.index))
	}
	return x
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > MaxBody {
		http.Error(w, "Payload Too Large", http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if r.Method == http.MethodPost && r.URL.Path == "/search" {
		h.search(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	ew := &etagWriter{header: http.Header{}, status: http.StatusOK}
	h.serveGet(ew, r)
	ew.finish(w, r)
}

// etagWriter buffers a GET answer so a content-hash ETag can be set, as
// tkserv's post-routing handler does.
type etagWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (e *etagWriter) Header() http.Header         { return e.header }
func (e *etagWriter) WriteHeader(code int)        { e.status = code }
func (e *etagWriter) Write(b []byte) (int, error) { return e.buf.Write(b) }

func (e *etagWriter) finish(w http.ResponseWriter, r *http.Request) {
	for k, v := range e.header {
		w.Header()[k] = v
	}
	if e.status == http.StatusOK {
		h := fnv.New64a()
		h.Write(e.buf.Bytes())
		etag := fmt.Sprintf("\"%x-%d\"", h.Sum64(), e.buf.Len())
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.Header().Del("Content-Type")
			w.Header().Del("Content-Length")
			w.Header().Del("Content-Disposition")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(e.buf.Len()))
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		w.Write(e.buf.Bytes())
	}
}

func textError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	w.Write([]byte(msg))
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func (h *handler) serveGet(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/getdoc/"):
		h.getdoc(w, strings.TrimPrefix(p, "/getdoc/"))
	case strings.HasPrefix(p, "/getraw/"):
		h.getraw(w, strings.TrimPrefix(p, "/getraw/"))
	case p == "/document.html":
		h.documentHTML(w, r.URL.Query().Get("nummer"))
	case p == "/verslag.html":
		h.verslagPage(w, r.URL.Query().Get("vergaderingid"))
	case strings.HasPrefix(p, "/get/"):
		w.Header().Set("Location", "../document.html?nummer="+strings.TrimPrefix(p, "/get/"))
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusMovedPermanently)
		w.Write([]byte("Redirecting.."))
	case strings.HasPrefix(p, "/commissie/"):
		h.commissie(w, strings.TrimPrefix(p, "/commissie/"))
	case p == "/ksds":
		h.ksds(w, r.URL.Query().Get("q"))
	case p == "/recent-kamerstukdossiers":
		h.recentDossiers(w)
	default:
		textError(w, http.StatusNotFound, "Not Found")
	}
}

// ---- search ----

// Result is one search hit: exactly the nine fields tkserv's /search
// handler writes (tkserv.cc), in the order nlohmann::json (a std::map)
// prints them.
type Result struct {
	Bijgewerkt    string  `json:"bijgewerkt"`
	Category      string  `json:"category"`
	Datum         string  `json:"datum"`
	Nummer        string  `json:"nummer"`
	Onderwerp     string  `json:"onderwerp"`
	Persoonnummer int     `json:"persoonnummer"`
	Relurl        string  `json:"relurl"`
	Score         float64 `json:"score"`
	Snip          string  `json:"snip"`
}

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	start := h.now()
	var q, twomonths, soorten string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(MaxBody); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, "Payload Too Large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		q = r.FormValue("q")
		twomonths = r.FormValue("twomonths")
		soorten = r.FormValue("soorten")
	} else {
		// tkserv reads multipart fields only: any other body leaves q empty
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, "Payload Too Large", http.StatusRequestEntityTooLarge)
				return
			}
		}
	}
	// COVID-19 and A.W.R. Hubert are searched as phrases
	if strings.ContainsAny(q, ".-") && !strings.Contains(q, `"`) {
		q = `"` + q + `"`
	}
	node, err := parseQuery(q)
	if err != nil {
		// tkserv's exception handler
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<h1>Error 500</h1><p>%s</p>", html.EscapeString(err.Error()))
		return
	}
	var since string
	if twomonths == "true" {
		since = h.now().AddDate(0, -2, 0).Format("2006-01-02")
	}
	h.buildIndex()
	// tkserv's cost guard: a search gets 10 s, 2 s when more than 5 run at
	// once, 1 s when more than 8; the database then stops the search and
	// the results found so far are returned, without a word. Here the
	// budget is a share of the documents scanned (newest first).
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for {
		m := h.maxInFlight.Load()
		if n <= m || h.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	h.searches.Add(1)
	scanFrom := 0
	switch {
	case n > 8:
		scanFrom = len(h.index) * 9 / 10
	case n > 5:
		scanFrom = len(h.index) * 8 / 10
	}
	if scanFrom > 0 {
		h.truncated.Add(1)
	}
	// search.cc: "... and (datum >= ? or datum='') and (? or category in
	// (...)) order by rowid desc limit 280"; soorten=activiteiten is the
	// category filter, moties and vragenantwoorden filter the 280 rows
	// afterwards by the document's soort (tkserv.cc).
	results := make([]Result, 0)
	found := 0
	for i := len(h.index) - 1; i >= scanFrom && found < MaxResults; i-- {
		d := &h.index[i]
		if soorten == "activiteiten" && d.category != catActiviteit {
			continue
		}
		if since != "" && d.datum < since {
			continue
		}
		m := map[int]int{}
		if !evalQuery(node, d, m) {
			continue
		}
		found++
		switch soorten {
		case "moties":
			if d.soort != "Motie" {
				continue
			}
		case "vragenantwoorden":
			if d.soort != "Schriftelijke vragen" && d.soort != "Antwoord schriftelijke vragen" && d.soort != "Antwoord schriftelijke vragen (nader)" {
				continue
			}
		}
		var res Result
		if d.item != nil {
			res = d.item.Result
		} else {
			doc := h.data.Document(d.doc)
			res = Result{Nummer: doc.Nummer, Datum: doc.Datum.Format("2006-01-02T15:04:05"), Category: catDocument,
				Onderwerp: doc.Onderwerp, Relurl: "get/" + doc.Nummer, Bijgewerkt: doc.Bijgewerkt, Persoonnummer: -1}
		}
		score := bm25(len(m), float64(len(d.toks)), h.avgLen)
		res.Score = float64(int64(score*1e6)) / 1e6
		res.Snip = snippet(d, m)
		results = append(results, res)
	}
	ms := float64(h.now().Sub(start).Microseconds()) / 1000
	writeJSON(w, map[string]any{"results": results, "milliseconds": ms})
}

// ---- documents ----

func onderwerpToFilename(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func (h *handler) getdoc(w http.ResponseWriter, key string) {
	i, ok := h.data.DocumentByNummer(key)
	if !ok {
		// A GUID may be a Verslag's (not its Vergadering's: tkserv looks
		// in Document, then in Verslag).
		if it, found := h.verslagByKey(key); found && strings.EqualFold(it.verslagID, key) {
			verslagHTML(w, it)
			return
		}
		textError(w, http.StatusNotFound, "Found nothing!!")
		return
	}
	doc := h.data.Document(i)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"\" xml:lang=\"\">\n<head>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\"/>\n</head>\n<body>\n", html.EscapeString(doc.Nummer))
	for _, para := range strings.Split(h.data.DocumentText(i), "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(para))
	}
	b.WriteString("</body>\n</html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

func (h *handler) getraw(w http.ResponseWriter, nummer string) {
	i, ok := h.data.DocumentByNummer(nummer)
	if !ok {
		textError(w, http.StatusNotFound, "Could not find a document with nummer "+nummer)
		return
	}
	doc := h.data.Document(i)
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=\"%s-%s.pdf\"", doc.Nummer, onderwerpToFilename(doc.Onderwerp)))
	w.Header().Set("Content-Type", doc.ContentType)
	w.Write(h.data.DocumentPDF(i))
}

func (h *handler) documentHTML(w http.ResponseWriter, nummer string) {
	i, ok := h.data.DocumentByNummer(nummer)
	if !ok {
		textError(w, http.StatusNotFound, "Found nothing in document.html!!")
		return
	}
	doc := h.data.Document(i)
	e := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"nl\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<meta property=\"og:title\" content=\"%s\">\n<meta property=\"og:description\" content=\"%s\">\n</head>\n<body>\n",
		e(doc.Onderwerp), e(doc.Onderwerp), e(doc.Titel+" "+doc.Onderwerp))
	fmt.Fprintf(&b, "<h1>%s</h1>\n<h2>%s</h2>\n<table>\n<tr><td>Nummer</td><td>%s</td></tr>\n<tr><td>Soort</td><td>%s</td></tr>\n<tr><td>Datum</td><td>%s</td></tr>\n<tr><td>Bijgewerkt</td><td>%s</td></tr>\n",
		e(doc.Titel), e(doc.Onderwerp), e(doc.Nummer), e(doc.Soort), doc.Datum.Format("2006-01-02"), e(doc.Bijgewerkt))
	if doc.Dossier >= 0 {
		fmt.Fprintf(&b, "<tr><td>Kamerstuk</td><td><a href=\"ksd.html?ksd=%v\">%v-%d</a></td></tr>\n",
			h.data.Row("Kamerstukdossier", doc.Dossier, "Nummer"), h.data.Row("Kamerstukdossier", doc.Dossier, "Nummer"), doc.Volgnummer)
	}
	fmt.Fprintf(&b, "</table>\n<p><a href=\"getraw/%s\">Origineel</a> <a href=\"getdoc/%s\">HTML</a></p>\n<iframe src=\"getraw/%s\"></iframe>\n</body>\n</html>\n",
		e(doc.Nummer), e(doc.Nummer), e(doc.Nummer))
	w.Header().Set("Content-Type", "text/html")
	w.Write([]byte(b.String()))
}

// ---- lists ----

// lowerKey turns a TK property name into tkconv's column name.
func lowerKey(p string) string {
	if strings.HasSuffix(p, "_Id") {
		p = strings.TrimSuffix(p, "_Id") + "Id"
	}
	return strings.ToLower(p[:1]) + p[1:]
}

func (h *handler) commissie(w http.ResponseWriter, id string) {
	d := h.data
	c := -1
	for i := 0; i < d.Len("Commissie"); i++ {
		if d.Row("Commissie", i, "Id") == strings.ToLower(id) {
			c = i
		}
	}
	if c < 0 {
		textError(w, http.StatusNotFound, "Geen commissie met id "+id)
		return
	}
	naam := d.Row("Commissie", c, "NaamNL")
	afk := d.Row("Commissie", c, "Afkorting")
	persoonProps := []string{"Id", "Nummer", "Titels", "Initialen", "Tussenvoegsel", "Achternaam", "Voornamen", "Roepnaam",
		"Geslacht", "Functie", "Geboortedatum", "Geboorteplaats", "Geboorteland", "Woonplaats", "Land"}
	leden := []map[string]any{}
	for k, p := range d.CommissieLeden(c) {
		m := map[string]any{"naam": naam, "cafkorting": afk, "gewicht": k + 1, "cfunctie": "Lid"}
		if k == 0 {
			m["cfunctie"] = "Voorzitter"
		} else if k < 3 {
			m["cfunctie"] = "Ondervoorzitter"
		}
		for _, pp := range persoonProps {
			v := d.Row("Persoon", p, pp)
			if v == nil {
				v = ""
			}
			m[lowerKey(pp)] = v
		}
		if f, ok := d.PersoonFractie(p); ok {
			m["fafkorting"] = d.Row("Fractie", f, "Afkorting")
		}
		leden = append(leden, m)
	}
	zaakProps := []string{"Id", "Nummer", "Soort", "Titel", "Status", "Onderwerp", "GestartOp", "Organisatie", "Vergaderjaar", "Volgnummer", "Afgedaan", "Kabinetsappreciatie"}
	zaken := []map[string]any{}
	for i := d.Documents() - 1; i >= 0 && len(zaken) < 20; i-- {
		if d.Document(i).Commissie != c {
			continue
		}
		m := map[string]any{"relatie": "Voortouwcommissie", "naam": naam, "afkorting": afk, "commissieId": d.Row("Commissie", c, "Id")}
		for _, zp := range zaakProps {
			v := d.Row("Zaak", i, zp)
			if v == nil {
				v = ""
			}
			m[lowerKey(zp)] = v
		}
		zaken = append(zaken, m)
	}
	activiteiten := []map[string]any{}
	soorten := []string{"Commissiedebat", "Procedurevergadering", "Rondetafelgesprek", "Wetgevingsoverleg", "Technische briefing", "Notaoverleg"}
	end := d.End()
	for k := 0; k < 50; k++ {
		day := end.AddDate(0, 0, 14-k*6)
		soort := soorten[(k*7+c)%len(soorten)]
		aanvang := time.Date(day.Year(), day.Month(), day.Day(), 10+(k%6), 0, 0, 0, time.UTC)
		activiteiten = append(activiteiten, map[string]any{
			"id":           fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", c*1000+k, k, c, k, int64(c)*7919+int64(k)),
			"nummer":       fmt.Sprintf("%dA%05d", day.Year(), 1000+c*60+k),
			"soort":        soort,
			"onderwerp":    fmt.Sprintf("%s %s", soort, naam),
			"datum":        aanvang.Format("2006-01-02T15:04:05"),
			"aanvangstijd": aanvang.Format("2006-01-02T15:04:05"),
			"eindtijd":     aanvang.Add(2 * time.Hour).Format("2006-01-02T15:04:05"),
			"status":       map[bool]string{true: "Gepland", false: "Uitgevoerd"}[day.After(end)],
			"voortouwNaam": naam,
			"relatie":      "Voortouwcommissie",
		})
	}
	writeJSON(w, map[string]any{
		"commissie":    map[string]any{"naam": naam, "cafkorting": afk},
		"leden":        leden,
		"zaken":        zaken,
		"activiteiten": activiteiten,
	})
}

type dossier struct {
	Nummer            any    `json:"nummer"`
	Mdatum            string `json:"mdatum"`
	Titel             any    `json:"titel"`
	Toevoeging        any    `json:"toevoeging"`
	HoogsteVolgnummer any    `json:"hoogsteVolgnummer"`
}

func (h *handler) dossiers() []dossier {
	d := h.data
	var out []dossier
	for k := 0; k < d.Len("Kamerstukdossier"); k++ {
		docs := d.DossierDocuments(k)
		if len(docs) == 0 {
			continue
		}
		last := d.Document(docs[len(docs)-1])
		out = append(out, dossier{
			Nummer: d.Row("Kamerstukdossier", k, "Nummer"), Mdatum: last.Datum.Format("2006-01-02T15:04:05"),
			Titel: d.Row("Kamerstukdossier", k, "Titel"), Toevoeging: d.Row("Kamerstukdossier", k, "Toevoeging"),
			HoogsteVolgnummer: d.Row("Kamerstukdossier", k, "HoogsteVolgnummer"),
		})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Mdatum > out[b].Mdatum })
	return out
}

func (h *handler) recentDossiers(w http.ResponseWriter) {
	all := h.dossiers()
	if len(all) > 250 {
		all = all[:250]
	}
	writeJSON(w, all)
}

func (h *handler) ksds(w http.ResponseWriter, q string) {
	q = strings.TrimSpace(q)
	if q == "" {
		textError(w, http.StatusBadRequest, "Missing q")
		return
	}
	words := tokenize(q)
	out := []dossier{}
	for _, ds := range h.dossiers() {
		titel := corpus.Fold(fmt.Sprint(ds.Titel))
		ok := strings.HasPrefix(strconv.Itoa(ds.Nummer.(int)), q)
		if !ok && len(words) > 0 {
			ok = true
			for _, wd := range words {
				if !strings.Contains(titel, wd.text) {
					ok = false
					break
				}
			}
		}
		if ok {
			out = append(out, ds)
			if len(out) == 100 {
				break
			}
		}
	}
	writeJSON(w, out)
}
