package emulator

import (
	"bytes"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// SearchEntityTypes are the entity types /api/search accepts.
var SearchEntityTypes = []string{"Meeting", "Document", "Motion", "Recording"}

// quoted finds the double-quoted runs of a query, as splitQuotedPhrases in
// the platform's OpenBesluitvorming's web/search_api.ts does.
var quoted = regexp.MustCompile(`"([^"]*)"`)

// maxTotal caps totalCount; above it the count is approximate.
const maxTotal = 10000

type searchParams struct {
	words        []string   // bare terms, all must match
	phrases      [][]string // quoted phrases of two or more words, each must match in a row
	organization string
	entityType   string
	sort         string
	from, to     string // dateFrom, dateTo as given (trimmed); "" = open
	offset       int
	limit        int
}

// parseSearch validates the query string as the platform does
// (OpenBesluitvorming's web/search_params.ts validateSearchParams) and returns the 400 to send,
// if any. Only entityType, organization, limit and offset are refused;
// sort and the dates are never an error there (see parseSort, inRange).
func (e *Emulator) parseSearch(q url.Values) (searchParams, func(http.ResponseWriter)) {
	p := searchParams{limit: PageUnit}
	bad := func(msg, hint string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) { apiError(w, http.StatusBadRequest, msg, hint) }
	}
	p.entityType = strings.TrimSpace(q.Get("entityType"))
	if p.entityType != "" && !contains(SearchEntityTypes, p.entityType) {
		return p, bad(`Onbekend entityType "`+p.entityType+`".`,
			"Geldige waarden zijn "+strings.Join(SearchEntityTypes, ", ")+"; let op hoofdletters.")
	}
	p.organization = strings.TrimSpace(q.Get("organization"))
	if p.organization != "" {
		if _, ok := e.data.index[p.organization]; !ok {
			return p, bad(`Onbekende organization "`+p.organization+`".`,
				"Zie /api/sources voor geldige keys; deze zijn hoofdlettergevoelig.")
		}
	}
	p.sort = parseSort(q.Get("sort"))
	p.from, p.to = strings.TrimSpace(q.Get("dateFrom")), strings.TrimSpace(q.Get("dateTo"))
	for _, name := range []string{"limit", "offset"} {
		raw := q.Get(name)
		if strings.TrimSpace(raw) == "" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || f != float64(int64(f)) {
			return p, bad("Parameter "+name+` moet een geheel getal zijn, kreeg "`+raw+`".`, "")
		}
		v := int(f)
		if name == "limit" {
			if v < 1 {
				return p, bad("Parameter limit moet minstens 1 zijn, kreeg "+strconv.Itoa(v)+".", "")
			}
			p.limit = min(v, 100)
		} else {
			if v < 0 {
				return p, bad("Parameter offset kan niet negatief zijn, kreeg "+strconv.Itoa(v)+".", "")
			}
			p.offset = v
		}
	}
	p.words, p.phrases = parseQuery(q.Get("query"))
	return p, nil
}

// parseSort maps the sort parameter as OpenBesluitvorming's web/search_api.ts sortResults does:
// date_asc and title_asc are themselves, anything else (relevance, an
// unknown value, none) orders by date, newest first.
func parseSort(s string) string {
	switch s {
	case "date_asc", "title_asc":
		return s
	}
	return "date_desc"
}

// parseQuery splits a query as OpenBesluitvorming's web/search_api.ts buildSearchClause does:
// each quoted run is a phrase (one word in quotes is a plain term), the rest
// are bare terms; punctuation separates words (so "woningbouw"~3 is the
// term woningbouw and the term 3, not an error).
func parseQuery(query string) (words []string, phrases [][]string) {
	rest := quoted.ReplaceAllStringFunc(query, func(m string) string {
		ts := tokens(m[1 : len(m)-1])
		if len(ts) == 1 {
			words = append(words, ts[0])
		} else if len(ts) > 1 {
			phrases = append(phrases, ts)
		}
		return " "
	})
	return append(words, tokens(rest)...), phrases
}

// inRange is the platform's date filter (OpenBesluitvorming's web/search_api.ts
// filterResultsByDateRange): the first ten characters of sortDate compared
// as strings with dateFrom and dateTo as given. A malformed date is
// therefore no error, and dateFrom after dateTo simply matches nothing.
func (p *searchParams) inRange(t time.Time) bool {
	if p.from == "" && p.to == "" {
		return true
	}
	v := sortDate(t)[:10]
	return (p.from == "" || v >= p.from) && (p.to == "" || v <= p.to)
}

// empty reports whether the query has nothing to search for.
func (p *searchParams) empty() bool { return len(p.words) == 0 && len(p.phrases) == 0 }

// allWords are the query's words, for highlighting.
func (p *searchParams) allWords() []string {
	out := append([]string(nil), p.words...)
	for _, ph := range p.phrases {
		out = append(out, ph...)
	}
	return out
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
	title string
	res   func() SearchResult
}

// matches reports whether a haystack (searchText: " word word ") holds
// every term and every phrase (its words in a row).
func (p *searchParams) matches(hay string) bool {
	for _, w := range p.words {
		if !strings.Contains(hay, " "+w+" ") {
			return false
		}
	}
	for _, ph := range p.phrases {
		if !strings.Contains(hay, " "+strings.Join(ph, " ")+" ") {
			return false
		}
	}
	return true
}

func (e *Emulator) serveSearch(w http.ResponseWriter, r *http.Request) {
	p, fail := e.parseSearch(r.URL.Query())
	if fail != nil {
		fail(w)
		return
	}
	resp := SearchResponse{Results: []SearchResult{}}
	if p.empty() && p.organization == "" {
		// Neither a query nor an organization: an empty result. A query of
		// only punctuation has no words either.
		writeJSON(w, http.StatusOK, resp)
		return
	}
	if p.empty() && strings.TrimSpace(r.URL.Query().Get("query")) != "" {
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
	words := p.allWords()
	var hits []hit
	for _, s := range srcs {
		for _, m := range s.meetings {
			if m.created.After(now) {
				continue
			}
			switch {
			case !p.inRange(m.when):
			case p.entityType == "" || p.entityType == "Meeting":
				if p.matches(m.haystack) {
					m := m
					hits = append(hits, hit{m.when, m.title, func() SearchResult { return e.meetingResult(m, "", words) }})
				}
			case p.entityType == "Recording" && m.recording != "":
				if p.matches(m.spokenHays) {
					m := m
					hits = append(hits, hit{m.when, m.title, func() SearchResult { return e.meetingResult(m, m.spoken, words) }})
				}
			}
			if p.entityType == "" || p.entityType == "Document" {
				for _, di := range m.docs {
					d := s.docs[di]
					// Documents sort (and filter) on their day: sortDate
					// is the day at 00:00:00.
					if !p.inRange(d.when.Truncate(24 * time.Hour)) {
						continue
					}
					if p.matches(d.haystack) {
						hits = append(hits, hit{d.when, d.title, func() SearchResult { return e.documentResult(d, words) }})
					}
				}
			}
			if p.entityType == "" || p.entityType == "Motion" {
				for _, mi := range m.motions {
					mo := s.motions[mi]
					if indexedAt(mo).After(now) || !p.inRange(m.when) {
						continue
					}
					if p.matches(mo.haystack) {
						hits = append(hits, hit{m.when, mo.name, func() SearchResult { return e.motionResult(mo, words) }})
					}
				}
			}
		}
	}
	sortHits(hits, p.sort)
	resp.TotalCount = min(len(hits), maxTotal)
	resp.TotalIsApproximate = len(hits) > maxTotal || !p.empty()
	for i := p.offset; i < len(hits) && i < p.offset+p.limit; i++ {
		resp.Results = append(resp.Results, hits[i].res())
	}
	resp.HasMore = p.offset+len(resp.Results) < len(hits)
	writeJSON(w, http.StatusOK, resp)
}

// sortHits orders hits as OpenBesluitvorming's web/search_api.ts sortResults does.
func sortHits(hits []hit, sort string) {
	switch sort {
	case "date_asc":
		slices.SortStableFunc(hits, func(a, b hit) int { return a.when.Compare(b.when) })
	case "title_asc":
		// As title.localeCompare(other, "nl"). A Collator is not safe
		// for concurrent use, so each sort has its own.
		dutch := collate.New(language.Dutch)
		var buf collate.Buffer
		slices.SortStableFunc(hits, func(a, b hit) int {
			buf.Reset()
			return bytes.Compare(dutch.KeyFromString(&buf, a.title), dutch.KeyFromString(&buf, b.title))
		})
	default:
		slices.SortStableFunc(hits, func(a, b hit) int { return b.when.Compare(a.when) })
	}
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
