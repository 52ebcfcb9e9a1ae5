// Package obv builds requests for OpenBesluitvorming (openbesluitvorming.nl)
// and parses its answers: search, entity detail (document, meeting,
// motion), the sources list and the import status ("Laadstatus").
package obv

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// MaxLimit is the largest page the platform serves (it caps at 100). What
// a search costs of the platform's budget is the platforms table's rule
// (SearchCost).
const MaxLimit = 100

// SearchPath is the platform's search, below its base URL.
const SearchPath = "/api/search"

// EntityTypes are the values entityType accepts (case-sensitive).
var EntityTypes = []string{"Meeting", "Document", "Motion", "Recording"}

// Sorts are the orders the platform really has (OpenBesluitvorming's web/search_api.ts
// sortResults): by date either way, or by title (Dutch collation).
// "relevance" is not among them: the platform answers it, like any unknown
// value, in date_desc order, so offering it would promise what it does not do.
var Sorts = []string{"date_desc", "date_asc", "title_asc"}

// SearchParams are the arguments of a search.
type SearchParams struct {
	Query        string
	Organization string
	EntityType   string
	Sort         string
	DateFrom     string
	DateTo       string
	Limit        int
	Offset       int
}

// SearchCost is the platform's row's price of a search (what
// platform_limit charges): its rule for SearchPath, or one unit when the
// row prices searches at nothing special. The row is this package's own
// (platform.go), read once, not on every search's result; not through
// the registry, which may not hold it yet when a package variable (a
// tool's description) asks.
var SearchCost = sync.OnceValue(func() platforms.Cost {
	if c, ok := tableRow.CostOf(SearchPath); ok {
		return c
	}
	return platforms.Cost{Units: 1}
})

// Cost returns the budget units a search of limit results costs, by the
// table's rule (SearchCost), rounded up to whole units.
func Cost(limit int) int { return int(math.Ceil(SearchCost().UnitsFor(float64(limit)))) }

// SearchRequest checks p and builds GET /api/search.
func SearchRequest(p SearchParams) (adapters.Request, error) {
	if strings.TrimSpace(p.Query) == "" && p.Organization == "" {
		return adapters.Request{}, fmt.Errorf("give a query, an organization, or both (with neither the platform returns nothing)")
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		return adapters.Request{}, fmt.Errorf("limit %d is out of range: use 1 to %d (a search costs %s of the budget)", p.Limit, MaxLimit, SearchCost())
	}
	if p.Offset < 0 {
		return adapters.Request{}, fmt.Errorf("offset %d is negative: use 0 or more", p.Offset)
	}
	if p.EntityType != "" && !oneOf(p.EntityType, EntityTypes) {
		return adapters.Request{}, fmt.Errorf("entity_type %q is unknown: use one of %s (mind the capitals)", p.EntityType, strings.Join(EntityTypes, ", "))
	}
	// The platform refuses neither an unknown sort nor a malformed or
	// inverted date: it silently orders by date or filters everything out.
	// So they are checked here, with what to fix.
	if p.Sort != "" && !oneOf(p.Sort, Sorts) {
		if p.Sort == "relevance" {
			return adapters.Request{}, fmt.Errorf("sort relevance does not exist on OpenBesluitvorming (it answers newest first): use one of %s", strings.Join(Sorts, ", "))
		}
		return adapters.Request{}, fmt.Errorf("sort %q is unknown: use one of %s", p.Sort, strings.Join(Sorts, ", "))
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	q := url.Values{}
	if s := strings.TrimSpace(p.Query); s != "" {
		q.Set("query", s)
	}
	if p.Organization != "" {
		q.Set("organization", p.Organization)
	}
	if p.EntityType != "" {
		q.Set("entityType", p.EntityType)
	}
	if p.Sort != "" {
		q.Set("sort", p.Sort)
	}
	if from != "" {
		q.Set("dateFrom", from)
	}
	if to != "" {
		q.Set("dateTo", to)
	}
	q.Set("limit", strconv.Itoa(p.Limit))
	if p.Offset > 0 {
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	return adapters.Get(SearchPath, q), nil
}

type searchResult struct {
	EntityID        string `json:"entityId"`
	EntityType      string `json:"entityType"`
	EntityTypeLabel string `json:"entityTypeLabel"`
	Organization    string `json:"organization"`
	Date            string `json:"date"`
	SortDate        string `json:"sortDate"`
	Title           string `json:"title"`
	Summary         string `json:"summary"`
	SummaryHTML     string `json:"summaryHtml"`
	DownloadURL     string `json:"downloadUrl"`
	MatchedPage     int    `json:"matchedPage"`
	PageCount       int    `json:"pageCount"`
}

// ParseSearch parses a /api/search answer.
func ParseSearch(body []byte) (adapters.Page, error) {
	var raw struct {
		Results            []searchResult `json:"results"`
		TotalCount         int            `json:"totalCount"`
		TotalIsApproximate bool           `json:"totalIsApproximate"`
		HasMore            bool           `json:"hasMore"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return adapters.Page{}, fmt.Errorf("OpenBesluitvorming search answer is not the expected JSON: %v", err)
	}
	page := adapters.Page{Total: raw.TotalCount, TotalApprox: raw.TotalIsApproximate, HasMore: raw.HasMore, Hits: []adapters.Hit{}}
	for _, r := range raw.Results {
		h := adapters.Hit{
			ID:      r.EntityID,
			Type:    r.EntityType,
			Title:   r.Title,
			Date:    dateOf(r.SortDate, r.Date),
			Source:  r.Organization,
			Snippet: adapters.Snippet(r.Summary, adapters.SnippetLen),
		}
		h.SetURL(link(r.DownloadURL))
		h.Citation = Citation(h.Source, r.Title, h.Date)
		if h.Title == "" {
			h.Title = r.EntityTypeLabel
		}
		if r.MatchedPage > 0 && r.PageCount > 0 {
			h.Snippet = strings.TrimSpace(fmt.Sprintf("(p. %d/%d) %s", r.MatchedPage, r.PageCount, h.Snippet))
		}
		page.Hits = append(page.Hits, h)
	}
	return page, nil
}

// ValidEntityID checks the shape <type>:<supplier>:<orgType>:<source>:<id>.
func ValidEntityID(id string) error {
	if err := adapters.CheckIDChars(id); err != nil {
		return err
	}
	parts := strings.SplitN(id, ":", 5)
	if len(parts) != 5 || parts[4] == "" {
		return fmt.Errorf("id %q is not an OpenBesluitvorming id: it looks like document:notubiz:gemeente:soest:12345 (take it from a search result)", id)
	}
	switch parts[0] {
	case "meeting", "document", "committee", "agenda_item", "person", "party", "motion", "recording":
	default:
		return fmt.Errorf("id %q starts with unknown type %q: use an id from a search result (meeting:..., document:..., motion:...)", id, parts[0])
	}
	return nil
}

// recognize is an entity id as ValidEntityID takes it, written without
// white space (Surface.Recognize).
func recognize(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.ContainsFunc(s, unicode.IsSpace) || ValidEntityID(s) != nil {
		return "", false
	}
	return s, true
}

// EntityRequest builds GET /api/entities/{id} (":" escaped as %3A).
func EntityRequest(id string) (adapters.Request, error) {
	if err := ValidEntityID(id); err != nil {
		return adapters.Request{}, err
	}
	esc := strings.ReplaceAll(url.PathEscape(id), ":", "%3A")
	return adapters.Request{Method: "GET", Path: "/api/entities/" + esc}, nil
}

type entity struct {
	EntityID        string       `json:"entityId"`
	EntityType      string       `json:"entityType"`
	EntityTypeLabel string       `json:"entityTypeLabel"`
	Title           string       `json:"title"`
	Organization    string       `json:"organization"`
	Date            string       `json:"date"`
	SortDate        string       `json:"sortDate"`
	MarkdownText    string       `json:"markdownText"`
	DownloadURL     string       `json:"downloadUrl"`
	PDFURL          string       `json:"pdfUrl"`
	ContentType     string       `json:"contentType"`
	MeetingID       string       `json:"meetingId"`
	Agenda          []agendaItem `json:"agenda"`
	Motions         []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Result      string `json:"result"`
		Tally       tally  `json:"tally"`
		VoteSummary string `json:"vote_summary"`
	} `json:"motions"`
	Recordings []struct {
		ID       string `json:"id"`
		Chapters []struct {
			Title string `json:"title"`
		} `json:"chapters"`
		Segments []struct {
			Start float64 `json:"start_seconds"`
			Text  string  `json:"text"`
		} `json:"segments"`
	} `json:"recordings"`
	Motion *struct {
		Name       string `json:"name"`
		MotionType string `json:"motion_type"`
		Status     string `json:"status"`
		Result     string `json:"result"`
		Tally      tally  `json:"tally"`
		// VoteSummary is the free-text breakdown some Notubiz councils
		// publish instead of per-member votes (OpenBesluitvorming's API.md,
		// schemas/motion.schema.json): shown verbatim.
		VoteSummary string `json:"vote_summary"`
		Votes       []struct {
			Option    string `json:"option"`
			VoterName string `json:"voter_name"`
			GroupName string `json:"group_name"`
		} `json:"votes"`
	} `json:"motion"`
}

type tally struct {
	InFavour *int `json:"in_favour"`
	Against  *int `json:"against"`
}

func (t tally) String() string {
	if t.InFavour == nil && t.Against == nil {
		return ""
	}
	n := func(p *int) string {
		if p == nil {
			return "?"
		}
		return strconv.Itoa(*p)
	}
	return n(t.InFavour) + " voor, " + n(t.Against) + " tegen"
}

type agendaItem struct {
	Title     string `json:"title"`
	Number    string `json:"number"`
	Documents []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"documents"`
	AgendaItems []agendaItem `json:"agenda_items"`
}

// ParseEntity parses a /api/entities/{id} answer of any type into a
// document whose Text is the markdown text (documents), the agenda with
// motions and transcript (meetings) or the votes (motions).
func ParseEntity(body []byte) (adapters.Document, error) {
	var e entity
	if err := json.Unmarshal(body, &e); err != nil {
		return adapters.Document{}, fmt.Errorf("OpenBesluitvorming entity answer is not the expected JSON: %v", err)
	}
	d := adapters.Document{
		ID: e.EntityID, Type: e.EntityType, Title: e.Title, Date: dateOf(e.SortDate, e.Date),
		Source: e.Organization, Meta: map[string]string{},
	}
	d.SetURL(link(e.DownloadURL))
	if e.MeetingID != "" {
		d.Meta["meeting_id"] = e.MeetingID
	}
	if e.ContentType != "" {
		d.Meta["content_type"] = e.ContentType
	}
	var sb strings.Builder
	switch {
	case e.Motion != nil:
		m := e.Motion
		if d.Title == "" {
			d.Title = m.Name
		}
		d.Meta["result"] = m.Result
		if m.Status != "" {
			d.Meta["status"] = m.Status
		}
		if t := m.Tally.String(); t != "" {
			d.Meta["tally"] = t
		}
		vs := strings.TrimSpace(m.VoteSummary)
		if vs != "" {
			d.Meta["vote_summary"] = vs
		}
		fmt.Fprintf(&sb, "%s\nUitslag: %s", m.Name, m.Result)
		if t := m.Tally.String(); t != "" {
			fmt.Fprintf(&sb, " (%s)", t)
		}
		sb.WriteString("\n")
		if vs != "" {
			fmt.Fprintf(&sb, "Stemverhouding: %s\n", vs)
		}
		for _, v := range m.Votes {
			fmt.Fprintf(&sb, "- %s (%s): %s\n", v.VoterName, v.GroupName, v.Option)
		}
	case e.MarkdownText != "":
		sb.WriteString(e.MarkdownText)
	default:
		if len(e.Agenda) > 0 {
			sb.WriteString("Agenda:\n")
			writeAgenda(&sb, e.Agenda, "")
		}
		if len(e.Motions) > 0 {
			sb.WriteString("Moties:\n")
			for _, m := range e.Motions {
				fmt.Fprintf(&sb, "- %s: %s", m.Name, m.Result)
				if t := m.Tally.String(); t != "" {
					fmt.Fprintf(&sb, " (%s)", t)
				}
				if vs := strings.TrimSpace(m.VoteSummary); vs != "" {
					fmt.Fprintf(&sb, "; stemverhouding: %s", vs)
				}
				fmt.Fprintf(&sb, " [%s]\n", m.ID)
			}
		}
		for _, r := range e.Recordings {
			if len(r.Segments) > 0 {
				sb.WriteString("Transcript:\n")
			}
			for _, s := range r.Segments {
				fmt.Fprintf(&sb, "[%d:%02d] %s\n", int(s.Start)/60, int(s.Start)%60, s.Text)
			}
		}
	}
	d.Citation = Citation(d.Source, d.Title, d.Date)
	if d.Title == "" {
		d.Title = e.EntityTypeLabel
	}
	d.Text = strings.TrimSpace(sb.String())
	return d, nil
}

func writeAgenda(sb *strings.Builder, items []agendaItem, indent string) {
	for _, a := range items {
		fmt.Fprintf(sb, "%s%s %s\n", indent, a.Number, a.Title)
		for _, doc := range a.Documents {
			fmt.Fprintf(sb, "%s  - document: %s [%s]\n", indent, doc.Name, doc.ID)
		}
		writeAgenda(sb, a.AgendaItems, indent+"  ")
	}
}

// Source is one organisation of the catalogue.
type Source struct {
	Key              string `json:"key"`
	Label            string `json:"label"`
	Supplier         string `json:"supplier"`
	OrganizationType string `json:"organizationType"`
	Implemented      bool   `json:"implemented"`
	IsAggregate      bool   `json:"isAggregate"`
}

// SourcesRequest builds GET /api/sources.
func SourcesRequest() adapters.Request { return adapters.Get("/api/sources", nil) }

// ParseSources parses /api/sources.
func ParseSources(body []byte) ([]Source, error) {
	var raw struct {
		Sources []Source `json:"sources"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("OpenBesluitvorming sources answer is not the expected JSON: %v", err)
	}
	if raw.Sources == nil {
		return nil, fmt.Errorf("OpenBesluitvorming sources answer has no sources list")
	}
	return raw.Sources, nil
}

// StatusRequest builds GET /api/status.
func StatusRequest() adapters.Request { return adapters.Get("/api/status", nil) }

// SourceStatus is the import freshness of one organisation.
type SourceStatus struct {
	SourceKey         string `json:"source"`
	Label             string `json:"label"`
	Supplier          string `json:"supplier,omitempty"`
	State             string `json:"state"`
	LastSuccessAt     string `json:"last_success_at,omitempty"`
	LastRunAt         string `json:"last_run_at,omitempty"`
	LastRunStatus     string `json:"last_run_status,omitempty"`
	LastErrorMessage  string `json:"last_error,omitempty"`
	LatestContentDate string `json:"latest_content_date,omitempty"`
	LastIndexedAt     string `json:"last_indexed_at,omitempty"`
	DiscontinuedAt    string `json:"discontinued_at,omitempty"`
	SucceededBy       string `json:"succeeded_by,omitempty"`
}

// SupplierStatus is the import health of one supplier.
type SupplierStatus struct {
	Supplier         string `json:"supplier"`
	Label            string `json:"label"`
	State            string `json:"state"`
	SourceCount      int    `json:"source_count"`
	OKSourceCount    int    `json:"ok_source_count"`
	LastSuccessAt    string `json:"last_success_at,omitempty"`
	LastErrorMessage string `json:"last_error,omitempty"`
}

// Status is the whole /api/status answer.
type Status struct {
	GeneratedAt string           `json:"generated_at"`
	WindowHours int              `json:"window_hours,omitempty"`
	Suppliers   []SupplierStatus `json:"suppliers"`
	Sources     []SourceStatus   `json:"sources"`
}

// ParseStatus parses /api/status.
func ParseStatus(body []byte) (Status, error) {
	var raw struct {
		GeneratedAt string `json:"generatedAt"`
		WindowHours int    `json:"windowHours"`
		Suppliers   []struct {
			Supplier         string `json:"supplier"`
			Label            string `json:"label"`
			State            string `json:"state"`
			SourceCount      int    `json:"sourceCount"`
			OKSourceCount    int    `json:"okSourceCount"`
			LastSuccessAt    string `json:"lastSuccessAt"`
			LastErrorMessage string `json:"lastErrorMessage"`
		} `json:"suppliers"`
		Sources []json.RawMessage `json:"sources"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Status{}, fmt.Errorf("OpenBesluitvorming status answer is not the expected JSON: %v", err)
	}
	st := Status{GeneratedAt: raw.GeneratedAt, WindowHours: raw.WindowHours, Suppliers: []SupplierStatus{}, Sources: []SourceStatus{}}
	for _, s := range raw.Suppliers {
		st.Suppliers = append(st.Suppliers, SupplierStatus{s.Supplier, s.Label, s.State, s.SourceCount, s.OKSourceCount, s.LastSuccessAt, s.LastErrorMessage})
	}
	for _, m := range raw.Sources {
		s, err := ParseSourceStatus(m)
		if err != nil {
			return Status{}, err
		}
		st.Sources = append(st.Sources, s)
	}
	return st, nil
}

// ParseSourceStatus parses one sources[] item of /api/status.
func ParseSourceStatus(b []byte) (SourceStatus, error) {
	var s struct {
		SourceKey         string `json:"sourceKey"`
		Label             string `json:"label"`
		Supplier          string `json:"supplier"`
		State             string `json:"state"`
		LastSuccessAt     string `json:"lastSuccessAt"`
		LastRunAt         string `json:"lastRunAt"`
		LastRunStatus     string `json:"lastRunStatus"`
		LastErrorMessage  string `json:"lastErrorMessage"`
		LatestContentDate string `json:"latestContentDate"`
		LastIndexedAt     string `json:"lastIndexedAt"`
		DiscontinuedAt    string `json:"discontinuedAt"`
		SucceededBy       *struct {
			Label     string `json:"label"`
			SourceKey string `json:"sourceKey"`
		} `json:"succeededBy"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return SourceStatus{}, fmt.Errorf("OpenBesluitvorming status item is not the expected JSON: %v", err)
	}
	out := SourceStatus{SourceKey: s.SourceKey, Label: s.Label, Supplier: s.Supplier, State: s.State,
		LastSuccessAt: s.LastSuccessAt, LastRunAt: s.LastRunAt, LastRunStatus: s.LastRunStatus,
		LastErrorMessage: s.LastErrorMessage, LatestContentDate: s.LatestContentDate,
		LastIndexedAt: s.LastIndexedAt, DiscontinuedAt: s.DiscontinuedAt}
	if s.SucceededBy != nil {
		out.SucceededBy = s.SucceededBy.SourceKey
	}
	return out, nil
}

// dateOf prefers the ISO sortDate's day, else the Dutch text date.
func dateOf(sortDate, date string) string {
	if len(sortDate) >= 10 {
		return strings.ToValidUTF8(sortDate[:10], "") // never half a character
	}
	return date
}

// link leaves out a link the platform cut short (the docs' examples say
// "https://..."): no link, rather than a broken one. SetURL checks the
// rest (adapters.CheckLink).
func link(u string) string {
	if strings.HasSuffix(u, "...") {
		return ""
	}
	return u
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}
