package localindex

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
	"github.com/besluitbron/besluitbron/platforms/obv/export"
)

// snapshot reads a source's whole snapshot from the emulator.
func snapshot(t *testing.T, h http.Handler, source string) []export.ExportRecord {
	t.Helper()
	var out []export.ExportRecord
	for cursor := ""; ; {
		r := export.SnapshotRequest(source, cursor, 100)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", r.Path, nil))
		page, err := export.ParseExportPage(source, rec.Header(), rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Records...)
		if !page.More {
			return out
		}
		cursor = page.Next
	}
}

// Two sources' snapshots held locally answer words, sources, types and
// days; a record seen again with the same hash changes nothing, a
// changed one replaces, a delete removes, and the checkpoint and records
// survive a reopen.
func TestIndexAnswersFromTheExport(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	h := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	dir := t.TempDir()
	idx, report, err := Open(dir)
	if err != nil || !report.Created {
		t.Fatalf("open: %+v %v", report, err)
	}
	soest, utrecht := snapshot(t, h, "soest"), snapshot(t, h, "utrecht")
	if a, err := idx.Apply(soest, []byte("soest-1")); err != nil || a.Stored != len(soest) {
		t.Fatalf("apply soest: %+v %v", a, err)
	}
	if _, err := idx.Apply(utrecht, []byte("utrecht-1")); err != nil {
		t.Fatal(err)
	}
	total, _ := idx.Count()
	if total != uint64(len(soest)+len(utrecht)) {
		t.Fatalf("count %d, want %d", total, len(soest)+len(utrecht))
	}
	ctx := context.Background()

	// A motion's title word, found in its source only when asked so.
	var motion export.FeedDoc
	for _, r := range soest {
		if strings.EqualFold(r.EntityType, "motion") {
			motion, _ = export.FeedDocument(r)
			break
		}
	}
	word := strings.Fields(motion.Title)[len(strings.Fields(motion.Title))-1]
	res, err := idx.Search(ctx, Query{Words: word, Sources: []string{"soest"}, Limit: 100})
	if err != nil || !hasID(res, motion.ID) {
		t.Fatalf("%q in soest: %+v %v", word, res, err)
	}
	for _, hit := range res.Hits {
		if hit.Source != "soest" {
			t.Fatalf("a hit of %s for a search in soest", hit.Source)
		}
	}
	res, _ = idx.Search(ctx, Query{Words: word, Types: []string{"motion"}, Sources: []string{"SOEST"}, From: motion.Date, To: motion.Date, Limit: 100})
	if !hasID(res, motion.ID) || res.Hits[0].Type != "motion" {
		t.Fatalf("type and day filters: %+v", res)
	}
	if res, _ := idx.Search(ctx, Query{Words: word, Sources: []string{"soest"}, From: "2099-01-01"}); res.Total != 0 {
		t.Fatalf("a day after everything: %+v", res)
	}
	newest, _ := idx.Search(ctx, Query{Sources: []string{"utrecht"}, Limit: 5})
	if newest.Total != uint64(len(utrecht)) || len(newest.Hits) != 5 || newest.Hits[0].Date < newest.Hits[4].Date {
		t.Fatalf("no words: newest first of utrecht: %+v", newest)
	}

	// The same records again: nothing stored. One changed, one deleted.
	if a, err := idx.Apply(soest, []byte("soest-2")); err != nil || a.Stored != 0 || a.Unchanged != len(soest) {
		t.Fatalf("the same page again: %+v %v", a, err)
	}
	changed := soest[0]
	changed.Payload = []byte(`{"name":"Hertitelde vergadering zonnepanelen","start_date":"2026-10-01T19:00:00.000Z"}`)
	changed.ContentHash = "sha256:other"
	gone := export.ExportRecord{Op: export.OpDelete, EntityID: motion.ID, EntityType: "motion", SourceKey: "soest"}
	if a, err := idx.Apply([]export.ExportRecord{changed, gone, gone}, []byte("soest-3")); err != nil || a.Stored != 1 || a.Deleted != 1 {
		t.Fatalf("a change and a delete (twice): %+v %v", a, err)
	}
	if res, _ := idx.Search(ctx, Query{Words: "zonnepanelen", Sources: []string{"soest"}}); res.Total != 1 || res.Hits[0].ID != changed.EntityID {
		t.Fatalf("the changed record: %+v", res)
	}
	if res, _ := idx.Search(ctx, Query{Words: word, Sources: []string{"soest"}, Limit: 100}); hasID(res, motion.ID) {
		t.Fatal("the deleted motion is still found")
	}

	// A page with a record it cannot read writes nothing.
	bad := export.ExportRecord{Op: export.OpUpsert, EntityID: "x", EntityType: "document", SourceKey: "soest", Payload: []byte(`[1]`)}
	if _, err := idx.Apply([]export.ExportRecord{soest[1], bad}, []byte("soest-4")); err == nil || string(idx.Checkpoint()) != "soest-3" {
		t.Fatalf("a bad page: %v, checkpoint %s", err, idx.Checkpoint())
	}
	if _, err := idx.Search(ctx, Query{From: "1 mei"}); !errors.Is(err, ErrBadQuery) {
		t.Fatalf("a bad date: %v", err)
	}
	before, _ := idx.Count()
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	idx, report, err = Open(dir)
	if err != nil || report.Created || report.Rebuilt {
		t.Fatalf("reopen: %+v %v", report, err)
	}
	defer idx.Close()
	if n, _ := idx.Count(); n != before || string(idx.Checkpoint()) != "soest-3" {
		t.Fatalf("after a reopen: %d records (want %d), checkpoint %s", n, before, idx.Checkpoint())
	}
}

func hasID(r Result, id string) bool {
	for _, h := range r.Hits {
		if h.ID == id {
			return true
		}
	}
	return false
}

// rec is an upsert of entity id in source soest at time at with a title
// (its content hash follows the title), or a delete when title is "".
func rec(id, at, title string) export.ExportRecord {
	if title == "" {
		return export.ExportRecord{Op: export.OpDelete, Time: at, EntityID: id, EntityType: "document", SourceKey: "soest"}
	}
	return export.ExportRecord{Op: export.OpUpsert, Time: at, EntityID: id, EntityType: "document", SourceKey: "soest",
		ContentHash: "sha256:" + title, Payload: []byte(`{"name":"` + title + `","date":"2026-10-01"}`)}
}

func titles(t *testing.T, idx *Index, words string) []string {
	t.Helper()
	res, err := idx.Search(context.Background(), Query{Words: words, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID+"="+h.Title)
	}
	return out
}

// Records that come twice or late leave the entity as its newest record
// says: an older version after a newer one changes nothing, in one page
// or in the next; a deletion stays when an older upsert arrives after it;
// and a newer upsert brings the entity back.
func TestIndexKeepsTheNewestRecord(t *testing.T) {
	idx, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	const a = "document:notubiz:gemeente:soest:1"
	t1, t2, t3 := "2026-10-01T10:00:00.000Z", "2026-10-02T10:00:00.000Z", "2026-10-03T10:00:00.000Z"

	// In one page: the newer first, the older after it.
	if got, err := idx.Apply([]export.ExportRecord{rec(a, t2, "nieuwe titel"), rec(a, t1, "oude titel")}, nil); err != nil || got.Stored != 1 || got.Stale != 1 {
		t.Fatalf("one page: %+v %v", got, err)
	}
	if got := titles(t, idx, "titel"); len(got) != 1 || got[0] != a+"=nieuwe titel" {
		t.Fatalf("after one page: %v", got)
	}
	// The older again in a later page, twice: nothing changes.
	if got, err := idx.Apply([]export.ExportRecord{rec(a, t1, "oude titel"), rec(a, t1, "oude titel")}, nil); err != nil || got.Stored != 0 || got.Stale != 2 {
		t.Fatalf("a late page: %+v %v", got, err)
	}
	// The same record again: unchanged.
	if got, err := idx.Apply([]export.ExportRecord{rec(a, t2, "nieuwe titel")}, nil); err != nil || got.Unchanged != 1 {
		t.Fatalf("a repeat: %+v %v", got, err)
	}
	// Deleted at t3; an upsert of t2 arriving after it stays out.
	if got, err := idx.Apply([]export.ExportRecord{rec(a, t3, "")}, nil); err != nil || got.Deleted != 1 {
		t.Fatalf("delete: %+v %v", got, err)
	}
	if got, err := idx.Apply([]export.ExportRecord{rec(a, t2, "nieuwe titel")}, nil); err != nil || got.Stale != 1 {
		t.Fatalf("a late upsert after the delete: %+v %v", got, err)
	}
	if got := titles(t, idx, "titel"); len(got) != 0 {
		t.Fatalf("deleted, still found: %v", got)
	}
	// A tombstone is neither counted nor listed.
	if n, _ := idx.Count(); n != 0 {
		t.Fatalf("count %d with only a tombstone", n)
	}
	if res, _ := idx.Search(context.Background(), Query{}); res.Total != 0 {
		t.Fatalf("a listing finds the tombstone: %+v", res)
	}
	// A newer upsert brings it back.
	if got, err := idx.Apply([]export.ExportRecord{rec(a, "2026-10-04T10:00:00.000Z", "hersteld titel")}, nil); err != nil || got.Stored != 1 {
		t.Fatalf("back: %+v %v", got, err)
	}
	if n, _ := idx.Count(); n != 1 {
		t.Fatalf("count %d, want 1", n)
	}
}

// A snapshot read anew marks what it writes, unchanged records too; the
// sweep then removes the source's entities it did not write (deleted
// while the cursor was lost), and leaves other sources alone.
func TestSweepRemovesWhatTheSnapshotNoLongerHolds(t *testing.T) {
	idx, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	t1 := "2026-10-01T10:00:00.000Z"
	keep, lost := rec("document:notubiz:gemeente:soest:1", t1, "blijft"), rec("document:notubiz:gemeente:soest:2", t1, "verdwijnt")
	other := rec("document:notubiz:gemeente:utrecht:3", t1, "elders")
	other.SourceKey = "utrecht"
	if _, err := idx.Apply([]export.ExportRecord{keep, lost, other}, []byte("1")); err != nil {
		t.Fatal(err)
	}
	if got, err := idx.ApplyMarked([]export.ExportRecord{keep}, "soest-r1", []byte("2")); err != nil || got.Stored != 1 {
		t.Fatalf("marked: %+v %v", got, err)
	}
	removed, err := idx.Sweep(context.Background(), "soest", "soest-r1", []byte("3"))
	if err != nil || removed != 1 {
		t.Fatalf("sweep: removed %d, %v", removed, err)
	}
	if n, _ := idx.Count(); n != 2 || string(idx.Checkpoint()) != "3" {
		t.Fatalf("after the sweep: %d entities, checkpoint %s", n, idx.Checkpoint())
	}
	if got := titles(t, idx, "verdwijnt"); len(got) != 0 {
		t.Fatalf("swept, still found: %v", got)
	}
	// Swept again: nothing more.
	if removed, err := idx.Sweep(context.Background(), "soest", "soest-r1", []byte("4")); err != nil || removed != 0 {
		t.Fatalf("second sweep: %d %v", removed, err)
	}
}

// The counts /status shows (all, and each source's) follow every batch:
// asked again after a batch that adds, deletes or changes nothing, each
// says what the index holds then, not what it held when first counted.
func TestCountsFollowEveryBatch(t *testing.T) {
	idx, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	at := "2026-10-01T10:00:00.000Z"
	inUtrecht := func(r export.ExportRecord) export.ExportRecord {
		r.SourceKey = "utrecht"
		return r
	}
	check := func(step string, all, soest, utrecht uint64) {
		t.Helper()
		for range 2 { // counted, then kept
			n, err := idx.Count()
			s, err2 := idx.CountSource("soest")
			u, err3 := idx.CountSource("Utrecht")
			if err != nil || err2 != nil || err3 != nil || n != all || s != soest || u != utrecht {
				t.Fatalf("%s: all %d soest %d utrecht %d (%v %v %v), want %d %d %d", step, n, s, u, err, err2, err3, all, soest, utrecht)
			}
		}
	}
	check("empty", 0, 0, 0)
	if _, err := idx.Apply([]export.ExportRecord{rec("s1", at, "een"), rec("s2", at, "twee"), inUtrecht(rec("u1", at, "drie"))}, nil); err != nil {
		t.Fatal(err)
	}
	check("three stored", 3, 2, 1)
	if _, err := idx.Apply([]export.ExportRecord{rec("s2", "2026-10-02T10:00:00.000Z", "")}, nil); err != nil {
		t.Fatal(err)
	}
	check("one deleted", 2, 1, 1)
	if got, err := idx.Apply([]export.ExportRecord{rec("s1", at, "een")}, nil); err != nil || got.Unchanged != 1 {
		t.Fatalf("a repeat: %+v %v", got, err)
	}
	check("a repeat", 2, 1, 1)
	if _, err := idx.Apply([]export.ExportRecord{inUtrecht(rec("u2", at, "vier"))}, nil); err != nil {
		t.Fatal(err)
	}
	check("one more in utrecht", 3, 1, 2)
}
