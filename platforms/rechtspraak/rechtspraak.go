// Package rechtspraak builds requests for data.rechtspraak.nl and parses
// its answers: the /uitspraken/zoeken Atom feed, /uitspraken/content
// documents and the Waardelijst value lists.
package rechtspraak

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// MaxLimit caps a search page. The platform allows 1000; a model never
// needs that many titles at once.
const MaxLimit = 100

// Lists are the value lists the platform publishes.
var Lists = []string{"Instanties", "Rechtsgebieden", "Proceduresoorten", "FormeleRelaties", "InstantiesBuitenlands"}

// ecliPattern is the form of an ECLI: ECLI:<country>:<court>:<year>:<number>.
const ecliPattern = `ECLI:[A-Z]{2}:[A-Z0-9]{1,7}:[0-9]{4}:[A-Z0-9.]{1,25}`

var (
	ecliRE     = regexp.MustCompile(`^` + ecliPattern + `$`)
	ecliInText = regexp.MustCompile(`(?i)\b` + ecliPattern)
)

// FindECLIs returns the ECLIs written in text, upper-cased, each once, in
// the order they appear; at most n of them (n < 0: all).
func FindECLIs(text string, n int) []string {
	var out []string
	for _, m := range ecliInText.FindAllString(text, -1) {
		if n >= 0 && len(out) == n {
			break
		}
		if e, err := ValidECLI(m); err == nil && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// ValidECLI checks an ECLI such as ECLI:NL:HR:2014:952.
func ValidECLI(id string) (string, error) {
	id = strings.TrimSpace(id)
	if err := adapters.CheckIDChars(id); err != nil {
		return "", err
	}
	id = strings.ToUpper(id)
	if !ecliRE.MatchString(id) {
		return "", fmt.Errorf("%q is not a valid ECLI: write it as ECLI:<country>:<court>:<year>:<number>, e.g. ECLI:NL:HR:2014:952", id)
	}
	return id, nil
}

// SearchParams are the arguments of a search. The platform has no free
// text search: it filters by court, legal area, type and dates.
type SearchParams struct {
	Type     string   // Uitspraak or Conclusie
	Creators []string // court URIs (from the Instanties list)
	Subjects []string // legal area URIs (from the Rechtsgebieden list)
	DateFrom string
	DateTo   string
	Sort     string // ASC or DESC (by modification)
	Limit    int
	Offset   int
}

// SearchRequest checks p and builds GET /uitspraken/zoeken.
func SearchRequest(p SearchParams) (adapters.Request, error) {
	if p.Limit < 1 || p.Limit > MaxLimit {
		return adapters.Request{}, fmt.Errorf("limit %d is out of range: use 1 to %d", p.Limit, MaxLimit)
	}
	if p.Offset < 0 || p.Offset > 100000 {
		return adapters.Request{}, fmt.Errorf("offset %d is out of range: use 0 to 100000", p.Offset)
	}
	if p.Type != "" && p.Type != "Uitspraak" && p.Type != "Conclusie" {
		return adapters.Request{}, fmt.Errorf("type %q is unknown: use Uitspraak or Conclusie", p.Type)
	}
	if p.Sort != "" && p.Sort != "ASC" && p.Sort != "DESC" {
		return adapters.Request{}, fmt.Errorf("sort %q is unknown: use ASC or DESC", p.Sort)
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	if to != "" && from == "" {
		from = "1900-01-01"
	}
	q := url.Values{}
	if p.Type != "" {
		q.Set("type", p.Type)
	}
	for _, c := range p.Creators {
		q.Add("creator", c)
	}
	for _, s := range p.Subjects {
		q.Add("subject", s)
	}
	if from != "" {
		q.Add("date", from)
		if to != "" {
			q.Add("date", to)
		}
	}
	q.Set("return", "DOC")
	if p.Sort != "" {
		q.Set("sort", p.Sort)
	}
	q.Set("max", strconv.Itoa(p.Limit))
	q.Set("from", strconv.Itoa(p.Offset))
	return adapters.Get("/uitspraken/zoeken", q), nil
}

type feed struct {
	Subtitle string `xml:"subtitle"`
	Entries  []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Summary string `xml:"summary"`
		Updated string `xml:"updated"`
		Deleted string `xml:"deleted,attr"`
		Links   []struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
	} `xml:"entry"`
}

var countRE = regexp.MustCompile(`(\d+)`)

// Kinds of ruling, as hits and documents label them.
const (
	KindUitspraak = "uitspraak"
	KindConclusie = "conclusie"
)

// HitType returns what a search hit is. The Atom feed does not say: its
// entries carry only ECLI, title, summary, date and link (see the real
// zoeken.atom.xml). The type is known when the search asked for one type
// only, and for the Parket bij de Hoge Raad (court code PHR), which
// publishes conclusies only. Otherwise it is "" (unknown): the document
// itself names it (dcterms:type, root element uitspraak or conclusie).
func HitType(ecli, searchType string) string {
	switch searchType {
	case "Uitspraak":
		return KindUitspraak
	case "Conclusie":
		return KindConclusie
	}
	if strings.HasPrefix(strings.ToUpper(ecli), "ECLI:NL:PHR:") {
		return KindConclusie
	}
	return ""
}

// ParseSearch parses the /uitspraken/zoeken Atom feed answering p: its
// Offset and Limit tell whether more results follow, its Type labels the
// hits (HitType).
func ParseSearch(body []byte, p SearchParams) (adapters.Page, error) {
	offset, limit := p.Offset, p.Limit
	var f feed
	if err := decode(body, &f); err != nil {
		return adapters.Page{}, fmt.Errorf("Rechtspraak search answer is not an Atom feed: %v", err)
	}
	page := adapters.Page{Hits: []adapters.Hit{}}
	if m := countRE.FindString(f.Subtitle); m != "" {
		page.Total, _ = strconv.Atoi(m)
	}
	for _, e := range f.Entries {
		if e.Deleted != "" {
			continue
		}
		h := adapters.Hit{ID: strings.TrimSpace(e.ID), Title: adapters.Squash(e.Title),
			Snippet: adapters.Snippet(e.Summary, adapters.SnippetLen)}
		// The title reads "ECLI, court, dd-mm-yyyy, case number".
		parts := strings.Split(h.Title, ", ")
		if len(parts) >= 3 {
			h.Source = parts[1]
			h.Date = isoDate(parts[2])
		}
		href := ""
		for _, l := range e.Links {
			if l.Rel == "alternate" || href == "" {
				href = l.Href
			}
		}
		h.SetURL(href)
		if h.URL == "" && h.ID != "" {
			// The page built from the ECLI, itself checked, keeps the
			// reason the answer's own link was dropped.
			h.URL, _ = adapters.CheckLink(DocumentURL(h.ID))
		}
		h.Type = HitType(h.ID, p.Type)
		h.Citation = Citation(h.ID, h.Source, h.Date)
		page.Hits = append(page.Hits, h)
	}
	page.HasMore = offset+len(f.Entries) < page.Total && len(f.Entries) >= limit
	return page, nil
}

// DocumentURL is the public page of a ruling.
func DocumentURL(ecli string) string {
	return "https://uitspraken.rechtspraak.nl/InzienDocument?id=" + ecli
}

func isoDate(d string) string {
	if len(d) == 10 && d[2] == '-' && d[5] == '-' {
		return d[6:] + "-" + d[3:5] + "-" + d[:2]
	}
	return d
}

// ContentRequest builds GET /uitspraken/content?id=<ECLI>; meta asks only
// for the metadata (cheap), otherwise the whole ruling (expensive).
func ContentRequest(ecli string, meta bool) (adapters.Request, error) {
	id, err := ValidECLI(ecli)
	if err != nil {
		return adapters.Request{}, err
	}
	q := url.Values{"id": {id}}
	if meta {
		q.Set("return", "META")
	}
	return adapters.Get("/uitspraken/content", q), nil
}

var blocks = map[string]bool{"para": true, "title": true, "parablock": true, "paragroup": true, "section": true,
	"listitem": true, "row": true, "nr": false, "bridgehead": true}

// ParseContent parses an /uitspraken/content document.
func ParseContent(body []byte) (adapters.Document, error) {
	var raw struct {
		XMLName xml.Name
		RDF     struct {
			Descriptions []struct {
				Identifier string `xml:"identifier"`
				Modified   string `xml:"modified"`
				Issued     string `xml:"issued"`
				Creator    string `xml:"creator"`
				Date       string `xml:"date"`
				Zaaknummer string `xml:"zaaknummer"`
				Type       struct {
					Label string `xml:",chardata"`
					URI   string `xml:"resourceIdentifier,attr"`
				} `xml:"type"`
				Subject    string   `xml:"subject"`
				Procedures []string `xml:"procedure"`
				Spatial    string   `xml:"spatial"`
			} `xml:"Description"`
		} `xml:"RDF"`
	}
	if err := decode(body, &raw); err != nil {
		return adapters.Document{}, fmt.Errorf("Rechtspraak document is not the expected XML: %v", err)
	}
	if raw.XMLName.Local != "open-rechtspraak" {
		return adapters.Document{}, fmt.Errorf("Rechtspraak document has root <%s>, expected <open-rechtspraak>", raw.XMLName.Local)
	}
	d := adapters.Document{Meta: map[string]string{}}
	for _, desc := range raw.RDF.Descriptions {
		if d.ID == "" && desc.Identifier != "" {
			d.ID = strings.TrimSpace(desc.Identifier)
			d.Date = desc.Date
			d.Source = desc.Creator
			d.Type = docType(desc.Type.URI, desc.Type.Label)
			set := func(k, v string) {
				if v = strings.TrimSpace(v); v != "" {
					d.Meta[k] = v
				}
			}
			set("case_number", desc.Zaaknummer)
			set("legal_area", desc.Subject)
			set("published", desc.Issued)
			set("modified", desc.Modified)
			set("place", desc.Spatial)
			set("procedure", strings.Join(desc.Procedures, "; "))
		}
	}
	if d.ID == "" {
		return adapters.Document{}, fmt.Errorf("Rechtspraak document has no identifier")
	}
	d.Title = strings.TrimSpace(strings.Join([]string{d.ID, d.Source, d.Date}, ", "))
	d.SetURL(DocumentURL(d.ID))
	d.Citation = Citation(d.ID, d.Source, d.Date)
	d.References = references(body)
	summary, err := adapters.XMLText(body, []string{"inhoudsindicatie"}, blocks)
	if err != nil {
		return adapters.Document{}, err
	}
	text, err := adapters.XMLText(body, []string{"uitspraak", "conclusie"}, blocks)
	if err != nil {
		return adapters.Document{}, err
	}
	if d.Type == "" {
		// No dcterms:type: the body element says what it is.
		if c, _ := adapters.XMLText(body, []string{"conclusie"}, blocks); c != "" {
			d.Type = KindConclusie
		} else if text != "" {
			d.Type = KindUitspraak
		}
	}
	if summary != "" {
		d.Meta["summary"] = adapters.Cut(adapters.Squash(summary), 600)
		text = "Inhoudsindicatie:\n" + summary + "\n\n" + text
	}
	d.Text = strings.TrimSpace(text)
	return d, nil
}

// docType names a document's kind from its dcterms:type: the
// resourceIdentifier (http://psi.rechtspraak.nl/uitspraak or .../conclusie,
// see the real content.xml) or else the label (Uitspraak, Conclusie).
func docType(uri, label string) string {
	for _, v := range []string{uri[strings.LastIndex(uri, "/")+1:], strings.TrimSpace(label)} {
		switch strings.ToLower(v) {
		case KindUitspraak:
			return KindUitspraak
		case KindConclusie:
			return KindConclusie
		}
	}
	return strings.TrimSpace(label)
}

// ListRequest builds GET /Waardelijst/<name>.
func ListRequest(name string) (adapters.Request, error) {
	for _, l := range Lists {
		if strings.EqualFold(l, name) {
			return adapters.Get("/Waardelijst/"+l, nil), nil
		}
	}
	return adapters.Request{}, fmt.Errorf("list %q is unknown: use one of %s", name, strings.Join(Lists, ", "))
}

// ParseList parses any Waardelijst (Instanties, Rechtsgebieden with its
// nested sub-areas, Proceduresoorten, ...): every element that has an
// Identifier becomes an item; nested items carry their parent.
func ParseList(body []byte) ([]adapters.Item, error) {
	dec := xml.NewDecoder(bytes.NewReader(adapters.TrimBOM(body)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		items []adapters.Item
		stack []*adapters.Item // open item elements (may be nil for containers)
		path  []string
		text  strings.Builder
		root  string
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("Rechtspraak value list is not XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = t.Name.Local
			}
			path = append(path, t.Name.Local)
			text.Reset()
			// An element directly under the root or nested in an item is an
			// item candidate; fields are leaf elements.
			stack = append(stack, &adapters.Item{Extra: map[string]string{}})
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			path = path[:len(path)-1]
			v := strings.TrimSpace(text.String())
			text.Reset()
			if len(stack) == 0 {
				continue
			}
			parent := stack[len(stack)-1]
			if cur.Key != "" {
				if parent.Key != "" {
					cur.Extra["parent"] = parent.Key
				}
				items = append(items, *cur)
				continue
			}
			if len(cur.Extra) == 0 && v != "" {
				switch t.Name.Local {
				case "Identifier":
					parent.Key = v
				case "Naam":
					parent.Label = v
				default:
					parent.Extra[strings.ToLower(t.Name.Local)] = v
				}
			}
		}
	}
	if root == "" {
		return nil, fmt.Errorf("Rechtspraak value list is empty")
	}
	for i := range items {
		if len(items[i].Extra) == 0 {
			items[i].Extra = nil
		}
	}
	return items, nil
}

func decode(body []byte, v any) error {
	dec := xml.NewDecoder(bytes.NewReader(adapters.TrimBOM(body)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return dec.Decode(v)
}
