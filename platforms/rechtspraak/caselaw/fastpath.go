package caselaw

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/scorer"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// The faster path beside bleve, for the queries that are only words (and
// court and type filters): bleve scores a match through a stack of
// searchers, one DocumentMatch per word per match, which made a query of
// two common words matching 175,000 of 1,000,000 decisions the slowest
// (docs/benchmarks/caselaw.md, "side by side with SQLite FTS5"). Here the
// segments' posting bitmaps are ANDed (as bleve's own conjunction does
// first; bleveindex.SegmentMatches), and each match is scored in one
// loop with bleve's own BM25 formula and statistics, keeping the best in a
// heap ordered as bleve's collector orders them (score, then the order of
// the index). The page's stored fields are then loaded by bleve.
//
// It answers only what it fully recognises: term queries with no boost,
// a scorch index, BM25 scoring; anything else (a date range, an error, a
// panic on a bad segment) falls through to the plain bleve search, which
// then gives the answer and the error. fastpath_test.go holds it to
// bleve's pages, totals and scores on a generated index.

// errNoFastPath says the fast path does not handle the plan.
var errNoFastPath = errors.New("not a plan of words and term filters")

type fieldTerm struct{ field, term string }

// termsOf returns the plan's words and filters as terms, ok only when
// every one is a term query without a boost.
func termsOf(p plan) (must, filters []fieldTerm, ok bool) {
	conv := func(qs []query.Query) ([]fieldTerm, bool) {
		out := make([]fieldTerm, 0, len(qs))
		for _, q := range qs {
			tq, ok := q.(*query.TermQuery)
			if !ok || tq.BoostVal != nil || tq.FieldVal == "" {
				return nil, false
			}
			out = append(out, fieldTerm{tq.FieldVal, tq.Term})
		}
		return out, true
	}
	must, ok1 := conv(p.must)
	filters, ok2 := conv(p.filters)
	return must, filters, ok1 && ok2 && len(must)+len(filters) > 0
}

// withSnapshot runs f on the index's current scorch snapshot.
func (i *Index) withSnapshot(f func(*scorch.IndexSnapshot) error) (err error) {
	if err := i.store.Err(); err != nil {
		return err
	}
	defer func() { // bleve's reader is used outside the store's guard
		if r := recover(); r != nil {
			err = fmt.Errorf("the fast path panicked: %v", r)
		}
	}()
	adv, err := i.store.Bleve().Advanced()
	if err != nil {
		return err
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return errNoFastPath
	}
	r, err := sc.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	is, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return errNoFastPath
	}
	return f(is)
}

// termScorer is one word's part of the score, as bleve's TermQueryScorer
// computes it for BM25 inside a conjunction (search/scorer/scorer_term.go).
type termScorer struct {
	fieldTerm
	docTerm             uint64 // decisions holding the term: orders the words as bleve does
	idf, avgLen, weight float64
}

func (s termScorer) score(freq uint64, norm float64) float64 {
	var tf float64
	if freq < scorer.MaxSqrtCache {
		tf = scorer.SqrtCache[freq]
	} else {
		tf = math.Sqrt(float64(freq))
	}
	fieldLength := 1 / (norm * norm)
	score := s.idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/s.avgLen)))
	if s.weight != 1.0 {
		score = score * s.weight
	}
	return score
}

// byDocTerm sorts the words as bleve's OrderedSearcherList does, so the
// scores are summed in bleve's order (floating-point sums depend on it).
type byDocTerm []termScorer

func (b byDocTerm) Len() int           { return len(b) }
func (b byDocTerm) Less(i, j int) bool { return b[i].docTerm < b[j].docTerm }
func (b byDocTerm) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

// scorers are the words' scorers with bleve's statistics of snapshot is.
func scorers(is *scorch.IndexSnapshot, must []fieldTerm) ([]termScorer, error) {
	docTotal, err := is.DocCount()
	if err != nil {
		return nil, err
	}
	out := make([]termScorer, len(must))
	for k, t := range must {
		card, err := is.FieldCardinality(t.field)
		if err != nil {
			return nil, err
		}
		if docTotal == 0 || card == 0 {
			return nil, errNoFastPath // bleve would score with tf-idf
		}
		var docTerm uint64
		for _, ss := range is.Segments() {
			dict, err := ss.Segment().Dictionary(t.field)
			if err != nil {
				return nil, err
			}
			pl, err := dict.PostingsList([]byte(t.term), ss.Deleted(), nil)
			if err != nil {
				return nil, err
			}
			docTerm += pl.Count()
		}
		out[k] = termScorer{fieldTerm: t, docTerm: docTerm,
			idf:    math.Log(1 + (float64(docTotal)-float64(docTerm)+0.5)/(float64(docTerm)+0.5)),
			avgLen: math.Ceil(float64(card) / float64(docTotal))}
	}
	sort.Sort(byDocTerm(out))
	// The conjunction's query norm (search/searcher/search_conjunction.go).
	sumOfSquaredWeights := 0.0
	for _, s := range out {
		w := 1.0 * s.idf
		sumOfSquaredWeights += w * w
	}
	queryNorm := 1.0 / math.Sqrt(sumOfSquaredWeights)
	for k := range out {
		out[k].weight = 1.0 * out[k].idf * queryNorm
	}
	return out, nil
}

// scored is a match in the heap: its score and its place in the index's
// order (bleve's HitNumber), which breaks ties of score.
type scored struct {
	score float64
	hit   uint64
	seg   int
	doc   uint32
	id    string // the ECLI, looked up for the page only
}

// worstFirst is a heap whose top is the match that leaves first: the
// lowest score, and of equal scores the latest in the index.
type worstFirst []scored

func (h worstFirst) Len() int { return len(h) }
func (h worstFirst) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].hit > h[j].hit
}
func (h worstFirst) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fastBestFirst is bestFirst's answer by the fast path, or errNoFastPath.
func (i *Index) fastBestFirst(ctx context.Context, p plan) (uint64, search.DocumentMatchCollection, error) {
	must, _, ok := termsOf(p)
	if !ok || len(must) == 0 {
		return 0, nil, errNoFastPath
	}
	keep := p.offset + p.limit
	var total uint64
	var best worstFirst
	err := i.withSnapshot(func(is *scorch.IndexSnapshot) error {
		sc, err := scorers(is, must)
		if err != nil {
			return err
		}
		// Every word and filter, ANDed segment by segment from their
		// postings' bitmaps, as bleve's conjunction does first.
		all := query.NewConjunctionQuery(append(slices.Clone(p.must), p.filters...))
		its := make([]segment.PostingsIterator, len(sc))
		var hit uint64
		for n, ss := range is.Segments() {
			if err := ctx.Err(); err != nil {
				return err
			}
			bm, ok, err := bleveindex.SegmentMatches(ss, all)
			if err != nil {
				return err
			}
			if !ok {
				return errNoFastPath
			}
			if bm.IsEmpty() {
				continue
			}
			total += bm.GetCardinality()
			for k, s := range sc {
				dict, err := ss.Segment().Dictionary(s.field)
				if err != nil {
					return err
				}
				pl, err := dict.PostingsList([]byte(s.term), ss.Deleted(), nil)
				if err != nil {
					return err
				}
				its[k] = pl.Iterator(true, true, false, nil)
				if o, ok := its[k].(segment.OptimizablePostingsIterator); ok && o.ActualBitmap() != nil {
					o.ReplaceActual(bm) // as bleve's conjunction does: only the matches are read
				}
			}
			docs := bm.Iterator()
			for docs.HasNext() {
				doc := docs.Next()
				m := scored{hit: hit, seg: n, doc: doc}
				hit++
				for k, s := range sc {
					post, err := its[k].Advance(uint64(doc))
					if err != nil {
						return err
					}
					if post == nil || post.Number() != uint64(doc) {
						return fmt.Errorf("the fast path lost %q in segment %d at %d", s.term, n, doc)
					}
					m.score += s.score(post.Frequency(), post.Norm())
				}
				switch {
				case len(best) < keep:
					heap.Push(&best, m)
				case m.score > best[0].score: // an equal score comes later in the index: it stays out
					best[0] = m
					heap.Fix(&best, 0)
				}
			}
		}
		for k, m := range best {
			id, err := is.Segments()[m.seg].DocID(uint64(m.doc))
			if err != nil {
				return err
			}
			best[k].id = string(id)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	// Best first: the heap's order reversed.
	page := make([]scored, len(best))
	for k := len(best) - 1; k >= 0; k-- {
		page[k] = heap.Pop(&best).(scored)
	}
	if p.offset >= len(page) {
		return total, nil, nil
	}
	page = page[p.offset:]
	hits, err := i.withFields(ctx, page)
	return total, hits, err
}

// withFields loads the stored fields of the page's decisions with bleve,
// and returns them as bleve's hits, in the page's order.
func (i *Index) withFields(ctx context.Context, page []scored) (search.DocumentMatchCollection, error) {
	if len(page) == 0 {
		return nil, nil
	}
	list := make([]string, len(page))
	for k, m := range page {
		list[k] = m.id
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(list), len(list), 0, false)
	req.Fields = hitFields
	req.Score = "none"
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*search.DocumentMatch, len(res.Hits))
	for _, h := range res.Hits {
		byID[h.ID] = h
	}
	hits := make(search.DocumentMatchCollection, 0, len(page))
	for k, m := range page {
		h, ok := byID[list[k]]
		if !ok { // withdrawn between the two reads: as if read before
			continue
		}
		h.Score = m.score
		hits = append(hits, h)
	}
	return hits, nil
}
