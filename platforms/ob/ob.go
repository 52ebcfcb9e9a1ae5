// Package ob builds SRU requests for Officiële Bekendmakingen (KOOP,
// repository.overheid.nl) and parses the gzd search records and the
// publications' XML manifestation.
package ob

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/upstream"
)

// SRUPath is the SRU endpoint relative to the platform's base URL, the
// host root https://repository.overheid.nl, and FRBRPrefix the path of the
// publications' files on that same host.
const (
	SRUPath    = "/sru"
	FRBRPrefix = "/frbr/"
)

// MaxLimit caps maximumRecords.
const MaxLimit = 100

// Publications are the publicatienaam values a search may filter on.
var Publications = []string{"Staatsblad", "Staatscourant", "Tractatenblad", "Kamerstuk", "Handelingen",
	"Aanhangsel van de Handelingen", "Kamervragen zonder antwoord", "Gemeenteblad", "Provinciaal blad",
	"Waterschapsblad", "Blad gemeenschappelijke regeling"}

// SearchParams are the arguments of a search.
type SearchParams struct {
	Query       string // words, matched anywhere (cql.textAndIndexes)
	Publication string // one of Publications
	Creator     string // issuing body, e.g. Bergeijk
	DateFrom    string
	DateTo      string
	Limit       int
	Offset      int
}

// SearchRequest checks p and builds the SRU searchRetrieve request.
func SearchRequest(p SearchParams) (adapters.Request, error) {
	if p.Limit < 1 || p.Limit > MaxLimit {
		return adapters.Request{}, fmt.Errorf("limit %d is out of range: use 1 to %d", p.Limit, MaxLimit)
	}
	if p.Offset < 0 || p.Offset > 4900 {
		return adapters.Request{}, fmt.Errorf("offset %d is out of range: use 0 to 4900 (the platform fails on deeper pages; narrow the dates instead)", p.Offset)
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	words := koopsru.Term(p.Query)
	if words == "" && p.Creator == "" && from == "" {
		return adapters.Request{}, fmt.Errorf("give a query, a creator or a date_from: an open search over all publications is not useful")
	}
	cql := []string{"c.product-area==officielepublicaties"}
	if words != "" {
		cql = append(cql, "cql.textAndIndexes="+words)
	}
	if p.Publication != "" {
		ok := false
		for _, pub := range Publications {
			if strings.EqualFold(pub, p.Publication) {
				p.Publication, ok = pub, true
			}
		}
		if !ok {
			return adapters.Request{}, fmt.Errorf("publication %q is unknown: use one of %s", p.Publication, strings.Join(Publications, ", "))
		}
		cql = append(cql, `w.publicatienaam="`+p.Publication+`"`)
	}
	if c := koopsru.Term(p.Creator); c != "" {
		cql = append(cql, "dt.creator="+c)
	}
	if from != "" {
		cql = append(cql, "dt.available>="+from)
	}
	if to != "" {
		cql = append(cql, "dt.available<="+to)
	}
	q := url.Values{
		"operation":      {"searchRetrieve"},
		"version":        {"2.0"},
		"recordSchema":   {"gzd"},
		"query":          {strings.Join(cql, " and ") + " sortBy dt.available/sort.descending"},
		"startRecord":    {strconv.Itoa(p.Offset + 1)},
		"maximumRecords": {strconv.Itoa(p.Limit)},
	}
	return adapters.Get(SRUPath, q), nil
}

// idRE is a publication identifier: its series, a word (stb, kst, ah)
// or, for the Handelingen, h (h-tk-20232024-12-3), then its place.
var idRE = regexp.MustCompile(`^(?:[a-z]{2,8}|h)-[a-z0-9][a-z0-9.-]{0,60}$`)

// ValidID checks a publication identifier such as kst-26100-1, stb-2024-1.
func ValidID(id string) (string, error) {
	id = strings.TrimSpace(id)
	if err := adapters.CheckIDChars(id); err != nil {
		return "", err
	}
	id = strings.ToLower(id)
	if !idRE.MatchString(id) {
		return "", fmt.Errorf("%q is not a publication identifier: it looks like stb-2018-84, kst-26100-1 or gmb-2023-174296 (take it from a search result)", id)
	}
	return id, nil
}

// datedIDRE is a publication identifier with its year.
var datedIDRE = regexp.MustCompile(`^[a-z]{2,8}-[0-9]{4}-[0-9A-Za-z.-]{1,50}$`)

// IsDatedID tells whether s is a publication identifier with its year,
// as the metadata of a law (BWB's urlidentifier) or a local regulation
// (CVDR's isFormatOf) names the publication that made it:
// gmb-2016-146361, stcrt-2006-73-p10-SC74601. Unlike ValidID it takes s
// only as written, in its case.
func IsDatedID(s string) bool { return datedIDRE.MatchString(s) }

// referredSeries are the series whose identifiers a reference names on
// their own: the numbered series (adapters.SeriesAbbreviation),
// kamerstukken, Handelingen and their Aanhangsel, and bijlagen.
var referredSeries = []string{"kst", "h-tk", "h-ek", "ah-tk", "ah-ek", "blg"}

// recognize is a publication by its identifier in one of the series a
// reference names on its own (another word and a hyphen is as likely
// something else), or by its citation (ParseCitation); Surface.Recognize.
func recognize(s string) (string, bool) {
	if id, err := ValidID(s); err == nil {
		series, _, _ := strings.Cut(id, "-")
		if _, ok := adapters.SeriesAbbreviation(series); ok || slices.ContainsFunc(referredSeries, func(p string) bool { return strings.HasPrefix(id, p+"-") }) {
			return id, true
		}
	}
	return ParseCitation(s)
}

// lookupRecords is how many records a look-up asks for. An exact index
// match should give one; asking a few more costs nothing (metadata only)
// and lets ParseLookup find the right one should the platform ever treat
// == more loosely.
const lookupRecords = 5

// LookupRequest finds one publication's record by identifier. It uses the
// CQL exact relation "==": "=" is a word match, under which kst-26100-1
// also matches every identifier that holds the words kst, 26100 and 1 in
// a row (kst-26100-1-n1, ...), so the first record could be another
// publication.
func LookupRequest(id string) (adapters.Request, error) {
	id, err := ValidID(id)
	if err != nil {
		return adapters.Request{}, err
	}
	q := url.Values{"operation": {"searchRetrieve"}, "version": {"2.0"}, "recordSchema": {"gzd"},
		"query": {`dt.identifier=="` + id + `"`}, "startRecord": {"1"}, "maximumRecords": {strconv.Itoa(lookupRecords)}}
	return adapters.Get(SRUPath, q), nil
}

// ErrNoPublication is returned by ParseLookup when the answer holds no
// record with the identifier asked for.
var ErrNoPublication = errors.New("no publication with that identifier")

// ParseLookup parses the answer to LookupRequest(id) and returns the record
// whose identifier is id. A record with another identifier is never taken
// for it: the answer is then ErrNoPublication (wrapped, naming what came
// back).
func ParseLookup(body []byte, id string) (Record, error) {
	want, err := ValidID(id)
	if err != nil {
		return Record{}, err
	}
	_, recs, err := ParseSearch(body)
	if err != nil {
		return Record{}, err
	}
	var others []string
	for _, r := range recs {
		if strings.EqualFold(r.Hit.ID, want) {
			return r, nil
		}
		others = append(others, r.Hit.ID)
	}
	if len(others) > 0 {
		return Record{}, fmt.Errorf("%w: %s (the platform answered with %s)", ErrNoPublication, want, strings.Join(others, ", "))
	}
	return Record{}, fmt.Errorf("%w: %s", ErrNoPublication, want)
}

// Record is one parsed gzd record.
type Record struct {
	Hit   adapters.Hit
	Items map[string]string // manifestation -> URL
}

type gzdRecord struct {
	Meta struct {
		Kern struct {
			Identifier string `xml:"identifier"`
			Title      string `xml:"title"`
			Type       string `xml:"type"`
			Creator    string `xml:"creator"`
			Modified   string `xml:"modified"`
		} `xml:"owmskern"`
		Mantel struct {
			Available string `xml:"available"`
			Abstract  string `xml:"abstract"`
			Subject   string `xml:"subject"`
		} `xml:"owmsmantel"`
		TP struct {
			Publicatienaam string `xml:"publicatienaam"`
			Vergaderjaar   string `xml:"vergaderjaar"` // a kamerstuk's: 2023-2024
		} `xml:"tpmeta"`
	} `xml:"recordData>gzd>originalData>meta"`
	Enriched struct {
		URL          string `xml:"url"`
		PreferredURL string `xml:"preferredUrl"`
		Items        []struct {
			Manifestation string `xml:"manifestation,attr"`
			URL           string `xml:",chardata"`
		} `xml:"itemUrl"`
	} `xml:"recordData>gzd>enrichedData"`
}

func (g gzdRecord) record() Record {
	m := g.Meta
	h := adapters.Hit{ID: strings.TrimSpace(m.Kern.Identifier), Type: m.TP.Publicatienaam, Title: adapters.Squash(m.Kern.Title),
		Date: m.Mantel.Available, Source: m.Kern.Creator}
	h.SetURL(g.Enriched.PreferredURL)
	if h.Date == "" {
		h.Date = m.Kern.Modified
	}
	h.Citation = Citation(h.ID, m.Kern.Creator, m.TP.Vergaderjaar)
	if a := adapters.Squash(m.Mantel.Abstract); a != "" && a != h.Title {
		h.Snippet = adapters.Cut(a, adapters.SnippetLen)
	}
	r := Record{Hit: h, Items: map[string]string{}}
	for _, it := range g.Enriched.Items {
		r.Items[it.Manifestation] = strings.TrimSpace(it.URL)
	}
	if r.Items["xml"] == "" && strings.HasSuffix(g.Enriched.URL, ".xml") {
		r.Items["xml"] = strings.TrimSpace(g.Enriched.URL)
	}
	return r
}

// ParseRecord parses one <record> element (with or without namespaces).
func ParseRecord(body []byte) (Record, error) {
	var g gzdRecord
	if err := koopsru.Decode(body, &g); err != nil {
		return Record{}, fmt.Errorf("SRU record is not the expected XML: %v", err)
	}
	if g.Meta.Kern.Identifier == "" {
		return Record{}, fmt.Errorf("SRU record has no identifier")
	}
	return g.record(), nil
}

// ParseSearch parses a searchRetrieveResponse (adapters/koopsru, the
// envelope KOOP's SRU services share).
func ParseSearch(body []byte) (adapters.Page, []Record, error) {
	resp, err := koopsru.Parse[gzdRecord](body)
	if err != nil {
		return adapters.Page{}, nil, err
	}
	page := adapters.Page{Total: resp.Total, HasMore: resp.Next > 0, Hits: []adapters.Hit{}}
	var recs []Record
	for _, g := range resp.Records {
		r := g.record()
		recs = append(recs, r)
		page.Hits = append(page.Hits, r.Hit)
	}
	return page, recs, nil
}

// FileRequest turns a record's itemUrl into a request on the platform's
// own route. The URL must point into one of bases, the platform's base
// URLs in the caller's config (the besluitbron app's LinkBaseURLs), and
// name an FRBR file (upstream.CheckURL: same host, no escape from the base
// path): a search result can never send BesluitBron anywhere else.
func FileRequest(bases []string, itemURL string) (adapters.Request, error) {
	rest, err := upstream.CheckURL(platforms.OB, bases, itemURL)
	if err != nil {
		return adapters.Request{}, fmt.Errorf("publication file %q refused: %v", itemURL, err)
	}
	u, err := url.Parse(rest)
	if err != nil || !strings.HasPrefix(u.Path, FRBRPrefix) {
		return adapters.Request{}, fmt.Errorf("publication file %q is not an FRBR file (%s...)", itemURL, FRBRPrefix)
	}
	return adapters.Request{Method: "GET", Path: u.EscapedPath()}, nil
}

// ParseXML returns the text of a publication's xml manifestation (any
// root: officiele-publicatie, staatsblad, kamerstuk, ...).
func ParseXML(body []byte) (string, error) {
	blocks := map[string]bool{"al": true, "titel": true, "tussenkop": true, "kop": true, "li": true, "lid": true,
		"artikel": true, "considerans.al": true, "wij": true, "afkondiging": true, "slotformulering": true,
		"dagtekening": true, "ondertekening": true, "intitule": true, "subtitel": true, "regel": true, "tr": true, "p": true}
	text, err := adapters.XMLText(body, nil, blocks)
	if err != nil {
		return "", fmt.Errorf("publication XML is not well-formed: %v", err)
	}
	return text, nil
}
