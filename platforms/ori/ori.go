// Package ori builds Elasticsearch requests for an ORI-compatible index
// (ORI Classic's api.openraadsinformatie.nl/v1/elastic was switched off on
// 2026-11-01; an operator may run an index of their own) and parses its
// answers. Indices are ori_<key>_* (municipalities), osi_<key>_*
// (provinces) and owi_<key>_* (water boards); a document's
// has_organization_name holds its organisation's @id, which
// OrganisationsRequest resolves to a name.
package ori

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// MaxLimit caps size.
const MaxLimit = 100

var sourceRE = regexp.MustCompile(`^[a-z0-9_-]{1,60}$`)

// heavy are the full-text fields kept out of search answers.
var heavy = []string{"text", "md_text", "text_pages"}

// AllIndices is the index pattern of every source: municipalities,
// provinces and water boards (es_mappings/ori_template.json).
const AllIndices = "ori_*,osi_*,owi_*"

// renamed maps the three OpenBesluitvorming source keys that differ from
// ORI's to ORI's index prefix and key (reference/platforms.md §10).
var renamed = map[string]string{
	"provincie_limburg":   "osi_limburg",
	"provincie_groningen": "osi_groningen",
	"waterschap_limburg":  "owi_limburg",
}

// OBVKey is the OpenBesluitvorming source key of an ORI index prefix and
// key ("osi_limburg" → "provincie_limburg"; others keep their key).
func OBVKey(prefixed string) string {
	for obv, ori := range renamed {
		if ori == prefixed {
			return obv
		}
	}
	_, key, _ := strings.Cut(prefixed, "_")
	return key
}

// SourceIndices turns a source argument into an index pattern: a bare key
// ("alkmaar") searches the three prefixes, a prefixed one ("osi_limburg")
// its own, and OpenBesluitvorming's renamed keys find their ORI index.
func SourceIndices(source string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(source))
	if s == "" {
		return AllIndices, nil
	}
	if !sourceRE.MatchString(s) {
		return "", fmt.Errorf("source %q is not an index name: use a lower-case key such as alkmaar, osi_limburg or owi_limburg", source)
	}
	if r, ok := renamed[s]; ok {
		return r + "_*", nil
	}
	for _, p := range []string{"ori_", "osi_", "owi_"} {
		if strings.HasPrefix(s, p) {
			return s + "_*", nil
		}
	}
	return "ori_" + s + "_*,osi_" + s + "_*,owi_" + s + "_*", nil
}

// SearchParams are the arguments of a search.
type SearchParams struct {
	Query    string
	Source   string // key (alkmaar), prefixed key (osi_limburg) or OBV key
	DateFrom string
	DateTo   string
	Limit    int
	Offset   int
}

// SearchRequest builds POST /<indices>/_search with a simple_query_string
// over documents (MediaObject), without the heavy text fields.
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
	index, err := SourceIndices(p.Source)
	if err != nil {
		return adapters.Request{}, err
	}
	must := []any{map[string]any{"simple_query_string": map[string]any{
		"query": p.Query, "fields": []string{"text", "title", "description", "name"}, "default_operator": "and"}}}
	// The indices also hold the Organization objects (and, best effort,
	// meetings and persons): a document search wants documents.
	filter := []any{map[string]any{"match": map[string]any{"@type": "MediaObject"}}}
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

// DocumentRequest builds GET /ori_*,osi_*,owi_*/_search?q=_id:<id>.
func DocumentRequest(id string) (adapters.Request, error) {
	if err := adapters.CheckIDChars(id); err != nil {
		return adapters.Request{}, err
	}
	if !idRE.MatchString(id) {
		return adapters.Request{}, fmt.Errorf("id %q is not an ORI document id: use the numeric id of a search result", id)
	}
	return adapters.Get("/"+AllIndices+"/_search", url.Values{"q": {"_id:" + id}, "size": {"1"}}), nil
}

// MaxOrganisations caps one OrganisationsRequest (a page holds at most
// MaxLimit hits, so at most that many organisations).
const MaxOrganisations = MaxLimit

// OrganisationsRequest builds the ids query that fetches the names of the
// Organization objects with these @ids.
func OrganisationsRequest(ids []string) (adapters.Request, error) {
	if len(ids) == 0 || len(ids) > MaxOrganisations {
		return adapters.Request{}, fmt.Errorf("give 1 to %d organisation ids, not %d", MaxOrganisations, len(ids))
	}
	for _, id := range ids {
		if !idRE.MatchString(id) {
			return adapters.Request{}, fmt.Errorf("organisation id %q is not an ORI id", id)
		}
	}
	body, _ := json.Marshal(map[string]any{
		"query":   map[string]any{"ids": map[string]any{"values": ids}},
		"size":    len(ids),
		"_source": map[string]any{"includes": []string{"@type", "name"}},
	})
	return adapters.Request{Method: "POST", Path: "/" + AllIndices + "/_search", Body: body, ContentType: "application/json"}, nil
}

// OrganisationIDs lists, once each, the has_organization_name ids of the
// hits of a search answer.
func OrganisationIDs(body []byte) []string {
	env, err := parse(body)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range env.Hits.Hits {
		id := str(h.Source["has_organization_name"])
		if id != "" && !seen[id] && idRE.MatchString(id) {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ParseOrganisations maps the @id of each Organization object in an answer
// to OrganisationsRequest to its name.
func ParseOrganisations(body []byte) (map[string]string, error) {
	env, err := parse(body)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, h := range env.Hits.Hits {
		if name := strings.TrimSpace(str(h.Source["name"])); name != "" && str(h.Source["@type"]) == "Organization" {
			out[h.ID] = name
		}
	}
	return out, nil
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

// indexRE splits an index name into its prefixed key and timestamp.
var indexRE = regexp.MustCompile(`^((?:ori|osi|owi)_[a-z0-9_-]+?)(?:_[0-9]{8,14})?$`)

// sourceOf names a hit's organisation: the name of the Organization object
// its has_organization_name points to, else the OpenBesluitvorming key its
// index name gives. has_organization_name itself is an id, never a name.
func (h hit) sourceOf(names map[string]string) string {
	if n := names[str(h.Source["has_organization_name"])]; n != "" {
		return n
	}
	if m := indexRE.FindStringSubmatch(h.Index); m != nil {
		return OBVKey(m[1])
	}
	return h.Index
}

func (h hit) toHit(names map[string]string) adapters.Hit {
	s := h.Source
	out := adapters.Hit{ID: h.ID, Type: str(s["@type"]), Title: str(s["name"]), Date: day(str(s["last_discussed_at"])),
		Source: h.sourceOf(names)}
	if out.Title == "" {
		out.Title = str(s["title"])
	}
	link := str(s["original_url"])
	if link == "" {
		link = str(s["url"])
	}
	out.SetURL(link)
	// Only a resolved organisation's name: the index's key (alkmaar) is
	// no name to cite.
	out.Citation = Citation(names[str(s["has_organization_name"])], out.Title, out.Date)
	if hl := h.Highlight["text"]; len(hl) > 0 {
		out.Snippet = adapters.Snippet(hl[0], adapters.SnippetLen)
	} else {
		out.Snippet = adapters.Snippet(str(s["description"]), adapters.SnippetLen)
	}
	return out
}

// ParseSearch parses a _search answer; names (from ParseOrganisations,
// may be nil) name the organisations.
func ParseSearch(body []byte, offset int, names map[string]string) (adapters.Page, error) {
	env, err := parse(body)
	if err != nil {
		return adapters.Page{}, err
	}
	total, approx := env.total()
	page := adapters.Page{Total: total, TotalApprox: approx, Hits: []adapters.Hit{}}
	for _, h := range env.Hits.Hits {
		page.Hits = append(page.Hits, h.toHit(names))
	}
	page.HasMore = offset+len(env.Hits.Hits) < total
	return page, nil
}

// ParseDocument parses the _search answer of DocumentRequest; names as
// in ParseSearch.
func ParseDocument(body []byte, names map[string]string) (adapters.Document, error) {
	env, err := parse(body)
	if err != nil {
		return adapters.Document{}, err
	}
	if len(env.Hits.Hits) == 0 {
		return adapters.Document{}, adapters.ErrNoDocument
	}
	h := env.Hits.Hits[0]
	x := h.toHit(names)
	d := adapters.Document{ID: x.ID, Type: x.Type, Title: x.Title, Date: x.Date, Source: x.Source, URL: x.URL, URLDropped: x.URLDropped,
		Citation: x.Citation, Meta: map[string]string{}}
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
		return strings.ToValidUTF8(s[:10], "") // never half a character
	}
	return s
}
