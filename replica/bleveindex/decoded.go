package bleveindex

import (
	"container/list"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"

	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Scoring a common pair of words spends most of its time in zapx's
// postings iterator: to reach the next match, Advance steps through every
// posting of the word in between and decodes its frequency and norm from
// varints. A word held by a large share of a segment is therefore decoded
// once, into an array by document number of its frequency and field
// length (decodedTerm), and kept while memory allows (decodedCache):
// segments never change, so the array stays right as long as its segment
// lives. Scoring then looks each match up. The lengths are what Lucene
// keeps as norms, one small number a document; zapx keeps them inside
// each posting.
var (
	// decodeAbove is the fewest postings in a segment a word needs to be
	// decoded, and decodeShare the share of the segment's documents (1/n):
	// an array of two bytes a document pays only for a dense word.
	decodeAbove uint64 = 2_048
	decodeShare uint64 = 16
)

// The packing of a decoded posting: frequency in the high 4 bits, field
// length in the low 12. 0: not packed, see decodedTerm.odd.
const (
	packedLengthBits        = 12
	packedLengths    uint64 = 1 << packedLengthBits
	packedFreqs      uint64 = 1 << (16 - packedLengthBits)
)

// decodedTerm is one word's postings in one segment.
type decodedTerm struct {
	packed []uint16           // by document number: freq<<12 | length; 0: odd or not a posting
	norms  []float64          // by length, up to the longest packed: Norm as zapx gives it
	odd    map[uint32]posting // postings that do not pack
}

// posting is a decoded posting's score inputs.
type posting struct {
	freq uint64
	norm float64
}

// at is the frequency and norm of document doc, with its field's length
// when packed; held is false when doc does not hold the word.
func (d *decodedTerm) at(doc uint32) (freq uint64, length uint64, norm float64, packed, held bool) {
	if int(doc) < len(d.packed) {
		if p := uint64(d.packed[doc]); p != 0 {
			length = p & (packedLengths - 1)
			return p >> packedLengthBits, length, d.norms[length], true, true
		}
	}
	o, held := d.odd[doc]
	return o.freq, 0, o.norm, false, held
}

func (d *decodedTerm) size() int64 {
	return int64(2*len(d.packed)+8*len(d.norms)) + int64(len(d.odd))*32 + 64
}

// decodeTerm reads every posting of term in field of seg, deleted
// documents' too (the matches exclude those). ok is false for a segment
// whose postings do not tell their raw norm (not zapx): they are scored
// through the iterator.
func decodeTerm(seg segment.Segment, field, term string) (d *decodedTerm, ok bool, err error) {
	dict, err := seg.Dictionary(field)
	if err != nil {
		return nil, false, err
	}
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return nil, false, err
	}
	d = &decodedTerm{packed: make([]uint16, seg.Count())}
	it := pl.Iterator(true, true, false, nil)
	for {
		post, err := it.Next()
		if err != nil {
			return nil, false, err
		}
		if post == nil {
			return d, true, nil
		}
		raw, isRaw := post.(rawNorm)
		if !isRaw {
			return nil, false, nil
		}
		doc, freq, length := post.Number(), post.Frequency(), raw.NormUint64()
		if freq > 0 && freq < packedFreqs && length < packedLengths && doc < uint64(len(d.packed)) {
			d.packed[doc] = uint16(freq<<packedLengthBits | length)
			if length >= uint64(len(d.norms)) {
				d.norms = append(d.norms, make([]float64, length+1-uint64(len(d.norms)))...)
			}
			d.norms[length] = post.Norm()
			continue
		}
		if doc > uint64(^uint32(0)) {
			return nil, false, nil
		}
		if d.odd == nil {
			d.odd = map[uint32]posting{}
		}
		d.odd[uint32(doc)] = posting{freq: freq, norm: post.Norm()}
	}
}

// decodedCache keeps decoded words up to a budget of bytes, the least
// recently used leaving first; one for the process, so that every
// replica's scoring shares the budget.
type decodedCache struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	entries map[decodedKey]*list.Element // of *decodedEntry
	order   list.List                    // most recently used first
}

type decodedKey struct {
	owner       *Index // whose Close drops the entry
	seg         segment.Segment
	field, term string
}

type decodedEntry struct {
	key  decodedKey
	once sync.Once
	d    *decodedTerm // nil: not decodable, or failed
	err  error
	size int64
}

// DefaultDecodedBudget is the bytes of decoded postings the process keeps
// unless told (SetDecodedBudget): at 3,000,000 documents in one segment a
// common word takes about 6 MB, so some forty common words.
const DefaultDecodedBudget = 256 << 20

// decodedWords is the process's cache.
var decodedWords = &decodedCache{budget: DefaultDecodedBudget, entries: map[decodedKey]*list.Element{}}

// SetDecodedBudget sets the bytes of decoded postings the process keeps
// (0: none, every word scored through zapx's iterator), dropping what no
// longer fits.
func SetDecodedBudget(bytes int64) {
	c := decodedWords
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = max(0, bytes)
	c.evict(nil)
}

// DecodedBudget is the bytes of decoded postings the process keeps.
func DecodedBudget() int64 {
	decodedWords.mu.Lock()
	defer decodedWords.mu.Unlock()
	return decodedWords.budget
}

// DecodedBytes is the bytes of decoded postings the process keeps now.
func DecodedBytes() int64 {
	decodedWords.mu.Lock()
	defer decodedWords.mu.Unlock()
	return decodedWords.used
}

// get is term's decoded postings in seg, one of live, owner's current
// segments, decoding them unless kept; nil when they cannot be decoded
// or their array alone exceeds the budget (the caller reads the iterator
// then). A word about to be decoded counts its array at once, so that
// many decodes at a time (many searches of distinct common words) push
// the least recently used out instead of piling up beside them; and
// owner's words of segments no longer live leave then, when a merge's
// new segment is first read.
func (c *decodedCache) get(owner *Index, live []*scorch.SegmentSnapshot, seg segment.Segment, field, term string) (*decodedTerm, error) {
	key := decodedKey{owner: owner, seg: seg, field: field, term: term}
	array := 2 * int64(seg.Count())
	c.mu.Lock()
	if array+entryBytes > c.budget { // 0 included: not worth decoding to drop
		c.mu.Unlock()
		return nil, nil
	}
	el, found := c.entries[key]
	if found {
		c.order.MoveToFront(el)
	} else {
		c.prune(owner, live)
		el = c.order.PushFront(&decodedEntry{key: key, size: entryBytes + array})
		c.entries[key] = el
		c.used += entryBytes + array
		c.evict(el)
	}
	c.mu.Unlock()
	e := el.Value.(*decodedEntry)
	if onDecode != nil && !found {
		onDecode()
	}
	e.once.Do(func() {
		var ok bool
		e.d, ok, e.err = decodeTerm(seg, field, term)
		if !ok || e.err != nil {
			e.d = nil
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		size := int64(entryBytes)
		if e.d != nil {
			size += e.d.size()
		}
		if c.entries[key] != el { // dropped while decoding
			return
		}
		c.used += size - e.size
		e.size = size
		if e.err != nil { // not kept: the next get reads again
			c.drop(el)
			return
		}
		c.evict(el)
	})
	return e.d, e.err
}

// onDecode, when set (by a test), runs before a word newly kept is
// decoded.
var onDecode func()

// entryBytes is what an entry counts besides its decoded postings, so
// that entries of words that do not decode leave in turn too.
const entryBytes = 128

// evict drops the least recently used entries, keep last, until the
// budget holds; keep leaves too when it alone exceeds it. An entry
// dropped while it decodes still answers the get that decodes it. Call
// with mu held.
func (c *decodedCache) evict(keep *list.Element) {
	for el := c.order.Back(); el != nil && c.used > c.budget; {
		prev := el.Prev()
		if el != keep {
			c.drop(el)
		}
		el = prev
	}
	if keep != nil && c.used > c.budget {
		c.drop(keep)
	}
}

// prune drops owner's entries of segments no longer in live, its
// current snapshot's: merged away, they would wait for the least
// recently used to leave. Call with mu held.
func (c *decodedCache) prune(owner *Index, live []*scorch.SegmentSnapshot) {
	alive := make(map[segment.Segment]bool, len(live))
	for _, ss := range live {
		alive[ss.Segment()] = true
	}
	for el := c.order.Front(); el != nil; {
		next := el.Next()
		if key := el.Value.(*decodedEntry).key; key.owner == owner && !alive[key.seg] {
			c.drop(el)
		}
		el = next
	}
}

// forget drops owner's entries: its segments are closed.
func (c *decodedCache) forget(owner *Index) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.order.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*decodedEntry).key.owner == owner {
			c.drop(el)
		}
		el = next
	}
}

func (c *decodedCache) drop(el *list.Element) {
	e := el.Value.(*decodedEntry)
	c.order.Remove(el)
	delete(c.entries, e.key)
	c.used -= e.size
}
