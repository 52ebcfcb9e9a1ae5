package localindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

func ids(t *testing.T) func(Found, error) []string {
	return func(f Found, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range f.Entities {
			out = append(out, e.ID)
		}
		return out
	}
}

// The joins of votes: a zaak or dossier by number, the entities that
// link to others (either side of a link the feed writes once), a zaak's
// title words, what changed after a moment.
func TestLookups(t *testing.T) {
	ix := open(t)
	ctx := context.Background()
	dossier := feed.Entity{ID: guid(100), Category: "kamerstukdossier", Updated: "2024-01-01T10:00:00Z",
		Fields: map[string]string{"nummer": "36200", "toevoeging": "VII", "titel": "Begroting BZK"}}
	other := feed.Entity{ID: guid(101), Category: "kamerstukdossier", Updated: "2024-01-01T10:00:00Z",
		Fields: map[string]string{"nummer": "36200", "titel": "Miljoenennota"}}
	zaak := func(n int, nummer, titel string, dossiers ...string) feed.Entity {
		return feed.Entity{ID: guid(n), Category: "zaak", Updated: "2024-02-01T10:00:00Z",
			Fields: map[string]string{"nummer": nummer, "titel": titel, "soort": "Motie"}, Refs: map[string][]string{"kamerstukdossier": dossiers}}
	}
	besluit := feed.Entity{ID: guid(300), Category: "besluit", Updated: "2024-03-05T16:00:00Z",
		Fields: map[string]string{"besluitSoort": "Stemmen - aangenomen"}, Refs: map[string][]string{"zaak": {guid(200), guid(201)}, "agendapunt": {guid(400)}}}
	stemming := func(n int, updated string) feed.Entity {
		return feed.Entity{ID: guid(n), Category: "stemming", Updated: updated,
			Fields: map[string]string{"soort": "Voor", "actorFractie": "VVD", "nummer": "not a zaak's"}, Refs: map[string][]string{"besluit": {guid(300)}}}
	}
	if _, err := ix.Apply([]feed.Entity{dossier, other,
		zaak(200, "2024Z00200", "Motie over klimaatwetten", guid(100)),
		zaak(201, "2024Z00201", "Motie over woningbouw", guid(100), guid(101)),
		zaak(202, "2024Z00202", "Motie over klimaat", guid(101)),
		besluit, stemming(500, "2024-03-05T17:00:00Z"), stemming(501, "2024-03-06T09:30:00.1234567Z"),
	}, nil, []byte("1")); err != nil {
		t.Fatal(err)
	}

	// By number: the category's own, case-insensitively; a stemming's
	// "nummer" is not kept.
	if got := ids(t)(ix.ByNummer(ctx, "zaak", "2024z00201", 10)); fmt.Sprint(got) != fmt.Sprint([]string{guid(201)}) {
		t.Fatalf("zaak by number: %v", got)
	}
	if got := ids(t)(ix.ByNummer(ctx, "kamerstukdossier", "36200", 10)); fmt.Sprint(got) != fmt.Sprint([]string{guid(100), guid(101)}) {
		t.Fatalf("dossiers 36200: %v", got)
	}
	if _, err := ix.ByNummer(ctx, "stemming", "not a zaak's", 10); err == nil {
		t.Fatal("a stemming by number")
	}
	// Links, from the side that does not write them: a dossier's zaken,
	// a zaak's besluiten, a besluit's stemmingen.
	if got := ids(t)(ix.Linking(ctx, "zaak", "kamerstukdossier", []string{guid(100)}, 10)); fmt.Sprint(got) != fmt.Sprint([]string{guid(200), guid(201)}) {
		t.Fatalf("the zaken of 36200-VII: %v", got)
	}
	if got := ids(t)(ix.Linking(ctx, "besluit", "zaak", []string{strings.ToUpper(guid(201))}, 10)); fmt.Sprint(got) != fmt.Sprint([]string{guid(300)}) {
		t.Fatalf("the besluiten of a zaak: %v", got)
	}
	if got := ids(t)(ix.Linking(ctx, "stemming", "besluit", []string{guid(300)}, 10)); len(got) != 2 {
		t.Fatalf("the stemmingen of a besluit: %v", got)
	}
	// Linked to two of the ids asked: found once.
	f, err := ix.Linking(ctx, "besluit", "zaak", []string{guid(200), guid(201)}, 10)
	if got := ids(t)(f, err); len(got) != 1 || f.Total != 1 || !f.Whole() {
		t.Fatalf("a besluit of two zaken: %v (total %d)", got, f.Total)
	}
	// More than asked: the total says so.
	if f, err := ix.Linking(ctx, "stemming", "besluit", []string{guid(300)}, 1); err != nil || f.Whole() || f.Total != 2 || len(f.Entities) != 1 {
		t.Fatalf("a lookup cut: %+v %v", f, err)
	}
	// Title words, with Dutch stems, of one category.
	if got := ids(t)(ix.WithWords(ctx, "zaak", "klimaatwet", 10)); fmt.Sprint(got) != fmt.Sprint([]string{guid(200)}) {
		t.Fatalf("klimaatwet: %v", got)
	}
	// What the feed published after a moment; the same second counts.
	at := time.Date(2024, 3, 5, 17, 0, 0, 500_000_000, time.UTC)
	if got := ids(t)(ix.ChangedAfter(ctx, "stemming", at, 10)); len(got) != 2 {
		t.Fatalf("changed after %v: %v", at, got)
	}
	if got := ids(t)(ix.ChangedAfter(ctx, "stemming", at.Add(time.Second), 10)); fmt.Sprint(got) != fmt.Sprint([]string{guid(501)}) {
		t.Fatalf("changed after %v: %v", at.Add(time.Second), got)
	}
	held, _ := ix.Get(ctx, []string{guid(500), guid(501)})
	if !PublishedAfter(held[guid(500)], at) || PublishedAfter(held[guid(500)], at.Add(time.Second)) || !PublishedAfter(held[guid(501)], at.Add(time.Second)) ||
		PublishedAfter(Entity{Updated: "yesterday"}, at) {
		t.Fatal("PublishedAfter disagrees with ChangedAfter")
	}
	// Out of bounds.
	if _, err := ix.Linking(ctx, "stemming", "besluit", []string{guid(300)}, MaxJoin+1); err == nil {
		t.Fatal("a lookup over MaxJoin")
	}
}

// More ids than one search ORs: read in chunks, each entity once, sorted.
func TestLinkingManyIDs(t *testing.T) {
	ix := open(t)
	var es []feed.Entity
	var zaken []string
	for n := range 1300 {
		z := guid(10000 + n)
		zaken = append(zaken, z)
		es = append(es, feed.Entity{ID: guid(n), Category: "besluit", Updated: "2024-01-01T00:00:00Z",
			Fields: map[string]string{"besluitSoort": "Stemmen - verworpen"}, Refs: map[string][]string{"zaak": {z, guid(10000 + (n+600)%1300)}}})
	}
	if _, err := ix.Apply(es, nil, []byte("1")); err != nil {
		t.Fatal(err)
	}
	f, err := ix.Linking(context.Background(), "besluit", "zaak", zaken, MaxJoin)
	got := ids(t)(f, err)
	if len(got) != 1300 || f.Total != 1300 || !slices.IsSorted(got) {
		t.Fatalf("%d besluiten (total %d), sorted %v", len(got), f.Total, slices.IsSorted(got))
	}
}

// An index of the format before the lookups (its stamp another) is not
// read: it is rebuilt empty, its harvest starting over, and the report
// says why (the app logs it).
func TestOldFormatRebuilt(t *testing.T) {
	dir := t.TempDir()
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Apply([]feed.Entity{doc(1, "Motie", "Motie over stikstof", "", "2024-02-01")}, nil, []byte("cp")); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	stamp := filepath.Join(dir, bleveindex.DirName, bleveindex.StampFileName)
	if err := os.WriteFile(stamp, []byte("tk-syncfeed-v1-0123456789abcdef01234567"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, report, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !report.Rebuilt || !strings.Contains(report.Reason, `mapping stamp "tk-syncfeed-v1-0123456789abcdef01234567", this build writes tk-syncfeed-v3-`) ||
		ix.Checkpoint() != nil {
		t.Fatalf("%+v, checkpoint %q", report, ix.Checkpoint())
	}
	if n, _ := ix.Count(); n != 0 {
		t.Fatalf("%d entities kept from the old index", n)
	}
}
