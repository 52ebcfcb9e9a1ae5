package localindex

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms/obv/export"
)

// orderCorpus is an index of n entities in four sources and three types,
// dated over 2010 to 2026 (many on a shared day, one in nine without a
// day), titled from the words of vocabulary (its first several, when
// the vocabulary is smaller) so that a word matches many entities with
// titles of different lengths, and so different scores.
func orderCorpus(t *testing.T, n int, vocabulary []string) *Index {
	t.Helper()
	idx, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	r := rand.New(rand.NewPCG(35, 8))
	sources := []string{"soest", "utrecht", "zeist", "baarn"}
	types := []string{"document", "meeting", "motion"}
	start := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	var records []export.ExportRecord
	for i := range n {
		var words []string
		for range 1 + r.IntN(6) {
			words = append(words, vocabulary[r.IntN(len(vocabulary))])
		}
		payload := fmt.Sprintf(`{"name":%q}`, strings.Join(words, " "))
		if i%9 != 0 {
			day := start.AddDate(0, 0, r.IntN(6200)/7*7) // every seventh day: many share one
			payload = fmt.Sprintf(`{"name":%q,"date":%q}`, strings.Join(words, " "), day.Format(time.DateOnly))
		}
		records = append(records, export.ExportRecord{Op: export.OpUpsert, Time: "2026-10-01T12:00:00Z",
			EntityID: fmt.Sprintf("document:x:gemeente:%d", i), EntityType: types[r.IntN(len(types))],
			SourceKey: sources[r.IntN(len(sources))], ContentHash: fmt.Sprintf("sha256:%d", i), Payload: []byte(payload)})
	}
	for len(records) > 0 {
		k := min(500, len(records))
		if _, err := idx.Apply(records[:k], []byte("c")); err != nil {
			t.Fatal(err)
		}
		records = records[k:]
	}
	return idx
}

// orderWords are the words of orderCorpus's titles.
var orderWords = []string{"begroting", "woningbouw", "motie", "verkeersveiligheid", "subsidie", "raadsvoorstel", "jeugdzorg", "2024"}

// every is every match of q, page by page. Pages of a total order only:
// bleve orders equal scores by where the documents lie in its segments,
// which its merger changes between two searches.
func every(t *testing.T, idx *Index, q Query) []Hit {
	t.Helper()
	var out []Hit
	for q.Limit, q.Offset = 100, 0; ; q.Offset += 100 {
		res, err := idx.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Hits...)
		if len(res.Hits) < 100 {
			if uint64(len(out)) != res.Total {
				t.Fatalf("%+v: %d hits read, total %d", q, len(out), res.Total)
			}
			return out
		}
	}
}

// bestMatches is every match of a best-match search, in one page: pages
// of it are no total order (every).
func bestMatches(t *testing.T, idx *Index, q Query) []Hit {
	t.Helper()
	q.Limit, q.Offset = 1<<20, 0
	res, err := idx.search(context.Background(), q)
	if err != nil || uint64(len(res.Hits)) != res.Total {
		t.Fatalf("%+v: %d hits of %d, %v", q, len(res.Hits), res.Total, err)
	}
	return res.Hits
}

// A filter narrows a best-match search and never reorders it: the hits
// with a source, a type or days asked are the hits of the words alone
// that have them, with the same scores in the same order (equal scores
// by id: bleve orders those by where the documents lie in its segments,
// which its merger changes between two searches); the first and last
// day asked are included. Each search is read in one page (bestMatches).
func TestFiltersNarrowBestMatchNeverReorder(t *testing.T) {
	var vocabulary []string
	for i := range 60 {
		vocabulary = append(vocabulary, fmt.Sprintf("onderwerp%c%c", 'a'+i/26, 'a'+i%26))
	}
	idx := orderCorpus(t, 1500, vocabulary)
	tested := 0
	for _, words := range vocabulary {
		all := byScore(bestMatches(t, idx, Query{Words: words}))
		if len(all) < 30 || len(all) > 100 {
			continue
		}
		tested++
		from, to := all[len(all)/3].Date, all[len(all)/2].Date
		if from == "" || to == "" {
			from, to = "2014-01-01", "2019-12-31"
		}
		if from > to {
			from, to = to, from
		}
		for _, f := range []struct {
			q    Query
			keep func(Hit) bool
		}{
			{Query{Sources: []string{"zeist"}}, func(h Hit) bool { return h.Source == "zeist" }},
			{Query{Types: []string{"motion", "meeting"}}, func(h Hit) bool { return h.Type != "document" }},
			{Query{From: from, To: to}, func(h Hit) bool { return h.Date != "" && from <= h.Date && h.Date <= to }},
			{Query{To: from}, func(h Hit) bool { return h.Date != "" && h.Date <= from }},
			{Query{Sources: []string{"soest", "baarn"}, From: from}, func(h Hit) bool {
				return (h.Source == "soest" || h.Source == "baarn") && h.Date != "" && h.Date >= from
			}},
		} {
			q := f.q
			q.Words = words
			want := slices.DeleteFunc(slices.Clone(all), func(h Hit) bool { return !f.keep(h) })
			got := byScore(bestMatches(t, idx, q))
			if !slices.Equal(got, want) {
				t.Fatalf("%+v: %d hits, want %d, the words' own hits in their order (first differing: %s)", q, len(got), len(want), firstDiff(got, want))
			}
		}
	}
	if tested < 10 {
		t.Fatalf("%d words match 30 to 100 entities: the corpus does not test it", tested)
	}
}

// byScore orders hits best first, equal scores by id.
func byScore(hs []Hit) []Hit {
	slices.SortStableFunc(hs, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hs
}

// Newest first is the full sort by day (newest first, then id; entities
// without a day last) on every page, however the windows of days fall;
// oldest first is its mirror with the dayless last too.
func TestNewestFirstIsTheFullSort(t *testing.T) {
	idx := orderCorpus(t, 3000, orderWords)
	savedFew, savedWindows := fewMatches, windowDays
	fewMatches, windowDays = 10, []int{30, 400, 2000}
	t.Cleanup(func() { fewMatches, windowDays = savedFew, savedWindows })
	byDay := func(newest bool) func(a, b Hit) int {
		return func(a, b Hit) int {
			switch {
			case a.Date == "" && b.Date != "":
				return 1
			case b.Date == "" && a.Date != "":
				return -1
			case a.Date != b.Date && newest:
				return cmp.Compare(b.Date, a.Date)
			case a.Date != b.Date:
				return cmp.Compare(a.Date, b.Date)
			}
			return cmp.Compare(a.ID, b.ID)
		}
	}
	noScore := func(hs []Hit) []Hit {
		for i := range hs {
			hs[i].Score = 0
		}
		return hs
	}
	for _, base := range []Query{{Words: "begroting"}, {Words: "2024 motie"}, {}, {Sources: []string{"utrecht"}},
		{Words: "subsidie", To: "2016-06-30"}, {Words: "woningbouw", From: "2012-01-05", To: "2025-03-31"}} {
		for _, order := range []string{OrderNewest, OrderOldest} {
			q := base
			q.Order = order
			if base.Words == "" && order == OrderNewest {
				q.Order = "" // newest first is the default without words
			}
			// Every match, read oldest first (a total order, so the pages
			// hold each once), then sorted here.
			all := base
			all.Order = OrderOldest
			want := noScore(every(t, idx, all))
			slices.SortFunc(want, byDay(order != OrderOldest))
			for _, limit := range []int{1, 7, 100} {
				for _, offset := range []int{0, 3, 10, 95, len(want) / 2, len(want) - 2} {
					if offset < 0 || offset > len(want) {
						continue
					}
					q.Limit, q.Offset = limit, offset
					res, err := idx.Search(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					end := min(len(want), offset+limit)
					if res.Total != uint64(len(want)) || !slices.Equal(noScore(res.Hits), want[offset:end]) {
						t.Fatalf("%+v: total %d (want %d), page differs: %s", q, res.Total, len(want), firstDiff(res.Hits, want[offset:end]))
					}
				}
			}
		}
	}
}

func firstDiff(got, want []Hit) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// A search ordered by day finds what the best-match search of the same
// words and filters finds: its words are asked as terms beside the
// filters (bleveindex.EveryTerm), the best match's as a scored match
// query with the filters apart.
func TestOrderedWordsMatchAsBestMatch(t *testing.T) {
	idx := orderCorpus(t, 2000, orderWords)
	ids := func(hs []Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		slices.Sort(out)
		return out
	}
	for _, q := range []Query{{Words: "begroting"}, {Words: "2024 motie"}, {Words: "moties"}, {Words: "de begroting"},
		{Words: "de"}, {Words: "onbekendwoord"}, {Words: "subsidie", Sources: []string{"zeist", "baarn"}},
		{Words: "woningbouw", Types: []string{"motion"}, From: "2012-01-05", To: "2025-03-31"}, {Words: "jeugdzorg 2024", To: "2016-06-30"}} {
		best := ids(bestMatches(t, idx, q))
		for _, order := range []string{OrderNewest, OrderOldest} {
			o := q
			o.Order = order
			if got := ids(every(t, idx, o)); !slices.Equal(got, best) {
				t.Fatalf("%+v: %d matches, the best-match search %d", o, len(got), len(best))
			}
		}
		if q.Words == "begroting" && len(best) < 100 {
			t.Fatalf("%q matches %d: the corpus does not test it", q.Words, len(best))
		}
	}
}
