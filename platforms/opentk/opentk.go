// Package opentk builds requests for OpenTK (tkconv, opentk.nl /
// berthub.eu/tkconv) and parses its answers: the multipart POST /search,
// the HTML rendering of a document (/getdoc/<nummer|guid>) and the minutes
// of a meeting (/verslag.html?vergaderingid=<guid>).
//
// A search hit is one of six categories (search.cc): Document, Activiteit,
// Verslag, Toezegging, PersoonGeschenk, OODocument. Only documents and
// minutes can be read as text; the others are described by their hit and
// opened through their link.
package opentk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

// Public is the public base, for links.
const Public = "https://berthub.eu/tkconv"

// MaxResults is what one search can return; the platform has no paging.
const MaxResults = 280

// Kinds are the values of the soorten field. tkserv: "activiteiten" keeps
// only Activiteit hits; "moties" keeps documents of soort Motie and
// "vragenantwoorden" those of soort (Antwoord) schriftelijke vragen, both
// filtered after the 280-row cut; anything else is every category.
var Kinds = []string{"alles", "moties", "vragenantwoorden", "activiteiten"}

// The six categories of a search hit.
const (
	Document        = "Document"
	Activiteit      = "Activiteit"
	Verslag         = "Verslag"
	Toezegging      = "Toezegging"
	PersoonGeschenk = "PersoonGeschenk"
	OODocument      = "OODocument"
)

// Categories lists them; a hit's type is one of these.
var Categories = []string{Document, Activiteit, Verslag, Toezegging, PersoonGeschenk, OODocument}

// What says in a few words what a hit of a category is.
func What(category string) string {
	switch category {
	case Document:
		return "a parliamentary document"
	case Activiteit:
		return "an activity of the Kamer (a debate, hearing or vote on the agenda)"
	case Verslag:
		return "the minutes of a meeting (its id is the meeting's)"
	case Toezegging:
		return "a commitment a minister made to the Kamer"
	case PersoonGeschenk:
		return "a gift registered by a member of the Kamer"
	case OODocument:
		return "a document published under the Open Government Act (open.overheid.nl)"
	}
	return "an item of unknown category"
}

// Fetchable tells whether OpenTK can render a category's item as text:
// documents and minutes (tkserv's /getdoc and /verslag.html).
func Fetchable(category string) bool { return category == Document || category == Verslag }

// ItemURL is the public page of an item, built as search.cc builds relurl
// (a gift's page needs the member's number, which only the hit has).
func ItemURL(category, nummer string) string {
	q := url.QueryEscape(nummer)
	switch category {
	case Document:
		return Public + "/get/" + q
	case Activiteit:
		return Public + "/activiteit.html?nummer=" + q
	case Verslag:
		return Public + "/verslag.html?vergaderingid=" + q
	case Toezegging:
		return Public + "/toezegging.html?nummer=" + q
	case OODocument:
		return Public + "/oo.html?nummer=" + q
	}
	return ""
}

// boundary is fixed so identical searches have identical bodies.
const boundary = "besluitbron-opentk-form"

// SearchRequest builds POST /search (multipart/form-data: q, twomonths,
// soorten).
func SearchRequest(query string, twoMonths bool, kind string) (adapters.Request, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return adapters.Request{}, fmt.Errorf("query is empty: give one or more words (\"phrase\", NEAR(a b), AND/OR/NOT and prefix* work)")
	}
	if len(query) > 500 {
		return adapters.Request{}, fmt.Errorf("query is %d characters long: use at most 500", len(query))
	}
	if kind == "" {
		kind = "alles"
	}
	ok := false
	for _, k := range Kinds {
		ok = ok || k == kind
	}
	if !ok {
		return adapters.Request{}, fmt.Errorf("kind %q is unknown: use one of %s", kind, strings.Join(Kinds, ", "))
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.SetBoundary(boundary)
	_ = w.WriteField("q", query)
	_ = w.WriteField("twomonths", fmt.Sprint(twoMonths))
	_ = w.WriteField("soorten", kind)
	_ = w.Close()
	return adapters.Request{Method: "POST", Path: "/search", Body: buf.Bytes(), ContentType: w.FormDataContentType()}, nil
}

// result is one hit as tkserv writes it (tkserv.cc, /search).
type result struct {
	Nummer        string  `json:"nummer"`
	Datum         string  `json:"datum"`
	Score         float64 `json:"score"`
	Category      string  `json:"category"`
	Onderwerp     string  `json:"onderwerp"`
	Snip          string  `json:"snip"`
	Relurl        string  `json:"relurl"`
	Bijgewerkt    string  `json:"bijgewerkt"`
	Persoonnummer int     `json:"persoonnummer"`
}

// ParseSearch parses a /search answer and returns the window
// [offset, offset+limit) of its results (the platform sends them all,
// newest first). A hit's type is its category.
func ParseSearch(body []byte, offset, limit int) (adapters.Page, error) {
	var raw struct {
		Results      []result `json:"results"`
		Milliseconds float64  `json:"milliseconds"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return adapters.Page{}, fmt.Errorf("OpenTK search answer is not the expected JSON: %v", err)
	}
	if raw.Results == nil {
		return adapters.Page{}, fmt.Errorf("OpenTK search answer has no results list")
	}
	page := adapters.Page{Total: len(raw.Results), Hits: []adapters.Hit{}}
	page.TotalApprox = len(raw.Results) >= MaxResults
	end := offset + limit
	if end > len(raw.Results) {
		end = len(raw.Results)
	}
	for i := offset; i < end; i++ {
		r := raw.Results[i]
		h := adapters.Hit{ID: r.Nummer, Type: r.Category, Title: adapters.Squash(r.Onderwerp), Date: day(r.Datum),
			Snippet: adapters.Snippet(r.Snip, adapters.SnippetLen), URL: ItemURL(r.Category, r.Nummer)}
		h.Citation = Citation(h.Type, h.ID, h.Date)
		if r.Relurl != "" && (strings.HasPrefix(r.Relurl, "http://") || strings.HasPrefix(r.Relurl, "https://")) {
			h.SetURL(r.Relurl)
		} else if r.Relurl != "" {
			h.SetURL(Public + "/" + strings.TrimPrefix(r.Relurl, "/"))
		}
		page.Hits = append(page.Hits, h)
	}
	page.HasMore = end < len(raw.Results)
	return page, nil
}

func day(s string) string {
	if len(s) >= 10 {
		// Ten bytes of a broken date may end inside a character: drop
		// the half character rather than hand a model invalid UTF-8
		// (found by FuzzParse).
		return strings.ToValidUTF8(s[:10], "")
	}
	return s
}

// ValidNumber checks a document number (2023D41173) or GUID: OpenTK
// serves the Gegevensmagazijn's documents under the same ids
// (tk.ParseDocumentID), number in upper case, GUID in lower.
func ValidNumber(n string) (string, error) {
	id, err := tk.ParseDocumentID(n)
	if err != nil {
		return "", fmt.Errorf("%q is not a TK document number: it looks like 2023D41173 (take it from a search result)", strings.TrimSpace(n))
	}
	if id.GUID != "" {
		return id.GUID, nil
	}
	return id.Nummer, nil
}

// DocumentURL is the public page of a document.
func DocumentURL(nummer string) string { return Public + "/document.html?nummer=" + nummer }

// IsGUID tells whether an id is a GUID (a Document's, a Verslag's or a
// meeting's) rather than a document number.
func IsGUID(n string) bool {
	id, err := tk.ParseDocumentID(n)
	return err == nil && id.GUID != ""
}

// DocumentRequest builds GET /getdoc/<nummer|guid> (an HTML rendering of a
// document, or of minutes by the Verslag's own GUID).
func DocumentRequest(nummer string) (adapters.Request, error) {
	n, err := ValidNumber(nummer)
	if err != nil {
		return adapters.Request{}, err
	}
	return adapters.Request{Method: "GET", Path: "/getdoc/" + n}, nil
}

// MinutesRequest builds GET /verslag.html?vergaderingid=<guid>: the
// minutes of a meeting, by the meeting id a Verslag hit carries.
func MinutesRequest(vergaderingID string) (adapters.Request, error) {
	n, err := ValidNumber(vergaderingID)
	if err != nil || !IsGUID(n) {
		return adapters.Request{}, fmt.Errorf("%q is not a meeting id: a Verslag hit's id looks like 9e79de98-e914-4dc8-8dc7-6d7cb09b93d7", vergaderingID)
	}
	return adapters.Get("/verslag.html", url.Values{"vergaderingid": {n}}), nil
}

var itemRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// ValidItem checks the id of a hit OpenTK cannot render (an activity or
// commitment number, a GUID, an open.overheid id); it only goes into a link.
func ValidItem(id string) (string, error) {
	id = strings.TrimSpace(id)
	if err := adapters.CheckIDChars(id); err != nil {
		return "", err
	}
	if !itemRE.MatchString(id) {
		return "", fmt.Errorf("%q is not an OpenTK id: take it from a search result", id)
	}
	return id, nil
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	dropRE  = regexp.MustCompile(`(?is)<(script|style|head)[^>]*>.*?</(script|style|head)>`)
	breakRE = regexp.MustCompile(`(?i)<(br|/p|/div|/h[1-6]|/li|/tr|/table)[^>]*>`)
)

// ParseDocument turns the HTML rendering of a document or of minutes into
// text; category is Document or Verslag.
func ParseDocument(nummer, category string, body []byte) (adapters.Document, error) {
	// The HTML is read as it came: a byte that is no UTF-8 becomes U+FFFD
	// here, as it would in the JSON answer, so text and title are valid
	// (found by FuzzParse).
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if !strings.Contains(strings.ToLower(s), "<") {
		return adapters.Document{}, fmt.Errorf("OpenTK document is not HTML")
	}
	d := adapters.Document{ID: nummer, Type: category, URL: DocumentURL(nummer), Citation: Citation(category, nummer, "")}
	if category == Verslag {
		d.URL = ItemURL(Verslag, nummer)
	}
	if m := titleRE.FindStringSubmatch(s); m != nil {
		d.Title = adapters.Squash(adapters.StripTags(m[1]))
	}
	s = dropRE.ReplaceAllString(s, " ")
	s = breakRE.ReplaceAllString(s, "\n")
	var lines []string
	for _, l := range strings.Split(adapters.StripTags(s), "\n") {
		if l = adapters.Squash(l); l != "" {
			lines = append(lines, l)
		}
	}
	d.Text = strings.Join(lines, "\n")
	if d.Title == "" && len(lines) > 0 {
		d.Title = adapters.Cut(lines[0], 200)
	}
	return d, nil
}
