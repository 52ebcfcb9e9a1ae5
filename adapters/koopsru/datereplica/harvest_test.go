package datereplica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/replica"
)

// passStart is the test's now: the first pass reads up to this day.
var passStart = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// fakeSRU is a KOOP SRU service over corpus, answering the requests
// testSource makes: the records modified in the window, in corpus
// order, at most cap a page whatever was asked (0: as asked), while the
// count says every match. hostile may answer request n itself.
type fakeSRU struct {
	corpus  []Record
	cap     int
	mu      sync.Mutex
	asked   []url.Values
	hostile func(n int, q url.Values) ([]byte, error, bool)
}

func (f *fakeSRU) fetch(_ context.Context, req adapters.Request) ([]byte, http.Header, error) {
	u, err := url.Parse(req.Path)
	if err != nil {
		return nil, nil, err
	}
	q := u.Query()
	f.mu.Lock()
	f.asked = append(f.asked, q)
	n, hostile := len(f.asked), f.hostile
	f.mu.Unlock()
	if hostile != nil {
		if body, err, ok := hostile(n, q); ok {
			return body, nil, err
		}
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if f.cap > 0 {
		limit = min(limit, f.cap)
	}
	var match []Record
	for _, r := range f.corpus {
		if r.Modified >= q.Get("from") && r.Modified <= q.Get("to") {
			match = append(match, r)
		}
	}
	page := Page{Total: len(match)}
	if offset < len(match) {
		page.Records = match[offset:min(offset+limit, len(match))]
	}
	body, err := json.Marshal(page)
	return body, nil, err
}

func (f *fakeSRU) requests() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.asked...)
}

func testSource(maxOffset int) Source {
	return Source{
		Name: "the test's SRU",
		Request: func(w Window, _ string, offset, limit int) adapters.Request {
			return adapters.Get("/sru", url.Values{"from": {w.From}, "to": {w.To}, "offset": {strconv.Itoa(offset)}, "limit": {strconv.Itoa(limit)}})
		},
		Parse: func(body []byte) (Page, error) {
			var p Page
			if err := json.Unmarshal(body, &p); err != nil {
				return Page{}, fmt.Errorf("not a page: %w", err)
			}
			return p, nil
		},
		PageSize: 1000, MaxOffset: maxOffset, Epoch: "2020-01-01",
	}
}

// corpus makes n records spread over the days from 2020 to 2026, one
// record in five on heavy, the rest one a day or so; ids are unique.
func corpus(n int, heavy string) []Record {
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Record, 0, n)
	for i := range n {
		day := start.AddDate(0, 0, (i*7)%2400).Format(time.DateOnly)
		if heavy != "" && i%5 == 0 {
			day = heavy
		}
		out = append(out, Record{ID: fmt.Sprintf("R%05d", i), Title: fmt.Sprintf("Regeling nummer %d over woningbouw", i),
			Type: "wet", Date: day, Modified: day, InForceFrom: day})
	}
	return out
}

func openIndex(t *testing.T, dir string) *Index {
	t.Helper()
	idx, _, err := Open(dir, "test index")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	return idx
}

func newHarvester(t *testing.T, idx *Index, src Source, f *fakeSRU, clk *fakeclock.Clock, scope string) *Harvester {
	t.Helper()
	h, err := NewHarvester(idx, src, replica.Harvest{Fetch: f.fetch, Clock: clk, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// held lists every id the index holds.
func held(t *testing.T, idx *Index) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for offset := 0; ; offset += 100 {
		res, err := idx.Search(context.Background(), Query{Limit: 100, Offset: offset, Order: OrderOldest})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if out[h.ID] {
				t.Fatalf("%s held twice", h.ID)
			}
			out[h.ID] = true
		}
		if len(res.Hits) < 100 {
			return out
		}
	}
}

func mustHoldExactly(t *testing.T, idx *Index, want []Record) {
	t.Helper()
	got := held(t, idx)
	for _, r := range want {
		if !got[r.ID] {
			t.Errorf("%s (modified %s) is missing", r.ID, r.Modified)
		}
		delete(got, r.ID)
	}
	if len(got) > 0 {
		t.Errorf("held beyond the corpus: %d records", len(got))
	}
	if n, _ := idx.Count(); n != uint64(len(want)) {
		t.Errorf("count %d, want %d", n, len(want))
	}
}

// A service that cuts every page at 100 records without a word, while
// its count says more: the windows shrink until each fits a page, a day
// of 400 records is paged by startRecord at 100, and every record ends
// in the index exactly once.
func TestSilentCapLosesNothing(t *testing.T) {
	recs := corpus(2000, "2023-01-01")
	f := &fakeSRU{corpus: recs, cap: 100}
	idx := openIndex(t, t.TempDir())
	clk := fakeclock.New(passStart)
	h := newHarvester(t, idx, testSource(4900), f, clk, "")
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustHoldExactly(t, idx, recs)
	p := h.Progress()
	if !p.CompleteUpTo.Equal(passStart) || len(p.Unread) != 0 || p.PagesLeft != 0 {
		t.Errorf("progress %+v", p)
	}
	asked := f.requests()
	paged := false
	for i, q := range asked {
		if i > 0 && q.Get("limit") != "100" {
			t.Errorf("request %d asks %s records after the service was seen to give 100", i, q.Get("limit"))
		}
		paged = paged || q.Get("from") == "2023-01-01" && q.Get("to") == "2023-01-01" && q.Get("offset") == "300"
	}
	if !paged {
		t.Error("the heavy day was not paged by offset")
	}
	// The next pass reads from the day before this one began: little.
	before := len(asked)
	clk.Advance(DefaultInterval)
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests()) - before; n != 1 {
		t.Errorf("the incremental pass asked %d pages, want 1", n)
	}
	mustHoldExactly(t, idx, recs)
}

// A day holding more records than paging reaches is read as far as it
// goes and reported as a typed state on Progress and in the provenance;
// the pass completes and nothing else is lost.
func TestADayBeyondPagingIsReported(t *testing.T) {
	recs := corpus(2500, "2024-07-01") // about 500 on the heavy day
	onDay := 0
	for _, r := range recs {
		if r.Modified == "2024-07-01" {
			onDay++
		}
	}
	f := &fakeSRU{corpus: recs, cap: 100}
	idx := openIndex(t, t.TempDir())
	h := newHarvester(t, idx, testSource(250), f, fakeclock.New(passStart), "")
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := h.Progress()
	if len(p.Unread) != 1 {
		t.Fatalf("unread %v", p.Unread)
	}
	var de *DayError
	if !errors.As(p.Unread[0], &de) || de.Day != "2024-07-01" || de.Total != onDay || de.Read != 300 {
		t.Fatalf("unread %#v", p.Unread[0])
	}
	if p.CompleteUpTo.IsZero() {
		t.Error("the pass did not complete")
	}
	var want []Record
	read := 0
	for _, r := range recs {
		if r.Modified == "2024-07-01" {
			if read++; read > 300 {
				continue
			}
		}
		want = append(want, r)
	}
	mustHoldExactly(t, idx, want)
	prov := replica.Provenance("the test replica", "records", p)
	if !strings.Contains(prov, "2024-07-01") || !strings.Contains(prov, "paging reached only 300") {
		t.Errorf("provenance %q does not name the day", prov)
	}
}

// The platform failing (503 with Retry-After, 429, a broken page, a
// page larger than asked) costs waits, never records: the harvester
// waits at least as long as Retry-After said and asks again.
func TestFailuresAreRetried(t *testing.T) {
	recs := corpus(600, "")
	f := &fakeSRU{corpus: recs, cap: 100}
	f.hostile = func(n int, q url.Values) ([]byte, error, bool) {
		switch n {
		case 2:
			return nil, &adapters.RouteError{Platform: "test", Status: 503, RetryAfter: 120, RetryKnown: true}, true
		case 4:
			return []byte("<html>Service Unavailable</html>"), nil, true
		case 6:
			return nil, &adapters.RouteError{Platform: "test", Status: 429, RetryAfter: 30, RetryKnown: true}, true
		case 8:
			big, _ := json.Marshal(Page{Total: 5000, Records: make([]Record, 1001)})
			return big, nil, true
		}
		return nil, nil, false
	}
	idx := openIndex(t, t.TempDir())
	clk := fakeclock.New(passStart)
	h := newHarvester(t, idx, testSource(4900), f, clk, "")
	done := make(chan error, 1)
	go func() { done <- h.Pass(context.Background()) }()
	var waits []time.Duration
	for len(waits) < 4 {
		due := clk.AwaitTimer()
		waits = append(waits, due.Sub(clk.Now()))
		clk.AdvanceTo(due)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if waits[0] < 120*time.Second || waits[2] < 30*time.Second {
		t.Errorf("waits %v: Retry-After not kept", waits)
	}
	p := h.Progress()
	if p.LastError == nil || p.FailuresInRow != 0 {
		t.Errorf("progress %+v", p)
	}
	mustHoldExactly(t, idx, recs)
}

// A record listed in two windows (its modification moved while the pass
// ran, or the service lists it twice) is held once: storing is an upsert.
func TestARepeatedRecordIsHeldOnce(t *testing.T) {
	recs := corpus(300, "")
	twice := recs[10]
	twice.Modified = "2026-10-30"
	f := &fakeSRU{corpus: append(recs, twice), cap: 100}
	idx := openIndex(t, t.TempDir())
	h := newHarvester(t, idx, testSource(4900), f, fakeclock.New(passStart), "")
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustHoldExactly(t, idx, recs)
}

// A harvester stopped mid-pass resumes at the page after the last one
// stored, on the index opened again.
func TestResumesAfterARestart(t *testing.T) {
	recs := corpus(1500, "")
	dir := t.TempDir()
	f := &fakeSRU{corpus: recs, cap: 100}
	ctx, cancel := context.WithCancel(context.Background())
	f.hostile = func(n int, _ url.Values) ([]byte, error, bool) {
		if n == 6 {
			cancel()
			return nil, context.Canceled, true
		}
		return nil, nil, false
	}
	idx, _, err := Open(dir, "test index")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarvester(t, idx, testSource(4900), f, fakeclock.New(passStart), "")
	if err := h.Pass(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("pass ended with %v", err)
	}
	_ = idx.Close()
	firstRun := len(f.requests())
	f.hostile = nil
	idx = openIndex(t, dir)
	h = newHarvester(t, idx, testSource(4900), f, fakeclock.New(passStart.Add(time.Hour)), "")
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustHoldExactly(t, idx, recs)
	if q := f.requests()[firstRun]; q.Get("from") == "2020-01-01" && q.Get("to") == "2026-11-01" {
		t.Error("the restarted harvest began the pass anew")
	}
}

// The scope keeps versions in force on or after its day; the replica
// answers questions within it and sends the others to the platform.
func TestScopeAndOffer(t *testing.T) {
	recs := corpus(400, "")
	recs[0].InForceUntil = "2020-06-30" // ended before the scope
	f := &fakeSRU{corpus: recs, cap: 100}
	idx := openIndex(t, t.TempDir())
	scope, err := ParseScope("2021")
	if err != nil || scope != "2021-01-01" {
		t.Fatalf("scope %q %v", scope, err)
	}
	h := newHarvester(t, idx, testSource(4900), f, fakeclock.New(passStart), scope)
	hd := heldReplica{idx: idx, h: h}
	s := Offer(hd, replica.Spec{Source: "the test replica"})
	if _, ok, why := s.SearchReplica(context.Background(), Query{Words: "woningbouw"}); ok || why != "the replica is still being built" {
		t.Fatalf("before a pass: ok %v, why %q", ok, why)
	}
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, ok, why := s.SearchReplica(context.Background(), Query{Words: "woningbouw", InForceOn: "2025-01-01", Limit: 5})
	if !ok || a.Total == 0 || !strings.Contains(a.Provenance, "complete up to 2026-11-01T12:00:00Z") {
		t.Fatalf("ok %v why %q answer %+v", ok, why, a)
	}
	if _, ok, why := s.SearchReplica(context.Background(), Query{Words: "woningbouw", InForceOn: "2020-03-01"}); ok || !strings.Contains(why, "2021-01-01") {
		t.Errorf("a day before the scope: ok %v why %q", ok, why)
	}
	if res, _ := idx.Search(context.Background(), Query{Words: "nummer 0"}); res.Total != 0 {
		t.Errorf("a version ended before the scope is held: %+v", res.Hits)
	}
}

type heldReplica struct {
	idx *Index
	h   *Harvester
}

func (h heldReplica) Current() (replica.Index, replica.Harvester, error) { return h.idx, h.h, nil }
func (heldReplica) Broken(error)                                         {}
