package bleveindex

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

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

// segmentMatches reads q's matches over every document of the segment,
// deleted ones too, and takes the deleted out once at the end: each
// term's bitmap is then the segment's own, not a copy less the deleted
// made term by term. Taking them out last gives the same set, for AND,
// OR and AND NOT alike.
func segmentMatches(seg *scorch.SegmentSnapshot, q query.Query) (*roaring.Bitmap, bool, error) {
	bm, read, err := segmentDocs{seg: seg, dicts: map[string]segment.TermDictionary{}}.within(q, nil)
	if err != nil || !read {
		return nil, read, err
	}
	if del := seg.Deleted(); del != nil && !del.IsEmpty() {
		bm = roaring.AndNot(bm, del)
	}
	return bm, true, nil
}

// segmentDocs reads one segment's matches as bitmaps of its document
// numbers. A bitmap it returns may be the segment's own, or the one it
// was given: read it, never change it.
type segmentDocs struct {
	seg   *scorch.SegmentSnapshot
	dicts map[string]segment.TermDictionary
}

// within is the bitmap of q's matches in the segment among the documents
// of in (nil: every document, deleted ones too); read is false when a
// postings list cannot be read as a bitmap. Each part is read against
// what the parts before it left, so a range of days after a rare word
// ANDs each day's postings with the word's few matches instead of
// building the union of the days first.
func (s segmentDocs) within(q query.Query, in *roaring.Bitmap) (bm *roaring.Bitmap, read bool, err error) {
	switch q := q.(type) {
	case *query.TermQuery:
		bm, read, err := s.postings(q.FieldVal, []byte(q.Term))
		if err != nil || !read || in == nil {
			return bm, read, err
		}
		return roaring.And(in, bm), true, nil
	case *query.NumericRangeQuery:
		lo, hi := numericBounds(q)
		var parts []*roaring.Bitmap
		for _, t := range numericTerms(lo, hi) {
			bm, read, err := s.postings(q.FieldVal, t)
			if err != nil || !read {
				return nil, read, err
			}
			if in != nil {
				bm = roaring.And(in, bm)
			}
			if !bm.IsEmpty() {
				parts = append(parts, bm)
			}
		}
		return roaring.FastOr(parts...), true, nil
	case *query.MatchNoneQuery:
		return roaring.New(), true, nil
	case *query.MatchAllQuery:
		if in != nil {
			return in, true, nil
		}
		all := roaring.New()
		all.AddRange(0, s.seg.Segment().Count())
		return all, true, nil
	case *query.ConjunctionQuery:
		return s.every(q.Conjuncts, in)
	case *query.DisjunctionQuery:
		parts := make([]*roaring.Bitmap, 0, len(q.Disjuncts))
		for _, p := range q.Disjuncts {
			bm, read, err := s.within(p, in)
			if err != nil || !read {
				return nil, read, err
			}
			parts = append(parts, bm)
		}
		return roaring.FastOr(parts...), true, nil
	case *query.BooleanQuery:
		var kept []query.Query
		for _, p := range []query.Query{q.Must, q.Filter} {
			if p != nil {
				kept = append(kept, p)
			}
		}
		bm, read, err := s.every(kept, in)
		if err != nil || !read || q.MustNot == nil || bm.IsEmpty() {
			return bm, read, err
		}
		out, read, err := s.within(q.MustNot, bm)
		if err != nil || !read {
			return nil, read, err
		}
		return roaring.AndNot(bm, out), true, nil
	}
	return nil, false, nil
}

// every narrows in by each of qs in turn: terms first, which are read
// from one postings list each and narrow the most, then the rest.
func (s segmentDocs) every(qs []query.Query, in *roaring.Bitmap) (*roaring.Bitmap, bool, error) {
	ordered := slices.Clone(qs)
	slices.SortStableFunc(ordered, func(a, b query.Query) int {
		_, at := a.(*query.TermQuery)
		_, bt := b.(*query.TermQuery)
		switch {
		case at && !bt:
			return -1
		case bt && !at:
			return 1
		}
		return 0
	})
	acc := in
	for _, q := range ordered {
		bm, read, err := s.within(q, acc)
		if err != nil || !read {
			return nil, read, err
		}
		if acc = bm; acc.IsEmpty() {
			break
		}
	}
	if acc == nil { // no part: not a query the bitmaps read
		return nil, false, nil
	}
	return acc, true, nil
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
