package emulator

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// The feed at one moment: which ECLIs are published and in what order of
// modification. The clock moves rulings: one appears when its publication
// passes, and one modified later (or withdrawn) keeps its publication time
// until the clock passes the modification, then moves towards the end. So
// the order is computed once for a span of the clock in which nothing
// happens, and every request within that span reuses it; with a fixed
// test clock that is once.

// view is the feed's order for the clock in [from, until).
type view struct {
	from, until int64   // unix seconds
	order       []int32 // visible rulings (positions in index.rulings), by modification as seen, then key
	modified    []int64 // the modification seen, per position of order: for binary search
}

func (v *view) holds(now int64) bool { return v.from <= now && now < v.until }

// viewAt returns the feed's order at now, from the cache while nothing has
// happened since it was computed.
func (h *handler) viewAt(now time.Time) *view {
	t := now.Unix()
	h.viewMu.Lock()
	defer h.viewMu.Unlock()
	if h.view == nil || !h.view.holds(t) {
		h.view = computeView(h.index(), t)
	}
	return h.view
}

// computeView orders the rulings visible at now. The index is sorted by
// last modification; the rulings whose last modification is still to
// come show their publication instead, so they are sorted apart and
// merged in.
func computeView(ix *index, now int64) *view {
	v := &view{from: math.MinInt64, until: math.MaxInt64}
	settled := make([]int32, 0, len(ix.rulings))
	var pending []int32
	for i := range ix.rulings {
		r := &ix.rulings[i]
		for _, event := range [2]int64{r.published, r.modified} {
			if event > now {
				v.until = min(v.until, event)
			} else {
				v.from = max(v.from, event)
			}
		}
		switch {
		case !r.visible(now):
		case r.modified > now:
			pending = append(pending, int32(i))
		default:
			settled = append(settled, int32(i))
		}
	}
	byShown := func(a, b int32) int {
		x, y := &ix.rulings[a], &ix.rulings[b]
		return cmp.Or(cmp.Compare(x.modifiedAt(now), y.modifiedAt(now)), cmp.Compare(x.key(), y.key()))
	}
	slices.SortFunc(pending, byShown)
	v.order = make([]int32, 0, len(settled)+len(pending))
	for len(settled) > 0 || len(pending) > 0 {
		if len(pending) == 0 || (len(settled) > 0 && byShown(settled[0], pending[0]) <= 0) {
			v.order, settled = append(v.order, settled[0]), settled[1:]
		} else {
			v.order, pending = append(v.order, pending[0]), pending[1:]
		}
	}
	v.modified = make([]int64, len(v.order))
	for i, p := range v.order {
		v.modified[i] = ix.rulings[p].modifiedAt(now)
	}
	return v
}

// span returns the positions of order whose modification lies in
// [since, until] (inclusive; math.MinInt64 and math.MaxInt64 for open
// ends).
func (v *view) span(since, until int64) (lo, hi int) {
	lo, _ = slices.BinarySearch(v.modified, since)
	if until == math.MaxInt64 {
		return lo, len(v.modified)
	}
	hi, _ = slices.BinarySearch(v.modified, until+1)
	return lo, max(lo, hi)
}
