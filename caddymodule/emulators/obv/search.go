package obv

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/emulators/corpus"
)

// SearchEntityTypes are the entity types /api/search accepts.
var SearchEntityTypes = []string{"Meeting", "Document", "Motion", "Recording"}

var sorts = []string{"date_desc", "date_asc", "relevance"}

var phraseSlop = regexp.MustCompile(`"[^"]*"\s*~\s*\d+`)

// maxTotal caps totalCount; above it the count is approximate.
const maxTotal = 10000

type searchParams struct {
	words        []string
	organization string
	entityType   string
	sort         string
	from, to     time.Time // zero = open
	offset       int
	limit        int
}

// parseSearch validates the query string as the platform does and returns
// the 400 to send, if any.
func (e *Emulator) parseSearch(q url.Values) (searchParams, func(http.ResponseWriter)) {
	p := searchParams{sort: "date_desc", limit: PageUnit}
	bad := func(code, msg, hint string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) { apiError(w, http.StatusBadRequest, code, msg, hint) }
	}
	p.entityType = strings.TrimSpace(q.Get("entityType"))
	if p.entityType != "" && !contains(SearchEntityTypes, p.entityType) {
		return p, bad("unknown_entity_type", `Onbekend entityType "`+p.entityType+`".`,
			"Geldige waarden zijn "+strings.Join(SearchEntityTypes, ", ")+"; let op hoofdletters.")
	}
	p.organization = strings.TrimSpace(q.Get("organization"))
	if p.organization != "" {
		if _, ok := e.data.index[p.organization]; !ok {
			return p, bad("unknown_organization", `Onbekende organization "`+p.organization+`".`,
				"Zie /api/sources voor geldige keys; deze zijn hoofdlettergevoelig.")
		}
	}
	if s := strings.TrimSpace(q.Get("sort")); s != "" {
		if !contains(sorts, s) {
			return p, bad("unknown_sort", `Onbekende sort "`+s+`".`, "Geldige waarden zijn "+strings.Join(sorts, ", ")+".")
		}
		p.sort = s
	}
	for _, name := range []string{"dateFrom", "dateTo"} {
		raw := strings.TrimSpace(q.Get(name))
		if raw == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", raw)
		if err != nil {
			t, err = time.Parse(time.RFC3339, raw)
		}
		if err != nil {
			return p, bad("invalid_date", "Parameter "+name+` moet een ISO-datum zijn (JJJJ-MM-DD), kreeg "`+raw+`".`, "")
		}
		if name == "dateFrom" {
			p.from = t
		} else {
			if len(raw) == 10 {
				t = t.Add(24*time.Hour - time.Nanosecond)
			}
			p.to = t
		}
	}
	if !p.from.IsZero() && !p.to.IsZero() && p.from.After(p.to) {
		return p, bad("invalid_date", "Parameter dateFrom ligt na dateTo.", "")
	}
	for _, name := range []string{"limit", "offset"} {
		raw := q.Get(name)
		if strings.TrimSpace(raw) == "" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || f != float64(int64(f)) {
			return p, bad("invalid_"+name, "Parameter "+name+` moet een geheel getal zijn, kreeg "`+raw+`".`, "")
		}
		v := int(f)
		if name == "limit" {
			if v < 1 {
				return p, bad("invalid_limit", "Parameter limit moet minstens 1 zijn, kreeg "+strconv.Itoa(v)+".", "")
			}
			p.limit = min(v, 100)
		} else {
			if v < 0 {
				return p, bad("invalid_offset", "Parameter offset kan niet negatief zijn, kreeg "+strconv.Itoa(v)+".", "")
			}
			p.offset = v
		}
	}
	query := q.Get("query")
	if phraseSlop.MatchString(query) {
		return p, bad("unsupported_phrase_slop", `Zoeken met afstand tussen woorden ("..."~N) wordt niet ondersteund.`,
			"Laat ~N weg; woorden worden altijd samen gezocht (EN).")
	}
	p.words = tokens(query)
	return p, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// SearchResult is one /api/search result.
type SearchResult struct {
	EntityID        string `json:"entityId"`
	EntityType      string `json:"entityType"`
	EntityTypeLabel string `json:"entityTypeLabel"`
	Organization    string `json:"organization"`
	Date            string `json:"date"`
	SortDate        string `json:"sortDate"`
	Title           string `json:"title"`
	Summary         string `json:"summary"`
	SummaryHTML     string `json:"summaryHtml"`
	DownloadURL     string `json:"downloadUrl,omitempty"`
	MatchedPage     int    `json:"matchedPage,omitempty"`
	PageCount       int    `json:"pageCount,omitempty"`
	PreviewImageURL string `json:"previewImageUrl,omitempty"`
}

// SearchResponse is the /api/search answer.
type SearchResponse struct {
	Results            []SearchResult `json:"results"`
	TotalCount         int            `json:"totalCount"`
	TotalIsApproximate bool           `json:"totalIsApproximate"`
	HasMore            bool           `json:"hasMore"`
}

type hit struct {
	when  time.Time
	score int
	res   func() SearchResult
}

func matches(hay string, words []string) (int, bool) {
	score := 0
	for _, w := range words {
		n := strings.Count(hay, " "+w+" ")
		if n == 0 {
			return 0, false
		}
		score += n
	}
	return score, true
}

func (e *Emulator) serveSearch(w http.ResponseWriter, r *http.Request) {
	p, fail := e.parseSearch(r.URL.Query())
	if fail != nil {
		fail(w)
		return
	}
	resp := SearchResponse{Results: []SearchResult{}}
	if len(p.words) == 0 && p.organization == "" {
		// Neither a query nor an organization: an empty result. A query of
		// only punctuation has no words either.
		writeJSON(w, http.StatusOK, resp)
		return
	}
	if len(p.words) == 0 && strings.TrimSpace(r.URL.Query().Get("query")) != "" {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	now := e.now()
	var srcs []*source
	if p.organization != "" {
		s, _ := e.data.sourceByKey(p.organization)
		srcs = []*source{s}
	} else {
		srcs = e.data.all()
	}
	in := func(t time.Time) bool {
		return (p.from.IsZero() || !t.Before(p.from)) && (p.to.IsZero() || !t.After(p.to))
	}
	var hits []hit
	for _, s := range srcs {
		for _, m := range s.meetings {
			if m.created.After(now) {
				continue
			}
			switch {
			case !in(m.when):
			case p.entityType == "" || p.entityType == "Meeting":
				if sc, ok := matches(m.haystack, p.words); ok {
					m := m
					hits = append(hits, hit{m.when, sc, func() SearchResult { return e.meetingResult(m, "", p.words) }})
				}
			case p.entityType == "Recording" && m.recording != "":
				if sc, ok := matches(m.spokenHays, p.words); ok {
					m := m
					hits = append(hits, hit{m.when, sc, func() SearchResult { return e.meetingResult(m, m.spoken, p.words) }})
				}
			}
			if p.entityType == "" || p.entityType == "Document" {
				for _, di := range m.docs {
					d := s.docs[di]
					if !in(d.when) {
						continue
					}
					if sc, ok := matches(d.haystack, p.words); ok {
						hits = append(hits, hit{d.when, sc, func() SearchResult { return e.documentResult(d, p.words) }})
					}
				}
			}
			if p.entityType == "" || p.entityType == "Motion" {
				for _, mi := range m.motions {
					mo := s.motions[mi]
					if indexedAt(mo).After(now) || !in(m.when) {
						continue
					}
					if sc, ok := matches(mo.haystack, p.words); ok {
						hits = append(hits, hit{m.when, sc, func() SearchResult { return e.motionResult(mo, p.words) }})
					}
				}
			}
		}
	}
	sort.SliceStable(hits, func(a, b int) bool {
		switch p.sort {
		case "date_asc":
			return hits[a].when.Before(hits[b].when)
		case "relevance":
			if hits[a].score != hits[b].score {
				return hits[a].score > hits[b].score
			}
		}
		return hits[a].when.After(hits[b].when)
	})
	resp.TotalCount = min(len(hits), maxTotal)
	resp.TotalIsApproximate = len(hits) > maxTotal || len(p.words) > 0
	for i := p.offset; i < len(hits) && i < p.offset+p.limit; i++ {
		resp.Results = append(resp.Results, hits[i].res())
	}
	resp.HasMore = p.offset+len(resp.Results) < len(hits)
	writeJSON(w, http.StatusOK, resp)
}

func highlight(text string, words []string) string {
	if len(words) == 0 {
		return html.EscapeString(text)
	}
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	var b strings.Builder
	word := func(s string) {
		if set[strings.ToLower(s)] {
			b.WriteString("<b>" + html.EscapeString(s) + "</b>")
		} else {
			b.WriteString(html.EscapeString(s))
		}
	}
	start := -1
	for i, r := range text {
		isWord := isWordRune(r)
		if isWord && start < 0 {
			start = i
		} else if !isWord {
			if start >= 0 {
				word(text[start:i])
				start = -1
			}
			b.WriteString(html.EscapeString(string(r)))
		}
	}
	if start >= 0 {
		word(text[start:])
	}
	return b.String()
}

func sortDate(t time.Time) string { return t.Format("2006-01-02 15:04:05") }

func (e *Emulator) meetingResult(m *meeting, summary string, words []string) SearchResult {
	if summary == "" {
		var items []string
		for _, a := range m.agenda[2 : len(m.agenda)-2] {
			items = append(items, a.title)
		}
		summary = strings.Join(items, "; ")
	}
	return SearchResult{EntityID: m.id, EntityType: "Meeting", EntityTypeLabel: "Vergadering", Organization: m.src.org.Label,
		Date: corpus.DutchDate(m.when), SortDate: sortDate(m.when), Title: m.title, Summary: summary, SummaryHTML: highlight(summary, words)}
}

func (e *Emulator) documentResult(d *document, words []string) SearchResult {
	page := 1 + int(corpus.Rand(e.cfg.Seed, "matched", d.id, strings.Join(words, " ")).IntN(d.pages))
	return SearchResult{EntityID: d.id, EntityType: "Document", EntityTypeLabel: "Document", Organization: d.src.org.Label,
		Date: corpus.DutchDate(d.when), SortDate: sortDate(d.when.Truncate(24 * time.Hour)), Title: d.title,
		Summary: d.summary, SummaryHTML: highlight(d.summary, words), DownloadURL: d.downloadURL(),
		MatchedPage: page, PageCount: d.pages, PreviewImageURL: "/api/entities/" + escapeID(d.id) + "/pdf/page/" + strconv.Itoa(page)}
}

func (e *Emulator) motionResult(mo *motion, words []string) SearchResult {
	m := mo.src.meetings[mo.meeting]
	summary := motionStatus[mo.result] + " in " + strings.ToLower(m.title[:1]) + m.title[1:] + "."
	return SearchResult{EntityID: mo.id, EntityType: "Motion", EntityTypeLabel: "Motie", Organization: mo.src.org.Label,
		Date: corpus.DutchDate(m.when), SortDate: sortDate(m.when), Title: mo.name, Summary: summary, SummaryHTML: highlight(summary, words)}
}

// downloadURL is where the supplier serves the original file.
func (d *document) downloadURL() string {
	native := d.id[strings.LastIndex(d.id, ":")+1:]
	return supplierFileURL(d.src, native)
}

func supplierFileURL(s *source, native string) string {
	switch s.org.Supplier {
	case corpus.IBabs:
		return "https://" + s.org.Key + ".bestuurlijkeinformatie.nl/Document/View/" + native
	case corpus.Notubiz:
		return "https://api.notubiz.nl/document/" + native + "/1"
	case corpus.GemeenteOplossingen:
		return "https://" + s.org.Key + ".gemeenteoplossingen.nl/documenten/" + native + ".pdf"
	}
	return "https://" + s.org.Key + ".parlaeus.nl/user/document/" + native
}

// escapeID escapes an entity id for a path as the platform does
// (encodeURIComponent: ':' becomes %3A).
func escapeID(id string) string {
	return strings.ReplaceAll(url.PathEscape(id), ":", "%3A")
}
