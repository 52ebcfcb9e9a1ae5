package bleveindex

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
)

// wordsIndex is an index of documents with the words given, in one
// searched field, "words".
func wordsIndex(t *testing.T, docs []string) *Index {
	t.Helper()
	im := NewMapping()
	dm := mapping.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("words", Searched(""))
	im.DefaultMapping = dm
	ix, _, err := Open(t.TempDir(), Config{What: "words index", Mapping: im, Format: "words-v1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	ops := make([]Op, len(docs))
	for k, d := range docs {
		ops[k] = Upsert(fmt.Sprintf("d%03d", k), countDoc{Words: d})
	}
	if err := ix.Apply(ops, []byte("1")); err != nil {
		t.Fatal(err)
	}
	return ix
}

// Postings that do not pack into two bytes, a word 20 times in a field or
// a field of 5,000 words, are kept aside and scored as bleve scores them.
func TestDecodedOddPostingsAreBleves(t *testing.T) {
	restore := scoringKnobs()
	t.Cleanup(restore)
	var docs []string
	for k := range 300 {
		docs = append(docs, fmt.Sprintf("raad besluit woord%d", k%7))
	}
	for k := range 3 {
		docs = append(docs, strings.Repeat("raad ", 17+k)+"besluit")
	}
	for k := range 2 {
		docs = append(docs, "raad besluit"+strings.Repeat(" vul", 4200+k*900))
	}
	ix := wordsIndex(t, docs)
	heavyAbove, decodeAbove, decodeShare = 0, 0, math.MaxUint32
	ctx := context.Background()
	m := ix.Bleve().Mapping()
	raad := WordsOf(m, "words", "raad")
	for _, words := range [][]Word{raad, WordsOf(m, "words", "raad besluit")} {
		for _, size := range []int{3, 10, 400} {
			got, ok, err := ix.BestFirst(ctx, words, nil, size, 0, nil)
			if err != nil || !ok {
				t.Fatalf("answered %v, %v", ok, err)
			}
			req := bleve.NewSearchRequestOptions(BestFirstQuery(words, nil), size, 0, false)
			req.SortBy([]string{"-_score"})
			want, err := ix.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want.Total || len(got.Hits) != len(want.Hits) || got.Total != uint64(len(docs)) {
				t.Fatalf("%v: total %d, %d hits; bleve %d, %d", words, got.Total, len(got.Hits), want.Total, len(want.Hits))
			}
			for h := range got.Hits {
				if g, w := got.Hits[h], want.Hits[h]; g.ID != w.ID || g.Score != w.Score {
					t.Fatalf("%v, %d: hit %d is %s %v, bleve's %s %v", words, size, h, g.ID, g.Score, w.ID, w.Score)
				}
			}
		}
	}
	odd := 0
	for el := decodedWords.order.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*decodedEntry); e.d != nil && e.key.term == raad[0].Term {
			odd += len(e.d.odd)
		}
	}
	if odd != 5 {
		t.Fatalf("%d postings of raad kept aside, want 5 (3 frequent, 2 in long fields)", odd)
	}
}

// The cache keeps to its budget, the least recently used word leaving
// first; a word whose array alone exceeds the budget is not decoded, one
// over it with what else it keeps is answered but not kept; a closed
// index's words leave; a budget of 0 keeps nothing and answers nil, so
// the iterator scores.
func TestDecodedCacheKeepsToItsBudget(t *testing.T) {
	restore := scoringKnobs()
	t.Cleanup(restore)
	var docs []string
	for k := range 1000 {
		docs = append(docs, fmt.Sprintf("raad besluit motie w%d", k%3))
	}
	ix := wordsIndex(t, docs)
	segs := snapshotSegments(t, ix)
	if len(segs) != 1 {
		t.Fatalf("%d segments, want 1", len(segs))
	}
	seg := segs[0].Segment()
	get := func(word string) *decodedTerm {
		t.Helper()
		w := WordsOf(ix.Bleve().Mapping(), "words", word)
		d, err := decodedWords.get(ix, segs, seg, "words", w[0].Term)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	kept := func() (terms []string) {
		for el := decodedWords.order.Front(); el != nil; el = el.Next() {
			terms = append(terms, el.Value.(*decodedEntry).key.term)
		}
		return terms
	}

	one := get("raad").size() + entryBytes
	SetDecodedBudget(2 * one) // room for two words
	for _, term := range []string{"raad", "besluit", "raad", "motie"} {
		if get(term) == nil {
			t.Fatalf("%s not decoded", term)
		}
	}
	if got, want := strings.Join(kept(), " "), WordsOf(ix.Bleve().Mapping(), "words", "motie raad"); got != want[0].Term+" "+want[1].Term {
		t.Fatalf("kept %q, want the two most recently used, %v", got, want)
	}
	if decodedWords.used > decodedWords.budget {
		t.Fatalf("%d bytes used of %d", decodedWords.used, decodedWords.budget)
	}

	SetDecodedBudget(one / 2)
	if len(kept()) != 0 || decodedWords.used != 0 {
		t.Fatalf("kept %v (%d bytes) within a budget no word fits", kept(), decodedWords.used)
	}
	if get("raad") != nil || len(kept()) != 0 {
		t.Fatalf("a word over the budget decoded, kept %v", kept())
	}
	SetDecodedBudget(2*int64(seg.Count()) + entryBytes) // the array fits, its norms not
	if get("raad") == nil {
		t.Fatal("a word whose array fits the budget is not answered")
	}
	if len(kept()) != 0 {
		t.Fatalf("kept %v over the budget", kept())
	}

	SetDecodedBudget(2 * one)
	get("raad")
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if len(kept()) != 0 || decodedWords.used != 0 {
		t.Fatalf("kept %v (%d bytes) of a closed index", kept(), decodedWords.used)
	}

	SetDecodedBudget(0)
	if get("raad") != nil {
		t.Fatal("a budget of 0 decoded a word")
	}
}

// A word decoded in segments that a merge replaced leaves when a word of
// the merged segment is decoded; only the current segments' words stay.
// bleve's merger may join the small segments on its own at any time, so
// documents are added until a search has read the word in two segments.
func TestDecodedWordsLeaveWithTheirSegments(t *testing.T) {
	restore := scoringKnobs()
	t.Cleanup(restore)
	heavyAbove, decodeAbove, decodeShare = 0, 0, math.MaxUint32
	ix := wordsIndex(t, []string{"raad besluit", "raad motie"})
	raad := WordsOf(ix.Bleve().Mapping(), "words", "raad")
	held := uint64(2)
	search := func() {
		t.Helper()
		if p, ok, err := ix.BestFirst(context.Background(), raad, nil, 10, 0, nil); err != nil || !ok || p.Total != held {
			t.Fatalf("%+v, %v, %v; want %d", p, ok, err, held)
		}
	}
	segsOf := func() map[any]bool {
		segs := map[any]bool{}
		for el := decodedWords.order.Front(); el != nil; el = el.Next() {
			segs[el.Value.(*decodedEntry).key.seg] = true
		}
		return segs
	}
	for len(segsOf()) < 2 {
		if held > 50 {
			t.Fatalf("after %d batches, the word was still read in %d segment(s)", held, len(segsOf()))
		}
		held++
		if err := ix.Apply([]Op{Upsert(fmt.Sprintf("x%d", held), countDoc{Words: "raad besluit motie"})}, []byte("2")); err != nil {
			t.Fatal(err)
		}
		search()
	}
	before := segsOf()
	adv, err := ix.Bleve().Advanced()
	if err != nil {
		t.Fatal(err)
	}
	opts := mergeplan.DefaultMergePlanOptions
	if err := adv.(*scorch.Scorch).ForceMerge(context.Background(), &opts); err != nil {
		t.Fatal(err)
	}
	search()
	live := snapshotSegments(t, ix)
	segs := segsOf()
	if len(live) != 1 || len(segs) != 1 || !segs[live[0].Segment()] || before[live[0].Segment()] {
		t.Fatalf("after the merge: %d segments, words decoded in %d, of the live one: %v, of a merged one: %v",
			len(live), len(segs), segs[live[0].Segment()], before[live[0].Segment()])
	}
}

// Searches of many distinct common words at once: each word counts its
// array before it is decoded, so the words kept and decoding together
// never pass the budget, and the most recently asked stay.
func TestDecodedWordsAtOnceKeepToTheBudget(t *testing.T) {
	restore := scoringKnobs()
	t.Cleanup(restore)
	var docs []string
	for k := range 1000 {
		docs = append(docs, fmt.Sprintf("w%d w%d w%d w%d", k%2, 2+k%3, 5+k%4, 9+k%5))
	}
	ix := wordsIndex(t, docs)
	segs := snapshotSegments(t, ix)
	seg := segs[0].Segment()
	var terms []string
	for k := range 14 {
		terms = append(terms, WordsOf(ix.Bleve().Mapping(), "words", fmt.Sprintf("w%d", k))[0].Term)
	}
	one := 2*int64(seg.Count()) + entryBytes
	SetDecodedBudget(3*one + 3*one/4) // three words and their norms; never four arrays
	var over atomic.Int64
	onDecode = func() {
		decodedWords.mu.Lock()
		// Every word kept or decoding holds an array: at most three fit.
		if n := decodedWords.order.Len(); n > 3 || decodedWords.used > decodedWords.budget {
			over.Store(int64(n))
		}
		decodedWords.mu.Unlock()
	}
	t.Cleanup(func() { onDecode = nil })
	var wg sync.WaitGroup
	for _, term := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := decodedWords.get(ix, segs, seg, "words", term); err != nil || d == nil {
				t.Errorf("%s: %v, %v", term, d, err)
			}
		}()
	}
	wg.Wait()
	if n := over.Load(); n != 0 {
		t.Fatalf("%d words kept or decoding at once (%d bytes each), over the budget of %d", n, one, decodedWords.budget)
	}
	if decodedWords.used > decodedWords.budget || decodedWords.order.Len() > 3 {
		t.Fatalf("kept %d words, %d bytes, over the budget of %d", decodedWords.order.Len(), decodedWords.used, decodedWords.budget)
	}
}
