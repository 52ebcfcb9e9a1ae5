package datereplica

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// newestCorpus are n records dated over 40 years back from to, several
// a day, some on the windows' bounds as counted from to and from today,
// some after to, and a few without a date; a third share a word, two
// organisations and two kinds take turns.
func newestCorpus(n int, to time.Time) []Record {
	rng := rand.New(rand.NewPCG(9, 1))
	today := time.Now().UTC()
	out := make([]Record, 0, n)
	for i := range n {
		day := to.AddDate(0, 0, 30-rng.IntN(40*365)).Format(time.DateOnly)
		switch i % 11 {
		case 0:
			day = to.AddDate(0, 0, -[]int{90, 360, 1440, 5760}[i%4]).Format(time.DateOnly)
		case 1:
			day = today.AddDate(0, 0, -[]int{90, 360, 1440, 5760}[i%4]).Format(time.DateOnly)
		case 2:
			if i%3 == 0 {
				day = ""
			}
		}
		out = append(out, Record{ID: fmt.Sprintf("R%05d", i), Title: fmt.Sprintf("Besluit %d %s", i, []string{"woningbouw", "jeugdzorg", "stikstof"}[i%3]),
			Type: []string{"besluit", "regeling"}[i%2], Organisation: []string{"Utrecht", "Kampen"}[i%2], Date: day, Modified: "2026-01-01"})
	}
	return out
}

// A search newest first over many matches is read a window of days at a
// time (bleveindex.Index.SearchNewest): every page, with and without
// words, filters and dates, is the page one sort of every match gives,
// records without a date last.
func TestNewestFirstByWindowsIsTheFullSort(t *testing.T) {
	to := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	idx := openIndex(t, t.TempDir())
	records := newestCorpus(1000, to)
	if err := idx.apply(records, []byte("1")); err != nil {
		t.Fatal(err)
	}
	var undated []string
	for _, r := range records {
		if r.Date == "" {
			undated = append(undated, r.ID)
		}
	}
	if len(undated) < 10 {
		t.Fatalf("%d records without a date", len(undated))
	}
	ctx := context.Background()
	search := func(q Query, few uint64) []string {
		t.Helper()
		saved := newestFewMatches
		newestFewMatches = few
		defer func() { newestFewMatches = saved }()
		res, err := idx.Search(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		ids := make([]string, 0, len(res.Hits))
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		return append(ids, fmt.Sprint("total ", res.Total))
	}
	all := func(q Query) []string {
		t.Helper()
		var ids []string
		for off := 0; ; off += 100 {
			q.Limit, q.Offset = 100, off
			page := search(q, 1_000_000)
			ids = append(ids, page[:len(page)-1]...)
			if len(page) < 101 {
				return ids
			}
		}
	}
	for _, q := range []Query{
		{Order: OrderNewest},
		{},
		{Words: "woningbouw", Order: OrderNewest},
		{Words: "besluit", Types: []string{"regeling"}, Order: OrderNewest},
		{Organisation: "Kampen", From: "2001-03-01", To: to.Format(time.DateOnly), Order: OrderNewest},
		{Words: "stikstof", From: "1990-01-01", To: "2025-06-30", Order: OrderNewest},
	} {
		want := all(q)
		if len(want) < 200 {
			t.Fatalf("%+v: %d hits", q, len(want))
		}
		if q.Words == "" && q.Organisation == "" {
			last := want[len(want)-len(undated):]
			slices.Sort(last)
			if !slices.Equal(last, undated) {
				t.Fatalf("%+v: the records without a date are not last: %v", q, last)
			}
		}
		total := fmt.Sprint("total ", len(want))
		for _, limit := range []int{1, 7, 100} {
			for offset := 0; offset < len(want)+3; offset += max(limit*3, 29) {
				q.Limit, q.Offset = limit, offset
				got := search(q, 3)
				expect := append(slices.Clone(want[min(offset, len(want)):min(offset+limit, len(want))]), total)
				if fmt.Sprint(got) != fmt.Sprint(expect) {
					t.Fatalf("%+v: %v, want %v", q, got, expect)
				}
			}
		}
	}
}

// BenchmarkNewestFirst: a page of ten newest first over 200,000 records
// dated over 40 years (newestCorpus), side by side: every match sorted
// in one search, and the windows (what Search asks), for a word a third
// of the records hold, the same word in one year (its days as a number's
// range, what Search asks, and as a range of the day's keyword terms),
// and no word at all.
//
//	go test -run '^$' -bench NewestFirst -benchtime 100x ./adapters/koopsru/datereplica/
//
// DATEREPLICA_BENCH_RECORDS sets another number of records (3000000: the
// millions Official Publications holds).
func BenchmarkNewestFirst(b *testing.B) {
	n := 200_000
	if v := os.Getenv("DATEREPLICA_BENCH_RECORDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("DATEREPLICA_BENCH_RECORDS %q: a whole number of at least 1000", v)
		}
	}
	idx := openIndexB(b)
	to := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	records := newestCorpus(n, to)
	for len(records) > 0 {
		n := min(len(records), 10_000)
		if err := idx.apply(records[:n], []byte("1")); err != nil {
			b.Fatal(err)
		}
		records = records[n:]
	}
	ctx := context.Background()
	for _, q := range []struct {
		name string
		q    Query
	}{
		{"word", Query{Words: "woningbouw", Order: OrderNewest}},
		{"word-one-year", Query{Words: "woningbouw", From: "2025-01-01", To: "2025-12-31", Order: OrderNewest}},
		{"word-one-year-days-as-keywords", Query{Words: "woningbouw", From: "2025-01-01", To: "2025-12-31", Order: OrderNewest, textDays: true}},
		{"no-word", Query{}},
	} {
		for _, way := range []struct {
			name string
			few  uint64
		}{{"one-sort", 1 << 62}, {"windows", newestFewMatches}} {
			b.Run(q.name+"/"+way.name, func(b *testing.B) {
				saved := newestFewMatches
				newestFewMatches = way.few
				defer func() { newestFewMatches = saved }()
				for b.Loop() {
					if _, err := idx.Search(ctx, q.q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// From..To is asked of the day's number (bleveindex.DaysFrom): it holds
// exactly the records dated from..to, both days included, with and
// without words, in every order.
func TestDatesFromToAreExact(t *testing.T) {
	to := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	idx := openIndex(t, t.TempDir())
	records := newestCorpus(800, to)
	// A record on each edge of each range asked, and one a day outside.
	ranges := [][2]string{{"2025-01-01", "2025-12-31"}, {"1990-02-28", "1990-03-01"}, {"", "1989-12-31"}, {"2024-02-29", ""}, {"1969-12-31", "1970-01-02"}}
	for i, r := range ranges {
		for j, d := range r {
			if d == "" {
				continue
			}
			day, _ := time.Parse(time.DateOnly, d)
			for k, shift := range []int{0, 1 - 2*j} {
				records = append(records, Record{ID: fmt.Sprintf("E%d%d%d", i, j, k), Title: "Besluit rand woningbouw", Type: "besluit",
					Date: day.AddDate(0, 0, shift).Format(time.DateOnly), Modified: "2026-01-01"})
			}
		}
	}
	if err := idx.apply(records, []byte("1")); err != nil {
		t.Fatal(err)
	}
	for _, r := range ranges {
		for _, q := range []Query{{From: r[0], To: r[1], Order: OrderOldest}, {Words: "woningbouw", From: r[0], To: r[1]}, {From: r[0], To: r[1]}} {
			var want []string
			for _, rec := range records {
				if rec.Date != "" && (r[0] == "" || rec.Date >= r[0]) && (r[1] == "" || rec.Date <= r[1]) && (q.Words == "" || rec.Title[len(rec.Title)-10:] == "woningbouw") {
					want = append(want, rec.ID)
				}
			}
			var got []string
			for off := 0; ; off += 100 {
				q.Limit, q.Offset = 100, off
				res, err := idx.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Hits {
					got = append(got, h.ID)
				}
				if len(res.Hits) < 100 {
					break
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if len(want) < 3 || !slices.Equal(got, want) {
				t.Fatalf("%+v: %d records, want %d: %v, want %v", q, len(got), len(want), got, want)
			}
		}
	}
}

// The words of an unscored search are the terms the field's analyzer
// makes, joined with the filters (bleveindex.EveryTerm); a scored search
// asks them as one match query (EveryWord). Both find the same records:
// one word, two, a form the Dutch stemmer folds, stop words alone, a word
// no record holds, with and without filters.
func TestUnscoredWordsMatchAsScored(t *testing.T) {
	to := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	idx := openIndex(t, t.TempDir())
	if err := idx.apply(newestCorpus(600, to), []byte("1")); err != nil {
		t.Fatal(err)
	}
	ids := func(q Query) []string {
		t.Helper()
		var out []string
		for off := 0; ; off += 100 {
			q.Limit, q.Offset = 100, off
			res, err := idx.Search(context.Background(), q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			for _, h := range res.Hits {
				out = append(out, h.ID)
			}
			if len(res.Hits) < 100 {
				slices.Sort(out)
				return append(out, fmt.Sprint("total ", res.Total))
			}
		}
	}
	matched := 0
	for _, q := range []Query{
		{Words: "woningbouw"},
		{Words: "besluit stikstof"},
		{Words: "besluiten"},
		{Words: "de het"},
		{Words: "kernenergie"},
		{Words: "jeugdzorg", Types: []string{"regeling"}},
		{Words: "besluit", Organisation: "Kampen", From: "2001-03-01", To: "2020-12-31"},
	} {
		scored := ids(q)
		q.Order = OrderNewest
		if unscored := ids(q); !slices.Equal(unscored, scored) {
			t.Fatalf("%q: newest first found %d, best match %d", q.Words, len(unscored), len(scored))
		}
		matched += len(scored) - 1
	}
	if matched < 500 {
		t.Fatalf("the questions matched %d records in all: too few to tell", matched)
	}
}
