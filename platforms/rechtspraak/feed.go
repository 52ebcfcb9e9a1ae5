package rechtspraak

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
)

// The harvest of /uitspraken/zoeken: the whole feed, page by page, in the
// order of modification, into a local index. Unlike SearchRequest (a
// model's query: small pages, a decision date filter) it asks for full
// pages and a modification window, and ParseFeed keeps what an index
// holds, tombstones included.

// FeedMax is the largest page the platform serves (and its default).
const FeedMax = 1000

// MaxFeedBytes bounds the answer ParseFeed reads: a full page of 1000
// entries with long summaries is a few MB; the cache holds at most 32 MiB
// per answer, so a bigger body is not a feed page.
const MaxFeedBytes = 32 << 20

// Per-field bounds, so one odd entry cannot bloat the index. A real
// inhoudsindicatie runs to a few thousand characters at most.
const (
	maxFeedTitle   = 1000
	maxFeedSummary = 8000
)

// modifiedFloor stands in for an open lower bound when only ModifiedUntil
// is set: the platform takes modified once as "since", so a range needs
// both ends. Nothing in the feed is older.
var modifiedFloor = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// FeedParams select one page of the feed.
type FeedParams struct {
	// ModifiedSince and ModifiedUntil bound the modification time
	// (inclusive, whole seconds, sent as UTC like the entries' updated);
	// zero means unset. The platform takes modified once as "since" and
	// twice as a range.
	ModifiedSince time.Time
	ModifiedUntil time.Time
	// DateFrom and DateTo (YYYY-MM-DD) bound the decision date. The
	// platform's date once means that one day, so a lower bound needs an
	// upper one: pass today as DateTo.
	DateFrom string
	DateTo   string
	// From is the offset of the page's first entry, Max its size
	// (1..FeedMax).
	From int
	Max  int
	// Type is "" (both), Uitspraak or Conclusie.
	Type string
	// AllECLIs leaves out return=DOC. With return=DOC the platform lists
	// only ECLIs with a published document, so a withdrawn one (a
	// tombstone) is not listed either: a harvest that must learn of
	// withdrawals sets AllECLIs and also gets metadata-only ECLIs.
	AllECLIs bool
}

// FeedRequest checks p and builds GET /uitspraken/zoeken for one harvest
// page, sorted ascending on modification (sort=ASC).
func FeedRequest(p FeedParams) (adapters.Request, error) {
	if p.Max < 1 || p.Max > FeedMax {
		return adapters.Request{}, fmt.Errorf("max %d is out of range: use 1 to %d", p.Max, FeedMax)
	}
	if p.From < 0 {
		return adapters.Request{}, fmt.Errorf("from %d is out of range: use 0 or more", p.From)
	}
	if p.Type != "" && p.Type != "Uitspraak" && p.Type != "Conclusie" {
		return adapters.Request{}, fmt.Errorf("type %q is unknown: use Uitspraak or Conclusie, or leave it empty for both", p.Type)
	}
	since, until := p.ModifiedSince, p.ModifiedUntil
	if !since.IsZero() && !until.IsZero() && until.Before(since) {
		return adapters.Request{}, fmt.Errorf("ModifiedUntil %s is before ModifiedSince %s: swap them",
			until.UTC().Format(time.RFC3339), since.UTC().Format(time.RFC3339))
	}
	for _, t := range []time.Time{since, until} {
		if !t.IsZero() && (t.Year() < modifiedFloor.Year() || t.Year() > 9999) {
			return adapters.Request{}, fmt.Errorf("modification time %s is out of range: use a year from %d to 9999", t.UTC().Format(time.RFC3339), modifiedFloor.Year())
		}
	}
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	if from != "" && to == "" {
		return adapters.Request{}, fmt.Errorf("date_from %s needs date_to as well (the platform reads one date as that day only): pass today's date", from)
	}
	if to != "" && from == "" {
		from = "1900-01-01"
	}
	q := url.Values{}
	if p.Type != "" {
		q.Set("type", p.Type)
	}
	if from != "" {
		q.Add("date", from)
		q.Add("date", to)
	}
	if !since.IsZero() || !until.IsZero() {
		if since.IsZero() {
			since = modifiedFloor
		}
		q.Add("modified", modifiedParam(since))
		if !until.IsZero() {
			q.Add("modified", modifiedParam(until))
		}
	}
	if !p.AllECLIs {
		q.Set("return", "DOC")
	}
	q.Set("sort", "ASC")
	q.Set("max", strconv.Itoa(p.Max))
	q.Set("from", strconv.Itoa(p.From))
	return adapters.Get("/uitspraken/zoeken", q), nil
}

// modifiedParam writes t as the platform's YYYY-MM-DDThh:mm:ss in UTC,
// cut to the second: entries' updated are whole seconds, so cutting loses
// none at either (inclusive) end.
func modifiedParam(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05")
}

// Feed is one parsed page of the harvest.
type Feed struct {
	// Total is the number of ECLIs the query matches (the subtitle
	// "Aantal gevonden ECLI's: N"); -1 when the subtitle does not say.
	Total   int
	Entries []FeedEntry
	// Skipped counts entries left out because their id is not an ECLI.
	Skipped int
}

// FeedEntry is what the feed says of one ECLI.
type FeedEntry struct {
	ECLI    string
	Title   string // "ECLI, court, dd-mm-yyyy, case numbers"
	Summary string // the inhoudsindicatie; "" when the feed says "-"
	Court   string // from the title; "" when it names none
	Date    string // decision date YYYY-MM-DD from the title; "" when it has none
	// Type is "conclusie" for the Parket bij de Hoge Raad and otherwise ""
	// (the feed does not say; see HitType). A harvest that asked for one
	// Type knows it for every entry.
	Type string
	// Modified is the entry's updated (UTC); zero when missing or
	// malformed.
	Modified time.Time
	// Deleted marks a tombstone (deleted="doc": the document was
	// withdrawn; deleted="ecli": the ECLI was): remove it from an index.
	Deleted bool
}

var subtitleCount = regexp.MustCompile(`(?i)aantal gevonden ecli'?s\s*:\s*(\d+)`)

// ParseFeed parses one page of /uitspraken/zoeken for a harvest. Bodies
// larger than MaxFeedBytes and anything that is not an Atom feed are
// errors; odd entries are kept as far as they can be read (a title
// without a court or date leaves those empty).
func ParseFeed(body []byte) (Feed, error) {
	if len(body) > MaxFeedBytes {
		return Feed{}, fmt.Errorf("Rechtspraak feed page is %d bytes, more than the %d a page can be", len(body), MaxFeedBytes)
	}
	var raw struct {
		XMLName xml.Name
		feed
	}
	if err := decode(body, &raw); err != nil {
		return Feed{}, fmt.Errorf("Rechtspraak feed page is not an Atom feed: %v", err)
	}
	if raw.XMLName.Local != "feed" {
		return Feed{}, fmt.Errorf("Rechtspraak feed page has root <%s>, expected an Atom <feed>", raw.XMLName.Local)
	}
	f := Feed{Total: -1, Entries: make([]FeedEntry, 0, len(raw.Entries))}
	if m := subtitleCount.FindStringSubmatch(raw.Subtitle); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			f.Total = n
		}
	}
	for _, e := range raw.Entries {
		id, err := ValidECLI(e.ID)
		if err != nil {
			f.Skipped++
			continue
		}
		fe := FeedEntry{
			ECLI:     id,
			Title:    adapters.Cut(adapters.Squash(e.Title), maxFeedTitle),
			Summary:  adapters.Cut(adapters.Squash(e.Summary), maxFeedSummary),
			Type:     HitType(id, ""),
			Modified: parseUpdated(e.Updated),
			Deleted:  e.Deleted != "",
		}
		if fe.Summary == "-" {
			fe.Summary = ""
		}
		fe.Court, fe.Date = titleParts(fe.Title)
		f.Entries = append(f.Entries, fe)
	}
	return f, nil
}

// titleParts reads court and decision date from a title "ECLI, court,
// dd-mm-yyyy, case numbers". A court name may hold ", " itself (the
// Gemeenschappelijk Hof van Justitie van Aruba, Curaçao, ...), so the
// court is everything between the ECLI and the first part that is a
// date. Without a date the court is the first part after the ECLI (the
// title's own, which is normally the entry's).
func titleParts(title string) (court, date string) {
	parts := strings.Split(title, ", ")
	if _, err := ValidECLI(parts[0]); err == nil {
		parts = parts[1:]
	}
	for i, p := range parts {
		if d, err := time.Parse("02-01-2006", strings.TrimSpace(p)); err == nil {
			return strings.TrimSpace(strings.Join(parts[:i], ", ")), d.Format(time.DateOnly)
		}
	}
	if len(parts) > 0 {
		court = strings.TrimSpace(parts[0])
	}
	return court, ""
}

// parseUpdated reads an entry's updated: RFC 3339 as the real feed writes
// it (2013-04-04T15:31:27Z), or without a zone, taken as UTC.
func parseUpdated(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
