package emulator

import (
	"net/http"
	"strings"

	"github.com/besluitbron/besluitbron/emulators/koopsru"
)

// Namespaces of a BWB search record, as public clients of the BWB
// connection parse them (docs/emulators.md).
const (
	nsDCTerms     = "http://purl.org/dc/terms/"
	nsOverheidBWB = "http://standaarden.overheid.nl/bwb/terms/"
)

// indexes are the CQL indexes the emulator serves: those public clients
// of the BWB connection query (titles, type, identifier, the date in
// force; cql.allRecords to list everything).
var indexes = koopsru.Indexes{
	"overheidbwb.titel":            {"all", "any", "=", "=="},
	"dcterms.title":                {"all", "any", "=", "=="},
	"dcterms.type":                 {"==", "="},
	"dcterms.identifier":           {"==", "="},
	"overheidbwb.geldigheidsdatum": {"==", "="},
	"dcterms.modified":             {"==", "=", "<", ">", "<=", ">="},
	"cql.allrecords":               {"="},
}

// search answers a searchRetrieve: one record per version that matches
// (as the real service lists each toestand), by identifier, then date.
func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	req, d := koopsru.ReadRequest(r.URL.Query(), DefaultMaximumRecords, MaxMaximumRecords)
	var clauses []koopsru.Clause
	if d == nil {
		clauses, d = koopsru.Parse(req.Query, indexes)
	}
	for _, c := range clauses {
		if d == nil && (c.Index == "overheidbwb.geldigheidsdatum" || c.Index == "dcterms.modified") && !koopsru.IsDate(c.Term) {
			d = koopsru.Diagf(36, c.Term)
		}
	}
	decls := ` xmlns:dcterms="` + nsDCTerms + `" xmlns:overheidbwb="` + nsOverheidBWB + `"`
	if d != nil {
		koopsru.WriteXML(w, r, koopsru.Response(req.Version, 0, nil, 0, decls, d))
		return
	}
	type hit struct {
		reg *regulation
		v   *version
	}
	var hits []hit
	for _, id := range h.ids {
		reg := h.regs[id]
		for _, v := range reg.versions {
			if matches(reg, v, clauses) {
				hits = append(hits, hit{reg, v})
			}
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
	for _, x := range hits[from:to] {
		recs = append(recs, record(x.reg, x.v, base))
	}
	koopsru.WriteXML(w, r, koopsru.Response(req.Version, len(hits), recs, req.Start, decls, nil))
}

func matches(reg *regulation, v *version, clauses []koopsru.Clause) bool {
	for _, c := range clauses {
		ok := false
		switch c.Index {
		case "overheidbwb.titel", "dcterms.title":
			ok = c.MatchText(reg.title)
		case "dcterms.type":
			ok = strings.EqualFold(reg.kind, strings.TrimSpace(c.Term))
		case "dcterms.identifier":
			ok = strings.EqualFold(reg.id, strings.TrimSpace(c.Term))
		case "overheidbwb.geldigheidsdatum":
			ok = v.from <= c.Term && c.Term <= v.until
		case "dcterms.modified":
			ok = koopsru.MatchDate(v.modified, c.Rel, c.Term)
		case "cql.allrecords":
			ok = c.Term == "1"
		}
		if !ok {
			return false
		}
	}
	return true
}

// record is one version's search record: the regulation's identifier,
// title and kind, the version's period in force and the address of its
// XML (locatie_toestand), each under the name public clients read. The
// ministry (overheid:authority) and the legal areas are left out: the
// toestanden do not name them.
func record(reg *regulation, v *version, base string) string {
	b := &koopsru.XB{}
	b.Raw("<gzd:gzd><gzd:originalData><overheidbwb:meta><owmskern>")
	b.El("dcterms:identifier", reg.id)
	b.El("dcterms:title", reg.title)
	b.El("dcterms:type", reg.kind)
	b.El("dcterms:modified", v.modified)
	b.Raw("</owmskern><bwbipm>")
	b.El("overheidbwb:geldigheidsperiode_startdatum", v.from)
	b.El("overheidbwb:geldigheidsperiode_einddatum", v.until)
	b.Raw("</bwbipm></overheidbwb:meta></gzd:originalData><gzd:enrichedData>")
	b.El("overheidbwb:locatie_toestand", base+"/bwb/"+reg.id+"/"+v.label+"/xml/"+v.item)
	b.Raw("</gzd:enrichedData></gzd:gzd>")
	return b.String()
}
