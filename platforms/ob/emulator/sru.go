package emulator

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Namespaces of the live service's answers.
const (
	nsSRU20      = "http://docs.oasis-open.org/ns/search-ws/sruResponse"
	nsDiag20     = "http://docs.oasis-open.org/ns/search-ws/diagnostic"
	nsSRU12      = "http://www.loc.gov/zing/srw/"
	nsDiag12     = "http://www.loc.gov/zing/srw/diagnostic/"
	nsGZD        = "http://standaarden.overheid.nl/sru"
	nsDCTerms    = "http://purl.org/dc/terms/"
	nsWetgeving  = "http://standaarden.overheid.nl/wetgeving/"
	nsOverheid   = "http://standaarden.overheid.nl/owms/terms/"
	nsCollectie  = "http://standaarden.overheid.nl/collectie/"
	nsXSI        = "http://www.w3.org/2001/XMLSchema-instance"
	nsZeerex     = "http://explain.z3950.org/dtd/2.0/"
	recordSchema = "http://standaarden.overheid.nl/sru/"
)

type sruVersion struct {
	v, ns, diag string
}

var (
	v20 = sruVersion{"2.0", nsSRU20, nsDiag20}
	v12 = sruVersion{"1.2", nsSRU12, nsDiag12}
)

func (h *handler) serveSRU(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ver := v20
	var d *diag
	switch v := q.Get("version"); v {
	case "", "2.0":
	case "1.2":
		ver = v12
	default:
		d = diagf(5, "2.0")
	}
	op := q.Get("operation")
	if op == "" {
		// SRU 2.0 dropped the parameter: a query means searchRetrieve.
		op = "explain"
		if q.Has("query") {
			op = "searchRetrieve"
		}
	}
	if d == nil && op != "searchRetrieve" && op != "explain" {
		d = diagf(4, op)
	}
	if d != nil {
		writeXML(w, r, searchResponse(ver, 0, nil, 0, 0, base(r), d))
		return
	}
	if op == "explain" {
		writeXML(w, r, explainResponse(ver, r.Host, h.cfg.DefaultRecords, h.cfg.MaxRecords))
		return
	}
	writeXML(w, r, h.search(ver, q.Get("query"), q.Get("startRecord"), q.Get("maximumRecords"), q.Get("recordSchema"), q.Has("query"), base(r)))
}

func (h *handler) search(ver sruVersion, cql, startS, maxS, schema string, hasQuery bool, link string) string {
	if !hasQuery {
		return searchResponse(ver, 0, nil, 0, 0, link, diagf(7, "query"))
	}
	start, max := 1, h.cfg.DefaultRecords
	if startS != "" {
		n, err := strconv.Atoi(startS)
		if err != nil || n < 1 {
			return searchResponse(ver, 0, nil, 0, 0, link, diagf(6, "startRecord"))
		}
		start = n
	}
	if maxS != "" {
		n, err := strconv.Atoi(maxS)
		if err != nil || n < 0 {
			return searchResponse(ver, 0, nil, 0, 0, link, diagf(6, "maximumRecords"))
		}
		max = min(n, h.cfg.MaxRecords)
	}
	switch schema {
	case "", "gzd", recordSchema, strings.TrimSuffix(recordSchema, "/"):
	default:
		return searchResponse(ver, 0, nil, 0, 0, link, diagf(66, schema))
	}
	pq, d := parseCQL(cql)
	if d != nil {
		return searchResponse(ver, 0, nil, 0, 0, link, d)
	}
	match := compile(pq.root)
	var hits []*pub
	for _, p := range h.catalog().candidates(pq.root, h.visible()) {
		if match(p) {
			hits = append(hits, p)
		}
	}
	if len(pq.sort) > 0 {
		sort.SliceStable(hits, func(a, b int) bool {
			for _, k := range pq.sort {
				def := indexes[k.index]
				c := cmp(strings.ToLower(def.get(hits[a])), strings.ToLower(def.get(hits[b])), def.num)
				if c == 0 {
					continue
				}
				return (c < 0) != k.desc
			}
			return false
		})
	}
	total := len(hits)
	if total > 0 && start > total {
		return searchResponse(ver, total, nil, 0, 0, link, diagf(61, strconv.Itoa(start)))
	}
	page := hits[min(start-1, total):min(start-1+max, total)]
	next := 0
	if start-1+len(page) < total && max > 0 {
		next = start + len(page)
	}
	return searchResponse(ver, total, page, start, next, link, nil)
}

// searchResponse renders a searchRetrieveResponse: page holds the records
// from position start; next is nextRecordPosition (0: none). A non-nil d
// adds a diagnostic (and no records).
func searchResponse(ver sruVersion, total int, page []*pub, start, next int, link string, d *diag) string {
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.raw(`<sru:searchRetrieveResponse xmlns:sru="` + ver.ns + `" xmlns:gzd="` + nsGZD + `" xmlns:dcterms="` + nsDCTerms +
		`" xmlns:overheidwetgeving="` + nsWetgeving + `" xmlns:overheid="` + nsOverheid + `" xmlns:c="` + nsCollectie +
		`" xmlns:xsi="` + nsXSI + `">`)
	b.el("sru:version", ver.v)
	b.el("sru:numberOfRecords", strconv.Itoa(total))
	if len(page) > 0 {
		b.raw("<sru:records>")
		for i, p := range page {
			writeRecord(b, p, start+i, link)
		}
		b.raw("</sru:records>")
	}
	if next > 0 {
		b.el("sru:nextRecordPosition", strconv.Itoa(next))
	}
	if d != nil {
		writeDiagnostics(b, ver, d)
	}
	b.raw("</sru:searchRetrieveResponse>\n")
	return b.String()
}

func writeDiagnostics(b *xb, ver sruVersion, d *diag) {
	b.raw(`<sru:diagnostics><diag:diagnostic xmlns:diag="` + ver.diag + `">`)
	b.el("diag:uri", "info:srw/diagnostic/1/"+strconv.Itoa(d.Code))
	if d.Details != "" {
		b.el("diag:details", d.Details)
	}
	b.el("diag:message", d.Message)
	b.raw("</diag:diagnostic></sru:diagnostics>")
}

// writeRecord renders one gzd record, prefixes as on the live service.
func writeRecord(b *xb, p *pub, pos int, link string) {
	b.raw("<sru:record>")
	b.el("sru:recordSchema", recordSchema)
	b.el("sru:recordPacking", "xml")
	b.raw(`<sru:recordData><gzd:gzd xsi:schemaLocation="http://standaarden.overheid.nl/sru http://standaarden.overheid.nl/sru/gzd.xsd"><gzd:originalData><overheidwetgeving:meta>`)

	b.raw("<overheidwetgeving:owmskern>")
	b.el("dcterms:identifier", p.ID)
	b.el("dcterms:title", p.Title)
	b.el("dcterms:language", "nl")
	b.elA("dcterms:type", p.Type, "scheme", p.TypeScheme)
	b.elA("dcterms:creator", p.Creator, "scheme", p.Scheme)
	b.el("dcterms:modified", p.Modified)
	b.elA("overheid:authority", p.Creator, "scheme", p.Scheme)
	b.raw("</overheidwetgeving:owmskern>")

	b.raw("<overheidwetgeving:owmsmantel>")
	b.el("dcterms:available", p.Issued)
	b.el("dcterms:date", p.Date)
	b.el("dcterms:issued", p.Issued)
	b.elA("dcterms:hasVersion", "1", "resourceIdentifier", preferredURL(p))
	b.elA("dcterms:subject", p.Subject, "scheme", subjectScheme(p))
	b.el("dcterms:abstract", p.Abstract)
	b.elA("dcterms:publisher", p.Creator, "scheme", p.Scheme)
	b.raw("</overheidwetgeving:owmsmantel>")

	b.raw("<overheidwetgeving:tpmeta>")
	b.el("c:product-area", "officielepublicaties")
	b.el("c:content-area", p.contentArea())
	if p.Activity[0] != "" {
		b.elA("overheidwetgeving:activiteit", p.Activity[0], "scheme", "OVERHEIDop.ActiviteitOmgevingsvergunning")
	}
	b.el("overheidwetgeving:jaargang", strconv.Itoa(p.Year))
	b.elA("overheidwetgeving:organisatietype", p.OrgType, "scheme", "OVERHEID.Organisatietype")
	if p.Kind.code == "kst" {
		b.el("overheidwetgeving:dossiernummer", p.Dossier)
		b.el("overheidwetgeving:ondernummer", p.Number)
		b.el("overheidwetgeving:vergaderjaar", p.Vergader)
		b.el("overheidwetgeving:behandeldDossier", p.Dossier)
	} else {
		b.el("overheidwetgeving:publicatienummer", p.Number)
		if p.Behandeld != "" {
			b.el("overheidwetgeving:behandeldDossier", p.Behandeld) // timeline.go
		}
	}
	b.el("overheidwetgeving:publicatienaam", p.Kind.name)
	b.el("overheidwetgeving:documentstatus", p.Status)
	b.el("overheidwetgeving:datumOndertekening", p.Date)
	for i := 0; i < p.Points; i++ {
		x, y, lat, lon := point(p, i)
		b.raw(`<overheidwetgeving:gebiedsmarkering scheme="OVERHEIDop.locatietype"><overheidwetgeving:Punt>`)
		b.el("overheidwetgeving:geometrie", "POINT("+x+" "+y+")")
		b.el("overheidwetgeving:locatiepunt", lat+" "+lon)
		b.el("overheidwetgeving:locatiegebied", lat+","+lon)
		b.el("overheidwetgeving:geometrielabel", "Gebiedsmarkering")
		b.el("overheidwetgeving:ligtInGemeente", p.Creator)
		b.raw(`</overheidwetgeving:Punt></overheidwetgeving:gebiedsmarkering>`)
	}
	stamp := p.Stamp
	b.el("overheidwetgeving:datumTijdstipWijzigingWork", stamp)
	b.el("overheidwetgeving:datumTijdstipWijzigingExpression", stamp)
	b.raw("</overheidwetgeving:tpmeta>")
	b.raw("</overheidwetgeving:meta></gzd:originalData>")

	b.raw("<gzd:enrichedData>")
	b.el("gzd:url", itemURL(link, p, "pdf"))
	b.el("gzd:preferredUrl", preferredURL(p))
	for _, m := range p.manifestations() {
		b.elA("gzd:itemUrl", itemURL(link, p, m), "manifestation", m)
	}
	b.el("gzd:timestamp", stamp)
	b.raw("</gzd:enrichedData>")
	b.raw("</gzd:gzd></sru:recordData>")
	b.el("sru:recordPosition", strconv.Itoa(pos))
	b.raw("</sru:record>")
}

func subjectScheme(p *pub) string {
	if p.Kind.decentral {
		return "OVERHEID.TaxonomieBeleidsagendaDecentraal"
	}
	return "OVERHEID.TaxonomieBeleidsagenda"
}

func preferredURL(p *pub) string {
	return "https://zoek.officielebekendmakingen.nl/" + p.ID + ".html"
}

// point returns a deterministic RD coordinate and its WGS84 approximation.
func point(p *pub, i int) (x, y, lat, lon string) {
	h := 0
	for _, c := range p.ID {
		h = h*31 + int(c)
	}
	h += i * 7919
	if h < 0 {
		h = -h
	}
	rx := 20000 + h%250000
	ry := 310000 + (h/250000)%300000
	// Rough inverse of the RD projection around Amersfoort (good to a few
	// hundred metres, enough for a plausible value).
	la := 52.15517 + float64(ry-463000)/111200
	lo := 5.38721 + float64(rx-155000)/68200
	return strconv.Itoa(rx), strconv.Itoa(ry), strconv.FormatFloat(la, 'f', 13, 64), strconv.FormatFloat(lo, 'f', 14, 64)
}

func explainResponse(ver sruVersion, host string, defRecords, maxRecords int) string {
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.raw(`<sru:explainResponse xmlns:sru="` + ver.ns + `">`)
	b.el("sru:version", ver.v)
	b.raw("<sru:record>")
	b.el("sru:recordSchema", nsZeerex)
	b.el("sru:recordPacking", "xml")
	b.raw(`<sru:recordData><zr:explain xmlns:zr="` + nsZeerex + `">`)
	b.raw(`<zr:serverInfo protocol="SRU" version="` + ver.v + `" transport="http">`)
	b.el("zr:host", host)
	b.el("zr:port", "80")
	b.el("zr:database", "sru")
	b.raw("</zr:serverInfo>")
	b.raw(`<zr:databaseInfo>`)
	b.elA("zr:title", "Zoekdienst officiële publicaties", "lang", "nl")
	b.elA("zr:description", "Officiële bekendmakingen: Staatsblad, Staatscourant, Kamerstukken, Tractatenblad, Gemeenteblad, Provinciaal blad en Waterschapsblad.", "lang", "nl")
	b.raw("</zr:databaseInfo>")
	b.raw("<zr:indexInfo>")
	for _, s := range [][2]string{{"c", "http://standaarden.overheid.nl/collectie/"}, {"dt", "http://purl.org/dc/terms/"}, {"w", "http://standaarden.overheid.nl/wetgeving/"}, {"cql", "info:srw/cql-context-set/1/cql-v1.2"}} {
		b.raw(`<zr:set name="` + s[0] + `" identifier="` + s[1] + `"/>`)
	}
	names := make([]string, 0, len(indexes))
	for n := range indexes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		set, name, _ := strings.Cut(n, ".")
		b.raw(`<zr:index search="true" sort="true"><zr:title lang="nl">` + esc(n) + `</zr:title><zr:map><zr:name set="` + set + `">` + esc(name) + `</zr:name></zr:map></zr:index>`)
	}
	b.raw("</zr:indexInfo>")
	b.raw(`<zr:schemaInfo><zr:schema identifier="` + recordSchema + `" name="gzd" sort="false" retrieve="true"><zr:title>Gemeenschappelijk Zoekdienst Formaat</zr:title></zr:schema></zr:schemaInfo>`)
	b.raw(`<zr:configInfo><zr:default type="numberOfRecords">` + strconv.Itoa(defRecords) + `</zr:default><zr:setting type="maximumRecords">` + strconv.Itoa(maxRecords) + `</zr:setting></zr:configInfo>`)
	b.raw("</zr:explain></sru:recordData></sru:record></sru:explainResponse>\n")
	return b.String()
}

func writeXML(w http.ResponseWriter, r *http.Request, body string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(body))
}

// xb is a small XML writer.
type xb struct{ strings.Builder }

func (b *xb) raw(s string) { b.WriteString(s) }

func (b *xb) el(name, text string) {
	b.WriteString("<" + name + ">")
	b.WriteString(esc(text))
	b.WriteString("</" + name + ">")
}

// elA writes an element with attribute pairs (name, value, ...).
func (b *xb) elA(name, text string, attrs ...string) {
	b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		b.WriteString(" " + attrs[i] + `="` + esc(attrs[i+1]) + `"`)
	}
	b.WriteString(">")
	b.WriteString(esc(text))
	b.WriteString("</" + name + ">")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func esc(s string) string { return escaper.Replace(s) }
