package caselaw

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
)

// The small corpus of the search tests: each decision is there to prove
// one rule.
var (
	aboutNitrogen = Decision{ECLI: "ECLI:NL:RVS:2022:100", Court: "Raad van State", Date: "2022-03-01", Type: TypeRuling,
		Title:   "ECLI:NL:RVS:2022:100, Raad van State, 01-03-2022, 202101234/1/R2",
		Summary: "Stikstofvergunning melkveehouderij. De stikstofvergunning is ten onrechte verleend: de stikstofdepositie op Natura 2000-gebieden is niet beoordeeld. Stikstofvergunning vernietigd."}
	mentionsNitrogen = Decision{ECLI: "ECLI:NL:RBGEL:2021:200", Court: "Rechtbank Gelderland", Date: "2021-06-15", Type: TypeRuling,
		Title: "ECLI:NL:RBGEL:2021:200, Rechtbank Gelderland, 15-06-2021, AWB 20/1234",
		Summary: "Bestuursrecht. Handhaving van een last onder dwangsom wegens het in strijd met het bestemmingsplan gebruiken van een perceel als opslag. " +
			"Eiser voert aan dat verweerder eerst had moeten beslissen op zijn aanvraag, waaronder een stikstofvergunning, voordat werd gehandhaafd. " +
			"De rechtbank volgt dat niet: het beroep is ongegrond en de last onder dwangsom blijft in stand."}
	dismissal = Decision{ECLI: "ECLI:NL:GHARL:2020:300", Court: "Gerechtshof Arnhem-Leeuwarden", Date: "2020-11-20", Type: TypeRuling,
		Title:   "ECLI:NL:GHARL:2020:300, Gerechtshof Arnhem-Leeuwarden, 20-11-2020, 200.123.456",
		Summary: "Arbeidsrecht. Ontslag op staande voet wegens diefstal van de werkgever; de dringende reden is aanwezig."}
	dismissalWordsApart = Decision{ECLI: "ECLI:NL:RBAMS:2019:400", Court: "Rechtbank Amsterdam", Date: "2019-05-05", Type: TypeRuling,
		Title:   "ECLI:NL:RBAMS:2019:400, Rechtbank Amsterdam, 05-05-2019, 1234567 KK EXPL 19-123",
		Summary: "Arbeidsrecht. Werknemer stond op de voet van gelijkheid; geen ontslag, wel een staande afspraak over loon."}
	eventPermits = Decision{ECLI: "ECLI:NL:RBDHA:2023:500", Court: "Rechtbank Den Haag", Date: "2023-07-01", Type: TypeRuling,
		Title:   "ECLI:NL:RBDHA:2023:500, Rechtbank Den Haag, 01-07-2023, SGR 23/456",
		Summary: "Evenementenrecht. Weigering van vergunningen voor drie evenementen op het strand."}
	permitOpinion = Decision{ECLI: "ECLI:NL:PHR:2023:600", Court: "Parket bij de Hoge Raad", Date: "2023-07-02", Type: TypeOpinion,
		Title:   "ECLI:NL:PHR:2023:600, Parket bij de Hoge Raad, 02-07-2023, 22/01234",
		Summary: "Conclusie A-G. Intrekking van een vergunning voor een horecabedrijf."}
	tenancy = Decision{ECLI: "ECLI:NL:RBDHA:2023:700", Court: "Rechtbank Den Haag", Date: "2023-06-30", Type: TypeRuling,
		Title:   "ECLI:NL:RBDHA:2023:700, Rechtbank Den Haag, 30-06-2023, C/09/123456",
		Summary: "Huurrecht. Ontbinding van de huurovereenkomst wegens huurachterstand."}
)

func searchCorpus(t *testing.T) *Index {
	t.Helper()
	ix, _ := openTest(t)
	mustApply(t, ix, Checkpoint{}, aboutNitrogen, mentionsNitrogen, dismissal, dismissalWordsApart, eventPermits, permitOpinion, tenancy)
	return ix
}

func run(t *testing.T, ix *Index, q Query) Result {
	t.Helper()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	return res
}

func eclis(res Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ECLI)
	}
	return out
}

func wantHits(t *testing.T, ix *Index, q Query, want ...Decision) Result {
	t.Helper()
	res := run(t, ix, q)
	var wantIDs []string
	for _, d := range want {
		wantIDs = append(wantIDs, d.ECLI)
	}
	if got := eclis(res); !slices.Equal(got, wantIDs) || res.Total != uint64(len(want)) {
		t.Fatalf("%+v: hits %v (total %d), want %v", q, got, res.Total, wantIDs)
	}
	return res
}

// BM25: the decision about a nitrogen permit (the word three times in a
// short summary) ranks above one that mentions it once in a long one.
func TestBM25RanksTheDecisionAboutTheWordFirst(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	res := wantHits(t, ix, Query{Words: "stikstofvergunning"}, aboutNitrogen, mentionsNitrogen)
	if !(res.Hits[0].Score > res.Hits[1].Score) {
		t.Fatalf("scores %v, %v: want the first higher", res.Hits[0].Score, res.Hits[1].Score)
	}
	if h := res.Hits[0]; h.Court != "Raad van State" || h.Date != "2022-03-01" || h.Type != TypeRuling || h.Title != aboutNitrogen.Title {
		t.Fatalf("hit fields %+v", h)
	}
}

// The Dutch analyzer stems: "vergunningen" finds "vergunning" and back.
func TestDutchStemming(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	wantHits(t, ix, Query{Words: "vergunningen", Sort: SortDate}, permitOpinion, eventPermits)
	wantHits(t, ix, Query{Words: "Vergunning", Sort: SortDate}, permitOpinion, eventPermits)
}

func TestAllWordsMustMatch(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	wantHits(t, ix, Query{Words: "ontslag diefstal"}, dismissal)
	wantHits(t, ix, Query{Words: "ontslag huurachterstand"})
}

// A phrase must occur as written (the common word "op" inside it may be
// any word); the same words without quotes match both decisions.
func TestPhrase(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	wantHits(t, ix, Query{Words: `"ontslag op staande voet"`}, dismissal)
	wantHits(t, ix, Query{Words: `arbeidsrecht "Ontslag op  staande   voet"`}, dismissal)
	wantHits(t, ix, Query{Words: "ontslag op staande voet", Sort: SortDate}, dismissal, dismissalWordsApart)
	// A phrase never runs from the title into the summary.
	wantHits(t, ix, Query{Words: `"C/09/123456 huurrecht"`})
}

// Characters that are operators in bleve's query-string syntax are text:
// "-diefstal" is the word diefstal, required like any other; "court:x"
// is two words.
func TestUserTextIsNeverQuerySyntax(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	wantHits(t, ix, Query{Words: "+ontslag -diefstal"}, dismissal)
	wantHits(t, ix, Query{Words: "ontslag~ diefstal^"}, dismissal)
	wantHits(t, ix, Query{Words: "ecli:* huurrecht"})
	wantHits(t, ix, Query{Words: "huur* OR ontslag"})
	wantHits(t, ix, Query{Words: "(huurrecht)"}, tenancy)
}

func TestCommonWordsAreIgnoredAndSaid(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	res := wantHits(t, ix, Query{Words: "de huurovereenkomst"}, tenancy)
	if !slices.Equal(res.Ignored, []string{"de"}) {
		t.Fatalf("ignored %v, want [de]", res.Ignored)
	}
}

func TestFilters(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	wantHits(t, ix, Query{Words: "vergunning", Court: "rechtbank  den HAAG"}, eventPermits)
	wantHits(t, ix, Query{Words: "vergunning", Type: "conclusie"}, permitOpinion)
	wantHits(t, ix, Query{Words: "vergunning", DateFrom: "2023-07-02"}, permitOpinion)
	wantHits(t, ix, Query{Words: "vergunning", DateTo: "2023-07-01"}, eventPermits)
	wantHits(t, ix, Query{Words: "stikstofvergunning", DateFrom: "2021-06-15", DateTo: "2021-06-15"}, mentionsNitrogen)
	// Filters alone, newest first.
	wantHits(t, ix, Query{Court: "Rechtbank Den Haag", DateFrom: "2023-01-01"}, eventPermits, tenancy)
	wantHits(t, ix, Query{DateFrom: "2022-01-01", DateTo: "2022-12-31"}, aboutNitrogen)
	// Common words and a filter: the filter alone.
	wantHits(t, ix, Query{Words: "de het", Type: TypeOpinion}, permitOpinion)
}

func TestSortByDateNewestFirst(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	wantHits(t, ix, Query{Words: "arbeidsrecht", Sort: "date"}, dismissal, dismissalWordsApart)
	wantHits(t, ix, Query{Words: "stikstofvergunning", Sort: "DATE"}, aboutNitrogen, mentionsNitrogen)
	res := run(t, ix, Query{DateFrom: "2000-01-01", Sort: SortDate, Limit: MaxLimit})
	for n := 1; n < len(res.Hits); n++ {
		if res.Hits[n-1].Date < res.Hits[n].Date {
			t.Fatalf("not newest first: %v before %v", res.Hits[n-1].Date, res.Hits[n].Date)
		}
	}
	if len(res.Hits) != 7 {
		t.Fatalf("%d hits, want all 7", len(res.Hits))
	}
}

func TestLimitAndOffsetPage(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	all := run(t, ix, Query{DateFrom: "2000-01-01", Sort: SortDate})
	var paged []string
	for off := 0; off < 7; off += 3 {
		res := run(t, ix, Query{DateFrom: "2000-01-01", Sort: SortDate, Limit: 3, Offset: off})
		if res.Total != 7 {
			t.Fatalf("total %d on a page, want 7", res.Total)
		}
		paged = append(paged, eclis(res)...)
	}
	if !slices.Equal(paged, eclis(all)) {
		t.Fatalf("pages %v, want %v", paged, eclis(all))
	}
}

// Every query the index cannot run is a *QueryError naming the part to
// change and how.
func TestQueryErrorsNameWhatToFix(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	for _, c := range []struct {
		q     Query
		field string
		hint  string
	}{
		{Query{Words: `"ontslag op staande voet`}, "words", "close the phrase"},
		{Query{}, "words", "no words and no filter"},
		{Query{Words: "  "}, "words", "no words and no filter"},
		{Query{Words: `""`}, "words", "no words and no filter"},
		{Query{Words: "de het een"}, "words", "only common words"},
		{Query{Words: strings.Repeat("woord ", MaxTerms+1)}, "words", fmt.Sprintf("use at most %d", MaxTerms)},
		{Query{Words: strings.Repeat("x", MaxWordsBytes+1)}, "words", "at most"},
		{Query{Words: "huur\xff"}, "words", "UTF-8"},
		{Query{Words: "huur", DateFrom: "1-2-2020"}, "date_from", "YYYY-MM-DD"},
		{Query{Words: "huur", DateTo: "2020-02-30"}, "date_to", "YYYY-MM-DD"},
		{Query{Words: "huur", DateFrom: "2021-01-01", DateTo: "2020-01-01"}, "date_to", "swap"},
		{Query{Words: "huur", Type: "vonnis"}, "type", `"Uitspraak" or "Conclusie"`},
		{Query{Words: "huur", Sort: "score"}, "sort", `"relevance" or "date"`},
		{Query{Words: "huur", Limit: MaxLimit + 1}, "limit", "use 1 to 100"},
		{Query{Words: "huur", Limit: -1}, "limit", "use 1 to 100"},
		{Query{Words: "huur", Offset: -1}, "offset", "use 0 to"},
		{Query{Words: "huur", Offset: MaxOffset + 1}, "offset", "use 0 to"},
	} {
		_, err := ix.Search(context.Background(), c.q)
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("%+v: error %v, want a *QueryError", c.q, err)
			continue
		}
		if qe.Field != c.field || !strings.Contains(err.Error(), c.hint) {
			t.Errorf("%+v: %q (field %s), want field %s and %q", c.q, err, qe.Field, c.field, c.hint)
		}
	}
}

func TestSearchHonoursItsContext(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Search(ctx, Query{Words: "huurrecht"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestSnippetStartsNearTheFirstWordFound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Inleiding zonder belang. ", 20) + "Hier gaat het om de stikstofvergunning van eiser. " + strings.Repeat("Slot. ", 40)
	s := snippet(long, []string{"stikstofvergunn"}, 80)
	if !strings.Contains(s, "stikstofvergunning") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Fatalf("snippet %q", s)
	}
	if n := utf8.RuneCountInString(s); n > 82 {
		t.Fatalf("snippet of %d runes, want at most 80 and the ellipses", n)
	}
	if s := snippet(long, []string{"ontbreekt"}, 80); !strings.HasPrefix(s, "Inleiding") {
		t.Fatalf("without a match the snippet starts at the start: %q", s)
	}
	if s := snippet("Kort.", []string{"kort"}, 80); s != "Kort." {
		t.Fatalf("a short summary is whole: %q", s)
	}
	// Multi-byte text (ß lower-cases to itself; İ does not keep its
	// length) never splits a rune.
	odd := strings.Repeat("İstanbul café ", 30)
	if s := snippet(odd, []string{"café"}, 40); !utf8.ValidString(s) {
		t.Fatalf("snippet split a rune: %q", s)
	}
}

// The date order, read in windows of days, gives the same pages as one
// sort of every match would (the reference here), with the same total.
func TestDateOrderPagesLikeOneFullSort(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("indexes 1,500 generated decisions")
	}
	ix, _ := openTest(t)
	var page []Decision
	for n := range 1500 {
		page = append(page, genDecision(n))
		if len(page) == 500 {
			mustApply(t, ix, Checkpoint{}, page...)
			page = page[:0]
		}
	}
	for _, q := range []Query{
		{Words: "rechtbank", Sort: SortDate, Limit: 100},
		{Words: "rechtbank", Sort: SortDate, Limit: 100, Offset: 450},
		{Words: "beroep uitspraak", Sort: SortDate, Limit: 7, Offset: 3},
		{Words: "vergunning", Sort: SortDate, Limit: 50, DateFrom: "2020-01-01", DateTo: "2024-06-30"},
		{Words: "vergunning", Sort: SortDate, Limit: 50, DateTo: "2012-12-31"},
		{Court: "Rechtbank Amsterdam", Limit: 100, Offset: 20},
		{Words: "hof", Sort: SortDate, Limit: 100, Offset: MaxDateOffset}, // past the end
	} {
		got := run(t, ix, q)
		p, err := planQuery(q, ix.analyzers)
		if err != nil {
			t.Fatal(err)
		}
		req := bleve.NewSearchRequestOptions(p.boolean(), p.limit, p.offset, false)
		req.SortBy([]string{"-" + fieldDay, "_id"})
		req.Score = "none"
		want, err := ix.store.Bleve().Search(req)
		if err != nil {
			t.Fatal(err)
		}
		var wantIDs []string
		for _, h := range want.Hits {
			wantIDs = append(wantIDs, h.ID)
		}
		if !slices.Equal(eclis(got), wantIDs) || got.Total != want.Total {
			t.Fatalf("%s: %d hits of %d, want %d of %d\n got %v\nwant %v", describe(q), len(got.Hits), got.Total, len(wantIDs), want.Total, eclis(got), wantIDs)
		}
		if q.Offset < MaxDateOffset && len(got.Hits) == 0 {
			t.Fatalf("%s: no hits: the test proves nothing", describe(q))
		}
	}
}
