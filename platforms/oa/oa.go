// Package oa builds requests for Open Archivaris and parses its answers.
// Open Archivaris publishes no API description (reference/platforms.md
// §7). The defaults follow the JSON API BesluitBron's emulator assumes
// (platforms/oa/emulator: /api/v1/search with page/per_page,
// /api/v1/documents/{id} and its /text?page=N); the endpoints and
// parameter names are configuration (Endpoints), and the parser accepts the
// common JSON shapes: a list of results under
// results/hits/documents/items/data, each with an id, a title or name, a
// date, a snippet or summary and a url.
package oa

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// MaxLimit caps a page.
const MaxLimit = 100

// Public is the platform's public base, for relative links.
const Public = "https://openarchivaris.nl"

// Endpoints name the platform's search and document endpoints.
type Endpoints struct {
	SearchPath   string // default /api/v1/search
	QueryParam   string // default q
	LimitParam   string // default per_page
	PageParam    string // default page (1-based); empty OffsetParam means page paging
	OffsetParam  string // offset paging instead of pages when set
	OrgParam     string // default body
	FromParam    string // default date_from
	ToParam      string // default date_to
	DocumentPath string // default /api/v1/documents/{id}
	TextPath     string // default /api/v1/documents/{id}/text?page={page}
}

// Defaults are the endpoints used when none are configured.
var Defaults = Endpoints{SearchPath: "/api/v1/search", QueryParam: "q", LimitParam: "per_page", PageParam: "page",
	OrgParam: "body", FromParam: "date_from", ToParam: "date_to", DocumentPath: "/api/v1/documents/{id}",
	TextPath: "/api/v1/documents/{id}/text?page={page}"}

// WithDefaults fills empty fields from Defaults.
func (e Endpoints) WithDefaults() Endpoints {
	d := Defaults
	set := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	set(&e.SearchPath, d.SearchPath)
	set(&e.QueryParam, d.QueryParam)
	set(&e.LimitParam, d.LimitParam)
	set(&e.PageParam, d.PageParam)
	set(&e.TextPath, d.TextPath)
	set(&e.OrgParam, d.OrgParam)
	set(&e.FromParam, d.FromParam)
	set(&e.ToParam, d.ToParam)
	set(&e.DocumentPath, d.DocumentPath)
	return e
}

// SearchParams are the arguments of a search.
type SearchParams struct {
	Query        string
	Organisation string
	DateFrom     string
	DateTo       string
	Limit        int
	Offset       int
}

// SearchRequest checks p and builds the search request.
func (e Endpoints) SearchRequest(p SearchParams) (adapters.Request, error) {
	e = e.WithDefaults()
	if strings.TrimSpace(p.Query) == "" {
		return adapters.Request{}, fmt.Errorf("query is empty: give one or more words")
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		return adapters.Request{}, fmt.Errorf("limit %d is out of range: use 1 to %d", p.Limit, MaxLimit)
	}
	if p.Offset < 0 || p.Offset > 10000 {
		return adapters.Request{}, fmt.Errorf("offset %d is out of range: use 0 to 10000", p.Offset)
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	q := url.Values{e.QueryParam: {strings.TrimSpace(p.Query)}, e.LimitParam: {strconv.Itoa(p.Limit)}}
	switch {
	case e.OffsetParam != "":
		if p.Offset > 0 {
			q.Set(e.OffsetParam, strconv.Itoa(p.Offset))
		}
	case p.Offset%p.Limit != 0:
		return adapters.Request{}, fmt.Errorf("offset %d is not a multiple of limit %d: the platform pages by whole pages; use next_offset of the previous page", p.Offset, p.Limit)
	default:
		q.Set(e.PageParam, strconv.Itoa(p.Offset/p.Limit+1))
	}
	if p.Organisation != "" {
		q.Set(e.OrgParam, p.Organisation)
	}
	if from != "" {
		q.Set(e.FromParam, from)
	}
	if to != "" {
		q.Set(e.ToParam, to)
	}
	return adapters.Get(e.SearchPath, q), nil
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$`)

// DocumentRequest builds the request for one document.
func (e Endpoints) DocumentRequest(id string) (adapters.Request, error) {
	e = e.WithDefaults()
	if err := adapters.CheckIDChars(id); err != nil {
		return adapters.Request{}, err
	}
	if !idRE.MatchString(id) {
		return adapters.Request{}, fmt.Errorf("id %q is not an Open Archivaris document id: use the id of a search result", id)
	}
	return adapters.Request{Method: "GET", Path: strings.ReplaceAll(e.DocumentPath, "{id}", url.PathEscape(id))}, nil
}

// TextRequest builds the request for page n (1-based) of a document's text.
func (e Endpoints) TextRequest(id string, page int) (adapters.Request, error) {
	e = e.WithDefaults()
	if err := adapters.CheckIDChars(id); err != nil {
		return adapters.Request{}, err
	}
	if !idRE.MatchString(id) {
		return adapters.Request{}, fmt.Errorf("id %q is not an Open Archivaris document id: use the id of a search result", id)
	}
	if page < 1 {
		return adapters.Request{}, fmt.Errorf("page %d is out of range: pages start at 1", page)
	}
	p := strings.ReplaceAll(e.TextPath, "{id}", url.PathEscape(id))
	return adapters.Request{Method: "GET", Path: strings.ReplaceAll(p, "{page}", strconv.Itoa(page))}, nil
}

// TextPage is one page of a document's text.
type TextPage struct {
	Page  int
	Pages int
	Text  string
}

// ParseText parses a text page answer ({id, page, pages, text, next}).
func ParseText(body []byte) (TextPage, error) {
	var raw struct {
		Page  int    `json:"page"`
		Pages int    `json:"pages"`
		Text  string `json:"text"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return TextPage{}, fmt.Errorf("Open Archivaris text page is not JSON: %v", err)
	}
	return TextPage{raw.Page, raw.Pages, raw.Text}, nil
}

func pick(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m[k]); s != "" {
			return s
		}
	}
	return ""
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []any:
		var parts []string
		for _, x := range t {
			if s := str(x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " … ")
	}
	return ""
}

func toHit(m map[string]any) adapters.Hit {
	h := adapters.Hit{
		ID:      pick(m, "id", "_id", "documentId", "document_id", "uuid"),
		Type:    pick(m, "type", "documentType", "document_type", "kind"),
		Title:   adapters.Squash(pick(m, "title", "name", "titel", "naam")),
		Date:    pick(m, "date", "datum", "document_date", "publication_date", "published"),
		Source:  pick(m, "body_name", "organisation", "organization", "organisatie", "bron"),
		Snippet: adapters.Snippet(pick(m, "snippet", "highlight", "summary", "samenvatting", "description"), adapters.SnippetLen),
	}
	if b, ok := m["body"].(map[string]any); ok && h.Source == "" {
		h.Source = pick(b, "name", "key")
	}
	link := pick(m, "source_url", "url", "link", "original_url", "href")
	if strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "//") {
		link = Public + link
	}
	h.SetURL(link)
	if len(h.Date) > 10 && h.Date[4] == '-' {
		h.Date = strings.ToValidUTF8(h.Date[:10], "") // never half a character
	}
	h.Citation = Citation(h.Source, h.Title, h.Date)
	return h
}

// ParseSearch parses a search answer.
func ParseSearch(body []byte, offset int) (adapters.Page, error) {
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		var list []any
		if err2 := json.Unmarshal(body, &list); err2 != nil {
			return adapters.Page{}, fmt.Errorf("Open Archivaris answer is not JSON: %v", err)
		}
		raw = map[string]any{"results": list}
	}
	var list []any
	for _, k := range []string{"results", "hits", "documents", "items", "data"} {
		if l, ok := raw[k].([]any); ok {
			list = l
			break
		}
		if m, ok := raw[k].(map[string]any); ok { // ES-like {hits:{hits:[...]}}
			if l, ok := m[k].([]any); ok {
				list = l
				break
			}
		}
	}
	if list == nil {
		return adapters.Page{}, fmt.Errorf("Open Archivaris answer has no result list")
	}
	page := adapters.Page{Hits: []adapters.Hit{}}
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			if src, ok := m["_source"].(map[string]any); ok {
				src["id"] = m["_id"]
				m = src
			}
			page.Hits = append(page.Hits, toHit(m))
		}
	}
	total := -1
	for _, k := range []string{"total", "totalCount", "total_count", "count"} {
		if n, ok := raw[k].(float64); ok {
			total = int(n)
			break
		}
	}
	if total < 0 {
		page.Total, page.TotalApprox = offset+len(page.Hits), true
	} else {
		page.Total = total
	}
	page.HasMore = offset+len(page.Hits) < page.Total
	if hm, ok := raw["hasMore"].(bool); ok {
		page.HasMore = hm
	}
	if hm, ok := raw["has_more"].(bool); ok {
		page.HasMore = hm
	}
	return page, nil
}

// ParseDocument parses a document answer.
func ParseDocument(body []byte) (adapters.Document, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return adapters.Document{}, fmt.Errorf("Open Archivaris document is not JSON: %v", err)
	}
	if d, ok := m["document"].(map[string]any); ok {
		m = d
	}
	h := toHit(m)
	if h.ID == "" && h.Title == "" {
		return adapters.Document{}, fmt.Errorf("Open Archivaris document has neither id nor title")
	}
	d := adapters.Document{ID: h.ID, Type: h.Type, Title: h.Title, Date: h.Date, Source: h.Source, URL: h.URL, URLDropped: h.URLDropped,
		Citation: h.Citation}
	d.Text = pick(m, "text", "content", "full_text", "fulltext", "body", "tekst")
	if d.Text == "" {
		if pages, ok := m["pages"].([]any); ok {
			var sb strings.Builder
			for i, p := range pages {
				switch t := p.(type) {
				case string:
					fmt.Fprintf(&sb, "[p. %d] %s\n", i+1, t)
				case map[string]any:
					fmt.Fprintf(&sb, "[p. %d] %s\n", i+1, pick(t, "text", "content"))
				}
			}
			d.Text = sb.String()
		}
	}
	return d, nil
}
