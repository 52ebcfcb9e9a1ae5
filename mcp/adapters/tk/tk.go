// Package tk builds OData requests for the Tweede Kamer's
// Gegevensmagazijn and parses its answers: documents, committees
// (Commissie) and parliamentary groups (Fractie).
package tk

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/mcp/adapters"
)

// Root is the OData service path under the platform's base URL.
const Root = "/OData/v4/2.0"

// MaxLimit is the platform's own cap per response.
const MaxLimit = 250

// Public is the public base, for links.
const Public = "https://gegevensmagazijn.tweedekamer.nl"

var (
	guidRE   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	nummerRE = regexp.MustCompile(`^[0-9]{4}[A-Z][0-9]{3,6}$`)
)

// odataQuery builds a query string, keeping "$" and the OData syntax
// readable the way the platform writes it, escaping the rest.
func odataQuery(pairs ...string) string {
	var sb strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if sb.Len() > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(pairs[i])
		sb.WriteByte('=')
		sb.WriteString(escape(pairs[i+1]))
	}
	return sb.String()
}

func escape(v string) string {
	var sb strings.Builder
	for _, b := range []byte(v) {
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', strings.IndexByte("-_.~$,()':", b) >= 0:
			sb.WriteByte(b)
		default:
			fmt.Fprintf(&sb, "%%%02X", b)
		}
	}
	return sb.String()
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// SearchParams are the arguments of a document search.
type SearchParams struct {
	Query    string // words matched in Titel or Onderwerp
	Soort    string // document kind, e.g. Motie, Brief regering
	DateFrom string
	DateTo   string
	Limit    int
	Offset   int
}

// SearchRequest checks p and builds GET /Document with a $filter.
func SearchRequest(p SearchParams) (adapters.Request, error) {
	if p.Limit < 1 || p.Limit > 100 {
		return adapters.Request{}, fmt.Errorf("limit %d is out of range: use 1 to 100", p.Limit)
	}
	if p.Offset < 0 || p.Offset > 100000 {
		return adapters.Request{}, fmt.Errorf("offset %d is out of range: use 0 to 100000", p.Offset)
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	words := strings.Fields(p.Query)
	if len(words) == 0 && p.Soort == "" && from == "" {
		return adapters.Request{}, fmt.Errorf("give a query, a soort or a date_from: an open search over all documents is not useful")
	}
	if len(words) > 8 {
		return adapters.Request{}, fmt.Errorf("query has %d words: use at most 8", len(words))
	}
	filter := []string{"Verwijderd eq false"}
	for _, w := range words {
		filter = append(filter, fmt.Sprintf("(contains(Titel,%s) or contains(Onderwerp,%s))", quote(w), quote(w)))
	}
	if p.Soort != "" {
		filter = append(filter, "Soort eq "+quote(p.Soort))
	}
	if from != "" {
		filter = append(filter, "Datum ge "+from+"T00:00:00Z")
	}
	if to != "" {
		filter = append(filter, "Datum le "+to+"T23:59:59Z")
	}
	q := odataQuery("$filter", strings.Join(filter, " and "), "$orderby", "Datum desc",
		"$top", strconv.Itoa(p.Limit), "$skip", strconv.Itoa(p.Offset), "$count", "true")
	return adapters.Request{Method: "GET", Path: Root + "/Document?" + q}, nil
}

// DocumentRequest builds the request for one document by GUID Id or by
// document number (e.g. 2023D41173).
func DocumentRequest(id string) (adapters.Request, error) {
	id = strings.TrimSpace(id)
	switch {
	case guidRE.MatchString(id):
		return adapters.Request{Method: "GET", Path: Root + "/Document(" + strings.ToLower(id) + ")"}, nil
	case nummerRE.MatchString(strings.ToUpper(id)):
		q := odataQuery("$filter", "Verwijderd eq false and DocumentNummer eq "+quote(strings.ToUpper(id)), "$top", "1")
		return adapters.Request{Method: "GET", Path: Root + "/Document?" + q}, nil
	}
	return adapters.Request{}, fmt.Errorf("id %q is neither a document GUID (7a9b77f1-...) nor a document number like 2023D41173", id)
}

type document struct {
	ID               string `json:"Id"`
	Soort            string `json:"Soort"`
	DocumentNummer   string `json:"DocumentNummer"`
	Titel            string `json:"Titel"`
	Onderwerp        string `json:"Onderwerp"`
	Datum            string `json:"Datum"`
	Vergaderjaar     string `json:"Vergaderjaar"`
	Organisatie      string `json:"Organisatie"`
	Kamer            *int   `json:"Kamer"`
	ContentType      string `json:"ContentType"`
	ContentLength    *int64 `json:"ContentLength"`
	Aanhangselnummer string `json:"Aanhangselnummer"`
	Volgnummer       *int   `json:"Volgnummer"`
}

func (d document) hit() adapters.Hit {
	title := d.Onderwerp
	if title == "" {
		title = d.Titel
	}
	h := adapters.Hit{ID: d.DocumentNummer, Type: d.Soort, Title: adapters.Squash(title), Date: day(d.Datum), Source: d.Organisatie}
	if h.ID == "" {
		h.ID = d.ID
	}
	if d.Titel != "" && d.Titel != title {
		h.Snippet = adapters.Snippet(d.Titel, adapters.SnippetLen)
	}
	if d.ID != "" {
		h.URL = Public + Root + "/Document(" + d.ID + ")/resource"
	}
	return h
}

func day(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return s
}

type envelope struct {
	Count    *int              `json:"@odata.count"`
	NextLink string            `json:"@odata.nextLink"`
	Value    []json.RawMessage `json:"value"`
}

// ParseSearch parses a /Document answer.
func ParseSearch(body []byte, offset int) (adapters.Page, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return adapters.Page{}, fmt.Errorf("Tweede Kamer answer is not OData JSON: %v", err)
	}
	if env.Value == nil {
		return adapters.Page{}, fmt.Errorf("Tweede Kamer answer has no value list")
	}
	page := adapters.Page{Hits: []adapters.Hit{}}
	for _, raw := range env.Value {
		var d document
		if err := json.Unmarshal(raw, &d); err != nil {
			return adapters.Page{}, fmt.Errorf("Tweede Kamer document is not the expected JSON: %v", err)
		}
		page.Hits = append(page.Hits, d.hit())
	}
	if env.Count != nil {
		page.Total = *env.Count
		page.HasMore = offset+len(env.Value) < page.Total
	} else {
		page.Total = offset + len(env.Value)
		page.TotalApprox = true
		page.HasMore = env.NextLink != ""
	}
	return page, nil
}

// ParseDocument parses a Document(guid) answer, or a /Document list whose
// first item is the document.
func ParseDocument(body []byte) (adapters.Document, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return adapters.Document{}, fmt.Errorf("Tweede Kamer answer is not OData JSON: %v", err)
	}
	raw := json.RawMessage(body)
	if env.Value != nil {
		if len(env.Value) == 0 {
			return adapters.Document{}, fmt.Errorf("no such document")
		}
		raw = env.Value[0]
	}
	var d document
	if err := json.Unmarshal(raw, &d); err != nil || d.ID == "" {
		return adapters.Document{}, fmt.Errorf("Tweede Kamer document is not the expected JSON")
	}
	h := d.hit()
	doc := adapters.Document{ID: h.ID, Type: d.Soort, Title: h.Title, Date: h.Date, Source: d.Organisatie, URL: h.URL,
		Meta: map[string]string{"guid": d.ID}}
	if d.Vergaderjaar != "" {
		doc.Meta["vergaderjaar"] = d.Vergaderjaar
	}
	if d.ContentType != "" {
		doc.Meta["content_type"] = d.ContentType
	}
	if d.ContentLength != nil {
		doc.Meta["content_length"] = strconv.FormatInt(*d.ContentLength, 10)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\n", d.Titel)
	if d.Onderwerp != "" {
		fmt.Fprintf(&sb, "Onderwerp: %s\n", d.Onderwerp)
	}
	fmt.Fprintf(&sb, "Soort: %s; nummer: %s; datum: %s\n", d.Soort, d.DocumentNummer, day(d.Datum))
	fmt.Fprintf(&sb, "The Gegevensmagazijn holds this document as a file (%s) at %s; for its text as HTML use the OpenTK fetch tool (opentk_fetch) with number %s.", d.ContentType, h.URL, d.DocumentNummer)
	doc.Text = sb.String()
	return doc, nil
}

// CommissiesRequest lists the committees.
func CommissiesRequest() adapters.Request {
	return adapters.Request{Method: "GET", Path: Root + "/Commissie?" + odataQuery("$filter", "Verwijderd eq false", "$top", "250")}
}

// FractiesRequest lists the parliamentary groups; active only unless all.
func FractiesRequest(all bool) adapters.Request {
	f := "Verwijderd eq false and DatumInactief eq null"
	if all {
		f = "Verwijderd eq false"
	}
	return adapters.Request{Method: "GET", Path: Root + "/Fractie?" + odataQuery("$filter", f, "$top", "250")}
}

// ParseList parses a Commissie or Fractie answer (an envelope or a bare
// array of items).
func ParseList(body []byte) ([]adapters.Item, error) {
	var items []map[string]any
	var env struct {
		Value []map[string]any `json:"value"`
	}
	if err := json.Unmarshal(body, &env); err == nil && env.Value != nil {
		items = env.Value
	} else if err := json.Unmarshal(body, &items); err != nil {
		return nil, fmt.Errorf("Tweede Kamer list is not OData JSON: %v", err)
	}
	out := []adapters.Item{}
	for _, m := range items {
		it := adapters.Item{Key: str(m["Id"]), Label: str(m["NaamNL"]), Extra: map[string]string{}}
		if it.Label == "" {
			it.Label = str(m["Naam"])
		}
		for _, f := range []string{"Afkorting", "Soort", "AantalZetels", "DatumActief", "DatumInactief", "NaamEN"} {
			if v := str(m[f]); v != "" {
				if strings.HasPrefix(f, "Datum") {
					v = day(v)
				}
				it.Extra[strings.ToLower(f)] = v
			}
		}
		if len(it.Extra) == 0 {
			it.Extra = nil
		}
		out = append(out, it)
	}
	return out, nil
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	return ""
}
