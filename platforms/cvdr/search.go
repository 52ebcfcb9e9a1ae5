package cvdr

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
)

// MaxLimit caps maximumRecords; MaxOffset the records skipped (KOOP's SRU
// fails on deep pages: platforms/ob).
const (
	MaxLimit  = 50
	MaxOffset = 4900
)

// SearchParams are the arguments of a search of the local regulations.
type SearchParams struct {
	Words        string // words anywhere in the regulation's metadata, all of them
	Organisation string // the municipality, province or water board, by name (Kampen)
	InForceOn    string // YYYY-MM-DD: only versions in force that day
	Limit        int
	Offset       int
}

// SearchRequest checks p and builds the SRU searchRetrieve request on the
// cvdr connection: words on the keyword index, the organisation on
// dcterms.creator (the name its records carry), versions come in force
// on or before InForceOn (ParseSearch drops those that ended before it).
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
		cql = append(cql, "keyword all "+t)
	}
	if t := koopsru.Term(p.Organisation); t != "" {
		cql = append(cql, "dcterms.creator="+t)
	}
	if len(cql) == 0 {
		return adapters.Request{}, fmt.Errorf("give words or an organisation (a municipality, province or water board): a list of every local regulation is not useful")
	}
	if date != "" {
		cql = append(cql, "overheidrg.inwerkingtredingDatum<="+date)
	}
	return adapters.Get(SearchPath, koopsru.SearchRetrieve("cvdr", strings.Join(cql, " and "), p.Offset, p.Limit)), nil
}

// record is one CVDR search record: the regulation's metadata, as in its
// XML, and the addresses KOOP adds.
type record struct {
	Meta     meta `xml:"recordData>gzd>originalData>meta"`
	Enriched struct {
		OrgType   string `xml:"organisatietype"`
		Preferred string `xml:"preferred_url"`
	} `xml:"recordData>gzd>enrichedData"`
}

// ParseSearch parses an answer to SearchRequest. With inForceOn set,
// versions that ended before that day are left out of the page (the
// query can only bound their start), and the total is then approximate.
func ParseSearch(body []byte, inForceOn string) (adapters.Page, error) {
	resp, err := koopsru.Parse[record](body)
	if err != nil {
		return adapters.Page{}, err
	}
	page := adapters.Page{Total: resp.Total, HasMore: resp.Next > 0, Hits: []adapters.Hit{}}
	for _, r := range resp.Records {
		if inForceOn != "" && !r.Meta.InForce(inForceOn) {
			page.TotalApprox = true
			continue
		}
		h, _, err := r.hit()
		if err != nil {
			page.TotalApprox = true
			continue
		}
		page.Hits = append(page.Hits, h)
	}
	return page, nil
}

// hit is the record as a hit, and its document (the metadata it was made
// of).
func (r record) hit() (adapters.Hit, adapters.Document, error) {
	d, err := r.Meta.document()
	if err != nil {
		return adapters.Hit{}, d, err
	}
	h := adapters.Hit{ID: d.ID, Type: d.Type, Title: d.Title, Date: d.Date, Source: d.Source, URL: d.URL, Citation: d.Citation}
	// The record's own page address replaces the one made from the
	// identifier only when it is one on lokaleregelgeving.overheid.nl
	// that CheckLink passes.
	if link, dropped := adapters.CheckLink(r.Enriched.Preferred); strings.HasPrefix(link, "https://lokaleregelgeving.overheid.nl/") {
		h.URL = link
	} else if dropped != "" {
		h.URLDropped = dropped
	}
	var snip []string
	if from := d.Meta["in_force_from"]; from != "" {
		s := "In force from " + from
		if until := d.Meta["in_force_until"]; until != "" {
			s += " until " + until
		}
		snip = append(snip, s)
	}
	for _, k := range []string{"concerns", "subject"} {
		if v := d.Meta[k]; v != "" {
			snip = append(snip, v)
		}
	}
	h.Snippet = adapters.Cut(strings.Join(snip, "; "), adapters.SnippetLen)
	return h, d, nil
}
