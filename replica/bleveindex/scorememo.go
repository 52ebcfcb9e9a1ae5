package bleveindex

import segment "github.com/blevesearch/scorch_segment_api/v2"

// A word's BM25 part depends on its match only through the posting's
// frequency and norm, and the norm on the length of the field. zapx
// keeps the length itself as the norm's raw value (Posting.NormUint64,
// what its merge copies) and computes Norm from it with a square root
// and a division; termScorer.score adds three divisions. In a short
// field both are small numbers, so the matches of a common word come in
// a few hundred (frequency, length) pairs: scoreMemo computes each pair
// once, from the first posting that has it, and looks the rest up. The
// score is the same to the bit, as it is the same function of the same
// posting (TestBestFirstIsBleves runs with the memo and without).
//
// Memos are made only for scorings of more than heavyAbove matches
// (bestfirst_parts.go), where the table is cheap beside the matches, one
// per word and goroutine.
var (
	memoFreqs   uint64 = 8   // frequencies below this are memoized
	memoLengths uint64 = 512 // and field lengths below this
)

// rawNorm is a posting that tells its norm's raw value (zapx's).
type rawNorm interface{ NormUint64() uint64 }

// scoreMemo is one word's scores by frequency and raw norm; 0 is not yet
// computed (a BM25 part is never 0 for a posting of the word, and if it
// were, computing it again gives 0 again).
type scoreMemo []float64

func newScoreMemo() scoreMemo { return make(scoreMemo, memoFreqs*memoLengths) }

// slot is where m keeps the score of freq and a field of length, -1 for
// none.
func (m scoreMemo) slot(freq, length uint64) int {
	if m == nil || freq >= memoFreqs || length >= memoLengths {
		return -1
	}
	return int(freq*memoLengths + length)
}

// score is s's part for post, from m where m holds it.
func (m scoreMemo) score(s *termScorer, post segment.Posting) float64 {
	freq := post.Frequency()
	at := -1
	if raw, ok := post.(rawNorm); ok {
		at = m.slot(freq, raw.NormUint64())
	}
	if at >= 0 && m[at] != 0 {
		return m[at]
	}
	v := s.score(freq, post.Norm())
	if at >= 0 {
		m[at] = v
	}
	return v
}

// scoreDecoded is s's part for the decoded posting of doc in d; held is
// false when d has none.
func (m scoreMemo) scoreDecoded(s *termScorer, d *decodedTerm, doc uint32) (score float64, held bool) {
	freq, length, norm, packed, held := d.at(doc)
	if !held {
		return 0, false
	}
	at := -1
	if packed {
		at = m.slot(freq, length)
	}
	if at >= 0 && m[at] != 0 {
		return m[at], true
	}
	v := s.score(freq, norm)
	if at >= 0 {
		m[at] = v
	}
	return v, true
}
