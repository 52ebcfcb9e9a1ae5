package bleveindex

import (
	"container/heap"
	"context"
	"math"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/scorer"
	index "github.com/blevesearch/bleve_index_api"
)

// Word is one term of a best-match search: a field and a term as the
// field's analyzer gives it.
type Word struct{ Field, Term string }

// BestFirstQuery is the bleve query BestFirst answers beside bleve: the
// words' terms in one scored conjunction, filter (nil: none) selecting
// without a score.
func BestFirstQuery(words []Word, filter query.Query) query.Query {
	must := make([]query.Query, len(words))
	for k, w := range words {
		t := query.NewTermQuery(w.Term)
		t.SetField(w.Field)
		must[k] = t
	}
	b := query.NewBooleanQuery([]query.Query{query.NewConjunctionQuery(must)}, nil, nil)
	if filter != nil {
		b.AddFilter(filter)
	}
	return b
}

// BestFirst is the page of BestFirstQuery(words, filter) from offset
// from, best match first by BM25, equal scores in the index's order: what
// bleve answers sorted by score, with the stored fields asked. bleve
// scores a match through a stack of searchers, one DocumentMatch per word
// per match, and tests a filter match by match; here the words' and the
// filter's postings are ANDed as bitmaps segment by segment
// (bitmaps.go), and each match is scored in one loop with bleve's own
// BM25 formula and statistics, the best kept in a heap ordered as
// bleve's collector orders them (score, then the order of the index).
// A word held by a large share of a segment is read from its postings
// decoded once (decoded.go); in a scoring of many matches each pair of
// frequency and field length is scored once (scorememo.go).
// The page's stored fields are then loaded by bleve. ok is false, and
// nothing is answered, for what it does not fully recognise: no words,
// a filter the bitmaps do not read, an index not scorch or not scored by
// BM25; ask bleve then. TestBestFirstIsBleves holds it to bleve's pages,
// totals and scores.
func (i *Index) BestFirst(ctx context.Context, words []Word, filter query.Query, size, from int, fields []string) (p Page, ok bool, err error) {
	if len(words) == 0 || size < 1 || from < 0 || from > math.MaxInt32 || (filter != nil && !readable(filter)) {
		return Page{}, false, nil
	}
	if im, isImpl := i.bl.Mapping().(*mapping.IndexMappingImpl); !isImpl || im.ScoringModel != index.BM25Scoring {
		return Page{}, false, nil // bleve scores by tf-idf: not this loop's formula
	}
	all := make([]query.Query, 0, len(words)+1)
	for _, w := range words {
		if w.Field == "" {
			return Page{}, false, nil
		}
		t := query.NewTermQuery(w.Term)
		t.SetField(w.Field)
		all = append(all, t)
	}
	if filter != nil {
		all = append(all, filter)
	}
	conj := query.NewConjunctionQuery(all)
	keep := from + size
	var best worstFirst
	fellBack, err := i.besideBleve("scoring the index's matches", func() error {
		r, is, err := i.snapshot()
		if err != nil || is == nil {
			return err
		}
		defer r.Close()
		sc, scored, err := scorers(is, words)
		if err != nil || !scored {
			return err
		}
		var parts []segmentPart
		for n, ss := range is.Segments() {
			if err := ctx.Err(); err != nil {
				return err
			}
			bm, read, err := segmentMatches(ss, conj)
			if err != nil || !read {
				return err
			}
			if bm.IsEmpty() {
				continue
			}
			p.Total += bm.GetCardinality()
			parts = append(parts, segmentPart{seg: n, ss: ss, bm: bm})
		}
		if best, err = scoreParts(ctx, i, is.Segments(), sc, parts, p.Total, keep); err != nil {
			return err
		}
		for k, m := range best {
			id, err := is.Segments()[m.seg].DocID(uint64(m.doc))
			if err != nil {
				return err
			}
			best[k].id = string(id)
		}
		ok = true
		return nil
	})
	if err != nil || !ok || fellBack {
		return Page{}, false, err
	}
	// Best first: the heap's order reversed.
	page := make([]scoredMatch, len(best))
	for k := len(best) - 1; k >= 0; k-- {
		page[k] = heap.Pop(&best).(scoredMatch)
	}
	if from >= len(page) {
		return Page{Total: p.Total}, true, nil
	}
	p.Hits, err = i.withFields(ctx, page[from:], fields)
	if err != nil {
		return Page{}, false, err
	}
	return p, true, nil
}

// SearchBestFirst is the page of BestFirstQuery(words, filter), best
// match first: by BestFirst where it answers, otherwise by bleve. No
// words (a question of only words the analyzer drops) match nothing.
func (i *Index) SearchBestFirst(ctx context.Context, words []Word, filter query.Query, size, from int, fields []string) (Page, error) {
	if len(words) == 0 {
		return Page{}, nil
	}
	page, ok, err := i.BestFirst(ctx, words, filter, size, from, fields)
	if err != nil || ok {
		return page, err
	}
	req := bleve.NewSearchRequestOptions(BestFirstQuery(words, filter), size, from, false)
	req.Fields = fields
	return i.SearchPage(ctx, req)
}

// termScorer is one word's part of the score, as bleve's TermQueryScorer
// computes it for BM25 inside a conjunction (search/scorer/scorer_term.go).
type termScorer struct {
	Word
	docTerm     uint64 // documents holding the term
	idf, avgLen float64
	weight      float64 // idf × the conjunction's query norm
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

// scorers are the words' scorers with bleve's statistics of snapshot is;
// scored is false when bleve would not score them by BM25 (an empty
// index or field: bleve falls back to tf-idf).
func scorers(is *scorch.IndexSnapshot, words []Word) (out []termScorer, scored bool, err error) {
	docTotal, err := is.DocCount()
	if err != nil {
		return nil, false, err
	}
	out = make([]termScorer, len(words))
	for k, w := range words {
		card, err := is.FieldCardinality(w.Field)
		if err != nil {
			return nil, false, err
		}
		if docTotal == 0 || card == 0 {
			return nil, false, nil
		}
		var docTerm uint64
		for _, ss := range is.Segments() {
			dict, err := ss.Segment().Dictionary(w.Field)
			if err != nil {
				return nil, false, err
			}
			pl, err := dict.PostingsList([]byte(w.Term), ss.Deleted(), nil)
			if err != nil {
				return nil, false, err
			}
			docTerm += pl.Count()
		}
		out[k] = termScorer{Word: w, docTerm: docTerm,
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
	return out, true, nil
}

// scoredMatch is a match in the heap: its score and its place in the
// index's order (hit: its segment, then its number there, the order in
// which bleve numbers its hits), which breaks ties of score.
type scoredMatch struct {
	score float64
	hit   uint64
	seg   int
	doc   uint32
	id    string // looked up for the page only
}

// worse tells whether a leaves the page before b: a lower score, or an
// equal score later in the index.
func worse(a, b scoredMatch) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.hit > b.hit
}

// worstFirst is a heap whose top is the match that leaves first.
type worstFirst []scoredMatch

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scoredMatch)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer keeps m when it is among the keep best seen.
func (h *worstFirst) offer(m scoredMatch, keep int) {
	switch {
	case len(*h) < keep:
		heap.Push(h, m)
	case worse((*h)[0], m):
		(*h)[0] = m
		heap.Fix(h, 0)
	}
}

// withFields loads the stored fields of the page's documents with bleve,
// and returns them as bleve's hits with their scores, in the page's
// order.
func (i *Index) withFields(ctx context.Context, page []scoredMatch, fields []string) (search.DocumentMatchCollection, error) {
	if len(page) == 0 {
		return nil, nil
	}
	list := make([]string, len(page))
	for k, m := range page {
		list[k] = m.id
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(list), len(list), 0, false)
	req.Fields = fields
	req.Score = "none"
	res, err := i.Search(ctx, req)
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
		if !ok { // removed between the two reads: as if read before
			continue
		}
		h.Score = m.score
		hits = append(hits, h)
	}
	return hits, nil
}
