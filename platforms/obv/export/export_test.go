package export_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
	"github.com/besluitbron/besluitbron/platforms/obv/export"
)

// exportPage asks the emulator for one export page and reads it.
func exportPage(t *testing.T, h http.Handler, source string, snapshot bool, cursor string) export.ExportPage {
	t.Helper()
	r := export.ChangesRequest(source, cursor, 50)
	if snapshot {
		r = export.SnapshotRequest(source, cursor, 50)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", r.Path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", r.Path, rec.Code, rec.Body)
	}
	page, err := export.ParseExportPage(source, rec.Header(), rec.Body.Bytes())
	if err != nil {
		t.Fatalf("%s: %v", r.Path, err)
	}
	if err := export.CheckMoves(cursor, page); err != nil {
		t.Fatal(err)
	}
	return page
}

// A source read whole: the snapshot page by page, then the change feed
// from the first page's changes cursor, until caught up. Every record is
// a whole record of the source, and the feed's pages move on.
func TestExportReadsASourceWhole(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	h := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	const source = "soest"
	ids := map[string]bool{}
	cursor, changes, pages := "", "", 0
	for {
		page := exportPage(t, h, source, true, cursor)
		if pages == 0 {
			changes = page.Changes
		}
		pages++
		for _, r := range page.Records {
			if r.Op != export.OpUpsert || r.SourceKey != source || r.ContentHash == "" {
				t.Fatalf("snapshot record %+v", r)
			}
			ids[r.EntityType+"/"+r.EntityID] = true
		}
		if !page.More {
			break
		}
		cursor = page.Next
	}
	if len(ids) < 10 || pages < 2 || changes == "" {
		t.Fatalf("%d entities in %d pages, changes cursor %q", len(ids), pages, changes)
	}
	seq, seen := int64(0), 0
	for cursor = changes; ; {
		page := exportPage(t, h, source, false, cursor)
		for _, r := range page.Records {
			if r.Seq <= seq {
				t.Fatalf("seq %d after %d", r.Seq, seq)
			}
			seq = r.Seq
		}
		seen += len(page.Records)
		if !page.More {
			break
		}
		cursor = page.Next
	}
	if seen != 0 {
		t.Errorf("the change feed from the snapshot's cursor holds %d records at the same moment, want 0", seen)
	}
	// Four weeks later the feed has what changed since.
	clk.Advance(28 * 24 * time.Hour)
	if page := exportPage(t, h, source, false, changes); len(page.Records) == 0 {
		t.Error("four weeks later the change feed is still empty")
	}
}

// A page the reader does not fully recognise is refused whole, with the
// kind of failure and the line.
func TestExportRefusesBrokenPages(t *testing.T) {
	good := `{"seq":1,"op":"upsert","time":"2026-12-01T00:00:00.000Z","entity_id":"m1","entity_type":"meeting","source_key":"soest","content_hash":"sha256:00","schema_version":1,"payload":{"id":"m1","name":"Raad"}}` + "\n"
	del := `{"seq":2,"op":"delete","time":"2026-12-01T00:00:00.000Z","entity_id":"m1","entity_type":"meeting","source_key":"soest"}` + "\n"
	more := http.Header{"X-Has-More": {"true"}, "X-Next-Cursor": {"c2"}}
	page, err := export.ParseExportPage("soest", more, []byte(good+del))
	if err != nil || len(page.Records) != 2 || page.Records[1].Op != export.OpDelete || page.Next != "c2" || !page.More {
		t.Fatalf("a good page: %+v %v", page, err)
	}
	if page, err := export.ParseExportPage("soest", http.Header{}, nil); err != nil || len(page.Records) != 0 || page.More {
		t.Fatalf("an empty page (caught up): %+v %v", page, err)
	}
	for name, c := range map[string]struct {
		h    http.Header
		body string
		kind error
		line int
	}{
		"broken off":          {more, good + good[:40], export.ErrTruncatedRecord, 2},
		"cut, then a newline": {more, good + good[:40] + "\n", export.ErrTruncatedRecord, 2},
		"over the cap":        {more, good + `{"pad":"` + strings.Repeat("x", export.MaxExportRecordBytes) + `"}` + "\n", export.ErrRecordTooLarge, 2},
		"unknown op":          {more, strings.Replace(good, `"upsert"`, `"merge"`, 1), export.ErrBadRecord, 1},
		"no id":               {more, strings.Replace(good, `"entity_id":"m1"`, `"entity_id":""`, 1), export.ErrBadRecord, 1},
		"upsert, no payload":  {more, del[:len(del)-2] + `,"op":"upsert"}` + "\n", export.ErrBadRecord, 1},
		"another source":      {more, strings.Replace(good, `"soest"`, `"utrecht"`, 1), export.ErrBadRecord, 1},
		"not JSON":            {more, "<html>busy</html>\n", export.ErrBadRecord, 1},
		"more, no cursor":     {http.Header{"X-Has-More": {"true"}}, good, export.ErrBadPageHeaders, 0},
		"more, not a bool":    {http.Header{"X-Has-More": {"yes"}, "X-Next-Cursor": {"c"}}, good, export.ErrBadPageHeaders, 0},
	} {
		t.Run(name, func(t *testing.T) {
			page, err := export.ParseExportPage("soest", c.h, []byte(c.body))
			var e *export.ExportError
			if !errors.Is(err, c.kind) || !errors.As(err, &e) || e.Line != c.line || len(page.Records) != 0 {
				t.Fatalf("got %+v, %v; want %v on line %d and no records", page, err, c.kind, c.line)
			}
		})
	}
	// A feed that repeats one page forever is stopped at the first repeat.
	if err := export.CheckMoves("c2", export.ExportPage{More: true, Next: "c2"}); !errors.Is(err, export.ErrStuckFeed) {
		t.Fatalf("a stuck feed: %v", err)
	}
	if err := export.CheckMoves("c2", export.ExportPage{More: false, Next: "c2"}); err != nil {
		t.Fatalf("caught up at the same cursor is no stuck feed: %v", err)
	}
}

// Whatever the body, the reader never panics, and a page it takes holds
// only whole records of the source.
func FuzzParseExportPage(f *testing.F) {
	f.Add([]byte(`{"seq":1,"op":"upsert","entity_id":"m1","entity_type":"meeting","source_key":"soest","payload":{}}`+"\n"), true)
	f.Add([]byte(`{"seq":2,"op":"delete","entity_id":"m1","entity_type":"meeting"}`+"\n\n"), false)
	f.Add([]byte("{\"seq\":1,\"op\":\"upsert\"\n"), true)
	f.Fuzz(func(t *testing.T, body []byte, more bool) {
		h := http.Header{"X-Next-Cursor": {"c"}}
		if more {
			h.Set("X-Has-More", "true")
		}
		page, err := export.ParseExportPage("soest", h, body)
		if err != nil {
			return
		}
		for _, r := range page.Records {
			if r.EntityID == "" || r.EntityType == "" || (r.Op != export.OpUpsert && r.Op != export.OpDelete) ||
				(r.SourceKey != "" && r.SourceKey != "soest") || (r.Op == export.OpUpsert && len(r.Payload) == 0) {
				t.Fatalf("took %+v", r)
			}
		}
	})
}

// What a replica indexes of a record: the emulator's export payloads and
// a payload shaped as the real entity details (the fixtures) both give a
// title, a day and their other words.
func TestFeedDocumentReadsThePayloads(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	h := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	page := exportPage(t, h, "soest", true, "")
	types := map[string]bool{}
	for cursor := ""; ; cursor = page.Next {
		page = exportPage(t, h, "soest", true, cursor)
		for _, r := range page.Records {
			d, err := export.FeedDocument(r)
			if err != nil || d.ID != r.EntityID || d.Source != "soest" || d.Title == "" || len(d.Date) != 10 || d.Hash != r.ContentHash {
				t.Fatalf("%+v from %s: %v", d, r.Payload, err)
			}
			types[d.Type] = true
		}
		if !page.More {
			break
		}
	}
	if len(types) != 3 {
		t.Errorf("types %v", types)
	}
	for _, f := range []string{"entity-document.json", "entity-meeting.json", "entity-motion.json"} {
		body, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "fixtures", "obv", f))
		if err != nil {
			t.Fatal(err)
		}
		d, err := export.FeedDocument(export.ExportRecord{EntityID: "x", EntityType: "Meeting", SourceKey: "soest", Payload: body})
		if err != nil || d.Type != "meeting" || (f != "entity-motion.json" && (d.Title == "" || d.Date == "")) {
			t.Errorf("%s: %+v %v", f, d, err)
		}
	}
	if _, err := export.FeedDocument(export.ExportRecord{EntityID: "x", Payload: []byte(`[1]`)}); err == nil {
		t.Error("a payload that is no object was read")
	}
}

// A record as the platform writes it (API.md, "Record format": a string
// schema_version, the entity type capitalised, a commit id; its
// "media_urls": [ ... ] written as an empty list, so that it is JSON) is
// read, and a replica gets every word the platform's own search reads of
// the payload (compactEntityPayload and the project*Content functions of
// its src/quickwit/project.ts, the shapes of its schemas/): a meeting's
// agenda at any depth with its documents' names, a document's
// classification and file name, a motion's proposers, parties and vote
// summary, and the day the platform filters on.
func TestFeedDocumentReadsWhatThePlatformSearches(t *testing.T) {
	record := func(typ, id, payload string) string {
		var compact bytes.Buffer // one record a line
		if err := json.Compact(&compact, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		return `{"seq":42,"op":"upsert","time":"2026-07-10T12:00:00.000Z","entity_id":"` + id + `","entity_type":"` + typ +
			`","source_key":"soest","supplier":"notubiz","commit_id":"commit:` + id + `:abc123def456","content_hash":"sha256:...","schema_version":"v1alpha1","payload":` + compact.String() + "}\n"
	}
	meeting := `{"type":"Meeting","name":"Raadsvergadering 2024-11-07","classification":["Raad"],"location":"Raadzaal","start_date":"2024-11-07T19:00:00.000Z",
		"organization":"organization:notubiz:gemeente:soest","committee":"committee:notubiz:gemeente:soest:7",
		"agenda":[{"id":"a1","title":"Opening","number":"1","documents":[{"id":"d1","name":"Raadsvoorstel begroting 2025"}],"agenda_items":[]},
		{"id":"a2","title":"Hamerstukken","description":"Stukken zonder bespreking","agenda_items":[{"id":"a2a","title":"Verordening afvalstoffenheffing",
		"documents":[{"id":"d2","name":"Bijlage tarieventabel"}]}]}]}`
	document := `{"type":"Document","name":"Raadsvoorstel begroting 2025","classification":["Raadsvoorstel"],"file_name":"rv-begroting.pdf",
		"original_url":"https://soest.notubiz.nl/document/1","content_type":"application/pdf","date_modified":"2024-10-01T08:00:00.000Z",
		"last_discussed_at":"2024-11-07T19:00:00.000Z","derived_content":{"markdown_key":"k"},"media_urls":[]}`
	motion := `{"type":"Motion","name":"M1 Woningbouw Soesterberg","motion_type":"Moties","status":"Motie aangenomen","result":"aangenomen",
		"date":"2024-11-01","proposers":["J. de Vries"],"parties":["Lokaal Soest"],"vote_summary":"unaniem",
		"votes":[{"option":"voor","voter_name":"Kasius, S.","group_name":"Partij ITH"},{"option":"tegen","voter_name":"A.","group_name":"Partij ITH"}],
		"tally":{"in_favour":20,"against":11},"meeting":"meeting:notubiz:gemeente:soest:1","agenda_item_hint":"4a moties vreemd"}`
	body := record("Meeting", "meeting:notubiz:gemeente:soest:1", meeting) +
		record("Document", "document:notubiz:gemeente:soest:12345", document) +
		record("Motion", "motion:notubiz:gemeente:soest:9", motion)
	page, err := export.ParseExportPage("soest", http.Header{}, []byte(body))
	if err != nil || len(page.Records) != 3 {
		t.Fatalf("the documented record shape: %+v %v", page, err)
	}
	for _, c := range []struct {
		typ, title, day string
		words           []string
		notWords        []string
	}{
		{"meeting", "Raadsvergadering 2024-11-07", "2024-11-07",
			[]string{"Raad", "Raadzaal", "Opening", "Raadsvoorstel begroting 2025", "Stukken zonder bespreking", "Verordening afvalstoffenheffing", "Bijlage tarieventabel"},
			[]string{"organization:notubiz", "committee:notubiz"}},
		{"document", "Raadsvoorstel begroting 2025", "2024-11-07", []string{"Raadsvoorstel", "rv-begroting.pdf"}, nil},
		{"motion", "M1 Woningbouw Soesterberg", "2024-11-01",
			[]string{"Moties", "Motie aangenomen", "aangenomen", "J. de Vries", "Lokaal Soest", "unaniem", "Partij ITH", "4a moties vreemd"}, nil},
	} {
		var d export.FeedDoc
		for _, r := range page.Records {
			if strings.EqualFold(r.EntityType, c.typ) {
				d, err = export.FeedDocument(r)
			}
		}
		if err != nil || d.Type != c.typ || d.Title != c.title || d.Date != c.day {
			t.Errorf("%s: %+v %v; want title %q, day %s", c.typ, d, err, c.title, c.day)
		}
		words := strings.Split(d.Words, "\n")
		for _, w := range c.words {
			if !slices.Contains(words, w) {
				t.Errorf("%s: %q is not among its words %q", c.typ, w, words)
			}
		}
		for _, w := range c.notWords {
			if strings.Contains(d.Words, w) {
				t.Errorf("%s: the reference %q is among its words", c.typ, w)
			}
		}
		if c.typ == "motion" && strings.Count(d.Words, "Partij ITH") != 1 {
			t.Errorf("a party that voted twice is in the words %d times, want once", strings.Count(d.Words, "Partij ITH"))
		}
	}

	// A hostile payload nests its agenda two thousand deep: read to a bound,
	// no more.
	deep := strings.Repeat(`{"title":"laag","agenda_items":[`, 2000) + strings.Repeat(`]}`, 2000)
	d, err := export.FeedDocument(export.ExportRecord{EntityID: "m", EntityType: "Meeting", Payload: []byte(`{"name":"Diep","agenda":[` + deep + `]}`)})
	if err != nil || d.Title != "Diep" || strings.Count(d.Words, "laag") > 20 || strings.Count(d.Words, "laag") < 8 {
		t.Errorf("a deep agenda: %d levels read, %v", strings.Count(d.Words, "laag"), err)
	}
}
