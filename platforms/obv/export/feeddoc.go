package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// What a replica of the export can answer words from is what its records
// hold: names, titles, descriptions, committees, organisations, agenda
// items and motions' results, as present in each payload. Full text is
// never in the export, so words inside a document are not in the
// replica: a search for those goes to the platform (issue "Feeds, not
// queries (1)", point 3).

// FeedDoc is an export record as a replica indexes it.
type FeedDoc struct {
	ID     string // entity_id
	Type   string // entity_type: meeting, document, motion
	Source string // source_key
	Title  string // the payload's name or title
	// Date is the entity's day (YYYY-MM-DD): the payload's, else the
	// day the record was written (a motion's payload names its meeting,
	// not a day); "" when neither parses.
	Date string
	// Words are the payload's other words (committee, organisation,
	// description, result, agenda items' and motions' titles).
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

// titleKeys, dateKeys and wordKeys are the payload members read, in the
// order tried: the export's (its emulator writes name, start_date,
// committee, organization, result) and the entity details' (title, date
// as sortDate, organization; testdata/fixtures/obv/entity-*.json), which
// a payload may follow.
var (
	titleKeys = []string{"name", "title"}
	dateKeys  = []string{"start_date", "sortDate", "date"}
	wordKeys  = []string{"committee", "organization", "description", "result", "entityTypeLabel"}
	urlKeys   = []string{"original_url", "downloadUrl"}
	// nestedKeys hold lists or objects whose titles are the entity's
	// words too: a meeting's agenda and motions, a motion's detail.
	nestedKeys = []string{"agenda", "motions", "motion", "agenda_items"}
)

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
	var words []string
	for _, k := range wordKeys {
		if s, ok := p[k].(string); ok && s != "" {
			words = append(words, s)
		}
	}
	for _, k := range nestedKeys {
		words = append(words, nestedTitles(p[k])...)
	}
	d.Words = strings.Join(words, "\n")
	return d, nil
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
// objects or of one object.
func nestedTitles(v any) []string {
	var out []string
	add := func(o map[string]any) {
		for _, k := range []string{"title", "name", "description"} {
			if s, ok := o[k].(string); ok && s != "" {
				out = append(out, s)
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
