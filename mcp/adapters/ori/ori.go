// Package ori builds Elasticsearch requests for Open Raadsinformatie
// (ORI Classic, api.openraadsinformatie.nl/v1/elastic; switched off
// upstream on 2026-11-01, kept configurable) and parses its answers.
package ori

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/mcp/adapters"
)

// MaxLimit caps size.
const MaxLimit = 100

var sourceRE = regexp.MustCompile(`^[a-z0-9_-]{1,60}$`)

// heavy are the full-text fields kept out of search answers.
var heavy = []string{"text", "md_text", "text_pages"}

// SearchParams are the arguments of a search.
type SearchParams struct {
	Query    string
	Source   string // index name part, e.g. alkmaar (ori_alkmaar_*)
	DateFrom string
	DateTo   string
	Limit    int
	Offset   int
}

// SearchRequest builds POST /ori_<source|*>_*/_search with a
// simple_query_string, without the heavy text fields.
func SearchRequest(p SearchParams) (adapters.Request, error) {
	if strings.TrimSpace(p.Query) == "" {
		return adapters.Request{}, fmt.Errorf("query is empty: give one or more words")
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		return adapters.Request{}, fmt.Errorf("limit %d is out of range: use 1 to %d", p.Limit, MaxLimit)
	}
	if p.Offset < 0 || p.Offset > 9900 {
		return adapters.Request{}, fmt.Errorf("offset %d is out of range: use 0 to 9900", p.Offset)
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	index := "ori_*"
	if p.Source != "" {
		s := strings.ToLower(p.Source)
		if !sourceRE.MatchString(s) {
			return adapters.Request{}, fmt.Errorf("source %q is not an index name: use a lower-case municipality key such as alkmaar", p.Source)
		}
		index = "ori_" + s + "_*"
	}
	must := []any{map[string]any{"simple_query_string": map[string]any{
		"query": p.Query, "fields": []string{"text", "title", "description", "name"}, "default_operator": "and"}}}
	var filter []any
	if from != "" || to != "" {
		r := map[string]string{}
		if from != "" {
			r["gte"] = from
		}
		if to != "" {
			r["lte"] = to
		}
		filter = append(filter, map[string]any{"range": map[string]any{"last_discussed_at": r}})
	}
	boolQ := map[string]any{"must": must}
	if filter != nil {
		boolQ["filter"] = filter
	}
	body, _ := json.Marshal(map[string]any{
		"query":     map[string]any{"bool": boolQ},
		"size":      p.Limit,
		"from":      p.Offset,
		"_source":   map[string]any{"excludes": heavy},
		"highlight": map[string]any{"fields": map[string]any{"text": map[string]any{"fragment_size": 200, "number_of_fragments": 1}}},
	})
	return adapters.Request{Method: "POST", Path: "/" + index + "/_search", Body: body, ContentType: "application/json"}, nil
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// DocumentRequest builds GET /ori_*/_search?q=_id:<id>.
func DocumentRequest(id string) (adapters.Request, error) {
	if !idRE.MatchString(id) {
		return adapters.Request{}, fmt.Errorf("id %q is not an ORI document id: use the numeric id of a search result", id)
	}
	return adapters.Get("/ori_*/_search", url.Values{"q": {"_id:" + id}, "size": {"1"}}), nil
}

type hit struct {
	Index     string              `json:"_index"`
	ID        string              `json:"_id"`
	Source    map[string]any      `json:"_source"`
	Highlight map[string][]string `json:"highlight"`
}

type envelope struct {
	Hits struct {
		Total json.RawMessage `json:"total"`
		Hits  []hit           `json:"hits"`
	} `json:"hits"`
	Error json.RawMessage `json:"error"`
}

func (e envelope) total() (int, bool) {
	var t struct {
		Value    int    `json:"value"`
		Relation string `json:"relation"`
	}
	if json.Unmarshal(e.Hits.Total, &t) == nil && (t.Value > 0 || t.Relation != "") {
		return t.Value, t.Relation == "gte"
	}
	var n int
	_ = json.Unmarshal(e.Hits.Total, &n)
	return n, false
}

func parse(body []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return env, fmt.Errorf("ORI answer is not Elasticsearch JSON: %v", err)
	}
	if len(env.Error) > 0 && string(env.Error) != "null" {
		return env, fmt.Errorf("ORI refused the search: %s", adapters.Cut(string(env.Error), 300))
	}
	return env, nil
}

func (h hit) toHit() adapters.Hit {
	s := h.Source
	out := adapters.Hit{ID: h.ID, Type: str(s["@type"]), Title: str(s["name"]), Date: day(str(s["last_discussed_at"])),
		Source: str(s["has_organization_name"]), URL: str(s["original_url"])}
	if out.Title == "" {
		out.Title = str(s["title"])
	}
	if out.Source == "" {
		out.Source = strings.TrimSuffix(strings.TrimPrefix(h.Index, "ori_"), "_")
	}
	if out.URL == "" {
		out.URL = str(s["url"])
	}
	if hl := h.Highlight["text"]; len(hl) > 0 {
		out.Snippet = adapters.Snippet(hl[0], adapters.SnippetLen)
	} else {
		out.Snippet = adapters.Snippet(str(s["description"]), adapters.SnippetLen)
	}
	return out
}

// ParseSearch parses a _search answer.
func ParseSearch(body []byte, offset int) (adapters.Page, error) {
	env, err := parse(body)
	if err != nil {
		return adapters.Page{}, err
	}
	total, approx := env.total()
	page := adapters.Page{Total: total, TotalApprox: approx, Hits: []adapters.Hit{}}
	for _, h := range env.Hits.Hits {
		page.Hits = append(page.Hits, h.toHit())
	}
	page.HasMore = offset+len(env.Hits.Hits) < total
	return page, nil
}

// ParseDocument parses the _search answer of DocumentRequest.
func ParseDocument(body []byte) (adapters.Document, error) {
	env, err := parse(body)
	if err != nil {
		return adapters.Document{}, err
	}
	if len(env.Hits.Hits) == 0 {
		return adapters.Document{}, fmt.Errorf("no such document")
	}
	h := env.Hits.Hits[0]
	x := h.toHit()
	d := adapters.Document{ID: x.ID, Type: x.Type, Title: x.Title, Date: x.Date, Source: x.Source, URL: x.URL, Meta: map[string]string{}}
	if ct := str(h.Source["content_type"]); ct != "" {
		d.Meta["content_type"] = ct
	}
	d.Text = str(h.Source["md_text"])
	if d.Text == "" {
		d.Text = str(h.Source["text"])
	}
	if d.Text == "" {
		if pages, ok := h.Source["text_pages"].([]any); ok {
			var sb strings.Builder
			for _, p := range pages {
				if m, ok := p.(map[string]any); ok {
					fmt.Fprintf(&sb, "[p. %s] %s\n", str(m["page_number"]), str(m["text"]))
				}
			}
			d.Text = sb.String()
		}
	}
	return d, nil
}

// str flattens a field that may be a string, a number or a list of strings.
func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return fmt.Sprint(t)
	case []any:
		var parts []string
		for _, x := range t {
			if s := str(x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func day(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return s
}
