package bleveindex

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/search/query"
)

// countDoc is a document of the counting tests: words searched with the
// Dutch analyzer, a kind kept as a keyword, a day and a wide number.
type countDoc struct {
	Words string   `json:"words"`
	Kind  string   `json:"kind"`
	Day   *float64 `json:"day,omitempty"`
	N     float64  `json:"n"`
}

// countIndex is an index of docs documents in several segments, with
// deleted and replaced documents among them, drawn from seed.
func countIndex(t testing.TB, docs int, seed uint64) *Index {
	t.Helper()
	im := NewMapping()
	dm := mapping.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("words", Searched(""))
	dm.AddFieldMappingsAt("kind", Keyword(AnalyzerExact, false, false))
	dm.AddFieldMappingsAt("day", DayNumber())
	dm.AddFieldMappingsAt("n", DayNumber())
	im.DefaultMapping = dm
	ix, _, err := Open(t.TempDir(), Config{What: "count index", Mapping: im, Format: "count-v1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	r := rand.New(rand.NewPCG(seed, 1))
	doc := func() countDoc {
		var d countDoc
		for range 1 + r.IntN(4) {
			d.Words += " " + countWords[r.IntN(len(countWords))]
		}
		d.Kind = countKinds[r.IntN(len(countKinds))]
		if r.IntN(10) > 0 {
			day := float64(18000 + r.IntN(2500))
			d.Day = &day
		}
		d.N = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(12)))
		return d
	}
	batch := 0
	for written := 0; written < docs; batch++ {
		var ops []Op
		for range 1 + r.IntN(docs/4) {
			if written > 0 && r.IntN(5) == 0 { // replace or delete an earlier one
				id := fmt.Sprintf("d%d", r.IntN(written))
				if r.IntN(2) == 0 {
					ops = append(ops, Delete(id))
				} else {
					ops = append(ops, Upsert(id, doc()))
				}
				continue
			}
			ops = append(ops, Upsert(fmt.Sprintf("d%d", written), doc()))
			written++
		}
		if err := ix.Apply(ops, []byte(fmt.Sprint(batch))); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

var (
	countWords = []string{"gemeente", "raad", "besluit", "motie", "2024", "verordening", "de"}
	countKinds = []string{"Motie", "Brief", "Besluit", "Verslag"}
)

// randomCountQuery is a query the bitmaps read (CountFromBitmaps), of depth at most depth.
func randomCountQuery(r *rand.Rand, ix *Index, depth int) query.Query {
	leaf := func() query.Query {
		switch r.IntN(6) {
		case 5:
			return query.NewMatchAllQuery()
		case 0:
			t := query.NewTermQuery(countKinds[r.IntN(len(countKinds))])
			t.SetField("kind")
			return t
		case 1:
			return EveryTerm(ix.Bleve().Mapping(), "words", countWords[r.IntN(len(countWords))])
		case 2:
			from, to := dayOf(17950+r.IntN(2600)), ""
			if r.IntN(3) > 0 {
				to = dayOf(18000 + r.IntN(2600))
			}
			if r.IntN(4) == 0 {
				from = ""
			}
			return DaysFrom("day", from, to)
		case 3:
			field := "n"
			lo := (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(12)))
			hi := lo + r.Float64()*math.Pow(10, float64(6+r.IntN(6)))
			if r.IntN(2) == 0 { // days: bounds that documents hold
				field, lo = "day", float64(18000+r.IntN(2500))
				hi = lo + float64(r.IntN(3))
			}
			incl, inclMax := r.IntN(2) == 0, r.IntN(2) == 0
			min, max := &lo, &hi
			switch r.IntN(5) {
			case 0:
				min = nil
			case 1:
				max = nil
			}
			q := query.NewNumericRangeInclusiveQuery(min, max, &incl, &inclMax)
			q.SetField(field)
			return q
		default: // the whole range of a field, as bleve reads one without bounds
			q := query.NewNumericRangeQuery(nil, nil)
			q.SetField([]string{"day", "n"}[r.IntN(2)])
			return q
		}
	}
	if depth == 0 || r.IntN(3) == 0 {
		return leaf()
	}
	n := 1 + r.IntN(2)
	parts := make([]query.Query, n)
	for k := range parts {
		parts[k] = randomCountQuery(r, ix, depth-1)
	}
	switch r.IntN(4) {
	case 0:
		return query.NewDisjunctionQuery(parts)
	case 1:
		return query.NewBooleanQuery(parts, nil, []query.Query{randomCountQuery(r, ix, depth-1)})
	case 2:
		b := query.NewBooleanQuery(parts[:1], nil, nil)
		b.AddFilter(randomCountQuery(r, ix, depth-1))
		return b
	}
	return query.NewConjunctionQuery(parts)
}

// bleveCount is the total bleve's own unscored search gives.
func bleveCount(t testing.TB, ix *Index, q query.Query) uint64 {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.Score = "none"
	res, err := ix.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Total
}

// Counted from the bitmaps, every query of terms, ranges and their
// combinations matches as many documents as bleve's search finds, over
// segments with deleted and replaced documents; a query with a part the
// bitmaps do not read (a match query) is counted by bleve.
func TestCountMatchesIsBleves(t *testing.T) {
	ix := countIndex(t, 3000, 7)
	if n := len(snapshotSegments(t, ix)); n < 3 {
		t.Fatalf("%d segments; the test wants several", n)
	}
	r := rand.New(rand.NewPCG(11, 2))
	nonzero := 0
	for k := range 600 {
		q := randomCountQuery(r, ix, 2)
		want := bleveCount(t, ix, q)
		got, ok, err := ix.CountFromBitmaps(context.Background(), q)
		if err != nil || !ok {
			t.Fatalf("query %d: read %v, %v; it is made of what the bitmaps read", k, ok, err)
		}
		if got != want {
			js, _ := query.DumpQuery(ix.Bleve().Mapping(), q)
			t.Fatalf("query %d: counted %d, bleve finds %d: %s", k, got, want, js)
		}
		if want > 0 {
			nonzero++
		}
	}
	// Counted within a query's matches, a second query counts what the
	// two match together.
	for k := range 300 {
		q, w := randomCountQuery(r, ix, 2), randomCountQuery(r, ix, 2)
		m, ok, err := ix.MatchesOf(context.Background(), q)
		if err != nil || !ok {
			t.Fatalf("within %d: read %v, %v", k, ok, err)
		}
		got, ok, err := m.CountWithin(context.Background(), w)
		_ = m.Close()
		both := query.NewConjunctionQuery([]query.Query{q, w})
		if want := bleveCount(t, ix, both); err != nil || !ok || got != want {
			js, _ := query.DumpQuery(ix.Bleve().Mapping(), both)
			t.Fatalf("within %d: counted %d (%v, %v), bleve finds %d: %s", k, got, ok, err, want, js)
		}
	}
	if nonzero < 300 {
		t.Fatalf("only %d of 600 queries match anything; the test reads too little", nonzero)
	}
	m := EveryWord("words", "besluit gemeente")
	if _, ok, _ := ix.CountFromBitmaps(context.Background(), m); ok {
		t.Fatal("a match query was read from the bitmaps")
	}
	got, err := ix.CountMatches(context.Background(), query.NewConjunctionQuery([]query.Query{m, DaysFrom("day", "2020-01-01", "")}))
	if want := bleveCount(t, ix, query.NewConjunctionQuery([]query.Query{m, DaysFrom("day", "2020-01-01", "")})); err != nil || got != want || want == 0 {
		t.Fatalf("counted %d (%v), bleve finds %d", got, err, want)
	}
}

// The numeric terms tile the range exactly: each block begins where the
// one before ended, the first at lo and the last at hi, at most 15 of a
// precision on each side.
func TestNumericTermsTileTheRange(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ranges := [][2]int64{{0, 0}, {math.MinInt64, math.MaxInt64}, {-1, 0}, {math.MaxInt64 - 20, math.MaxInt64},
		{math.MinInt64, math.MinInt64 + 17}, {5, 4}}
	for range 2000 {
		a, b := int64(r.Uint64()), int64(r.Uint64())>>r.IntN(64)
		if r.IntN(2) == 0 {
			b = a + int64(r.IntN(100000))
		}
		ranges = append(ranges, [2]int64{min(a, b), max(a, b)})
	}
	const sign = uint64(1) << 63
	for _, rg := range ranges {
		terms := numericTerms(rg[0], rg[1])
		if rg[0] > rg[1] {
			if len(terms) != 0 {
				t.Fatalf("%v: %d terms for an empty range", rg, len(terms))
			}
			continue
		}
		type block struct {
			start uint64
			shift uint
		}
		var blocks []block
		perShift := map[uint]int{}
		for _, term := range terms {
			pc := numeric.PrefixCoded(term)
			shift, err := pc.Shift()
			if err != nil {
				t.Fatal(err)
			}
			v, err := pc.Int64()
			if err != nil {
				t.Fatal(err)
			}
			blocks = append(blocks, block{uint64(v) ^ sign, shift})
			perShift[shift]++
		}
		slices.SortFunc(blocks, func(a, b block) int { return cmp.Compare(a.start, b.start) })
		next, done := uint64(rg[0])^sign, false
		for _, b := range blocks {
			start, shift := b.start, b.shift
			end := start | (uint64(1)<<shift - 1)
			if done || start != next {
				t.Fatalf("%v: a block at %d (shift %d), want %d", rg, start, shift, next)
			}
			next, done = end+1, end == math.MaxUint64
		}
		if last := uint64(rg[1]) ^ sign; !(next-1 == last) {
			t.Fatalf("%v: the blocks end at %d, want %d", rg, next-1, last)
		}
		for shift, n := range perShift {
			if n > 30 {
				t.Fatalf("%v: %d terms at shift %d", rg, n, shift)
			}
		}
	}
}

// dayOf is the YYYY-MM-DD day n days after 1970-01-01 (Day's inverse).
func dayOf(n int) string { return time.Unix(int64(n)*86400, 0).UTC().Format(time.DateOnly) }

// snapshotSegments are the segments of ix's current snapshot.
func snapshotSegments(t *testing.T, ix *Index) []*scorch.SegmentSnapshot {
	t.Helper()
	adv, err := ix.Bleve().Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.(*scorch.IndexSnapshot).Segments()
}

// BenchmarkCountMatches: the count of a word in a year (the moonshot's
// tail: a term and a range of days), of a word alone and of every live
// document but one kind, side by side: bleve's unscored search, which
// walks every match through its collector, and the bitmaps.
//
//	go test -run '^$' -bench CountMatches -benchtime 50x ./replica/bleveindex/
//
// BLEVEINDEX_BENCH_DOCS sets the documents (default 200,000).
func BenchmarkCountMatches(b *testing.B) {
	n := 200_000
	if v := os.Getenv("BLEVEINDEX_BENCH_DOCS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("BLEVEINDEX_BENCH_DOCS %q: a whole number of at least 1000", v)
		}
	}
	ix := countIndex(b, n, 5)
	m := ix.Bleve().Mapping()
	kind := query.NewTermQuery("Motie")
	kind.SetField("kind")
	for _, q := range []struct {
		name string
		q    query.Query
	}{
		{"word-in-a-year", EveryTerm(m, "words", "2024", DaysFrom("day", "2020-01-01", "2021-01-01"))},
		{"word", EveryTerm(m, "words", "gemeente")},
		{"all-but-a-kind", query.NewBooleanQuery([]query.Query{query.NewMatchAllQuery()}, nil, []query.Query{kind})},
	} {
		want := bleveCount(b, ix, q.q)
		b.Run(q.name+"/bleve", func(b *testing.B) {
			for b.Loop() {
				req := bleve.NewSearchRequestOptions(q.q, 0, 0, false)
				req.Score = "none"
				if res, err := ix.Search(context.Background(), req); err != nil || res.Total != want {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/bitmaps", func(b *testing.B) {
			for b.Loop() {
				if got, ok, err := ix.CountFromBitmaps(context.Background(), q.q); err != nil || !ok || got != want {
					b.Fatalf("%d %v %v, want %d", got, ok, err, want)
				}
			}
			b.ReportMetric(float64(want), "matches")
		})
	}
}

// A panic while reading the segments beside bleve is not taken for a
// corrupt index: the caller asks bleve instead, and the index stays
// open. The same panic inside bleve's own search marks it corrupt.
func TestPanicBesideBleveFallsBack(t *testing.T) {
	ix := countIndex(t, 200, 19)
	fellBack, err := ix.besideBleve("a read beside bleve", func() error { panic("a mistake of ours") })
	if !fellBack || err != nil || ix.Err() != nil {
		t.Fatalf("fell back %v, %v; index %v", fellBack, err, ix.Err())
	}
	if got, err := ix.CountMatches(context.Background(), EveryTerm(ix.Bleve().Mapping(), "words", "raad")); err != nil || got == 0 {
		t.Fatalf("after the fall back: %d, %v", got, err)
	}
	if err := ix.guarded("bleve's search", func() error { panic("a segment gone bad") }); err == nil || ix.Err() == nil {
		t.Fatalf("a panic inside bleve's own search: %v; index %v", err, ix.Err())
	}
}
