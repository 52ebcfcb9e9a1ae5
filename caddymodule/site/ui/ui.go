// Package ui renders BesluitBron's own pages (the search page, the reader
// view, the status page) from embedded html/template files, in Dutch or
// English, and serves their two embedded assets (a style sheet and a
// script). It knows nothing of Caddy or of how the data is fetched: the
// site module fills the view models below.
package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/url"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

var tmpl = template.Must(template.New("").ParseFS(templateFS, "templates/*.html"))

// Asset is one embedded file served under /assets/.
type Asset struct {
	Name, ContentType string
	Body              []byte
}

// assets are the page's files, by name (site.css, site.js).
var assets = func() map[string]Asset {
	out := map[string]Asset{}
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
	entries, _ := fs.ReadDir(assetFS, "assets")
	for _, e := range entries {
		b, _ := assetFS.ReadFile("assets/" + e.Name())
		ext := e.Name()[strings.LastIndexByte(e.Name(), '.'):]
		out[e.Name()] = Asset{Name: e.Name(), ContentType: types[ext], Body: b}
	}
	return out
}()

// AssetNamed is the page's file of that name (site.css, site.js).
func AssetNamed(name string) (Asset, bool) {
	a, ok := assets[name]
	return a, ok
}

// AssetVersion changes whenever an asset does: pages link the assets
// with ?v=<it>, so a browser may keep them long and never uses an old
// one with a new page.
var AssetVersion = func() string {
	h := sha256.New()
	for _, name := range []string{"site.css", "site.js"} {
		h.Write(assets[name].Body)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

// Page is what every page shares: its language and where its links go.
type Page struct {
	Lang        string
	DefaultLang string
	Title       string
	Nav         string // "search" or "status": the current menu item
	Version     string
	// Path and Query are the current address, for the language switch.
	Path  string
	Query url.Values
}

// T returns the message key in the page's language.
func (p Page) T(key string) string { return Text(p.Lang, key) }

// Unit is a replica's unit (replica.Spec.Units: "records",
// "decisions") in the page's language; a unit without a translation as
// it is.
func (p Page) Unit(unit string) string {
	if s, ok := messages[p.Lang]["unit."+unit]; ok {
		return s
	}
	return unit
}

// F formats the message key with args.
func (p Page) F(key string, args ...any) string { return fmt.Sprintf(p.T(key), args...) }

// AssetVersion is the assets' version, for their links.
func (p Page) AssetVersion() string { return AssetVersion }

// Link returns path with the page's language kept (lang=... unless it is
// the default).
func (p Page) Link(path string) string { return p.LinkQ(path, nil) }

// LinkQ is Link with a query.
func (p Page) LinkQ(path string, q url.Values) string {
	v := url.Values{}
	for k, vs := range q {
		v[k] = append([]string(nil), vs...)
	}
	v.Del("lang")
	if p.Lang != p.DefaultLang && p.Lang != "" {
		v.Set("lang", p.Lang)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// SwitchURL is the current address in the other language.
func (p Page) SwitchURL() string {
	other := Text(p.Lang, "lang.switch.code")
	o := p
	o.Lang = other
	return o.LinkQ(p.Path, p.Query)
}

// PlatformChoice is one platform checkbox of the search form.
type PlatformChoice struct {
	Key, Name string
	Checked   bool
}

// Outcome is what one platform did for a search. State is answered,
// cache, timeout, over_budget, failed, skipped, or waiting (the live
// view, before it answered).
type Outcome struct {
	Platform, Name, State string
	RetryAfterSeconds     int
	// Reason is the engine's reason code (fanout.Reason*), which the page
	// says in its own language; Error the engine's English text, shown
	// only for a code the page does not know.
	Reason, Error string
	Hits          int
}

// Hit is one search result.
type Hit struct {
	Platform, PlatformName, Type, ID, Title, Date, Organisation, Snippet string
	// URL is the document at its source; ReadURL the reader view.
	URL, ReadURL string
	// Citation is how the document is cited (ECLI:..., Stb. 2018, 84);
	// URI the document as a BesluitBron MCP resource.
	Citation, URI string
	Also          []Link
	// Dossier is the Kamerstuk dossier the hit is a paper of (36200-VII),
	// DossierURL its timeline; "" when the hit names none or the site
	// offers no timeline.
	Dossier, DossierURL string
}

// Link is the same document on another platform.
type Link struct {
	Platform, PlatformName, URL, ReadURL string
}

// SearchView is the search page, before a search or with its answer
// (complete, or so far in the live view).
type SearchView struct {
	Page
	Words, From, To, Organisation string
	Platforms                     []PlatformChoice
	FiltersOpen                   bool
	// Sort is the order the visitor chose ("" for the default), Order
	// the order the hits are in (relevance or date), OtherOrderURL the
	// same search in the other order.
	Sort, Order, OtherOrderURL string
	Searched, Done, Partial    bool
	Error                      string
	Outcomes                   []Outcome
	Hits                       []Hit
	Announce                   string
}

// StateText says an outcome in words.
func (v SearchView) StateText(o Outcome) string {
	switch o.State {
	case "answered", "cache", "timeout", "failed", "skipped", "waiting":
		return v.T("outcome." + o.State)
	case "over_budget":
		s := v.T("outcome.over_budget")
		if o.RetryAfterSeconds > 0 {
			s += ", " + v.F("outcome.retry", o.RetryAfterSeconds)
		}
		return s
	}
	return o.State
}

// ReasonText says why a platform was skipped, timed out, over budget or
// failed, in the page's language: the text for the engine's reason code;
// the engine's own (English) text only for a code the page does not know,
// so that a new reason is shown rather than hidden.
func (v SearchView) ReasonText(o Outcome) string { return v.reasonText(o.Reason, o.Error) }

func (p Page) reasonText(code, fallback string) string {
	if code != "" {
		if s, ok := messages[p.Lang]["reason."+code]; ok {
			return s
		}
		if s, ok := messages[NL]["reason."+code]; ok {
			return s
		}
	}
	return fallback
}

// OrderText says which order the hits are in.
func (v SearchView) OrderText() string { return v.T("order." + v.Order) }

// OtherOrderText offers the other order.
func (v SearchView) OtherOrderText() string {
	if v.Order == "relevance" {
		return v.T("order.to.date")
	}
	return v.T("order.to.relevance")
}

// CountText says how many results there are.
func (v SearchView) CountText() string {
	if !v.Done && len(v.Hits) == 0 {
		return ""
	}
	if len(v.Hits) == 1 {
		return "(" + v.T("results.count.one") + ")"
	}
	return "(" + v.F("results.count", len(v.Hits)) + ")"
}

// Answered counts the platforms that are no longer waiting.
func (v SearchView) Answered() int {
	n := 0
	for _, o := range v.Outcomes {
		if o.State != "waiting" {
			n++
		}
	}
	return n
}

// Progress is the sentence the live region announces.
func (v SearchView) Progress() string {
	if v.Error != "" {
		return v.F("results.error", v.Error)
	}
	if !v.Done {
		return v.F("results.progress", v.Answered(), len(v.Outcomes))
	}
	count := v.T("results.count.one")
	if len(v.Hits) != 1 {
		count = v.F("results.count", len(v.Hits))
	}
	return v.F("results.done", count, len(v.Outcomes))
}

// Heading is the page's h1.
func (v SearchView) Heading() string {
	if !v.Searched {
		return v.T("search.title")
	}
	if v.Words == "" {
		return v.T("results.title")
	}
	return v.T("results.title") + ": " + v.Words
}

// ReaderView is one page of a document's text.
type ReaderView struct {
	Page
	Platform, PlatformName, ID, Type, Title, Date, Organisation string
	SourceURL, SourceHost, BackURL, PrevURL, NextURL            string
	// Citation is how the document is cited, URI the document as a
	// BesluitBron MCP resource (besluitbron://...).
	Citation, URI   string
	Text            string
	From, To, Total int
	Error           string
	// Votes are how the document was voted on (votes.go); VotesError
	// why they could not be read.
	Votes      []VoteView
	VotesError string
	// VotesOnly: the reference is no document but what was voted on (a
	// zaak number): the page shows its votes alone.
	VotesOnly bool
	// Dossier and DossierURL as for Hit.
	Dossier, DossierURL string
}

// TextHTML is the page of text as structured HTML (Markdown): headings,
// lists and emphasis, every character of the text escaped.
func (v ReaderView) TextHTML() template.HTML { return Markdown(v.Text) }

// Copyable is a value shown as selectable text with a button that copies
// it (the "copy" template); the button needs the page's script.
type Copyable struct {
	Page
	Value, Label string
}

// Copy is value with its copy button, whose accessible name is the
// message key labelKey with the value ("Kopieer de verwijzing %s").
func (p Page) Copy(value, labelKey string) Copyable {
	return Copyable{Page: p, Value: value, Label: p.F(labelKey, value)}
}

// RangeText says which part of the text the page shows.
func (v ReaderView) RangeText() string { return v.F("reader.pages", v.From+1, v.To, v.Total) }

// StatusRow is one platform on the status page (and in /status.json).
type StatusRow struct {
	Key  string `json:"platform"`
	Name string `json:"name"`
	// Reachable is yes, no or unknown; ReachNote says why, in English.
	// ReachReason is the same as a code: the last search's or reader's
	// reason (fanout.Reason*), or ReasonUpstreamErrors with their count
	// in UpstreamErrors; ReachWhy the English text alone, for a code the
	// page does not know; LoadOK of LoadTotal sources were fine by the
	// platform's load status, which it calls LoadName (OpenBesluitvorming's
	// Laadstatus; both 0 when unknown).
	Reachable      string `json:"reachable"`
	ReachNote      string `json:"reachable_note,omitempty"`
	ReachReason    string `json:"reachable_reason,omitempty"`
	UpstreamErrors int64  `json:"upstream_errors_last_hour,omitempty"`
	ReachWhy       string `json:"-"`
	LoadName       string `json:"-"`
	LoadOK         int    `json:"-"`
	LoadTotal      int    `json:"-"`
	// HasBudget: BesluitBron keeps a budget for the platform; Available
	// units of Capacity are left, Waiting calls wait. P50MS and P95MS are
	// the wait over the last hour (-1: no call in it).
	HasBudget bool    `json:"has_budget"`
	Available float64 `json:"budget_available,omitempty"`
	Capacity  float64 `json:"budget_capacity,omitempty"`
	Paused    bool    `json:"budget_paused,omitempty"`
	Waiting   int     `json:"waiting,omitempty"`
	P50MS     float64 `json:"wait_p50_ms"`
	P95MS     float64 `json:"wait_p95_ms"`
	// HasCache: the platform has a cache; Entries it holds, HitRatio of
	// its lookups in the last hour were hits (-1: no lookup).
	HasCache bool    `json:"has_cache"`
	Entries  int64   `json:"cache_entries"`
	HitRatio float64 `json:"cache_hit_ratio_last_hour"`
	Lookups  int64   `json:"cache_lookups_last_hour"`
}

// LoadView is a platform's load status in short (adapters.LoadReporter:
// OpenBesluitvorming's Laadstatus): Name is what the platform calls it,
// PlatformName the platform; Groups are its groups of sources (council
// information systems).
type LoadView struct {
	Platform     string     `json:"platform"`
	PlatformName string     `json:"-"`
	Name         string     `json:"name"`
	Known        bool       `json:"known"`
	OK           int        `json:"sources_ok"`
	Total        int        `json:"sources"`
	Measured     string     `json:"measured,omitempty"`
	Groups       []GroupRow `json:"groups,omitempty"`
}

// GroupRow is one group of sources' state (a council information
// system).
type GroupRow struct {
	Label string `json:"label"`
	State string `json:"state"`
	OK    int    `json:"sources_ok"`
	Count int    `json:"sources"`
}

// CaseLawView is the case-law index as the status page shows it. The
// site fills it from the app's status; ui stays free of Caddy, so its
// tests link without it.
type CaseLawView struct {
	Error        string // why the index cannot answer; "" when it can
	Decisions    uint64
	CompleteUpTo string // RFC 3339; "" before the first complete pass
	Running      bool
	PagesDone    int
	PagesLeft    int // -1 until the pass's first page gave the feed's count
}

// ReplicaView is one of BesluitBron's replicas of a platform's feed as
// the status page shows it (the case-law index has its own block,
// CaseLawView).
type ReplicaView struct {
	PlatformName string
	Source       string // how its provenance names it
	Unit         string // what a record is, plural
	CaseLawView
	// Failing is the harvest's last failure while it fails (the disk
	// budget, the platform's refusal), "" while it goes well.
	Failing string
	// Sources are its sources, for a feed per source.
	Sources []ReplicaSourceRow
}

// ReplicaSourceRow is one source of a replica: what it holds, its newest
// change, and when its feed was last read to the end, and how long ago.
type ReplicaSourceRow struct {
	Source     string
	Records    uint64
	LastChange string // RFC 3339; "" none read
	CaughtUpAt string // RFC 3339; "" not yet
	Lag        string // since CaughtUpAt, to the minute
}

// StatusView is the status page.
type StatusView struct {
	Page
	Rows           []StatusRow
	Loads          []*LoadView
	CaseLaw        *CaseLawView
	Replicas       []ReplicaView
	Updated        string
	UpdatedISO     string
	RefreshSeconds int

	// Store is "shared", "degraded" or "local": whether this instance
	// shares its cache and budgets with others through Redis.
	Store string
}

// StoreText says the store mode in words.
func (v StatusView) StoreText() string {
	switch v.Store {
	case "shared", "degraded":
		return v.T("status.store." + v.Store)
	}
	return v.T("status.store.local")
}

// ReachText says reachable in words.
func (v StatusView) ReachText(r StatusRow) string {
	switch r.Reachable {
	case "yes":
		return v.T("status.yes")
	case "no":
		return v.T("status.no")
	}
	return v.T("status.unknown")
}

// ReasonUpstreamErrors is a status row's reason when the platform cache
// stored answers against upstream errors in the last hour.
const ReasonUpstreamErrors = "upstream_errors"

// NoteText says why a platform may not be reachable, and its load status,
// in the page's language.
func (v StatusView) NoteText(r StatusRow) string {
	var parts []string
	switch {
	case r.ReachReason == ReasonUpstreamErrors:
		parts = append(parts, v.F("status.upstream_errors", r.UpstreamErrors))
	case r.ReachReason != "" || r.ReachWhy != "":
		parts = append(parts, v.reasonText(r.ReachReason, r.ReachWhy))
	}
	if r.LoadTotal > 0 {
		parts = append(parts, fmt.Sprintf("%s: %d/%d", r.LoadName, r.LoadOK, r.LoadTotal))
	}
	return strings.Join(parts, "; ")
}

// WaitText is the wait's p50 / p95.
func (v StatusView) WaitText(r StatusRow) string {
	if r.P50MS < 0 {
		return v.T("status.nodata")
	}
	return ms(r.P50MS) + " / " + ms(r.P95MS)
}

// RatioText is the hit ratio as a percentage.
func (v StatusView) RatioText(r StatusRow) string {
	if !r.HasCache || r.HitRatio < 0 {
		return v.T("status.nodata")
	}
	return fmt.Sprintf("%.0f%% (%d)", r.HitRatio*100, r.Lookups)
}

func ms(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.1f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// ErrorView is an error page.
type ErrorView struct {
	Page
	Message string
}

// Render writes the named page ("search", "reader", "status", "error")
// or fragment ("results", "statustable") with data.
func Render(w io.Writer, name string, data any) error {
	return tmpl.ExecuteTemplate(w, name, data)
}

// RenderString renders a fragment into a string (the live view's lines).
func RenderString(name string, data any) (string, error) {
	var b bytes.Buffer
	err := tmpl.ExecuteTemplate(&b, name, data)
	return b.String(), err
}
