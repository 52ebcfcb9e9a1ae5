package bleveindex

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// BestFirst scores every match of its words; a common pair of words at
// millions of documents has hundreds of thousands, one loop's work of
// tens of milliseconds. Above parallelAbove matches, and when no other
// scoring runs in the process, the matches are cut into chunks, by
// segment and by ranges of document numbers within one, and scored by up
// to parallelWorkers goroutines, each keeping its own best; the page is
// the best of theirs. The page is the same whatever the cut: every match
// is scored by the same function, and the order (score, then the index's
// order) is total. The goroutines spend about a quarter more CPU time
// than one loop (docs/benchmarks/caselaw.md), which pays for a question
// alone on the machine but not beside others: a scoring that starts
// while another runs keeps to one loop.
var (
	parallelAbove uint64 = 50_000
	// parallelWorkers is how many goroutines score; 0: GOMAXPROCS at the
	// time of the search (Caddy sets it from the container's CPU quota
	// after this package is initialised), at most maxParallelWorkers.
	parallelWorkers              = 0
	scoringNow      atomic.Int32 // the scorings running in the process
)

const maxParallelWorkers = 4

// heavyAbove is the fewest matches a scoring needs to memoize scores
// (scorememo.go): below it the tables cost more than they save. Dense
// words are read decoded (decoded.go) whatever the matches: reaching a
// few matches through the iterator decodes every posting before them.
var heavyAbove uint64 = 20_000

func scoringWorkers() int {
	if parallelWorkers > 0 {
		return parallelWorkers
	}
	return min(runtime.GOMAXPROCS(0), maxParallelWorkers)
}

// chunksPerWorker cuts more chunks than workers, so that a worker whose
// chunks score slowly is not waited for.
const chunksPerWorker = 4

// segmentPart is one segment's matches, and the words decoded there
// (nil, or nil for a word: read through zapx's iterator).
type segmentPart struct {
	seg     int
	ss      *scorch.SegmentSnapshot
	bm      *roaring.Bitmap
	decoded []*decodedTerm
}

// matchChunk is a segment's matches with numbers in [lo, hi).
type matchChunk struct {
	segmentPart
	lo, hi uint64
}

// scoreParts is the keep best of the parts' matches (total of them), in
// owner's snapshot of segments live.
func scoreParts(ctx context.Context, owner *Index, live []*scorch.SegmentSnapshot, sc []termScorer, parts []segmentPart, total uint64, keep int) (worstFirst, error) {
	alone := scoringNow.Add(1) == 1
	defer scoringNow.Add(-1)
	workers, want := 1, uint64(1) // one chunk a segment
	if n := scoringWorkers(); total > parallelAbove && n > 1 && alone {
		workers, want = n, uint64(n*chunksPerWorker)
	}
	for p := range parts {
		var err error
		if parts[p].decoded, err = decodedOf(owner, live, parts[p].ss.Segment(), sc); err != nil {
			return nil, err
		}
	}
	chunks := cutChunks(parts, total, want)
	memos := func() []scoreMemo {
		if total <= heavyAbove {
			return make([]scoreMemo, len(sc)) // nil memos: every score computed
		}
		m := make([]scoreMemo, len(sc))
		for k := range m {
			m[k] = newScoreMemo()
		}
		return m
	}
	if workers == 1 || len(chunks) == 1 {
		var best worstFirst
		memo := memos()
		for _, c := range chunks {
			if err := scoreChunk(ctx, sc, memo, c, keep, &best); err != nil {
				return nil, err
			}
		}
		return best, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		next     int
		firstErr error
		panicked any
		bests    = make([]worstFirst, workers)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			memo := memos()
			defer func() {
				// A panic is raised again in the caller's goroutine,
				// where besideBleve turns it into bleve's answer.
				if v := recover(); v != nil {
					mu.Lock()
					panicked = v
					mu.Unlock()
					cancel()
				}
			}()
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= len(chunks) {
					return
				}
				if err := scoreChunk(ctx, sc, memo, chunks[k], keep, &bests[w]); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	var best worstFirst
	for _, b := range bests {
		for _, m := range b {
			best.offer(m, keep)
		}
	}
	return best, nil
}

// cutChunks cuts the parts into about want chunks of about equal
// matches, each within one segment.
func cutChunks(parts []segmentPart, total, want uint64) []matchChunk {
	per := max(1, (total+want-1)/max(1, want))
	var out []matchChunk
	for _, p := range parts {
		card := p.bm.GetCardinality()
		n := max(1, (card+per-1)/per)
		lo := uint64(0)
		for k := uint64(1); k <= n; k++ {
			hi := uint64(math.MaxUint32) + 1
			if k < n {
				at, err := p.bm.Select(uint32(k * card / n))
				if err != nil {
					hi = uint64(math.MaxUint32) + 1
				} else {
					hi = uint64(at)
				}
			}
			if hi > lo {
				out = append(out, matchChunk{segmentPart: p, lo: lo, hi: hi})
			}
			lo = hi
		}
	}
	return out
}

// scoreChunk scores a chunk's matches into best, with memo[k] (nil: none)
// the memo of sc[k] (scorememo.go).
func scoreChunk(ctx context.Context, sc []termScorer, memo []scoreMemo, c matchChunk, keep int, best *worstFirst) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	its := make([]segment.PostingsIterator, len(sc))
	for k, s := range sc {
		if c.decoded != nil && c.decoded[k] != nil {
			continue
		}
		dict, err := c.ss.Segment().Dictionary(s.Field)
		if err != nil {
			return err
		}
		pl, err := dict.PostingsList([]byte(s.Term), c.ss.Deleted(), nil)
		if err != nil {
			return err
		}
		its[k] = pl.Iterator(true, true, false, nil)
		if o, ok := its[k].(segment.OptimizablePostingsIterator); ok && o.ActualBitmap() != nil {
			o.ReplaceActual(c.bm) // as bleve's conjunction does: only the matches are read
		}
	}
	docs, buf := c.matches().ManyIterator(), make([]uint32, 256)
	for n := docs.NextMany(buf); n > 0; n = docs.NextMany(buf) {
		for _, doc := range buf[:n] {
			score := 0.0
			for k := range sc {
				if its[k] == nil {
					v, held := memo[k].scoreDecoded(&sc[k], c.decoded[k], doc)
					if !held {
						return fmt.Errorf("best first lost %q in segment %d at %d, decoded", sc[k].Term, c.seg, doc)
					}
					score += v
					continue
				}
				post, err := its[k].Advance(uint64(doc))
				if err != nil {
					return err
				}
				if post == nil || post.Number() != uint64(doc) {
					return fmt.Errorf("best first lost %q in segment %d at %d", sc[k].Term, c.seg, doc)
				}
				score += memo[k].score(&sc[k], post)
			}
			if len(*best) == keep && score < (*best)[0].score {
				continue // worse than the page's worst: offer would drop it
			}
			best.offer(scoredMatch{score: score, hit: uint64(c.seg)<<32 | uint64(doc), seg: c.seg, doc: doc}, keep)
		}
	}
	return nil
}

// matches is the chunk's matches as a bitmap of their own, read in
// batches (NextMany): the segment's, or its range [lo, hi).
func (c matchChunk) matches() *roaring.Bitmap {
	if c.lo == 0 && c.hi > math.MaxUint32 {
		return c.bm
	}
	r := roaring.New()
	r.AddRange(c.lo, min(c.hi, uint64(c.bm.Maximum())+1)) // not to 2^32: a container each 2^16
	return roaring.And(c.bm, r)
}

// decodedOf is the words of sc dense enough in seg to read decoded
// (decodeAbove, decodeShare), decoded: nil for the others, or for all.
func decodedOf(owner *Index, live []*scorch.SegmentSnapshot, seg segment.Segment, sc []termScorer) ([]*decodedTerm, error) {
	var out []*decodedTerm
	for k, s := range sc {
		dict, err := seg.Dictionary(s.Field)
		if err != nil {
			return nil, err
		}
		pl, err := dict.PostingsList([]byte(s.Term), nil, nil)
		if err != nil {
			return nil, err
		}
		if n := pl.Count(); n < decodeAbove || n*decodeShare < seg.Count() {
			continue
		}
		d, err := decodedWords.get(owner, live, seg, s.Field, s.Term)
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		if out == nil {
			out = make([]*decodedTerm, len(sc))
		}
		out[k] = d
	}
	return out, nil
}
