package emulator

import (
	"encoding/xml"
	"html"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// The feed as a harvester reads it (issue 20): every decision once, page
// by page, then what changed since.

// scanned is what a harvest keeps of a feed entry. It is read without an
// XML decoder: a complete harvest reads some 100 MB of feed.
type scanned struct {
	ecli, title, summary, updated, deleted string
}

func between(s, open, end string) string {
	_, after, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, end)
	return html.UnescapeString(v)
}

func scanFeed(t testing.TB, rec *httptest.ResponseRecorder) (int, []scanned) {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	chunks := strings.Split(rec.Body.String(), "<entry")
	n, err := strconv.Atoi(between(chunks[0], "Aantal gevonden ECLI's: ", "<"))
	if err != nil {
		t.Fatalf("subtitle: %v", err)
	}
	var out []scanned
	for _, c := range chunks[1:] {
		out = append(out, scanned{
			ecli:    between(c, "<id>", "</id>"),
			title:   between(c, `<title type="text">`, "</title>"),
			summary: between(c, `<summary type="text">`, "</summary>"),
			updated: between(c, "<updated>", "</updated>"),
			deleted: between(c, ` deleted="`, `"`),
		})
	}
	return n, out
}

// harvest pages through the feed as a harvester does: full pages from
// offset 0 until a short one, the total the same on every page.
func harvest(t testing.TB, h http.Handler, params ...string) []scanned {
	t.Helper()
	var all []scanned
	want := -1
	for from := 0; ; from += MaxResults {
		n, es := scanFeed(t, search(t, h, append(params, "max", strconv.Itoa(MaxResults), "from", strconv.Itoa(from))...))
		if want >= 0 && n != want {
			t.Fatalf("total %d at offset %d, %d before", n, from, want)
		}
		want = n
		all = append(all, es...)
		if len(es) < MaxResults {
			break
		}
	}
	if len(all) != want {
		t.Fatalf("harvested %d entries of %d", len(all), want)
	}
	return all
}

// visibleRulings are the index's rulings published at now that pass keep.
func visibleRulings(h *handler, now time.Time, keep func(*ruling) bool) []*ruling {
	var out []*ruling
	for i := range h.index().rulings {
		if r := &h.index().rulings[i]; r.visible(now.Unix()) && keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// A harvest with return=DOC and sort=ASC, a thousand at a time, sees every
// ECLI with a document exactly once, in the order of modification. The
// short test harvests the conclusies only (some 5,000).
func TestHarvestEveryDecisionOnce(t *testing.T) {
	h := newTest(t)
	params := []string{"return", "DOC", "sort", "ASC"}
	if testing.Short() {
		params = append(params, "type", "Conclusie")
	}
	es := harvest(t, h, params...)
	seen := make(map[string]bool, len(es))
	for i, e := range es {
		if seen[e.ecli] {
			t.Fatalf("%s twice", e.ecli)
		}
		seen[e.ecli] = true
		if i > 0 && e.updated < es[i-1].updated {
			t.Fatalf("entry %d: %s after %s", i, e.updated, es[i-1].updated)
		}
		if e.deleted != "" {
			t.Fatalf("tombstone %s with return=DOC", e.ecli)
		}
	}
	want := visibleRulings(h, testNow, func(r *ruling) bool {
		del, doc := r.state(testNow.Unix())
		return doc && del == 0 && (!testing.Short() || r.kind == 'C')
	})
	for _, r := range want {
		if !seen[r.ecli()] {
			t.Fatalf("%s never harvested", r.ecli())
		}
	}
	if len(seen) != len(want) || (!testing.Short() && len(seen) < 100000) {
		t.Fatalf("harvested %d, the index has %d", len(seen), len(want))
	}
}

// modified once is "since", twice a range; the totals are the index's.
func TestModifiedWindows(t *testing.T) {
	h := newTest(t)
	now := testNow.Unix()
	count := func(from, to int64) int {
		return len(visibleRulings(h, testNow, func(r *ruling) bool { m := r.modifiedAt(now); return m >= from && m <= to }))
	}
	since := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	until := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	at := func(t time.Time) string { return t.Format("2006-01-02T15:04:05") }
	if got, want := total(t, h, "modified", at(since)), count(since.Unix(), math.MaxInt64); got != want || want == 0 {
		t.Errorf("since: %d, want %d", got, want)
	}
	if got, want := total(t, h, "modified", at(since), "modified", at(until)), count(since.Unix(), until.Unix()); got != want || want == 0 {
		t.Errorf("range: %d, want %d", got, want)
	}
	// The newest first with DESC, the oldest first with ASC, both inside.
	_, desc := parseFeed(t, search(t, h, "modified", at(since), "modified", at(until), "sort", "DESC", "max", "2"))
	_, asc := parseFeed(t, search(t, h, "modified", at(since), "modified", at(until), "max", "2"))
	if len(desc) != 2 || len(asc) != 2 || desc[0].Updated < desc[1].Updated || asc[0].Updated > asc[1].Updated ||
		asc[0].Updated < since.Format(time.RFC3339) || desc[0].Updated > until.Format(time.RFC3339) {
		t.Errorf("asc %+v desc %+v", asc, desc)
	}
}

// date once is that day, twice a range, on the decision date of the title.
func TestDateWindows(t *testing.T) {
	h := newTest(t)
	from, to := epochDay(time.Date(2019, 2, 1, 0, 0, 0, 0, time.UTC)), epochDay(time.Date(2019, 3, 15, 0, 0, 0, 0, time.UTC))
	want := visibleRulings(h, testNow, func(r *ruling) bool { return r.date >= from && r.date <= to })
	es := harvest(t, h, "date", "2019-02-01", "date", "2019-03-15")
	if len(es) != len(want) || len(want) < 500 {
		t.Fatalf("%d entries, the index has %d", len(es), len(want))
	}
	for _, e := range es {
		if d := titleDate(t, entry{ID: e.ecli, Title: e.title}); d < "2019-02-01" || d > "2019-03-15" {
			t.Fatalf("%s: date %s", e.ecli, d)
		}
	}
}

// Without return=DOC the feed lists tombstones with their kind and the
// ECLIs without a document; about 1 in 130 is withdrawn.
func TestHarvestTombstones(t *testing.T) {
	h := newTest(t)
	es := harvest(t, h, "date", "2021-01-01", "date", "2021-12-31")
	kinds := map[string]int{}
	for _, e := range es {
		kinds[e.deleted]++
		r := h.index().find(e.ecli)
		if del, _ := r.state(testNow.Unix()); e.deleted != map[byte]string{0: "", 'd': "doc", 'e': "ecli"}[del] {
			t.Errorf("%s: deleted=%q, index %q", e.ecli, e.deleted, del)
		}
	}
	if kinds["doc"] == 0 || kinds["ecli"] == 0 || kinds["doc"]+kinds["ecli"] > len(es)/50 {
		t.Errorf("tombstones %v of %d", kinds, len(es))
	}
}

// A harvester that keeps the newest modification it saw and asks for
// modified since it after the clock has moved ends with what a complete
// harvest would give then: new ECLIs, changed ones and withdrawals.
func TestIncrementalHarvest(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 5, 29, 12, 0, 0, 0, time.UTC))
	h := New(Config{Seed: 42, Clock: clk})
	scope := []string{"date", "2025-06-01", "date", "2026-12-31"}
	state := map[string]scanned{}
	mark := ""
	apply := func(es []scanned) {
		for _, e := range es {
			state[e.ecli] = e
			mark = max(mark, e.updated)
		}
	}
	apply(harvest(t, h, scope...))
	before := maps.Clone(state)
	clk.AdvanceTo(clk.Now().AddDate(0, 2, 0))
	changes := harvest(t, h, append(scope, "modified", strings.TrimSuffix(mark, "Z"))...)
	apply(changes)
	var added, moved, withdrawn int
	for _, e := range changes {
		old, known := before[e.ecli]
		switch {
		case !known:
			added++
		case e.deleted != "" && old.deleted == "":
			withdrawn++
		case e.updated != old.updated:
			moved++
		}
	}
	if added == 0 || moved == 0 || withdrawn == 0 {
		t.Errorf("changes: %d added, %d moved, %d withdrawn", added, moved, withdrawn)
	}
	full := map[string]scanned{}
	for _, e := range harvest(t, h, scope...) {
		full[e.ecli] = e
	}
	if !maps.Equal(state, full) {
		t.Errorf("incremental state (%d) differs from a complete harvest (%d)", len(state), len(full))
	}
}

// The same seed builds the same index, entry for entry; another seed
// another.
func TestIndexDeterminism(t *testing.T) {
	// Up to 2013: both forms of ECLI, LJN and number, at a third of the cost.
	a, b, c := buildIndex(7, 2013), buildIndex(7, 2013), buildIndex(8, 2013)
	if !slices.Equal(a.rulings, b.rulings) || !slices.Equal(a.byKey, b.byKey) {
		t.Fatal("seed 7 built two different indexes")
	}
	if slices.Equal(a.rulings, c.rulings) {
		t.Fatal("seeds 7 and 8 built the same index")
	}
	page := func(ix *index) string {
		h := New(Config{Seed: 7, Clock: fakeclock.New(testNow)}).(*handler)
		h.once.Do(func() { h.ix = ix })
		body := search(t, h, "from", "30000", "max", "300").Body.String()
		return regexp.MustCompile(`;id=\d+`).ReplaceAllString(body, "")
	}
	if page(a) != page(b) {
		t.Fatal("same index, different pages")
	}
}

// What the content endpoint says of an ECLI is what its feed entry says:
// court, date and case number of the title, the summary as
// inhoudsindicatie, and a text about the summary's theme.
func TestContentMatchesFeedEntry(t *testing.T) {
	h := newTest(t)
	_, es := scanFeed(t, search(t, h, "date", "2024-03-01", "date", "2024-03-10"))
	var withText, metaOnly, gone int
	for _, e := range es {
		rec := get(t, h, "/uitspraken/content?id="+e.ecli)
		if e.deleted == "ecli" {
			if rec.Code != http.StatusNotFound {
				t.Errorf("%s withdrawn: %d", e.ecli, rec.Code)
			}
			gone++
			continue
		}
		var doc struct {
			Descriptions []struct {
				Identifier string `xml:"identifier"`
				Creator    string `xml:"creator"`
				Date       string `xml:"date"`
				Zaaknummer string `xml:"zaaknummer"`
			} `xml:"RDF>Description"`
			Summary []string `xml:"inhoudsindicatie>para"`
			Text    string   `xml:",innerxml"`
		}
		if err := xml.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %v", e.ecli, rec.Code, err)
		}
		parts := strings.SplitN(e.title, ", ", 4)
		d := doc.Descriptions[0]
		if d.Identifier != e.ecli || d.Creator != parts[1] || d.Date != titleDate(t, entry{ID: e.ecli, Title: e.title}) || d.Zaaknummer != parts[3] {
			t.Errorf("%s: document %+v, title %q", e.ecli, d, e.title)
		}
		if !strings.Contains(doc.Text, "<uitspraak ") && !strings.Contains(doc.Text, "<conclusie ") {
			metaOnly++
			continue
		}
		withText++
		if want := e.summary; want != "-" && (len(doc.Summary) != 1 || doc.Summary[0] != want) {
			t.Errorf("%s: inhoudsindicatie %q, feed summary %q", e.ecli, doc.Summary, want)
		}
		ix := h.index()
		facts := ix.decision(ix.find(e.ecli)).facts()
		if !strings.Contains(html.UnescapeString(doc.Text), facts) {
			t.Errorf("%s: text lacks its theme %q", e.ecli, facts)
		}
	}
	if withText == 0 || metaOnly == 0 {
		t.Errorf("%d with text, %d metadata only, %d withdrawn", withText, metaOnly, gone)
	}
}

// Summaries are worth a word search: over a thousand words, each theme's
// words in a small share, and rulings about stikstof, vergunningen and
// boerderijen together. A sample of every seventh ECLI says as much as
// all.
func TestSummariesFindableByWords(t *testing.T) {
	h := newTest(t)
	ix := h.index()
	const step = 7
	vocabulary := map[string]bool{}
	var summaries, stikstof, all3 int
	for i := 0; i < len(ix.rulings); i += step {
		s := ix.decision(&ix.rulings[i]).Summary
		if s == "" {
			continue
		}
		summaries++
		words := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
			words[w], vocabulary[w] = true, true
		}
		if words["stikstof"] {
			stikstof++
			if words["vergunning"] && words["boerderij"] {
				all3++
			}
		}
	}
	t.Logf("%d summaries, %d words; stikstof in %d, with vergunning and boerderij in %d", summaries, len(vocabulary), stikstof, all3)
	if len(vocabulary) < 1000 || stikstof < summaries/1000 || stikstof > summaries/20 || all3 < 2 {
		t.Errorf("%d summaries, %d words; stikstof in %d, with vergunning and boerderij in %d", summaries, len(vocabulary), stikstof, all3)
	}
}

// The feed's order is computed once while nothing happens, and again when
// the clock passes a publication or a modification.
func TestViewFollowsClock(t *testing.T) {
	clock := testNow
	h := New(Config{Seed: 42, Clock: fakeclock.New(clock)}).(*handler)
	v := h.viewAt(clock)
	if v.until == math.MaxInt64 || v.from > clock.Unix() {
		t.Fatalf("view holds [%d, %d), clock %d", v.from, v.until, clock.Unix())
	}
	if again := h.viewAt(unixTime(v.until - 1)); again != v {
		t.Error("recomputed before anything happened")
	}
	next := h.viewAt(unixTime(v.until))
	if next == v || !slices.Equal(next.order, computeView(h.index(), v.until).order) || len(next.order) < len(v.order) {
		t.Errorf("after the event at %d: %d entries, %d before", v.until, len(next.order), len(v.order))
	}
}

func BenchmarkFeedPage(b *testing.B) {
	for _, c := range []struct{ name, query string }{
		{"first", "return=DOC&sort=ASC&max=1000&from=0"},
		{"deep", "return=DOC&sort=ASC&max=1000&from=100000"},
		{"since", "return=DOC&sort=ASC&max=1000&modified=2026-01-01T00:00:00"},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := newTest(b)
			req := httptest.NewRequest(http.MethodGet, "/uitspraken/zoeken?"+c.query, nil)
			h.ServeHTTP(httptest.NewRecorder(), req) // the index and the view
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// BenchmarkIndexMemory reports what the index and one view keep on the
// heap.
func BenchmarkIndexMemory(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ix := buildIndex(42, testNow.Year())
		v := computeView(ix, testNow.Unix())
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "MB")
		b.ReportMetric(float64(len(ix.rulings)), "rulings")
		runtime.KeepAlive(v)
	}
}
