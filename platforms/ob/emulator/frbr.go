package emulator

import (
	"archive/zip"
	"bytes"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// manifestations are the itemUrl manifestations each record lists, in the
// live service's order; decentral publications also have an odt.
var (
	manifestations          = []string{"html", "metadata", "metadataowms", "pdf", "xml"}
	decentralManifestations = []string{"html", "metadata", "metadataowms", "odt", "pdf", "xml"}
)

func (p *pub) manifestations() []string {
	if p.Kind.decentral {
		return decentralManifestations
	}
	return manifestations
}

func fileName(p *pub, m string) string {
	switch m {
	case "metadata":
		return "metadata.xml"
	case "metadataowms":
		return "metadata_owms.xml"
	}
	return p.ID + "." + m
}

func frbrPath(p *pub, m string) string {
	return "/frbr/officielepublicaties/" + p.Kind.code + "/" + p.sub() + "/" + p.ID + "/1/" + m + "/" + fileName(p, m)
}

func itemURL(link string, p *pub, m string) string { return link + frbrPath(p, m) }

// serveFRBR serves /frbr/officielepublicaties/<code>/<sub>/<id>/1/<m>/<file>.
func (h *handler) serveFRBR(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(seg) != 8 || seg[1] != "officielepublicaties" {
		http.NotFound(w, r)
		return
	}
	p := h.lookup(seg[4])
	m := seg[6]
	if p == nil || r.URL.Path != frbrPath(p, m) {
		http.NotFound(w, r)
		return
	}
	var body []byte
	ctype := "text/xml; charset=utf-8"
	switch m {
	case "xml":
		body = []byte(h.fullXML(p))
	case "html":
		body, ctype = []byte(h.fullHTML(p)), "text/html; charset=utf-8"
	case "metadata":
		body = []byte(opMetadata(p))
	case "metadataowms":
		body = []byte(owmsMetadata(p))
	case "pdf":
		body, ctype = h.pdf(p), "application/pdf"
	case "odt":
		if !p.Kind.decentral {
			http.NotFound(w, r)
			return
		}
		body, ctype = h.odt(p), "application/vnd.oasis.opendocument.text"
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if t, err := time.Parse(time.DateOnly, p.Modified); err == nil {
		w.Header().Set("Last-Modified", t.Add(12*time.Hour).UTC().Format(http.TimeFormat))
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// content is the text of one publication, rendered into the xml, html and
// pdf manifestations alike.
type content struct {
	heading   string   // kop/titel of the body
	intro     []string // considerans, or the text of a mededeling
	articles  [][]string
	notes     []string // toelichting
	place     string
	signFunc  string
	signFirst string
	signLast  string
	mededel   bool     // a short notice (zakelijke-mededeling) rather than a regulation
	list      []string // items of a list in the first lid of article 1
	image     string   // an illustration in the first list item
}

func (h *handler) content(p *pub) *content {
	r := corpus.Rand(h.cfg.Seed, "ob-text", p.ID)
	c := &content{heading: p.Title, place: "'s-Gravenhage"}
	name := strings.Fields(corpus.PersonName(r))
	c.signFirst = name[0][:1] + "."
	c.signLast = strings.Join(name[1:], " ")
	switch {
	case p.Kind.decentral:
		c.place = p.Creator
		c.signFunc = map[string]string{"gmb": "De burgemeester van " + p.Creator + ",", "prb": "Gedeputeerde Staten van " + p.Creator + ",", "wsb": "De dijkgraaf,"}[p.Kind.code]
	case p.Kind.code == "kst":
		c.signFunc = "De Minister van " + ministries[r.IntN(len(ministries))] + ","
	case p.OrgType == "gemeente":
		c.place = p.Creator
		c.signFunc = "Burgemeester en wethouders van " + p.Creator
	default:
		c.signFunc = "De " + strings.Replace(p.Creator, "Ministerie van", "Minister van", 1) + ","
	}
	switch p.Type {
	case "omgevingsvergunning", "Mededeling", "verkeersbesluit", "Andere beschikking", "Benoeming":
		c.mededel = true
		c.intro = paras(r, 3+r.IntN(5))
		if p.Type == "verkeersbesluit" {
			c.notes = paras(r, 6+r.IntN(10))
		}
		return c
	}
	c.intro = paras(r, 2+r.IntN(3))
	n := 4 + r.IntN(14)
	for i := 0; i < n; i++ {
		leden := make([]string, 1+r.IntN(4))
		for j := range leden {
			leden[j] = sentences(r, 1+r.IntN(4))
		}
		c.articles = append(c.articles, leden)
	}
	// The last article (entry into force) is a single paragraph.
	c.articles = append(c.articles, []string{"Dit besluit treedt in werking met ingang van de dag na de datum van uitgifte van het " + p.Kind.name + " waarin het wordt geplaatst."})
	if len(c.articles[0]) < 2 {
		c.articles[0] = append(c.articles[0], sentences(r, 2))
	}
	c.list = []string{sentences(r, 1+r.IntN(2)), sentences(r, 1+r.IntN(2))}
	if p.Kind.code == "stb" {
		c.image = p.ID + "-001.png"
	}
	c.notes = paras(r, 8+r.IntN(25))
	return c
}

func paras(r *rand.Rand, n int) []string { return strings.Split(corpus.Paragraphs(r, n), "\n\n") }

func sentences(r *rand.Rand, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = corpus.Sentence(r)
	}
	return strings.Join(s, " ")
}

const xsdBase = "http://technische-documentatie.oep.overheid.nl/schema/"

// fullXML renders the xml manifestation. Its root depends on the series and
// age: old Staatsbladen have root staatsblad, Kamerstukken kamerstuk, the
// rest officiele-publicatie with the series element below it.
func (h *handler) fullXML(p *pub) string {
	c := h.content(p)
	b := &xb{}
	b.raw("\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n")
	schema := xsdBase + "op-xsd-2012-2"
	if p.Year >= 2015 {
		schema = xsdBase + "op-xsd-2012-3"
	}
	meta := `<metadata><meta name="OVERHEIDop.externMetadataRecord" scheme="" content="https://zoek.officielebekendmakingen.nl/` + esc(p.ID) + `/metadata.xml" /></metadata>`
	switch {
	case p.Kind.code == "kst":
		b.raw(`<kamerstuk xmlns:xsi="` + nsXSI + `" xsi:noNamespaceSchemaLocation="` + schema + `">` + meta)
		b.raw("<kamerstukkop>")
		b.el("vergaderjaar", "Tweede Kamer der Staten-Generaal, vergaderjaar "+p.Vergader)
		b.raw("</kamerstukkop><dossier><dossiernummer>")
		b.el("dossiernr", p.Dossier)
		b.raw("</dossiernummer>")
		dossierTitle, docTitle, _ := strings.Cut(p.Title, "; ")
		b.el("titel", dossierTitle)
		b.raw("</dossier><stuk><stuknr>")
		b.el("ondernummer", p.Number)
		b.raw("</stuknr>")
		b.el("titel", strings.ToUpper(docTitle))
		writeArticles(b, c)
		b.raw("<algemeen>")
		for _, al := range c.notes {
			b.el("al", al)
		}
		b.raw("</algemeen>")
		writeOndertekening(b, c)
		b.raw("</stuk></kamerstuk>")
		return b.String()
	case p.Kind.code == "stb" && p.Year < 2010:
		b.raw(`<staatsblad xmlns:xsi="` + nsXSI + `" xsi:noNamespaceSchemaLocation="` + schema + `">` + meta)
		writeStaatsbladBody(b, p, c)
		b.raw("</staatsblad>")
		return b.String()
	}
	b.raw(`<officiele-publicatie xmlns:xsi="` + nsXSI + `" xsi:noNamespaceSchemaLocation="` + schema + `">` + "\r\n  " + meta)
	b.raw("<kop>")
	switch p.Kind.code {
	case "stb":
		b.el("titel", "Staatsblad")
		b.el("subtitel", "van het Koninkrijk der Nederlanden")
	case "stcrt":
		b.el("titel", "STAATSCOURANT")
		b.el("subtitel", "Officiële uitgave van het Koninkrijk der Nederlanden sinds 1814.")
	case "trb":
		b.el("titel", "TRACTATENBLAD")
		b.el("subtitel", "van het Koninkrijk der Nederlanden")
	default:
		b.el("titel", strings.ToUpper(p.Kind.name))
		b.el("subtitel", "Officiële uitgave van "+p.Creator)
	}
	b.raw("</kop><" + p.Kind.root + ">")
	if p.Kind.code == "stb" {
		writeStaatsbladBody(b, p, c)
	} else {
		b.raw("<kop>")
		if p.Kind.decentral || p.OrgType == "gemeente" {
			b.raw(`<plaatje><illustratie type="lijn" uitlijning="start" formaat="png" naam="` + esc(p.ID) + `-1.png" alt="Logo ` + esc(p.Creator) + `" breedte="4.00cm" hoogte="1.57cm" /></plaatje>`)
		}
		b.el("titel", c.heading)
		b.raw("</kop>")
		if c.mededel {
			b.raw("<zakelijke-mededeling><zakelijke-mededeling-tekst><tekst>")
			for _, al := range c.intro {
				b.el("al", al)
			}
			if len(c.notes) > 0 {
				b.raw(`<tussenkop><nadruk type="vet">Toelichting</nadruk></tussenkop>`)
				for _, al := range c.notes {
					b.el("al", al)
				}
			}
			b.raw(`<tussenkop><nadruk type="vet">` + esc(c.place) + `, ` + esc(corpus.DutchDate(mustDate(p.Date))) + `</nadruk></tussenkop>`)
			b.raw(`<tussenkop><nadruk type="vet">` + esc(c.signFunc) + `</nadruk></tussenkop>`)
			b.raw("</tekst></zakelijke-mededeling-tekst></zakelijke-mededeling>")
		} else {
			b.raw("<regeling><regeling-tekst>")
			b.raw("<aanhef><considerans>")
			for _, al := range c.intro {
				b.el("considerans.al", al)
			}
			b.raw("</considerans><afkondiging><al>Besluit:</al></afkondiging></aanhef>")
			writeArticles(b, c)
			writeOndertekening(b, c)
			b.raw("</regeling-tekst>")
			b.raw(`<toelichting><kop><titel>Toelichting</titel></kop>`)
			for _, al := range c.notes {
				b.el("al", al)
			}
			b.raw("</toelichting></regeling>")
		}
	}
	b.raw("</" + p.Kind.root + "></officiele-publicatie>")
	return b.String()
}

func mustDate(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

func writeStaatsbladBody(b *xb, p *pub, c *content) {
	b.el("intitule", p.Title)
	b.raw("<wet-besluit><aanhef>")
	b.el("wij", "Wij Willem-Alexander, bij de gratie Gods, Koning der Nederlanden, Prins van Oranje-Nassau, enz. enz. enz.")
	b.raw("<considerans>")
	for i, al := range c.intro {
		b.elA("considerans.al", al, "bevat", []string{"voordracht", "grondslag", "overweging"}[i%3])
	}
	b.raw("</considerans><afkondiging><al>Hebben goedgevonden en verstaan:</al></afkondiging></aanhef><?xpp qa?><?xpp lead;-1?>")
	writeArticles(b, c)
	b.raw(`<wetsluiting status="goed"><slotformulering><al>Onze Minister is belast met de uitvoering van dit besluit, dat in het Staatsblad zal worden geplaatst.</al></slotformulering>`)
	b.raw("<gegeven><dagtekening>")
	b.el("plaats", "Wassenaar,")
	b.elA("datum", corpus.DutchDate(mustDate(p.Date)), "isodatum", p.Date)
	b.raw("</dagtekening><koning>Willem-Alexander</koning></gegeven>")
	writeOndertekening(b, c)
	b.raw("<uitgifte>")
	issued := mustDate(p.Issued)
	b.raw(`<datum isodatum="` + p.Issued + `">Uitgegeven de <nadruk type="cur">` + ordinals[issued.Day()-1] + `</nadruk> ` + corpus.Months[issued.Month()-1] + " " + strconv.Itoa(issued.Year()) + `</datum>`)
	b.raw("<ondertekening><functie>De Minister van Justitie en Veiligheid,</functie><naam><voornaam>D.</voornaam><achternaam>van Weel</achternaam></naam></ondertekening>")
	b.raw("</uitgifte></wetsluiting></wet-besluit>")
	b.raw(`<nota-toelichting><kop><titel>NOTA VAN TOELICHTING</titel></kop><algemeen>`)
	for _, al := range c.notes {
		b.el("al", al)
	}
	b.raw("</algemeen></nota-toelichting>")
}

var ordinals = strings.Fields(`eerste tweede derde vierde vijfde zesde zevende achtste negende tiende elfde
twaalfde dertiende veertiende vijftiende zestiende zeventiende achttiende negentiende twintigste
eenentwintigste tweeëntwintigste drieëntwintigste vierentwintigste vijfentwintigste zesentwintigste
zevenentwintigste achtentwintigste negenentwintigste dertigste eenendertigste`)

func writeArticles(b *xb, c *content) {
	if len(c.articles) == 0 {
		return
	}
	b.raw("<wettekst>")
	for i, leden := range c.articles {
		b.raw(`<artikel status="goed"><kop><label>Artikel</label>`)
		b.elA("nr", strconv.Itoa(i+1), "status", "officieel")
		b.raw("</kop>")
		if len(leden) == 1 {
			b.el("al", leden[0])
		} else {
			for j, l := range leden {
				b.raw("<lid>")
				b.elA("lidnr", strconv.Itoa(j+1)+".", "status", "officieel")
				b.el("al", l)
				if i == 0 && j == 0 && len(c.list) > 0 {
					b.raw(`<lijst type="expliciet" start="1" level="single" nr-sluiting=".">`)
					for k, li := range c.list {
						b.raw("<li>")
						b.el("li.nr", string(rune('a'+k))+".")
						b.el("al", li)
						if k == 0 && c.image != "" {
							b.raw(`<plaatje><illustratie kleur="nee" type="lijn" uitlijning="start" formaat="png" naam="` + esc(c.image) + `" breedte="54mm" hoogte="54mm" /></plaatje>`)
						}
						b.raw("</li>")
					}
					b.raw("</lijst>")
				}
				b.raw("</lid>")
			}
		}
		b.raw("</artikel><?xpp qa?>")
	}
	b.raw("</wettekst>")
}

func writeOndertekening(b *xb, c *content) {
	b.raw("<ondertekening>")
	b.el("functie", c.signFunc)
	b.raw("<naam>")
	b.el("voornaam", c.signFirst)
	b.el("achternaam", c.signLast)
	b.raw("</naam></ondertekening>")
}

// fullHTML renders the html manifestation from the same content.
func (h *handler) fullHTML(p *pub) string {
	c := h.content(p)
	b := &xb{}
	b.raw("<!DOCTYPE html>\n<html lang=\"nl\"><head><meta charset=\"utf-8\"/>")
	b.el("title", p.Kind.name+" "+p.yearLabel()+", "+p.Number+" | Overheid.nl > Officiële bekendmakingen")
	b.raw(`<meta name="DC.identifier" content="` + esc(p.ID) + `"/><meta name="DCTERMS.issued" content="` + p.Issued + `"/></head><body><div id="broodtekst" class="stuk">`)
	b.el("h1", c.heading)
	b.raw(`<p class="documentnummer">` + esc(p.ID) + `</p>`)
	for _, al := range c.intro {
		b.el("p", al)
	}
	for i, leden := range c.articles {
		b.el("h2", "Artikel "+strconv.Itoa(i+1))
		for j, l := range leden {
			if len(leden) > 1 {
				l = strconv.Itoa(j+1) + ". " + l
			}
			b.el("p", l)
		}
	}
	if len(c.notes) > 0 {
		b.el("h2", "Toelichting")
		for _, al := range c.notes {
			b.el("p", al)
		}
	}
	b.raw(`<p class="ondertekening">`)
	b.WriteString(esc(c.signFunc) + "<br/>" + esc(c.signFirst+" "+c.signLast))
	b.raw("</p></div></body></html>\n")
	return b.String()
}

// yearLabel is the jaargang, or the vergaderjaar of a Kamerstuk.
func (p *pub) yearLabel() string {
	if p.Vergader != "" {
		return p.Vergader
	}
	return strconv.Itoa(p.Year)
}

// opMetadata renders metadata.xml: the OP metadata record of a publication.
func opMetadata(p *pub) string {
	b := &xb{}
	b.raw("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<metadata_gegevens>")
	m := func(name, scheme, content string) {
		b.raw(`<metadata name="` + name + `" scheme="` + esc(scheme) + `" content="` + esc(content) + `" />`)
	}
	m("DC.identifier", "", p.ID)
	m("DC.title", "", p.Title)
	m("DC.type", p.TypeScheme, p.Type)
	m("DC.creator", p.Scheme, p.Creator)
	m("OVERHEID.authority", p.Scheme, p.Creator)
	m("DC.language", "XSD.language", "nl")
	m("DC.publisher", p.Scheme, p.Creator)
	m("DC.subject", subjectScheme(p), p.Subject)
	m("DCTERMS.available", "", p.Issued)
	m("DCTERMS.issued", "", p.Issued)
	m("DCTERMS.modified", "", p.Modified)
	m("DC.date", "", p.Date)
	m("OVERHEIDop.publicationName", "", p.Kind.name)
	m("OVERHEIDop.jaargang", "", strconv.Itoa(p.Year))
	if p.Kind.code == "kst" {
		m("OVERHEIDop.dossiernummer", "", p.Dossier)
		m("OVERHEIDop.ondernummer", "", p.Number)
		m("OVERHEIDop.vergaderjaar", "", p.Vergader)
	} else {
		m("OVERHEIDop.publicatienummer", "", p.Number)
	}
	m("OVERHEIDop.documentStatus", "", p.Status)
	m("OVERHEIDop.datumOndertekening", "", p.Date)
	b.raw("</metadata_gegevens>\n")
	return b.String()
}

// owmsMetadata renders metadata_owms.xml.
func owmsMetadata(p *pub) string {
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	b.raw(`<owms-metadata xmlns:dcterms="` + nsDCTerms + `" xmlns:overheid="` + nsOverheid + `" xmlns:overheidop="http://standaarden.overheid.nl/op/terms/">`)
	b.raw("<owmskern>")
	b.el("dcterms:identifier", p.ID)
	b.el("dcterms:title", p.Title)
	b.el("dcterms:language", "nl")
	b.elA("dcterms:type", p.Type, "scheme", p.TypeScheme)
	b.elA("dcterms:creator", p.Creator, "scheme", p.Scheme)
	b.el("dcterms:modified", p.Modified)
	b.elA("overheid:authority", p.Creator, "scheme", p.Scheme)
	b.raw("</owmskern><owmsmantel>")
	b.el("dcterms:available", p.Issued)
	b.el("dcterms:issued", p.Issued)
	b.el("dcterms:date", p.Date)
	b.elA("dcterms:subject", p.Subject, "scheme", subjectScheme(p))
	b.elA("dcterms:publisher", p.Creator, "scheme", p.Scheme)
	b.raw("</owmsmantel><opmeta>")
	b.el("overheidop:publicationName", p.Kind.name)
	b.el("overheidop:publicationIssue", strconv.Itoa(p.Year))
	b.raw("</opmeta></owms-metadata>\n")
	return b.String()
}

// pdf renders a small valid PDF (one or more pages of Helvetica text) with
// the publication's heading and opening text.
func (h *handler) pdf(p *pub) []byte {
	c := h.content(p)
	var lines []string
	lines = append(lines, wrap(p.Kind.name+" "+p.yearLabel()+", "+p.Number, 90)...)
	lines = append(lines, "")
	lines = append(lines, wrap(c.heading, 90)...)
	lines = append(lines, "")
	for _, al := range append(append([]string{}, c.intro...), c.notes...) {
		lines = append(lines, wrap(al, 95)...)
		lines = append(lines, "")
	}
	return corpus.PDF(lines, p.ID, 0)
}

// odt renders a minimal OpenDocument text (a zip with mimetype, manifest
// and content.xml) holding the heading and paragraphs.
func (h *handler) odt(p *pub) []byte {
	c := h.content(p)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	// The mimetype entry comes first and is stored uncompressed.
	if w, err := z.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store}); err == nil {
		_, _ = w.Write([]byte("application/vnd.oasis.opendocument.text"))
	}
	if w, err := z.Create("META-INF/manifest.xml"); err == nil {
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>
`))
	}
	if w, err := z.Create("content.xml"); err == nil {
		b := &xb{}
		b.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
		b.raw(`<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>`)
		b.elA("text:h", c.heading, "text:outline-level", "1")
		for _, al := range append(append([]string{}, c.intro...), c.notes...) {
			b.el("text:p", al)
		}
		b.raw("</office:text></office:body></office:document-content>\n")
		_, _ = w.Write([]byte(b.String()))
	}
	_ = z.Close()
	return buf.Bytes()
}

func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
