package bleveindex

import (
	"context"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/besluitbron/besluitbron/replica"
)

// CountMatches is how many documents q matches: what an unscored bleve
// search of q gives as its total, without visiting them. bleve counts a
// search's total by walking every match through its collector, even
// when it has ANDed the postings as bitmaps; a year's question of
// Official Publications at 3 million walked 124,000 matches for its
// count, in every replica at once (docs/benchmarks.md, the moonshot).
// Where q is made only of what the bitmaps read (terms, numeric ranges
// and their conjunctions, disjunctions and exclusions, each naming its
// field), the count is the cardinality of the postings' bitmaps,
// combined segment by segment; anything else is counted by bleve's own
// search. TestCountMatchesIsBleves holds the two to each other.
func (i *Index) CountMatches(ctx context.Context, q query.Query) (uint64, error) {
	n, ok, err := i.CountFromBitmaps(ctx, q)
	if err != nil || ok {
		return n, err
	}
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.Score = "none"
	res, err := i.Search(ctx, req)
	if err != nil {
		return 0, err
	}
	return res.Total, nil
}

// CountFromBitmaps counts q's matches from the postings' bitmaps; ok is
// false when q holds a part they do not read (then nothing is counted).
// Guarded as Search is: a panic inside bleve's segments marks the index
// corrupt.
func (i *Index) CountFromBitmaps(ctx context.Context, q query.Query) (uint64, bool, error) {
	if !readable(q) {
		return 0, false, nil
	}
	i.mu.RLock()
	if i.broken != nil {
		defer i.mu.RUnlock()
		return 0, false, i.broken
	}
	n, ok, err, panicked := func() (n uint64, ok bool, err error, panicked bool) {
		defer func() {
			if r := recover(); r != nil {
				err, panicked = fmt.Errorf("counting the index's matches panicked: %v", r), true
			}
		}()
		n, ok, err = countSegments(ctx, i.bl, q)
		return n, ok, err, false
	}()
	i.mu.RUnlock()
	if panicked {
		return 0, false, i.fail(replica.ErrCorrupt, err)
	}
	return n, ok, err
}

// countSegments sums q's matches over the segments of bl's current
// snapshot; ok is false when bl is not scorch or a postings list is not
// a bitmap.
func countSegments(ctx context.Context, bl bleve.Index, q query.Query) (n uint64, ok bool, err error) {
	adv, err := bl.Advanced()
	if err != nil {
		return 0, false, err
	}
	r, err := adv.Reader()
	if err != nil {
		return 0, false, err
	}
	defer r.Close()
	snap, isScorch := r.(*scorch.IndexSnapshot)
	if !isScorch {
		return 0, false, nil
	}
	for _, seg := range snap.Segments() {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		bm, read, err := segmentMatches(seg, q)
		if err != nil || !read {
			return 0, false, err
		}
		n += bm.GetCardinality()
	}
	return n, true, nil
}

// SegmentMatches is the bitmap of q's live matches in one segment of a
// scorch snapshot, for a search beside bleve's that reads the matches
// itself; ok is false when q holds a part the bitmaps do not read. The
// bitmap may be the segment's own: read it, never change it.
func SegmentMatches(seg *scorch.SegmentSnapshot, q query.Query) (bm *roaring.Bitmap, ok bool, err error) {
	if !readable(q) {
		return nil, false, nil
	}
	return segmentMatches(seg, q)
}

// segmentMatches reads q's matches over every document of the segment,
// deleted ones too, and takes the deleted out once at the end: each
// term's bitmap is then the segment's own, not a copy less the deleted
// made term by term. Taking them out last gives the same set, for AND,
// OR and AND NOT alike.
func segmentMatches(seg *scorch.SegmentSnapshot, q query.Query) (*roaring.Bitmap, bool, error) {
	bm, read, err := segmentDocs{seg: seg, dicts: map[string]segment.TermDictionary{}}.matches(q)
	if err != nil || !read {
		return nil, read, err
	}
	if del := seg.Deleted(); del != nil && !del.IsEmpty() {
		bm = roaring.AndNot(bm, del)
	}
	return bm, true, nil
}

// readable says whether the bitmaps read every part of q: a term or a
// numeric range of a named field, a conjunction or disjunction (of at
// least one; a disjunction wanting at most one) of such, and a boolean
// query of a must or a filter with exclusions, no should.
func readable(q query.Query) bool {
	switch q := q.(type) {
	case *query.TermQuery:
		return q.FieldVal != ""
	case *query.NumericRangeQuery:
		return q.FieldVal != ""
	case *query.MatchNoneQuery, *query.MatchAllQuery:
		return true
	case *query.ConjunctionQuery:
		return len(q.Conjuncts) > 0 && allReadable(q.Conjuncts)
	case *query.DisjunctionQuery:
		return len(q.Disjuncts) > 0 && q.Min <= 1 && allReadable(q.Disjuncts)
	case *query.BooleanQuery:
		if q.Should != nil || (q.Must == nil && q.Filter == nil) {
			return false
		}
		for _, p := range []query.Query{q.Must, q.Filter, q.MustNot} {
			if p != nil && !readable(p) {
				return false
			}
		}
		return true
	}
	return false
}

func allReadable(qs []query.Query) bool {
	for _, q := range qs {
		if !readable(q) {
			return false
		}
	}
	return true
}

// segmentDocs reads one segment's matches as bitmaps of its document
// numbers, deleted documents included (segmentMatches takes them out). A
// bitmap it returns may be the segment's own: read it, never change it.
type segmentDocs struct {
	seg   *scorch.SegmentSnapshot
	dicts map[string]segment.TermDictionary
}

// matches is the bitmap of q's matches in the segment; read is
// false when a postings list cannot be read as a bitmap.
func (s segmentDocs) matches(q query.Query) (bm *roaring.Bitmap, read bool, err error) {
	switch q := q.(type) {
	case *query.TermQuery:
		return s.postings(q.FieldVal, []byte(q.Term))
	case *query.NumericRangeQuery:
		lo, hi := numericBounds(q)
		var parts []*roaring.Bitmap
		for _, t := range numericTerms(lo, hi) {
			bm, read, err := s.postings(q.FieldVal, t)
			if err != nil || !read {
				return nil, read, err
			}
			parts = append(parts, bm)
		}
		return roaring.FastOr(parts...), true, nil
	case *query.MatchNoneQuery:
		return roaring.New(), true, nil
	case *query.MatchAllQuery:
		all := roaring.New()
		all.AddRange(0, s.seg.Segment().Count())
		return all, true, nil
	case *query.ConjunctionQuery:
		parts, read, err := s.each(q.Conjuncts)
		if err != nil || !read {
			return nil, read, err
		}
		if len(parts) == 1 {
			return parts[0], true, nil
		}
		return roaring.FastAnd(parts...), true, nil
	case *query.DisjunctionQuery:
		parts, read, err := s.each(q.Disjuncts)
		if err != nil || !read {
			return nil, read, err
		}
		return roaring.FastOr(parts...), true, nil
	case *query.BooleanQuery:
		var kept []query.Query
		for _, p := range []query.Query{q.Must, q.Filter} {
			if p != nil {
				kept = append(kept, p)
			}
		}
		parts, read, err := s.each(kept)
		if err != nil || !read {
			return nil, read, err
		}
		in := parts[0]
		if len(parts) > 1 {
			in = roaring.FastAnd(parts...)
		}
		if q.MustNot == nil {
			return in, true, nil
		}
		out, read, err := s.matches(q.MustNot)
		if err != nil || !read {
			return nil, read, err
		}
		return roaring.AndNot(in, out), true, nil
	}
	return nil, false, nil
}

func (s segmentDocs) each(qs []query.Query) ([]*roaring.Bitmap, bool, error) {
	parts := make([]*roaring.Bitmap, 0, len(qs))
	for _, q := range qs {
		bm, read, err := s.matches(q)
		if err != nil || !read {
			return nil, read, err
		}
		parts = append(parts, bm)
	}
	return parts, true, nil
}

// postings is the bitmap of the documents whose field holds term.
func (s segmentDocs) postings(field string, term []byte) (*roaring.Bitmap, bool, error) {
	dict, ok := s.dicts[field]
	if !ok {
		var err error
		if dict, err = s.seg.Segment().Dictionary(field); err != nil {
			return nil, false, err
		}
		s.dicts[field] = dict
	}
	pl, err := dict.PostingsList(term, nil, nil)
	if err != nil {
		return nil, false, err
	}
	it, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
	if !ok {
		return nil, false, nil
	}
	if doc, one := it.DocNum1Hit(); one {
		return roaring.BitmapOf(uint32(doc)), true, nil
	}
	if bm := it.ActualBitmap(); bm != nil {
		return bm, true, nil
	}
	return roaring.New(), true, nil
}

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
