package localindex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms/tk/feed"
)

func doc(n int, soort, titel, onderwerp, datum string) feed.Entity {
	return feed.Entity{ID: guid(n), Category: "document", Updated: "2024-01-01T00:00:00Z",
		Fields: map[string]string{"soort": soort, "documentNummer": fmt.Sprintf("2024D%05d", n), "titel": titel, "onderwerp": onderwerp, "datum": datum}}
}

func guid(n int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", n) }

func open(t *testing.T) *Index {
	t.Helper()
	ix, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func words(t *testing.T, ix *Index, q Query) []string {
	t.Helper()
	res, err := ix.SearchDocuments(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.Fields["documentNummer"])
	}
	if int(res.Total) < len(ids) {
		t.Fatalf("total %d below %d hits", res.Total, len(ids))
	}
	return ids
}

// TestApplyKeepsTheLastEntry: the feed is the order of the Kamer's
// changes, so an entity ends as its last entry says; a re-sent one
// unchanged writes nothing and a deleted one leaves.
func TestApplyKeepsTheLastEntry(t *testing.T) {
	ix := open(t)
	a, err := ix.Apply([]feed.Entity{
		doc(1, "Motie", "Motie over stikstof", "Motie van het lid X over stikstofuitstoot", "2024-02-01"),
		doc(2, "Brief regering", "Brief over woningbouw", "Woningbouwopgave", "2024-03-01"),
		doc(3, "Motie", "Motie over zorgkosten", "", "2024-04-01"),
		{ID: guid(9), Category: "zaak", Fields: map[string]string{"titel": "Stikstofwet", "gestartOp": "2024-01-05"}},
	}, nil, []byte(`{"p":1}`))
	if err != nil || a.Stored != 4 {
		t.Fatalf("%+v %v", a, err)
	}
	again := doc(2, "Brief regering", "Brief over woningbouw", "Woningbouwopgave", "2024-03-01")
	again.Updated = "2024-06-01T00:00:00Z" // a data fix re-sends it
	changed := doc(3, "Motie", "Motie over zorgkosten en stikstof", "", "2024-04-01")
	a, err = ix.Apply([]feed.Entity{again, {ID: guid(1), Category: "document", Deleted: true}, doc(3, "Motie", "old", "", "2024-04-01"), changed}, nil, []byte(`{"p":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if a != (Applied{Stored: 1, Unchanged: 1, Deleted: 1, Repeated: 1}) {
		t.Fatalf("%+v", a)
	}
	if got := words(t, ix, Query{Words: "stikstof"}); fmt.Sprint(got) != "[2024D00003]" {
		t.Fatalf("stikstof: %v (the deleted motion is gone, the changed one found, the zaak is no document)", got)
	}
	if string(ix.Checkpoint()) != `{"p":2}` {
		t.Fatalf("checkpoint %s", ix.Checkpoint())
	}
	if n, _ := ix.Count(); n != 3 {
		t.Fatalf("count %d", n)
	}
	if n, _ := ix.CountCategory("zaak"); n != 1 {
		t.Fatalf("zaken %d", n)
	}
	got, err := ix.Get(context.Background(), []string{guid(9), guid(1)})
	if err != nil || len(got) != 1 || got[guid(9)].Fields["titel"] != "Stikstofwet" {
		t.Fatalf("%+v %v", got, err)
	}
}

// TestApplyLeavesOutWhatTheScopeRefuses: an entity the scope refuses is
// not stored, and one held from before is removed.
func TestApplyLeavesOutWhatTheScopeRefuses(t *testing.T) {
	ix := open(t)
	old := doc(1, "Motie", "Motie over stikstof", "", "2010-02-01")
	if _, err := ix.Apply([]feed.Entity{old}, nil, nil); err != nil {
		t.Fatal(err)
	}
	since2020 := func(e feed.Entity) bool { return DayOf(e) >= "2020" }
	a, err := ix.Apply([]feed.Entity{old, doc(2, "Motie", "Motie over stikstof", "", "2021-02-01")}, since2020, nil)
	if err != nil || a.Deleted != 1 || a.Stored != 1 {
		t.Fatalf("%+v %v", a, err)
	}
	if got := words(t, ix, Query{Words: "stikstof"}); fmt.Sprint(got) != "[2024D00002]" {
		t.Fatal(got)
	}
}

func TestSearchDocuments(t *testing.T) {
	ix := open(t)
	var page []feed.Entity
	for n := 1; n <= 30; n++ {
		soort := "Motie"
		if n%3 == 0 {
			soort = "Brief regering"
		}
		page = append(page, doc(n, soort, "Over de klimaatwet", fmt.Sprintf("Onderwerp %d over energie", n), fmt.Sprintf("2024-01-%02d", n)))
	}
	page = append(page, doc(31, "Motie", "Over zorg", "", "2024-02-01"))
	if _, err := ix.Apply(page, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Newest first, and stems: "klimaatwetten" finds "klimaatwet".
	if got := words(t, ix, Query{Words: "klimaatwetten energie", Limit: 3}); fmt.Sprint(got) != "[2024D00030 2024D00029 2024D00028]" {
		t.Fatal(got)
	}
	if got := words(t, ix, Query{Words: "klimaatwet", Soort: "brief regering", From: "2024-01-10", To: "2024-01-20", Limit: 10}); fmt.Sprint(got) != "[2024D00018 2024D00015 2024D00012]" {
		t.Fatal(got)
	}
	if got := words(t, ix, Query{Words: "klimaatwet", Limit: 2, Offset: 28}); fmt.Sprint(got) != "[2024D00002 2024D00001]" {
		t.Fatal(got)
	}
	if got := words(t, ix, Query{Words: "zorg klimaatwet"}); len(got) != 0 {
		t.Fatalf("every word must match: %v", got)
	}
	for _, bad := range []Query{{Words: "x", Limit: MaxLimit + 1}, {Words: "x", Offset: -1}, {Words: "x", From: "1 januari"}} {
		if _, err := ix.SearchDocuments(context.Background(), bad); !errors.Is(err, ErrBadQuery) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestNewestFirstByWindows: many matches are read a window of days at a
// time; every page is the page the full sort gives, documents without a
// day last.
func TestNewestFirstByWindows(t *testing.T) {
	ix := open(t)
	today := time.Now().UTC()
	var page []feed.Entity
	for n := 1; n <= 120; n++ {
		// Days from today back over some 40 years, several a day, some
		// on the windows' bounds, and a few without a day.
		day := today.AddDate(0, 0, -(n*n)/2).Format(time.DateOnly)
		for _, d := range windowDays {
			if n == d%120 {
				day = today.AddDate(0, 0, -d).Format(time.DateOnly)
			}
		}
		if n%40 == 0 {
			day = ""
		}
		page = append(page, doc(n, "Motie", "Motie over de begroting", "", day))
	}
	if _, err := ix.Apply(page, nil, nil); err != nil {
		t.Fatal(err)
	}
	all := func(q Query) []string {
		saved := fewMatches
		defer func() { fewMatches = saved }()
		fewMatches = 1_000_000 // one full sort
		return words(t, ix, q)
	}
	threeYearsAgo := today.AddDate(-3, 0, 0).Format(time.DateOnly) // the windows count back from it
	for _, q := range []Query{{Words: "begroting", Limit: 250}, {Soort: "motie", Limit: 250}, {Words: "motie", From: "2000-01-01", Limit: 250},
		{Words: "motie", From: "1990-01-01", To: threeYearsAgo, Limit: 250}} {
		want := all(q)
		if len(want) < 60 {
			t.Fatalf("%+v: %d hits", q, len(want))
		}
		saved := fewMatches
		fewMatches = 3
		for _, limit := range []int{1, 7, 50} {
			for offset := 0; offset < len(want)+3; offset += limit {
				got := words(t, ix, Query{Words: q.Words, Soort: q.Soort, From: q.From, To: q.To, Limit: limit, Offset: offset})
				expect := want[min(offset, len(want)):min(offset+limit, len(want))]
				if fmt.Sprint(got) != fmt.Sprint(expect) {
					fewMatches = saved
					t.Fatalf("%+v limit %d offset %d: %v, want %v", q, limit, offset, got, expect)
				}
			}
		}
		fewMatches = saved
	}
}

// A question's first and last day are both asked: a document of either
// is found, one of the day before or after is not, newest first and by
// relevance alike.
func TestDaysAskedAreInclusive(t *testing.T) {
	ix := open(t)
	var page []feed.Entity
	for n, day := range []string{"2024-01-09", "2024-01-10", "2024-01-15", "2024-01-20", "2024-01-21", ""} {
		page = append(page, doc(n+1, "Motie", "Motie over de begroting", "", day))
	}
	if _, err := ix.Apply(page, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, relevance := range []bool{false, true} {
		got := words(t, ix, Query{Words: "begroting", From: "2024-01-10", To: "2024-01-20", Limit: 10, Relevance: relevance})
		slices.Sort(got)
		if fmt.Sprint(got) != "[2024D00002 2024D00003 2024D00004]" {
			t.Fatalf("relevance %v: %v, want the 10th, 15th and 20th", relevance, got)
		}
	}
}
