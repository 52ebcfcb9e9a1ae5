package fanout

import (
	"slices"
	"sort"
	"strings"
)

// Orders of the merged list (Query.Sort asks for one, Result.Sort says
// which one was used).
const (
	// SortRelevance ranks by reciprocal rank fusion over each platform's
	// own order: a document several platforms rank high comes first.
	SortRelevance = "relevance"
	// SortDate is newest first, undated last.
	SortDate = "date"
)

// Sorts are the orders a query may ask for.
var Sorts = []string{SortRelevance, SortDate}

// rrfK is reciprocal rank fusion's k: a hit at rank r (from 1) on a
// platform adds 1/(k+r) to its document's score. 60 is the value of RRF's
// paper (Cormack, Clarke and Büttcher, SIGIR 2009) and the default of
// the search engines that offer it. It flattens the curve: the first hit
// weighs 1/61, the tenth 1/70, so a document two platforms both found
// outranks one only a single platform put first, and no platform's top
// hit alone decides the list.
const rrfK = 60

// Order is the order q's merged list takes: q.Sort when it names one;
// otherwise relevance when q has words, and date when it has none (an
// organisation's documents: with no words there is nothing to be
// relevant to, and the platforms themselves then list newest first).
func (q Query) Order() string {
	if q.Sort != "" {
		return q.Sort
	}
	if strings.TrimSpace(q.Words) != "" {
		return SortRelevance
	}
	return SortDate
}

// fusedScore is a document's reciprocal rank fusion score from its ranks
// (from 1) on the platforms that found it. The ranks are added smallest
// first, so two documents with the same ranks get bit-identical scores,
// whatever order their platforms came in, and tie.
func fusedScore(ranks []int) float64 {
	sorted := slices.Sorted(slices.Values(ranks))
	score := 0.0
	for _, r := range sorted {
		score += 1 / float64(rrfK+r)
	}
	return score
}

// orderGroups sorts merged groups (their leads) by order: by fused score,
// then as by date; or by date, newest first and undated last, then by the
// engine's platform order and each platform's own order.
func orderGroups(groups []*item, order string) {
	if order != SortRelevance {
		sort.SliceStable(groups, func(a, b int) bool { return newerFirst(groups[a], groups[b]) })
		return
	}
	scores := make(map[*item]float64, len(groups))
	for _, g := range groups {
		scores[g] = fusedScore(g.ranks)
	}
	sort.SliceStable(groups, func(a, b int) bool {
		if sa, sb := scores[groups[a]], scores[groups[b]]; sa != sb {
			return sa > sb
		}
		return newerFirst(groups[a], groups[b])
	})
}

// newerFirst orders by date, newest first, dated before undated; ties by
// the engine's platform order, then the platform's own order.
func newerFirst(a, b *item) bool {
	da, db := dayOf(a.h.Date), dayOf(b.h.Date)
	if da != db {
		if da == "" || db == "" {
			return db == "" // dated before undated
		}
		return da > db
	}
	if a.plat != b.plat {
		return a.plat < b.plat
	}
	return a.rank < b.rank
}
