package caselaw

import (
	"context"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
)

// The differential tests of the faster paths (the BM25 order and the
// count by the segments' bitmaps, fastpath.go; the date order's windows of
// days, datewindows.go): on a generated index, every typical query
// (genQueries), in both orders and at several depths, gives the hits and
// the total that plain bleve gives, one search of the whole query in that
// order; the fast path's scores are bleve's to the last bit.

// diffCorpus is an index of 6,000 generated decisions in several
// batches (so several segments).
func diffCorpus(t *testing.T) *Index {
	t.Helper()
	if testing.Short() {
		t.Skip("indexes 6,000 generated decisions")
	}
	ix, _ := openTest(t)
	var page []Decision
	for n := range 6000 {
		page = append(page, genDecision(n))
		if len(page) == 1000 {
			mustApply(t, ix, Checkpoint{NextFrom: n + 1}, page...)
			page = page[:0]
		}
	}
	return ix
}

// sameRanking tells whether two pages of hits (ids and scores, in order)
// rank alike: the same scores in the same order, and within a run of
// equal scores the same hits in any order. Equal scores are tied, and
// bleve breaks a tie by the documents' order in the index, which its
// background merges change between two searches; a run cut by the page's
// end, or by its start on a page after the first (offset), may hold other
// hits of the same score.
func sameRanking(offset int, gotIDs []string, gotScores []float64, wantIDs []string, wantScores []float64) bool {
	if len(gotIDs) != len(wantIDs) || !slices.Equal(gotScores, wantScores) {
		return false
	}
	for start := 0; start < len(gotIDs); {
		end := start + 1
		for end < len(gotIDs) && gotScores[end] == gotScores[start] {
			end++
		}
		if (start > 0 || offset == 0) && end < len(gotIDs) {
			a, b := slices.Clone(gotIDs[start:end]), slices.Clone(wantIDs[start:end])
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				return false
			}
		}
		start = end
	}
	return true
}

// onOneSnapshot runs f, which searches the index twice, until no
// background merge of bleve's came between its start and its end. BM25's
// statistics belong to a snapshot (bleve's field cardinality is the sum
// of its segments' dictionaries, index/scorch/snapshot_index.go), so two
// searches either side of a merge score alike hits differently; comparing
// them would test bleve's merger, not the fast path. The index takes no
// batches meanwhile, so its merges come to an end.
func onOneSnapshot(t *testing.T, ix *Index, f func()) {
	t.Helper()
	for range 1000 {
		before := segmentIDs(t, ix)
		f()
		if slices.Equal(before, segmentIDs(t, ix)) {
			return
		}
	}
	t.Fatal("bleve's merges never came to an end")
}

// segmentIDs names the segments of the index's current snapshot.
func segmentIDs(t *testing.T, ix *Index) []uint64 {
	t.Helper()
	adv, err := ix.store.Bleve().Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ids []uint64
	for _, ss := range r.(*scorch.IndexSnapshot).Segments() {
		ids = append(ids, ss.Id())
	}
	return ids
}

// plainBleve is the page of q by one bleve search: BM25 best first, or
// the whole range sorted newest first.
func plainBleve(t *testing.T, ix *Index, q Query) ([]string, []float64, uint64) {
	t.Helper()
	p, err := planQuery(q, ix.analyzers)
	if err != nil {
		t.Fatal(err)
	}
	req := bleve.NewSearchRequestOptions(p.boolean(), p.limit, p.offset, false)
	if p.byDate {
		req.SortBy([]string{"-" + fieldDay, "_id"})
		req.Score = "none"
	} else {
		req.SortBy([]string{"-_score"})
	}
	res, err := ix.store.Bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var scores []float64
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
		scores = append(scores, h.Score)
	}
	if p.byDate {
		scores = make([]float64, len(ids)) // not computed, as Result's
	}
	return ids, scores, res.Total
}

func TestFastPathsGivePlainBlevesPages(t *testing.T) {
	ix := diffCorpus(t)
	checked := 0
	for _, base := range genQueries {
		for _, sort := range []string{SortRelevance, SortDate} {
			for _, page := range []struct{ limit, offset int }{{10, 0}, {1, 0}, {7, 3}, {100, 0}, {20, 200}} {
				q := base
				q.Sort, q.Limit, q.Offset = sort, page.limit, page.offset
				var got Result
				var want []string
				var wantScores []float64
				var total uint64
				onOneSnapshot(t, ix, func() {
					got = run(t, ix, q)
					want, wantScores, total = plainBleve(t, ix, q)
				})
				var gotScores []float64
				for _, h := range got.Hits {
					gotScores = append(gotScores, h.Score)
				}
				same := slices.Equal(eclis(got), want) // the date order has no ties: day, then id
				if sort == SortRelevance {
					same = sameRanking(q.Offset, eclis(got), gotScores, want, wantScores)
				}
				if !same || got.Total != total {
					t.Errorf("%s limit %d offset %d: %d hits of %d\n got %v %v\nwant %v %v (of %d)",
						describe(q), q.Limit, q.Offset, len(got.Hits), got.Total, eclis(got), gotScores, want, wantScores, total)
				}
				if len(want) > 0 {
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d pages had hits: the test proves little", checked)
	}

	// The fast path itself, where it applies, before and after some
	// decisions are replaced and withdrawn (deleted documents in the
	// segments).
	if fast := fastEqualsPlain(t, ix); fast < 30 {
		t.Fatalf("the fast path took only %d of the queries", fast)
	}
	var changed []Decision
	for n := 0; n < 600; n += 3 {
		d := genDecision(n)
		if n%2 == 0 {
			d.Deleted = true
		} else {
			d.Summary = genDecision(n + 7000).Summary
		}
		changed = append(changed, d)
	}
	mustApply(t, ix, Checkpoint{NextFrom: 6000}, changed...)
	fastEqualsPlain(t, ix)

	// The windows of days: a query that matches a large share of the
	// index gets a first window of a few days, growing fourfold; one that
	// matches few gets one open window; every list ends open.
	dc, err := ix.dayCounts()
	if err != nil {
		t.Fatal(err)
	}
	if dc.total < 4000 || dc.total > 6000 { // see dayCounts on bleve's count
		t.Fatalf("the days count %d decisions, want about 6000", dc.total)
	}
	common := dc.dayWindows(dc.days[len(dc.days)-1].AddDate(0, 0, 1), 3000, 11)
	if len(common) < 3 || !common[len(common)-1].IsZero() {
		t.Fatalf("a common query's windows: %v", common)
	}
	for k := 1; k < len(common)-1; k++ {
		if !common[k].Before(common[k-1]) {
			t.Fatalf("windows not newest first: %v", common)
		}
	}
	if rare := dc.dayWindows(dc.days[len(dc.days)-1], 10, 11); len(rare) != 1 || !rare[0].IsZero() {
		t.Fatalf("a rare query's windows: %v", rare)
	}
	// Stored decisions clear the cached days.
	mustApply(t, ix, Checkpoint{NextFrom: 6000})
	if ix.days.cached.Load() != nil {
		t.Fatal("Apply left the days cached")
	}
}

// fastEqualsPlain runs the BM25 order of the typical queries by the fast
// path and by plain bleve, and fails unless they agree; it returns how
// many the fast path took (it must not fall through on any of them).
func fastEqualsPlain(t *testing.T, ix *Index) (fast int) {
	t.Helper()
	ctx := context.Background()
	fast = 0
	for _, base := range append(slices.Clone(genQueries), Query{Words: "beroep beroep ongegrond"}, Query{Words: "hof", Type: TypeOpinion}) {
		for _, page := range []struct{ limit, offset int }{{10, 0}, {100, 50}, {5, 5000}} {
			q := base
			q.Sort, q.Limit, q.Offset = SortRelevance, page.limit, page.offset
			p, err := planQuery(q, ix.analyzers)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := termsOf(p); !ok {
				continue
			}
			fast++
			var total, wantTotal uint64
			var hits, want []*search.DocumentMatch
			var fastErr, plainErr error
			onOneSnapshot(t, ix, func() {
				total, hits, fastErr = ix.fastBestFirst(ctx, p)
				wantTotal, want, plainErr = ix.plainBestFirst(ctx, p)
			})
			if fastErr != nil {
				t.Fatalf("%s: the fast path fell through: %v", describe(q), fastErr)
			}
			if plainErr != nil {
				t.Fatal(plainErr)
			}
			if total != wantTotal || len(hits) != len(want) {
				t.Fatalf("%s offset %d: %d hits of %d, want %d of %d", describe(q), q.Offset, len(hits), total, len(want), wantTotal)
			}
			var gotIDs, wantIDs []string
			var gotScores, wantScores []float64
			wantByID := map[string]int{}
			for k := range hits {
				gotIDs, gotScores = append(gotIDs, hits[k].ID), append(gotScores, hits[k].Score)
				wantIDs, wantScores = append(wantIDs, want[k].ID), append(wantScores, want[k].Score)
				wantByID[want[k].ID] = k
			}
			if !sameRanking(q.Offset, gotIDs, gotScores, wantIDs, wantScores) {
				t.Fatalf("%s offset %d: hits %v (%v), want %v (%v)", describe(q), q.Offset, gotIDs, gotScores, wantIDs, wantScores)
			}
			for k := range hits {
				w, ok := wantByID[hits[k].ID]
				if !ok {
					continue // a tie cut by the page's edge: another hit of the same score
				}
				for _, f := range hitFields {
					if hits[k].Fields[f] != want[w].Fields[f] {
						t.Fatalf("%s: hit %d's %s differs", describe(q), k, f)
					}
				}
			}
			count, read, err := ix.store.CountFromBitmaps(ctx, p.boolean())
			if err != nil || !read || count != wantTotal {
				t.Fatalf("%s: count %d (read from the bitmaps %v, %v), want %d", describe(q), count, read, err, wantTotal)
			}
		}
	}
	return fast
}
