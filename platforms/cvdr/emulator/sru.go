package emulator

import (
	"net/http"
	"strings"

	"github.com/besluitbron/besluitbron/emulators/koopsru"
)

// Namespaces of a regulation's <meta> (declared on the regulation's
// root in the real files: testdata/fixtures/cvdr).
const (
	nsCVDR        = "http://standaarden.overheid.nl/cvdr/terms/"
	nsDCTerms     = "http://purl.org/dc/terms/"
	nsOverheid    = "http://standaarden.overheid.nl/owms/terms/"
	nsOverheidRG  = "http://standaarden.overheid.nl/cvdr/meta/"
	preferredBase = "https://lokaleregelgeving.overheid.nl/"
)

// indexes are the CQL indexes the emulator serves: those public clients
// of the cvdr connection query.
var indexes = koopsru.Indexes{
	"keyword":                           {"all", "any", "="},
	"dcterms.title":                     {"all", "any", "=", "=="},
	"dcterms.creator":                   {"all", "any", "=", "=="},
	"dcterms.identifier":                {"==", "="},
	"overheidrg.inwerkingtredingdatum":  {"==", "=", "<", ">", "<=", ">="},
	"overheidrg.uitwerkingtredingdatum": {"==", "=", "<", ">", "<=", ">="},
	"dcterms.modified":                  {"==", "=", "<", ">", "<=", ">="},
	"cql.allrecords":                    {"="},
}

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	req, d := koopsru.ReadRequest(r.URL.Query(), DefaultMaximumRecords, MaxMaximumRecords)
	var clauses []koopsru.Clause
	if d == nil {
		clauses, d = koopsru.Parse(req.Query, indexes)
	}
	for _, c := range clauses {
		if d == nil && (strings.HasSuffix(c.Index, "datum") || c.Index == "dcterms.modified") && !koopsru.IsDate(c.Term) {
			d = koopsru.Diagf(36, c.Term)
		}
	}
	decls := ` xmlns:dcterms="` + nsDCTerms + `" xmlns:overheid="` + nsOverheid + `" xmlns:overheidrg="` + nsOverheidRG + `"`
	if d != nil {
		koopsru.WriteXML(w, r, koopsru.Response(req.Version, 0, nil, 0, decls, d))
		return
	}
	var hits []*regulation
	for _, reg := range h.regs {
		if matches(reg, clauses) {
			hits = append(hits, reg)
		}
	}
	req.Max = min(req.Max, h.cfg.PageCap) // cut without a word (Config.PageCap)
	from, to, d := koopsru.Page(req, len(hits))
	if d != nil {
		koopsru.WriteXML(w, r, koopsru.Response(req.Version, 0, nil, 0, decls, d))
		return
	}
	base := "http://" + r.Host
	if r.TLS != nil {
		base = "https://" + r.Host
	}
	var recs []string
	for _, reg := range hits[from:to] {
		recs = append(recs, record(reg, base))
	}
	koopsru.WriteXML(w, r, koopsru.Response(req.Version, len(hits), recs, req.Start, decls, nil))
}

func matches(reg *regulation, clauses []koopsru.Clause) bool {
	for _, c := range clauses {
		ok := false
		switch c.Index {
		case "keyword":
			ok = c.MatchText(reg.words)
		case "dcterms.title":
			ok = c.MatchText(reg.title)
		case "dcterms.creator":
			ok = c.MatchText(reg.creator)
		case "dcterms.identifier":
			ok = strings.EqualFold(reg.id(), c.Term) || strings.EqualFold(reg.number+"_"+reg.version, c.Term)
		case "overheidrg.inwerkingtredingdatum":
			ok = koopsru.MatchDate(reg.from, c.Rel, c.Term)
		case "overheidrg.uitwerkingtredingdatum":
			ok = koopsru.MatchDate(reg.until, c.Rel, c.Term)
		case "dcterms.modified":
			ok = koopsru.MatchDate(reg.modified, c.Rel, c.Term)
		case "cql.allrecords":
			ok = c.Term == "1"
		}
		if !ok {
			return false
		}
	}
	return true
}

// record is one regulation's search record: its <meta> as in its XML
// (in the cvdr namespace), and the enrichedData public clients read:
// the organisation's type and the addresses of its files and page.
func record(reg *regulation, base string) string {
	meta := strings.Replace(reg.metaElement(), "<meta", `<meta xmlns="`+nsCVDR+`"`, 1)
	file := base + "/cvdr/CVDR" + reg.number + "/" + reg.version
	b := &koopsru.XB{}
	b.Raw("<gzd:gzd><gzd:originalData>" + meta + "</gzd:originalData><gzd:enrichedData>")
	b.El("gzd:organisatietype", reg.orgType)
	b.El("gzd:publicatieurl_xhtml", file+"/html/"+reg.id()+".html")
	b.El("gzd:publicatieurl_xml", file+"/xml/"+reg.id()+".xml")
	b.El("gzd:preferred_url", preferredBase+"CVDR"+reg.number+"/"+reg.version)
	b.Raw("</gzd:enrichedData></gzd:gzd>")
	return b.String()
}
