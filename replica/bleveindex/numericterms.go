package bleveindex

import (
	"math"

	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/search/query"
)

// numericBounds are q's bounds as bleve's sortable integers, both
// inclusive, as bleve's numeric range searcher reads them: an open side
// is an infinity, the minimum inclusive and the maximum exclusive unless
// q says otherwise.
func numericBounds(q *query.NumericRangeQuery) (lo, hi int64) {
	min, max := math.Inf(-1), math.Inf(1)
	if q.Min != nil {
		min = *q.Min
	}
	if q.Max != nil {
		max = *q.Max
	}
	lo, hi = numeric.Float64ToInt64(min), numeric.Float64ToInt64(max)
	if q.InclusiveMin != nil && !*q.InclusiveMin && lo != math.MaxInt64 {
		lo++
	}
	if (q.InclusiveMax == nil || !*q.InclusiveMax) && hi != math.MinInt64 {
		hi--
	}
	return lo, hi
}

// precisionStep is the bits between the precisions bleve indexes a
// number at: every number's terms are its value shifted right by 0, 4,
// ... 60 bits, prefix-coded (bleve's document.DefaultPrecisionStep).
const precisionStep = 4

// numericTerms are the prefix-coded terms whose values tile the sortable
// integers from lo to hi (inclusive), each at the coarsest precision
// that fits: at each precision the ends that do not fill a block of the
// next one, then the blocks in between one precision up. Empty when lo
// > hi.
func numericTerms(lo, hi int64) [][]byte {
	const sign = uint64(1) << 63 // sortable order as unsigned
	ulo, uhi := uint64(lo)^sign, uint64(hi)^sign
	if ulo > uhi {
		return nil
	}
	var out [][]byte
	emit := func(from, to uint64, shift uint) {
		for v := from; ; v++ {
			out = append(out, numeric.MustNewPrefixCodedInt64(int64((v<<shift)^sign), shift))
			if v == to {
				return
			}
		}
	}
	for shift := uint(0); ; shift += precisionStep {
		if shift+precisionStep >= 64 {
			emit(ulo>>shift, uhi>>shift, shift)
			return out
		}
		block := uint64(1)<<(shift+precisionStep) - 1
		if ulo&block != 0 { // a partial block at the low end
			end := ulo | block
			if end >= uhi {
				emit(ulo>>shift, uhi>>shift, shift)
				return out
			}
			emit(ulo>>shift, end>>shift, shift)
			ulo = end + 1
		}
		if uhi&block != block { // a partial block at the high end
			start := uhi &^ block
			if start <= ulo {
				emit(ulo>>shift, uhi>>shift, shift)
				return out
			}
			emit(start>>shift, uhi>>shift, shift)
			uhi = start - 1
		}
	}
}
