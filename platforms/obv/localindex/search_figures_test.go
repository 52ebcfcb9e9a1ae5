//go:build figures

package localindex

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// TestFiguresCouncilQuestions times the questions the fan-out asks the
// council replica (platforms/obv/surface.go: words, best match first
// unless asked by date, for any date or one year) on an index that
// TestFiguresOBVReplica built and kept (OBV_FIGURES_DIR): each policy
// topic (corpus.Topics, the words of the generated titles) and each year
// of 2006 to 2026 as a word, as issue 36's moonshot asks them
// (caddymodule/site/moonshot_size_figures_test.go). Search beside the
// request this package made before the filters were unscored
// (searchBefore), alternating question by question in one run. Logged,
// with the slowest question of each; what is checked is that both find
// the same number of matches.
//
//	OBV_FIGURES_RECORDS=3950000 OBV_FIGURES_DIR=/tmp/obvfig \
//	go test -tags figures -run 'TestFiguresOBVReplica$' -v -timeout 1h ./platforms/obv/
//	OBV_FIGURES_INDEX=/tmp/obvfig/obv-3950000 \
//	go test -tags figures -run TestFiguresCouncilQuestions -v ./platforms/obv/localindex/
func TestFiguresCouncilQuestions(t *testing.T) {
	dir := os.Getenv("OBV_FIGURES_INDEX")
	if dir == "" {
		t.Skip("OBV_FIGURES_INDEX names no index (TestFiguresOBVReplica keeps one under OBV_FIGURES_DIR)")
	}
	idx, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	held, _ := idx.Count()

	var words []string
	words = append(words, corpus.Topics...)
	for y := 2006; y <= 2026; y++ {
		words = append(words, strconv.Itoa(y))
	}
	r := corpus.Rand(36, "obv figures years")
	years := make([]int, len(words))
	for i, w := range words {
		years[i] = 2024 + r.IntN(3)
		if y, err := strconv.Atoi(w); err == nil {
			years[i] = y // a year as a word, for the dates of that year
		}
	}
	ctx := context.Background()
	kinds := []string{"best match", "best match, one year", "newest first", "newest first, one year"}
	t.Logf("%d entities held; %d questions of each kind", held, len(words))
	type timing struct {
		took    []time.Duration
		slowest int
	}
	for round := range 2 {
		for _, kind := range kinds {
			before, after := timing{took: make([]time.Duration, len(words))}, timing{took: make([]time.Duration, len(words))}
			var total uint64
			for i, w := range words {
				q := Query{Words: w, Limit: 10}
				if strings.HasSuffix(kind, "one year") {
					q.From, q.To = fmt.Sprintf("%d-01-01", years[i]), fmt.Sprintf("%d-12-31", years[i])
				}
				if strings.HasPrefix(kind, "newest") {
					q.Order = OrderNewest
				}
				start := time.Now()
				res, err := idx.Search(ctx, q)
				after.took[i] = time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				start = time.Now()
				old, err := idx.searchBefore(ctx, q)
				before.took[i] = time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if old.Total != res.Total {
					t.Errorf("%s %+v: %d matches, before %d", kind, q, res.Total, old.Total)
				}
				total += res.Total
				for _, m := range []*timing{&before, &after} {
					if m.took[i] > m.took[m.slowest] {
						m.slowest = i
					}
				}
			}
			if round == 0 {
				continue // warms the index's pages
			}
			for _, m := range []struct {
				name string
				m    timing
			}{{"before", before}, {"now", after}} {
				max := m.m.took[m.m.slowest] // before Percentiles sorts them
				p50, p95 := figures.Percentiles(m.m.took)
				t.Logf("%-22s %-6s p50 %8v  p95 %8v  max %8v (%q); %d matches on average", kind, m.name, p50.Round(10*time.Microsecond),
					p95.Round(10*time.Microsecond), max.Round(10*time.Microsecond), words[m.m.slowest], total/uint64(len(words)))
			}
		}
	}
}

// searchBefore is Search as this package asked it before its filters
// were unscored and its newest first read windows of days: words and
// filters in one scored conjunction, every match sorted by day.
func (i *Index) searchBefore(ctx context.Context, q Query) (Result, error) {
	must := []query.Query{bleveindex.EveryWord(fieldText, q.Words)}
	if q.From != "" || q.To != "" {
		incl := true
		r := query.NewTermRangeInclusiveQuery(q.From, q.To, &incl, &incl)
		r.SetField(fieldDay)
		must = append(must, r)
	}
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery(must), q.Limit, q.Offset, false)
	req.Fields = []string{fieldType, fieldSource, fieldDay, fieldTitle, fieldURL}
	if q.Order == OrderNewest {
		req.SortBy([]string{"-" + fieldDay, "_id"})
	}
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return Result{Total: res.Total}, nil
}
