package bleveindex

import (
	"context"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
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
// combined segment by segment (bitmaps.go); anything else is counted by
// bleve's own search. TestCountMatchesIsBleves holds the two to each
// other.
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
func (i *Index) CountFromBitmaps(ctx context.Context, q query.Query) (uint64, bool, error) {
	m, ok, err := i.MatchesOf(ctx, q)
	if err != nil || !ok {
		return 0, false, err
	}
	defer m.Close()
	return m.Total, true, nil
}

// Matches are a query's live matches in one snapshot of the index, as a
// bitmap per segment: counted once, then counted again within further
// conditions (CountWithin) without reading the query's postings again.
// Close it when done: it holds the snapshot's segments open.
type Matches struct {
	ix     *Index
	reader index.IndexReader
	segs   []*scorch.SegmentSnapshot
	bms    []*roaring.Bitmap
	// Total is how many documents match.
	Total uint64
}

// MatchesOf reads q's matches from the postings' bitmaps of the index's
// current snapshot; ok is false when q holds a part they do not read.
func (i *Index) MatchesOf(ctx context.Context, q query.Query) (m *Matches, ok bool, err error) {
	if !readable(q) {
		return nil, false, nil
	}
	fellBack, err := i.besideBleve("reading the index's matches", func() error {
		r, snap, err := i.snapshot()
		if err != nil || snap == nil {
			return err
		}
		defer func() { // also when bleve panics below
			if !ok {
				_ = r.Close()
			}
		}()
		m = &Matches{ix: i, reader: r, segs: snap.Segments()}
		for _, seg := range m.segs {
			if err := ctx.Err(); err != nil {
				return err
			}
			bm, read, err := segmentMatches(seg, q)
			if err != nil || !read {
				return err
			}
			m.bms = append(m.bms, bm)
			m.Total += bm.GetCardinality()
		}
		ok = true
		return nil
	})
	if err != nil || !ok || fellBack {
		return nil, false, err
	}
	return m, true, nil
}

// CountWithin is how many of the matches w matches too; ok is false when
// w holds a part the bitmaps do not read.
func (m *Matches) CountWithin(ctx context.Context, w query.Query) (n uint64, ok bool, err error) {
	if !readable(w) {
		return 0, false, nil
	}
	fellBack, err := m.ix.besideBleve("counting the index's matches", func() error {
		for k, seg := range m.segs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if m.bms[k].IsEmpty() {
				continue
			}
			bm, read, err := segmentDocs{seg: seg, dicts: map[string]segment.TermDictionary{}}.within(w, m.bms[k])
			if err != nil || !read {
				return err
			}
			n += bm.GetCardinality()
		}
		ok = true
		return nil
	})
	if err != nil || !ok || fellBack {
		return 0, false, err
	}
	return n, true, nil
}

// Close lets the snapshot's segments go.
func (m *Matches) Close() error { return m.reader.Close() }

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
