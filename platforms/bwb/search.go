package bwb

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
)

// MaxLimit caps maximumRecords; MaxOffset the records skipped (KOOP's SRU
// fails on deep pages, as Officiële Bekendmakingen' does: platforms/ob).
const (
	MaxLimit  = 50
	MaxOffset = 4900
)

// Types are the kinds of regulation (dcterms.type, a toestand's soort) a
// search may ask for: the values KOOP's BWB writes, as public clients of
// its SRU service list them.
var Types = []string{"wet", "rijkswet", "AMvB", "rijksAMvB", "KB", "rijksKB", "ministeriele-regeling",
	"ministeriele-regeling-archiefselectielijst", "zbo", "pbo", "beleidsregel", "circulaire", "reglement",
	"verdrag", "wet-BES", "AMvB-BES", "ministeriele-regeling-BES", "beleidsregel-BES"}

// SearchParams are the arguments of a search of the laws.
type SearchParams struct {
	Words     string // words in the title, all of them
	Type      string // one of Types, any case
	InForceOn string // YYYY-MM-DD: only what was in force that day
	Limit     int
	Offset    int
}

// SearchRequest checks p and builds the SRU searchRetrieve request on
// the BWB connection. The service indexes titles and metadata, not the
// texts: words are looked for in the title (overheidbwb.titel).
func SearchRequest(p SearchParams) (adapters.Request, error) {
	if err := koopsru.CheckPage(p.Limit, p.Offset, MaxLimit, MaxOffset); err != nil {
		return adapters.Request{}, err
	}
	date, err := adapters.ParseDate("in_force_on", p.InForceOn)
	if err != nil {
		return adapters.Request{}, err
	}
	var cql []string
	if t := koopsru.Term(p.Words); t != "" {
		cql = append(cql, "overheidbwb.titel all "+t)
	}
	if p.Type != "" {
		kind, ok := canonicalType(p.Type)
		if !ok {
			return adapters.Request{}, fmt.Errorf("type %q is unknown: use one of %s", adapters.Cut(p.Type, 40), strings.Join(Types, ", "))
		}
		cql = append(cql, "dcterms.type=="+kind)
	}
	if len(cql) == 0 {
		return adapters.Request{}, fmt.Errorf("give words from the title or a type: the laws are searched by title, and a list of every regulation is not useful")
	}
	if date != "" {
		cql = append(cql, "overheidbwb.geldigheidsdatum=="+date)
	}
	return adapters.Get(SearchPath, koopsru.SearchRetrieve("BWB", strings.Join(cql, " and "), p.Offset, p.Limit)), nil
}

func canonicalType(s string) (string, bool) {
	for _, t := range Types {
		if strings.EqualFold(t, strings.TrimSpace(s)) {
			return t, true
		}
	}
	return "", false
}

// record is one BWB search record: the regulation's identifier, title,
// kind and ministry, and the period the version it describes is in
// force.
type record struct {
	Meta struct {
		Kern struct {
			Identifier string `xml:"identifier"`
			Title      string `xml:"title"`
			Type       string `xml:"type"`
			Authority  string `xml:"authority"`
			Modified   string `xml:"modified"`
		} `xml:"owmskern"`
		IPM struct {
			Areas []string `xml:"rechtsgebied"`
			From  string   `xml:"geldigheidsperiode_startdatum"`
			Until string   `xml:"geldigheidsperiode_einddatum"`
		} `xml:"bwbipm"`
	} `xml:"recordData>gzd>originalData>meta"`
}

// ParseSearch parses an answer to SearchRequest: one hit per regulation
// (the first record of each identifier; the service lists a record per
// version when no date narrows it).
func ParseSearch(body []byte) (adapters.Page, error) {
	resp, err := koopsru.Parse[record](body)
	if err != nil {
		return adapters.Page{}, err
	}
	page := adapters.Page{Total: resp.Total, HasMore: resp.Next > 0, Hits: []adapters.Hit{}}
	seen := map[string]bool{}
	for _, r := range resp.Records {
		k := r.Meta.Kern
		id, err := ValidID(k.Identifier)
		if err != nil || seen[id] {
			page.TotalApprox = true
			continue
		}
		seen[id] = true
		h := adapters.Hit{ID: id, Type: strings.TrimSpace(k.Type), Title: adapters.Cut(adapters.Squash(k.Title), 500),
			Date: strings.TrimSpace(r.Meta.IPM.From), Source: adapters.Squash(k.Authority)}
		h.SetURL(PageURL(id, ""))
		h.Citation = Citation(h.Title, "", "", "")
		h.Snippet = snippet(r.Meta.IPM.From, r.Meta.IPM.Until, r.Meta.IPM.Areas)
		page.Hits = append(page.Hits, h)
	}
	return page, nil
}

// snippet says a version's period in force and its legal areas, as a
// hit's snippet.
func snippet(from, until string, areas []string) string {
	var snip []string
	if from = strings.TrimSpace(from); from != "" {
		s := "In force from " + from
		if until = strings.TrimSpace(until); until != "" && until != OpenEnd {
			s += " until " + until
		}
		snip = append(snip, s)
	}
	if len(areas) > 0 {
		snip = append(snip, "legal area: "+adapters.Squash(strings.Join(areas, ", ")))
	}
	return adapters.Cut(strings.Join(snip, "; "), adapters.SnippetLen)
}
