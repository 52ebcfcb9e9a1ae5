package emulator

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
	adapter "github.com/besluitbron/besluitbron/platforms/rechtspraak"
)

const rdfNamespaces = `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ecli="https://e-justice.europa.eu/ecli" ` +
	`xmlns:tr="http://tuchtrecht.overheid.nl/" xmlns:eu="http://publications.europa.eu/celex/" xmlns:dcterms="http://purl.org/dc/terms/" ` +
	`xmlns:bwb="bwb-dl" xmlns:cvdr="http://decentrale.regelgeving.overheid.nl/cvdr/" xmlns:psi="http://psi.rechtspraak.nl/" ` +
	`xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"`

const nsRechtspraak = "http://www.rechtspraak.nl/schema/rechtspraak-1.0"

func (h *handler) serveContent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := strings.TrimSpace(q.Get("id"))
	if id == "" {
		badRequest(w, "parameter id ontbreekt (een ECLI, bijvoorbeeld ECLI:NL:HR:2014:952)")
		return
	}
	meta := false
	switch ret := strings.ToUpper(q.Get("return")); ret {
	case "", "DOC":
	case "META":
		meta = true
	default:
		badRequest(w, fmt.Sprintf("ongeldige waarde voor return: %q (DOC of META)", q.Get("return")))
		return
	}
	// The ECLI syntax, ECLI:<country>:<court>:<year>:<number>, is the
	// adapter's: one pattern in the project.
	ecli, err := adapter.ValidECLI(id)
	if err != nil {
		badRequest(w, fmt.Sprintf("ongeldige ECLI: %q", id))
		return
	}
	ru := h.index().find(ecli)
	now := h.cfg.Clock.Now().Unix()
	if ru == nil || !ru.visible(now) {
		http.Error(w, "ECLI niet gevonden: "+ecli, http.StatusNotFound)
		return
	}
	deleted, doc := ru.state(now)
	if deleted == 'e' {
		http.Error(w, "ECLI niet gevonden: "+ecli, http.StatusNotFound)
		return
	}
	writeXML(w, r, http.StatusOK, h.document(ru, meta || !doc, doc))
}

var bwbRefs = []struct{ id, name string }{
	{"BWBR0002320", "Algemene wet inzake rijksbelastingen"},
	{"BWBR0001833", "Wet algemene bepalingen"},
	{"BWBR0005537", "Algemene wet bestuursrecht"},
	{"BWBR0005290", "Burgerlijk Wetboek Boek 6"},
	{"BWBR0005291", "Burgerlijk Wetboek Boek 7"},
	{"BWBR0001854", "Wetboek van Strafrecht"},
	{"BWBR0001903", "Wetboek van Strafvordering"},
	{"BWBR0001827", "Wetboek van Burgerlijke Rechtsvordering"},
	{"BWBR0011823", "Vreemdelingenwet 2000"},
	{"BWBR0015703", "Participatiewet"},
	{"BWBR0024779", "Wet algemene bepalingen omgevingsrecht"},
	{"BWBR0002629", "Wet op de inkomstenbelasting 1964"},
}

var procedures = map[string][][2]string{
	"rb":   {{"bodemzaak", "Bodemzaak"}, {"eersteAanlegEnkelvoudig", "Eerste aanleg - enkelvoudig"}, {"eersteAanlegMeervoudig", "Eerste aanleg - meervoudig"}, {"kortGeding", "Kort geding"}, {"voorlopigeVoorziening", "Voorlopige voorziening"}},
	"hof":  {{"hogerBeroep", "Hoger beroep"}, {"bodemzaak", "Bodemzaak"}},
	"hr":   {{"cassatie", "Cassatie"}},
	"phr":  {{"cassatie", "Cassatie"}},
	"rvs":  {{"hogerBeroep", "Hoger beroep"}, {"eersteAanlegMeervoudig", "Eerste aanleg - meervoudig"}, {"voorlopigeVoorziening", "Voorlopige voorziening"}},
	"crvb": {{"hogerBeroep", "Hoger beroep"}},
	"cbb":  {{"eersteAanlegMeervoudig", "Eerste aanleg - meervoudig"}, {"hogerBeroep", "Hoger beroep"}},
}

// document renders the open-rechtspraak document of a ruling; meta leaves
// out the text (return=META, or an ECLI without a published document).
// Identifier, court, date, case number and inhoudsindicatie are those of
// the ruling's feed entry.
func (h *handler) document(r *ruling, meta, docPublished bool) string {
	ix := h.index()
	ru := ix.decision(r)
	rnd := corpus.Rand(h.cfg.Seed, "rs-doc", ru.ECLI)
	c := ru.instance()
	mod, _ := amsterdam(unixTime(ru.modifiedAt(h.cfg.Clock.Now().Unix())))
	leaf := leaves[ru.subject]
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="utf-8"?>` + "\n<open-rechtspraak>\n  <rdf:RDF " + rdfNamespaces + ">\n    <rdf:Description>")
	b.el("dcterms:identifier", ru.ECLI)
	b.el("dcterms:format", "text/xml")
	b.el("dcterms:accessRights", "public")
	b.el("dcterms:modified", mod.Format("2006-01-02T15:04:05"))
	b.elA("dcterms:issued", ru.Issued.Format(time.DateOnly), "rdfs:label", "Publicatiedatum")
	b.elA("dcterms:publisher", "Raad voor de Rechtspraak", "resourceIdentifier", "http://rechtspraak.nl/")
	b.el("dcterms:language", "nl")
	if ru.LJN != "" {
		b.elA("dcterms:replaces", ru.LJN, "rdfs:label", "LJN")
	}
	b.elA("dcterms:creator", c.Naam, "rdfs:label", "Instantie", "resourceIdentifier", c.ID, "scheme", "overheid.RechterlijkeMacht")
	b.elA("dcterms:date", ru.Date.Format(time.DateOnly), "rdfs:label", ru.typeName()+"datum")
	b.elA("psi:zaaknummer", ru.CaseNo, "rdfs:label", "Zaaknr")
	b.elA("dcterms:type", ru.typeName(), "rdf:language", "nl", "resourceIdentifier", psi+strings.ToLower(ru.typeName()))
	procs := procedures[c.kind]
	for i, n := 0, 1+rnd.IntN(2); i < n; i++ {
		p := procs[(rnd.IntN(len(procs))+i)%len(procs)]
		b.elA("psi:procedure", p[1], "rdf:language", "nl", "rdfs:label", "Procedure", "resourceIdentifier", psi+"procedure#"+p[0])
	}
	b.el("dcterms:coverage", "NL")
	b.elA("dcterms:spatial", c.Seat, "rdfs:label", "Zittingsplaats")
	for _, si := range []int8{ru.subject, ru.subject2} {
		if si >= 0 {
			l := leaves[si]
			b.elA("dcterms:subject", l.ParentNaam+"; "+l.Naam, "rdfs:label", "Rechtsgebied", "resourceIdentifier", l.ID)
		}
	}
	if rel := h.relation(rnd, ru.ruling); rel != "" {
		b.raw(rel)
	}
	if docPublished {
		for i, n := 0, 1+rnd.IntN(3); i < n; i++ {
			ref := bwbRefs[rnd.IntN(len(bwbRefs))]
			art := fmt.Sprintf("%d%s", 1+rnd.IntN(400), []string{"", "", "a", "b", "f"}[rnd.IntN(5)])
			b.elA("dcterms:references", ref.name+" "+art, "rdfs:label", "Wetsverwijzing",
				"bwb:resourceIdentifier", "1.0:v:BWB:"+ref.id+"&artikel="+art+"&g="+ru.Date.Format(time.DateOnly))
		}
		if leaf.Parent == psi+"rechtsgebied#bestuursrecht" {
			b.elA("dcterms:references", "Beleidsregel Besluit proceskosten bestuursrecht 3", "rdfs:label", "Wetsverwijzing",
				"cvdr:resourceIdentifier", fmt.Sprintf("CVDR:%d_1", 100000+rnd.IntN(600000)))
		}
	}
	b.raw(`<dcterms:hasVersion rdfs:label="Vindplaatsen" resourceIdentifier="http://psi.rechtspraak.nl/vindplaats"><rdf:list><rdf:li>Rechtspraak.nl</rdf:li>`)
	if rnd.IntN(3) == 0 {
		b.el("rdf:li", []string{"NJB 20", "JB 20", "AB 20", "NJ 20", "V-N 20"}[rnd.IntN(5)]+fmt.Sprintf("%02d/%d", ru.Date.Year()%100, 1+rnd.IntN(900)))
	}
	b.raw("</rdf:list></dcterms:hasVersion>\n    </rdf:Description>\n")
	deeplink := "http://deeplink.rechtspraak.nl/uitspraak?id=" + ru.ECLI
	b.raw(`    <rdf:Description rdf:about="` + esc(deeplink) + `">`)
	b.el("dcterms:identifier", deeplink)
	b.el("dcterms:format", "text/html")
	b.el("dcterms:accessRights", "public")
	b.el("dcterms:modified", mod.Add(-45*time.Second).Format("2006-01-02T15:04:05"))
	b.elA("dcterms:issued", ru.Issued.Format(time.DateOnly), "rdfs:label", "Publicatiedatum")
	b.elA("dcterms:publisher", "Raad voor de Rechtspraak", "resourceIdentifier", "http://rechtspraak.nl/")
	b.el("dcterms:language", "nl")
	b.elA("dcterms:title", ru.ECLI+" "+c.Naam+" , "+ru.Date.Format("02-01-2006")+" / "+ru.CaseNo, "rdf:language", "nl")
	sum := ru.Summary
	if sum != "" {
		b.raw(`<dcterms:abstract resourceIdentifier="../../rs:inhoudsindicatie" />`)
	}
	b.raw("\n    </rdf:Description>\n  </rdf:RDF>\n")
	if meta {
		b.raw("</open-rechtspraak>\n")
		return b.String()
	}
	if sum != "" {
		b.raw(`  <inhoudsindicatie id="` + esc(ru.ECLI) + `:INH" lang="nl" xml:space="preserve" xmlns="` + nsRechtspraak + `" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`)
		b.el("para", sum)
		b.raw("</inhoudsindicatie>\n")
	}
	root := "uitspraak"
	if ru.kind == 'C' {
		root = "conclusie"
	}
	b.raw(`  <` + root + ` id="` + esc(ru.ECLI) + `:DOC" lang="nl" xml:space="preserve" xmlns="` + nsRechtspraak + `" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xlink="http://www.w3.org/1999/xlink">`)
	writeBody(b, rnd, ru)
	b.raw("</" + root + ">\n</open-rechtspraak>\n")
	return b.String()
}

// relation links a higher court's ruling to an earlier one (formele
// relatie), as the real metadata does.
func (h *handler) relation(rnd *rand.Rand, ru *ruling) string {
	c := ru.instance()
	var lower string
	switch c.kind {
	case "hof":
		lower = "rb"
	case "hr":
		lower = "hof"
	default:
		return ""
	}
	if rnd.IntN(2) == 0 {
		return ""
	}
	// Pick an earlier ruling of a lower court deterministically.
	all := h.index().rulings
	for tries := 0; tries < 40; tries++ {
		o := &all[rnd.IntN(len(all))]
		if o.instance().kind == lower && o.date < ru.date && o.deleted == 0 {
			lowerECLI := o.ecli()
			aanleg, typ := "eersteAanleg", "hogerBeroep"
			if c.kind == "hr" {
				aanleg, typ = "hogerBeroep", "cassatie"
			}
			gevolg := gevolgen[rnd.IntN(len(gevolgen))]
			b := &xb{}
			b.elA("dcterms:relation", fmt.Sprintf("In %s: %s, %s", map[string]string{"eersteAanleg": "eerste aanleg", "hogerBeroep": "hoger beroep"}[aanleg], lowerECLI, gevolg),
				"rdfs:label", "Formele relatie", "psi:type", psi+typ, "psi:aanleg", psi+aanleg,
				"psi:gevolg", psi+"gevolg#"+strings.ReplaceAll(strings.ToLower(gevolg), " ", ""), "resourceIdentifier", lowerECLI)
			return b.String()
		}
	}
	return ""
}

var parties = []string{"[eiser]", "[eiseres]", "[appellant]", "[verdachte]", "[gedaagde]", "[belanghebbende]", "[verzoeker]"}

var verdicts = map[string][]string{
	"uitspraak": {"De rechtbank verklaart het beroep ongegrond.", "De rechtbank verklaart het beroep gegrond en vernietigt het bestreden besluit.",
		"Het hof bekrachtigt het vonnis waarvan beroep.", "De Hoge Raad verwerpt het beroep.", "De rechtbank wijst de vorderingen af.",
		"De rechtbank veroordeelt gedaagde tot betaling van de proceskosten."},
	"conclusie": {"De conclusie strekt tot verwerping van het beroep.", "De conclusie strekt tot vernietiging van het bestreden arrest en tot verwijzing."},
}

func para(b *xb, text string) { b.el("para", text) }

func parablock(b *xb, text string) {
	b.raw("<parablock>")
	para(b, text)
	b.raw("</parablock>")
}

// writeBody writes the DocBook-like text of a ruling: header blocks, then
// sections with numbered paragraph groups; tens of KB.
// The ruling's theme written out (facts) opens De feiten, so the text is
// about what the summary says.
func writeBody(b *xb, rnd *rand.Rand, ru decision) {
	c := ru.instance()
	b.raw(`<para><emphasis role="bold caps">` + esc(strings.ToUpper(c.Naam)) + `</emphasis></para>`)
	leaf := leaves[ru.subject]
	parablock(b, "Team "+strings.ToLower(leaf.Naam))
	parablock(b, "zaaknummer: "+ru.CaseNo)
	kind := map[byte]string{'U': "uitspraak", 'C': "conclusie"}[ru.kind]
	b.raw(`<parablock><para><emphasis role="bold">` + esc(kind+" van "+corpus.DutchDate(ru.Date)+" in de zaak tussen") + `</emphasis></para></parablock>`)
	p1 := parties[rnd.IntN(len(parties))]
	b.raw(`<parablock><para><emphasis role="bold">` + esc(p1) + `</emphasis>, wonende te [woonplaats], eiser<?linebreak?>(gemachtigde: ` + esc(corpus.PersonName(rnd)) + `),</para></parablock>`)
	parablock(b, "en")
	b.raw(`<parablock><para><emphasis role="bold">` + esc([]string{"het college van burgemeester en wethouders", "de inspecteur van de Belastingdienst", "de Staat der Nederlanden", "de officier van justitie", "de minister van Asiel en Migratie"}[rnd.IntN(5)]) + `</emphasis>, verweerder.</para></parablock>`)
	sections := []struct{ role, title string }{
		{"procesverloop", "Procesverloop"}, {"feiten", "De feiten"}, {"overwegingen", "Overwegingen"},
	}
	nr := 1
	for _, s := range sections {
		b.raw(`<section role="` + s.role + `">`)
		b.el("title", s.title)
		n := 2 + rnd.IntN(5)
		if s.role == "overwegingen" {
			n = 8 + rnd.IntN(20)
		}
		for i := 0; i < n; i++ {
			if s.role == "procesverloop" {
				parablock(b, corpus.Sentence(rnd)+" "+corpus.Sentence(rnd))
				continue
			}
			text := strings.Join(strings.Split(corpus.Paragraphs(rnd, 1), "\n\n"), " ")
			if s.role == "feiten" && i == 0 {
				text = ru.facts() + " " + text
			}
			b.raw("<paragroup>")
			b.el("nr", fmt.Sprintf("%d.", nr))
			nr++
			para(b, text)
			b.raw("</paragroup>")
		}
		b.raw("</section>")
	}
	b.raw(`<section role="beslissing">`)
	b.el("title", "Beslissing")
	b.raw("<para />")
	vs := verdicts[kind]
	parablock(b, vs[rnd.IntN(len(vs))])
	b.raw("<para />")
	b.raw("</section>")
	if ru.kind == 'U' && c.kind != "hr" {
		b.raw("<section>")
		b.el("title", "Rechtsmiddel")
		parablock(b, "Tegen deze uitspraak kunnen partijen binnen zes weken na de dag van verzending hoger beroep instellen.")
		parablock(b, "Bij het instellen van hoger beroep dient het volgende in acht te worden genomen:")
		b.raw("<paragroup>")
		b.el("nr", "1.")
		para(b, "bij het beroepschrift wordt een afschrift van deze uitspraak overgelegd.")
		b.raw("</paragroup></section>")
	}
}
