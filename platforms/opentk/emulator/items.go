package emulator

import (
	"fmt"
	"html"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
	tk "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// The six categories of tkconv's search index (search.cc), each with the
// nummer and relurl search.cc gives it:
//
//	Document         nummer = Document.nummer        relurl get/<nummer>
//	Activiteit       nummer = Activiteit.nummer      relurl activiteit.html?nummer=<nummer>
//	Verslag          nummer = Vergadering.id (GUID)  relurl verslag.html?vergaderingid=<nummer>
//	Toezegging       nummer = Toezegging.nummer      relurl toezegging.html?nummer=<nummer>
//	PersoonGeschenk  nummer = PersoonGeschenk.id     relurl persoon.html?nummer=<persoon>#<id>
//	OODocument       nummer = OODocument.id          relurl oo.html?nummer=<id>
//
// persoonnummer is -1 except for PersoonGeschenk (SearchHelper::Result's
// default). Documents are the TK emulator's; the other categories are
// generated here from the same seed, about their topics.
const (
	catDocument        = "Document"
	catActiviteit      = "Activiteit"
	catVerslag         = "Verslag"
	catToezegging      = "Toezegging"
	catPersoonGeschenk = "PersoonGeschenk"
	catOODocument      = "OODocument"
)

// item is one non-document entry of the index: what search.cc returns for
// it, and (Verslag) the minutes' text that /getdoc and /verslag.html serve.
type item struct {
	Result
	verslagID string // Verslag: the Verslag's own GUID (/getdoc/<guid>)
	text      string // the indexed text (tkindex: onderwerp, titel, tekst)
	datum     string // YYYY-MM-DD, for twomonths
}

// itemsPerDocuments: one generated item per this many documents, so the
// mix of categories stays the same at any corpus size.
const itemsPerDocuments = 8

var ministeries = []string{"Binnenlandse Zaken en Koninkrijksrelaties", "Financiën", "Infrastructuur en Waterstaat",
	"Justitie en Veiligheid", "Klimaat en Groene Groei", "Landbouw, Visserij, Voedselzekerheid en Natuur",
	"Onderwijs, Cultuur en Wetenschap", "Sociale Zaken en Werkgelegenheid", "Volksgezondheid, Welzijn en Sport",
	"Volkshuisvesting en Ruimtelijke Ordening", "Asiel en Migratie", "Economische Zaken", "Defensie"}

var geschenken = []string{"Boek", "Fles wijn", "Bos bloemen", "Kerstpakket", "Toegangskaarten voor een voorstelling", "Relatiegeschenk (pen)"}

// guidOf is a stable GUID for the parts.
func guidOf(seed int64, parts ...any) string {
	r := corpus.Rand(seed, parts...)
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), 0x8000|r.IntN(1<<14), r.Uint64()&(1<<48-1))
}

// buildItems generates the non-document entries: each is about the subject
// of a document of the TK emulator (so a query finds several categories),
// dated around it.
func buildItems(data *tk.Data) []item {
	n := data.Documents() / itemsPerDocuments
	seed := data.Seed()
	out := make([]item, 0, n)
	for k := 0; k < n; k++ {
		r := corpus.Rand(seed, "opentk-item", k)
		doc := data.Document(r.IntN(data.Documents()))
		at := doc.Datum.Add(time.Duration(r.IntN(20*24)) * time.Hour)
		if end := data.End(); at.After(end) {
			at = end
		}
		stamp := at.Format("2006-01-02T15:04:05")
		bij := at.Add(time.Duration(1+r.IntN(72)) * time.Hour).UTC().Format("2006-01-02T15:04:05.0000000Z")
		subject := doc.Onderwerp
		it := item{Result: Result{Datum: stamp, Bijgewerkt: bij, Persoonnummer: -1}, datum: at.Format("2006-01-02")}
		switch k % 5 {
		case 0, 1: // committee debates are the most frequent after documents
			it.Category = catActiviteit
			it.Nummer = fmt.Sprintf("%dA%05d", at.Year(), 50000+k)
			it.Onderwerp = subject
			it.Relurl = "activiteit.html?nummer=" + it.Nummer
			it.text = "Commissiedebat " + subject + ". " + corpus.Sentence(r)
		case 2:
			it.Category = catVerslag
			it.Nummer = guidOf(seed, "opentk-vergadering", k)
			it.verslagID = guidOf(seed, "opentk-verslag", k)
			it.Onderwerp = "Commissiedebat " + subject
			it.Relurl = "verslag.html?vergaderingid=" + it.Nummer
			it.text = it.Onderwerp + ". " + corpus.Paragraphs(r, 4+r.IntN(6))
		case 3:
			it.Category = catToezegging
			it.Nummer = fmt.Sprintf("TZ%04d%02d-%03d", at.Year(), int(at.Month()), 1+k%999)
			it.Onderwerp = fmt.Sprintf("De minister van %s zegt toe de Kamer te informeren over %s.", ministeries[r.IntN(len(ministeries))], subject)
			it.Relurl = "toezegging.html?nummer=" + it.Nummer
			it.text = it.Onderwerp
		case 4:
			if k%10 == 4 {
				it.Category = catPersoonGeschenk
				it.Nummer = guidOf(seed, "opentk-geschenk", k)
				name := corpus.PersonName(r)
				it.Persoonnummer = 1000 + r.IntN(9000)
				it.Onderwerp = "Geschenk aan " + name + ": " + geschenken[r.IntN(len(geschenken))] + " na werkbezoek over " + subject
				it.Relurl = "persoon.html?nummer=" + strconv.Itoa(it.Persoonnummer) + "#" + it.Nummer
				it.text = it.Onderwerp
			} else {
				it.Category = catOODocument
				it.Nummer = guidOf(seed, "opentk-oo", k) + "_1"
				it.Onderwerp = "Besluit op Woo-verzoek over " + subject
				it.Relurl = "oo.html?nummer=" + it.Nummer
				it.text = it.Onderwerp + ". " + corpus.Sentence(r)
			}
		}
		out = append(out, it)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Datum < out[b].Datum })
	return out
}

// verslagByKey finds a Verslag item by its Vergadering id or its own GUID.
func (h *handler) verslagByKey(key string) (*item, bool) {
	h.buildIndex()
	it, ok := h.verslagen[strings.ToLower(key)]
	return it, ok
}

// verslagHTML writes the minutes as tkserv's getHtmlForDocument renders a
// document: a bare HTML page of paragraphs.
func verslagHTML(w http.ResponseWriter, it *item) {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"\" xml:lang=\"\">\n<head>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\"/>\n</head>\n<body>\n", html.EscapeString(it.Onderwerp))
	for _, para := range strings.Split(it.text, "\n\n") {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(para))
	}
	b.WriteString("</body>\n</html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

// verslagPage is /verslag.html?vergaderingid=<guid>: the meeting's title
// and date around the minutes (tkserv renders partials/verslag.html).
func (h *handler) verslagPage(w http.ResponseWriter, id string) {
	it, ok := h.verslagByKey(id)
	if !ok || !strings.EqualFold(it.Nummer, id) {
		textError(w, http.StatusNotFound, "Geen vergadering gevonden")
		return
	}
	e := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"nl\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<meta property=\"og:title\" content=\"%s\">\n</head>\n<body>\n<h1>%s</h1>\n<p>%s</p>\n<div class=\"verslag\">\n",
		e(it.Onderwerp), e(it.Onderwerp), e(it.Onderwerp), e(it.datum))
	for _, para := range strings.Split(it.text, "\n\n") {
		fmt.Fprintf(&b, "<p>%s</p>\n", e(para))
	}
	b.WriteString("</div>\n</body>\n</html>\n")
	w.Header().Set("Content-Type", "text/html")
	w.Write([]byte(b.String()))
}
