package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// What a replica of the export can answer words from is what its records
// hold. OpenBesluitvorming's own search reads, of each entity, what its
// export payload holds (the payload is compactEntityPayload of the
// entity, and the search's text the project*Content functions, both in
// its src/quickwit/project.ts), plus a document's full text (md_text),
// which the export never holds. So a replica answers a word search as the
// platform would, but for words inside a document: a search for those goes
// to the platform (issue "Feeds, not queries (1)", point 3).

// FeedDoc is an export record as a replica indexes it.
type FeedDoc struct {
	ID     string // entity_id
	Type   string // entity_type, lower case: meeting, document, motion
	Source string // source_key
	Title  string // the payload's name or title
	// Date is the entity's day (YYYY-MM-DD), the day the platform's
	// search filters and sorts on (API.md, "What the date is"): a
	// meeting's start, the meeting a document or motion was last
	// discussed at, else the day the source last changed it; the day the
	// record was written when the payload has none; "" when nothing parses.
	Date string
	// Words are the payload's other words, as the platform's search reads
	// them: classification, location, file name, a motion's type, status,
	// result, proposers, parties and vote summary, the titles,
	// descriptions and document names of a meeting's agenda at any depth.
	Words string
	// Hash is the record's content_hash: an upsert with the hash already
	// held changes nothing.
	Hash string
	// URL is where the entity's document is published (the payload's
	// original_url, or downloadUrl as the entity details write it); ""
	// none. A hit links to it as the platform's own search does; the
	// surface checks it (adapters.CheckLink) before it shows it.
	URL string
}

// The payload members read, in the order tried. The export's payloads are
// compactEntityPayload's (project.ts; meeting, document and motion
// schemas in the platform's schemas/); the entity details' members
// (title, sortDate, entityTypeLabel; testdata/fixtures/obv/entity-*.json)
// are read too, which a payload may follow.
var (
	titleKeys = []string{"name", "title"}
	// dateKeys: a meeting's start_date; a document's or motion's
	// last_discussed_at, else a motion's date or a document's
	// date_modified (project.ts, start_date of the search document).
	dateKeys = []string{"start_date", "last_discussed_at", "sortDate", "date", "date_modified"}
	// wordKeys hold a string or a list of strings. committee and
	// organization are entity references in the platform's schemas; they
	// count only where they are names (refWord).
	wordKeys = []string{"classification", "location", "file_name", "description", "motion_type", "status", "result",
		"proposers", "co_proposers", "parties", "vote_summary", "agenda_item_hint", "committee", "organization", "entityTypeLabel"}
	urlKeys = []string{"original_url", "downloadUrl"}
	// nestedKeys hold objects, or lists of them, whose titles, names and
	// descriptions are the entity's words too, at any depth: a meeting's
	// agenda (its items' agenda_items and documents, as the platform's
	// flattenAgendaContent reads them), and the entity details' motions
	// of a meeting and motion of a motion.
	nestedKeys = []string{"agenda", "agenda_items", "documents", "motions", "motion"}
)

// maxNesting bounds how deep nested titles are read: an agenda is a few
// levels deep, and a hostile payload's nesting costs no more than this.
const maxNesting = 16

// FeedDocument reads an upsert record for a replica. A payload that is no
// JSON object is an error (ParseExportPage already refuses one).
func FeedDocument(r ExportRecord) (FeedDoc, error) {
	var p map[string]any
	if err := json.Unmarshal(r.Payload, &p); err != nil || p == nil {
		return FeedDoc{}, fmt.Errorf("record %s: the payload is no JSON object", r.EntityID)
	}
	d := FeedDoc{ID: r.EntityID, Type: strings.ToLower(r.EntityType), Source: r.SourceKey, Hash: r.ContentHash}
	d.Title = firstString(p, titleKeys)
	d.URL = firstString(p, urlKeys)
	for _, k := range dateKeys {
		if day, ok := dayOf(p[k]); ok {
			d.Date = day
			break
		}
	}
	if d.Date == "" {
		d.Date, _ = dayOf(r.Time)
	}
	d.Words = strings.Join(payloadWords(p), "\n")
	return d, nil
}

// payloadWords are the words of an object other than its title: its
// wordKeys, its votes' parties and its nested objects' titles, names and
// descriptions.
func payloadWords(p map[string]any) []string {
	var words []string
	for _, k := range wordKeys {
		for _, s := range textsOf(p[k]) {
			if (k != "committee" && k != "organization") || refWord(s) {
				words = append(words, s)
			}
		}
	}
	if votes, ok := p["votes"].([]any); ok {
		// The parties that voted, each once (projectMotionContent).
		seen := map[string]bool{}
		for _, v := range votes {
			if o, ok := v.(map[string]any); ok {
				if g, ok := o["group_name"].(string); ok && g != "" && !seen[g] {
					seen[g] = true
					words = append(words, g)
				}
			}
		}
	}
	for _, k := range nestedKeys {
		words = append(words, nestedTitles(p[k], 1)...)
	}
	return words
}

// textsOf is v as strings: a string, or the strings of a list.
func textsOf(v any) []string {
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// refWord reports whether a committee or organization member is a name
// ("Commissie Ruimte", "Soest") rather than a reference: an entity id
// (committee:ibabs:gemeente:soest:42) or a URI, which are no words.
func refWord(s string) bool {
	return !strings.Contains(s, "://") && strings.Count(s, ":") < 2
}
func firstString(p map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := p[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// dayOf reads a date as the export and the entity details write it
// (2024-11-07, 2024-11-07 20:00:00, 2024-11-07T20:00:00.000Z).
func dayOf(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || len(s) < len(time.DateOnly) {
		return "", false
	}
	t, err := time.Parse(time.DateOnly, s[:len(time.DateOnly)])
	if err != nil {
		return "", false
	}
	return t.Format(time.DateOnly), true
}

// nestedTitles are the titles, names and descriptions of a list of
// objects or of one object, and of what each nests in turn.
func nestedTitles(v any, depth int) []string {
	var out []string
	add := func(o map[string]any) {
		for _, k := range []string{"title", "name", "description"} {
			if s, ok := o[k].(string); ok && s != "" {
				out = append(out, s)
			}
		}
		if depth < maxNesting {
			for _, k := range nestedKeys {
				out = append(out, nestedTitles(o[k], depth+1)...)
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		add(x)
	case []any:
		for _, e := range x {
			if o, ok := e.(map[string]any); ok {
				add(o)
			}
		}
	}
	return out
}
