package emulator

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/shape"
	"github.com/besluitbron/besluitbron/platforms/obv/export"
)

// After every log has ended (an epoch and every record after it).
var bigTestEnd = DefaultLargeExportEpoch.Add(365 * 24 * time.Hour)

func newBig(t *testing.T, seed int64, at time.Time, cfg LargeExport) (*Emulator, *fakeclock.Clock) {
	t.Helper()
	c := fakeclock.New(at)
	return NewEmulator(Config{Seed: seed, Clock: c, NoRateLimit: true, LargeExport: &cfg}), c
}

// bigPage reads one export page as the harvester does (strictly).
func bigPage(t *testing.T, e *Emulator, path, source, cursor string, limit int) (export.ExportPage, *httptest.ResponseRecorder) {
	t.Helper()
	target := path + "?source=" + source + "&limit=" + strconv.Itoa(limit)
	if cursor != "" {
		target += "&cursor=" + url.QueryEscape(cursor)
	}
	rec := get(e, target)
	if rec.Code != 200 {
		t.Fatalf("%s: %d %s", target, rec.Code, rec.Body.String())
	}
	page, err := export.ParseExportPage(source, rec.Header(), rec.Body.Bytes())
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return page, rec
}

// The same seed gives the same pages; another seed other ones. The
// layout adds up to the records asked for.
func TestLargeExportDeterministic(t *testing.T) {
	cfg := LargeExport{Records: 1_000_000}
	a, _ := newBig(t, 1, bigTestEnd, cfg)
	b, _ := newBig(t, 1, bigTestEnd, cfg)
	other, _ := newBig(t, 2, bigTestEnd, cfg)
	if len(a.LargeExportSources()) != bigSources {
		t.Fatalf("%d sources, want %d", len(a.LargeExportSources()), bigSources)
	}
	total := 0
	for _, s := range a.big.sources {
		total += s.n + s.c
	}
	if total != cfg.Records {
		t.Fatalf("the logs hold %d records, want %d", total, cfg.Records)
	}
	src := a.LargeExportSources()[7]
	s := a.big.sources[src]
	for _, pos := range []int{0, s.n / 2, s.n - 3} {
		cur := a.bigCursor(src, "snapshot", pos)
		x := get(a, "/api/export/snapshot?limit=50&source="+src+"&cursor="+url.QueryEscape(cur))
		y := get(b, "/api/export/snapshot?limit=50&source="+src+"&cursor="+url.QueryEscape(cur))
		if x.Code != 200 || !bytes.Equal(x.Body.Bytes(), y.Body.Bytes()) {
			t.Fatalf("position %d: %d, the same seed answers differently", pos, x.Code)
		}
	}
	if slices.Equal(a.LargeExportSources(), other.LargeExportSources()) {
		t.Error("another seed picks the same sources")
	}
}

// A small log is read whole: the snapshot holds every entity created and
// not deleted, each once, in the ids' kind order; the change feed is the
// log, seq by seq, and ends empty.
func TestLargeExportPagesToTheEnd(t *testing.T) {
	e, _ := newBig(t, 1, bigTestEnd, LargeExport{Records: 3 * 1000, Sources: 3})
	for _, src := range e.LargeExportSources() {
		s := e.big.sources[src]
		held := map[string]string{}
		var kinds []string
		cursor := ""
		for pages := 0; ; pages++ {
			page, _ := bigPage(t, e, "/api/export/snapshot", src, cursor, 97)
			for _, r := range page.Records {
				if _, twice := held[r.EntityID]; twice || r.Op != export.OpUpsert {
					t.Fatalf("%s: %s %s in the snapshot", src, r.Op, r.EntityID)
				}
				held[r.EntityID] = r.ContentHash
				if len(kinds) == 0 || kinds[len(kinds)-1] != r.EntityType {
					kinds = append(kinds, r.EntityType)
				}
			}
			if !page.More {
				break
			}
			cursor = page.Next
		}
		if strings.Join(kinds, ",") != "Document,Meeting,Motion" {
			t.Errorf("%s: kinds in order %v", src, kinds)
		}
		// Replaying the whole change feed gives the same state.
		state := map[string]string{}
		cursor, seq := "", 0
		for {
			page, _ := bigPage(t, e, "/api/export/changes", src, cursor, 1000)
			for _, r := range page.Records {
				if int(r.Seq) != seq {
					t.Fatalf("%s: seq %d, want %d", src, r.Seq, seq)
				}
				seq++
				if r.Op == export.OpDelete {
					delete(state, r.EntityID)
				} else {
					state[r.EntityID] = r.ContentHash
				}
			}
			cursor = page.Next
			if !page.More {
				break
			}
		}
		if seq != s.n+s.c {
			t.Errorf("%s: the feed has %d records, the log %d", src, seq, s.n+s.c)
		}
		if len(state) != len(held) || len(held) >= s.n {
			t.Errorf("%s: the feed leaves %d entities, the snapshot holds %d of %d created", src, len(state), len(held), s.n)
		}
		for id, h := range held {
			if state[id] != h {
				t.Fatalf("%s: %s is %q by the feed, %q in the snapshot", src, id, state[id], h)
			}
		}
		if page, rec := bigPage(t, e, "/api/export/changes", src, cursor, 1000); len(page.Records) != 0 || page.More || rec.Body.Len() != 0 {
			t.Errorf("%s: caught up, yet %d records", src, len(page.Records))
		}
	}
}

// A million records are paged by position, without reading them all:
// pages in the middle are full, the last has no more, the feed's head is
// where the clock says.
func TestLargeExportMillionByPosition(t *testing.T) {
	e, clk := newBig(t, 1, DefaultLargeExportEpoch, LargeExport{Records: 1_000_000})
	src := e.LargeExportSources()[100]
	s := e.big.sources[src]
	page, _ := bigPage(t, e, "/api/export/snapshot", src, e.bigCursor(src, "snapshot", s.n/2), 1000)
	if len(page.Records) != 1000 || !page.More {
		t.Fatalf("a middle page: %d records, more %v", len(page.Records), page.More)
	}
	page, _ = bigPage(t, e, "/api/export/snapshot", src, e.bigCursor(src, "snapshot", s.n-5), 1000)
	if len(page.Records) > 5 || page.More {
		t.Fatalf("the last page: %d records, more %v", len(page.Records), page.More)
	}
	// At the epoch the feed holds all but half the changes; an hour on, six more.
	if h := s.head(clk.Now()); h != s.h0 {
		t.Fatalf("head at the epoch %d, want %d", h, s.h0)
	}
	page, _ = bigPage(t, e, "/api/export/changes", src, e.bigCursor(src, "changes", s.h0-10), 1000)
	if len(page.Records) != 10 || page.More {
		t.Fatalf("the feed's last page: %d records, more %v", len(page.Records), page.More)
	}
	clk.Advance(time.Hour)
	page, _ = bigPage(t, e, "/api/export/changes", src, page.Next, 1000)
	if len(page.Records) != 6 {
		t.Fatalf("an hour after the epoch: %d new records, want 6 (one per 10 minutes)", len(page.Records))
	}
	// Record times never go back, and every record is before the clock.
	for i, r := range page.Records {
		at, _ := time.Parse(time.RFC3339, r.Time)
		if at.After(clk.Now()) || i > 0 && r.Time < page.Records[i-1].Time {
			t.Fatalf("record %d at %s, the clock at %v", r.Seq, r.Time, clk.Now())
		}
	}
}

// The feed deletes, with log.ts's tombstone; a harvester whose clock moves
// while it reads the snapshot gets records twice and an older version
// after a newer one.
func TestLargeExportDeletesAndRepeats(t *testing.T) {
	start := DefaultLargeExportEpoch.AddDate(-2, 0, 0) // before the last creations
	e, clk := newBig(t, 1, start, LargeExport{Records: 124 * 2000})
	src := e.LargeExportSources()[0]

	first, rec := bigPage(t, e, "/api/export/snapshot", src, "", 1000)
	changesFrom := rec.Header().Get("X-Changes-Cursor")
	snapshot := map[string]export.ExportRecord{}
	for _, r := range first.Records {
		snapshot[r.EntityID] = r
	}
	clk.AdvanceTo(bigTestEnd) // the log ends while the snapshot is read
	for cursor := first.Next; ; {
		page, _ := bigPage(t, e, "/api/export/snapshot", src, cursor, 1000)
		for _, r := range page.Records {
			snapshot[r.EntityID] = r
		}
		if !page.More {
			break
		}
		cursor = page.Next
	}
	var twice, older, deletes int
	for cursor := changesFrom; ; {
		page, rec := bigPage(t, e, "/api/export/changes", src, cursor, 1000)
		for i, r := range page.Records {
			held, ok := snapshot[r.EntityID]
			switch {
			case r.Op == export.OpDelete:
				deletes++
				line := strings.Split(rec.Body.String(), "\n")[i]
				var m map[string]any
				_ = json.Unmarshal([]byte(line), &m)
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				if strings.Join(keys, ",") != "entity_id,entity_type,op,seq,source_key,supplier,time" {
					t.Fatalf("a tombstone with %v", keys)
				}
			case ok && held.Seq == r.Seq && bytes.Equal(held.Payload, r.Payload) && held.ContentHash == r.ContentHash:
				twice++
			case ok && r.Seq < held.Seq:
				older++
			}
		}
		if !page.More {
			break
		}
		cursor = page.Next
	}
	if twice == 0 || older == 0 || deletes == 0 {
		t.Fatalf("after the snapshot the feed gave %d records twice, %d older versions, %d deletes", twice, older, deletes)
	}
}

// A cursor older than CursorTTL on the emulator's clock gets the 400 of a
// bad cursor, body and all; a younger one pages on.
func TestLargeExportCursorExpires(t *testing.T) {
	e, clk := newBig(t, 1, bigTestEnd, LargeExport{Records: 10_000, Sources: 2, CursorTTL: time.Hour})
	src := e.LargeExportSources()[0]
	page, rec := bigPage(t, e, "/api/export/snapshot", src, "", 100)
	clk.Advance(59 * time.Minute)
	if _, rec2 := bigPage(t, e, "/api/export/snapshot", src, page.Next, 100); rec2.Code != 200 {
		t.Fatalf("a cursor within its age: %d", rec2.Code)
	}
	clk.Advance(2 * time.Minute)
	for _, path := range []string{
		"/api/export/snapshot?source=" + src + "&cursor=" + url.QueryEscape(page.Next),
		"/api/export/changes?source=" + src + "&cursor=" + url.QueryEscape(rec.Header().Get("X-Changes-Cursor")),
	} {
		expired := get(e, path)
		bad := get(e, "/api/export/snapshot?source="+src+"&cursor=garbage")
		if expired.Code != 400 || !bytes.Equal(expired.Body.Bytes(), bad.Body.Bytes()) {
			t.Fatalf("%s: %d %s", path, expired.Code, expired.Body.String())
		}
		shape.Exact(t, expired.Body.Bytes(), readFixture(t, "error-404.json"))
	}
	// A cursor of another source, or of the other feed, is refused too.
	if rec := get(e, "/api/export/changes?source="+src+"&cursor="+url.QueryEscape(page.Next)); rec.Code != 400 {
		t.Errorf("a snapshot cursor in the change feed: %d", rec.Code)
	}
}

// Sources outside the large export have an empty export; everything but
// the export answers as without it; without it the export is the small
// corpus's.
func TestLargeExportLeavesTheRest(t *testing.T) {
	big, _ := newBig(t, 1, testNow, LargeExport{Records: 5000, Sources: 5})
	small, _ := newTest(t, false)
	var outside string
	for _, o := range small.data.orgs {
		if implemented(o) && !slices.Contains(big.LargeExportSources(), o.Key) {
			outside = o.Key
			break
		}
	}
	for _, path := range []string{"/api/export/snapshot?source=" + outside, "/api/export/changes?source=" + outside} {
		rec := get(big, path)
		if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("X-Has-More") != "false" {
			t.Errorf("%s: %d %q", path, rec.Code, rec.Body.String())
		}
	}
	for _, path := range []string{"/api/search?query=woningbouw&organization=soest", "/api/sources", "/api/export/snapshot?source=soest&limit=3"} {
		if path == "/api/export/snapshot?source=soest&limit=3" {
			rec := get(small, path)
			s, _ := small.data.sourceByKey("soest")
			if recs := readNDJSON(t, rec); len(recs) != 3 || recs[0].EntityID != s.meetings[0].id || small.big != nil {
				t.Errorf("the small export changed: %v", recs)
			}
			continue
		}
		if a, b := get(big, path), get(small, path); !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
			t.Errorf("%s differs with the large export", path)
		}
	}
}

// The head at a record's time includes it, a millisecond before it does
// not: the clock alone decides what the feed holds.
func TestLargeExportHeadFollowsTimes(t *testing.T) {
	e, _ := newBig(t, 1, bigTestEnd, LargeExport{Records: 1_000_000, Sources: 3})
	for _, src := range e.LargeExportSources() {
		s := e.big.sources[src]
		for _, seq := range []int{0, 1, s.n / 3, s.n - 1, s.n, s.h0 - 1, s.h0, s.h0 + 1, s.n + s.c - 1} {
			at := s.at(seq)
			if h := s.head(at); h <= seq {
				t.Errorf("%s: head at record %d's time is %d", src, seq, h)
			}
			if h := s.head(at.Add(-time.Millisecond)); h > seq {
				t.Errorf("%s: head before record %d's time is %d", src, seq, h)
			}
		}
	}
}
