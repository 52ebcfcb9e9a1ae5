package obv_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
	"github.com/besluitbron/besluitbron/platforms/obv/export"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

var harvestStart = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// feedAnswer is what a test's platform answers one request: status,
// headers and body.
type feedAnswer struct {
	status int
	header http.Header
	body   []byte
}

// testFeed is OpenBesluitvorming's emulator as the harvester's fetch sees
// it through the route: a non-2xx answer is the route's RouteError. A
// test may answer a request itself (hostile); it records the paths asked.
type testFeed struct {
	h       http.Handler
	mu      sync.Mutex
	asked   []string
	hostile func(path string, n int) (feedAnswer, bool)
}

func (f *testFeed) fetch(_ context.Context, req adapters.Request) ([]byte, http.Header, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req.Path)
	n, hostile := len(f.asked), f.hostile
	f.mu.Unlock()
	a, ok := feedAnswer{}, false
	if hostile != nil {
		a, ok = hostile(req.Path, n)
	}
	if !ok {
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
		a = feedAnswer{rec.Code, rec.Header(), rec.Body.Bytes()}
	}
	if a.status/100 != 2 {
		retry, err := strconv.Atoi(a.header.Get("Retry-After"))
		return nil, nil, adapters.Classify("obv", a.status, false, retry, err == nil, a.body)
	}
	return a.body, a.header, nil
}

func (f *testFeed) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// council is OpenBesluitvorming's registered replica provider.
func council(t *testing.T) replica.Provider {
	t.Helper()
	p, ok := platforms.ProviderOf(platforms.OBV)
	if !ok {
		t.Fatal("obv is not registered")
	}
	rp, ok := p.(replica.Provider)
	if !ok {
		t.Fatal("obv keeps no replica")
	}
	return rp
}

// running is a harvester running in the background on a fake clock.
type running struct {
	t      *testing.T
	h      replica.Harvester
	clk    *fakeclock.Clock
	cancel context.CancelFunc
	done   chan error

	stopOnce sync.Once
	runErr   error
}

func startHarvest(t *testing.T, idx replica.Index, feed *testFeed, clk *fakeclock.Clock, cfg replica.ScopeConfig, gate func(context.Context) error) *running {
	t.Helper()
	p := council(t)
	scope, err := p.Scope(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Harvester(idx, replica.Harvest{Fetch: feed.fetch, Clock: clk, Gate: gate, Scope: scope, Interval: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{t: t, h: h, clk: clk, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- h.Run(ctx) }()
	t.Cleanup(func() { r.stop() })
	return r
}

// stop ends the harvest and returns Run's error.
func (r *running) stop() error {
	r.stopOnce.Do(func() {
		r.cancel()
		r.runErr = <-r.done
	})
	return r.runErr
}

// settle waits until the harvester waits on the clock (between rounds, or
// after a failure) and returns how long it waits.
func (r *running) settle() time.Duration {
	return r.clk.AwaitTimer().Sub(r.clk.Now())
}

func openCouncil(t *testing.T, dir string) *localindex.Index {
	t.Helper()
	idx, _, err := localindex.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx
}

// snapshotEntities reads a source's snapshot whole, as the platform holds
// it now: its entity ids.
func snapshotEntities(t *testing.T, h http.Handler, source string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for cursor := ""; ; {
		r := export.SnapshotRequest(source, cursor, 1000)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, r.Path, nil))
		page, err := export.ParseExportPage(source, rec.Header(), rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range page.Records {
			ids[rec.EntityID] = true
		}
		if !page.More {
			return ids
		}
		cursor = page.Next
	}
}

// A round reads the snapshot, then the change feed to the end; the index
// then holds exactly the entities the platform holds, and the round's
// start is what the replica is complete up to. A later round reads only
// the changes, and the index again holds exactly what the platform does.
func TestHarvestKeepsWhatThePlatformHolds(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	feed := &testFeed{h: emu}
	idx := openCouncil(t, t.TempDir())
	r := startHarvest(t, idx, feed, clk, replica.ScopeConfig{Sources: []string{"soest"}}, nil)

	if wait := r.settle(); wait != 24*time.Hour {
		t.Fatalf("after the first round the harvester waits %v, want the interval", wait)
	}
	p := r.h.Progress()
	want := snapshotEntities(t, emu, "soest")
	if p.Records != uint64(len(want)) || !p.CompleteUpTo.Equal(harvestStart) || p.LastError != nil {
		t.Fatalf("after one round: %d records (the platform holds %d), complete up to %v, last error %v", p.Records, len(want), p.CompleteUpTo, p.LastError)
	}
	first := len(feed.paths())
	for _, path := range feed.paths() {
		if !strings.Contains(path, "source=soest") {
			t.Fatalf("asked %s, outside the scope", path)
		}
	}

	// Four weeks on: the next rounds read the change feed only.
	for range 28 {
		clk.Advance(24 * time.Hour)
		r.settle()
	}
	p = r.h.Progress()
	want = snapshotEntities(t, emu, "soest")
	if p.Records != uint64(len(want)) {
		t.Fatalf("four weeks later: %d records, the platform holds %d", p.Records, len(want))
	}
	for _, path := range feed.paths()[first:] {
		if !strings.HasPrefix(path, "/api/export/changes") {
			t.Fatalf("a later round asked %s, want the change feed only", path)
		}
	}
	if got := p.CompleteUpTo; !got.Equal(harvestStart.Add(28 * 24 * time.Hour)) {
		t.Fatalf("complete up to %v after the last round", got)
	}
	// Per source: what it holds, its newest change, when it caught up
	// (the last round, moments after its start on the fake clock) and
	// how long ago.
	clk.Advance(time.Hour)
	if got := r.h.Progress().Sources; len(got) != 1 || got[0].Source != "soest" || got[0].Records != p.Records ||
		got[0].LastChange.IsZero() || got[0].LastChange.After(clk.Now()) ||
		!got[0].CaughtUpAt.Equal(p.CompleteUpTo) || got[0].Lag != time.Hour {
		t.Fatalf("per source: %+v", got)
	}
	res, err := idx.Search(context.Background(), localindex.Query{Words: "raadsvergadering", Limit: 5})
	if err != nil || res.Total == 0 {
		t.Fatalf("a word search of the replica: %+v, %v", res, err)
	}
}

// A harvest stopped part-way resumes where its last stored page left it:
// no page is asked twice, and the index ends as one run would leave it.
func TestHarvestResumesAfterARestart(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	scope := replica.ScopeConfig{Sources: []string{"soest", "utrecht"}}
	dir := t.TempDir()

	// The whole harvest in one run, in another index, for comparison.
	whole := &testFeed{h: emu}
	r := startHarvest(t, openCouncil(t, t.TempDir()), whole, clk, scope, nil)
	r.settle()
	p := r.h.Progress()
	wantRecords := p.Records
	if p.LastError != nil || !p.CompleteUpTo.Equal(harvestStart) || wantRecords == 0 {
		t.Fatalf("one run: %+v", p)
	}
	r.stop()

	// Stopped before its fourth page: the gate refuses to let it go on.
	idx := openCouncil(t, dir)
	first := &testFeed{h: emu}
	var gates int
	ctxStop := errors.New("stopped")
	r = startHarvest(t, idx, first, clk, scope, func(context.Context) error {
		if gates++; gates > 3 {
			return ctxStop
		}
		return nil
	})
	r.settle() // it waits to try again
	if err := r.stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped run ended with %v", err)
	}
	asked := map[string]bool{}
	for _, p := range first.paths() {
		asked[p] = true
	}
	if len(asked) != 3 {
		t.Fatalf("the first run asked %d pages, want 3", len(asked))
	}

	second := &testFeed{h: emu}
	r = startHarvest(t, idx, second, clk, scope, nil)
	r.settle()
	for _, p := range second.paths() {
		if asked[p] {
			t.Fatalf("after the restart it asked %s again", p)
		}
	}
	if got := len(first.paths()) + len(second.paths()); got != len(whole.paths()) {
		t.Fatalf("%d requests over the restart, one run needs %d", got, len(whole.paths()))
	}
	if got := r.h.Progress().Records; got != wantRecords {
		t.Fatalf("%d records after the restart, one run holds %d", got, wantRecords)
	}
}

// Hostile and broken feeds: each ends in a typed state, keeps what is
// stored, and the harvest goes on once the platform behaves.
func TestHarvestSurvivesABrokenFeed(t *testing.T) {
	firstChanges := func(path string) bool {
		return strings.HasPrefix(path, "/api/export/changes") && strings.Contains(path, "cursor=")
	}
	cases := map[string]struct {
		answer    func(path string) (feedAnswer, bool)
		want      error
		waitLeast time.Duration
	}{
		"a line broken off": {
			answer: func(path string) (feedAnswer, bool) {
				if !strings.HasPrefix(path, "/api/export/snapshot") || strings.Contains(path, "cursor=") {
					return feedAnswer{}, false
				}
				h := http.Header{"X-Has-More": {"true"}, "X-Next-Cursor": {"x"}, "X-Changes-Cursor": {"y"}}
				return feedAnswer{200, h, []byte(`{"seq":1,"op":"upsert","entity_id":"m1","entity_type":"meeting","payload":{"na`)}, true
			},
			want: export.ErrTruncatedRecord, waitLeast: 10 * time.Second,
		},
		"a record over the cap": {
			answer: func(path string) (feedAnswer, bool) {
				if !strings.HasPrefix(path, "/api/export/snapshot") || strings.Contains(path, "cursor=") {
					return feedAnswer{}, false
				}
				h := http.Header{"X-Has-More": {"false"}, "X-Next-Cursor": {"x"}, "X-Changes-Cursor": {"y"}}
				big := `{"seq":1,"op":"upsert","entity_id":"m1","entity_type":"meeting","payload":{"name":"` + strings.Repeat("x", export.MaxExportRecordBytes) + `"}}` + "\n"
				return feedAnswer{200, h, []byte(big)}, true
			},
			want: export.ErrRecordTooLarge, waitLeast: 10 * time.Second,
		},
		"too many requests": {
			answer: func(path string) (feedAnswer, bool) {
				if !firstChanges(path) {
					return feedAnswer{}, false
				}
				return feedAnswer{429, http.Header{"Retry-After": {"300"}}, []byte(`{"error":"Te veel verzoeken"}`)}, true
			},
			want: nil, waitLeast: 300 * time.Second,
		},
		"one page forever": {
			answer: func(path string) (feedAnswer, bool) {
				if !firstChanges(path) {
					return feedAnswer{}, false
				}
				cursor := path[strings.Index(path, "cursor=")+len("cursor="):]
				cursor, _, _ = strings.Cut(cursor, "&")
				h := http.Header{"X-Has-More": {"true"}, "X-Next-Cursor": {cursor}}
				return feedAnswer{200, h, nil}, true
			},
			want: export.ErrStuckFeed, waitLeast: 10 * time.Second,
		},
		"a circle of pages": {
			answer: func(path string) (feedAnswer, bool) {
				if !firstChanges(path) {
					return feedAnswer{}, false
				}
				next := "circle-a"
				if strings.Contains(path, "cursor=circle-a") {
					next = "circle-b"
				}
				return feedAnswer{200, http.Header{"X-Has-More": {"true"}, "X-Next-Cursor": {next}}, nil}, true
			},
			want: export.ErrStuckFeed, waitLeast: 10 * time.Second,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			clk := fakeclock.New(harvestStart)
			emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
			var broken sync.Mutex
			hostileOn := true
			feed := &testFeed{h: emu, hostile: func(path string, _ int) (feedAnswer, bool) {
				broken.Lock()
				defer broken.Unlock()
				if !hostileOn {
					return feedAnswer{}, false
				}
				return c.answer(path)
			}}
			idx := openCouncil(t, t.TempDir())
			r := startHarvest(t, idx, feed, clk, replica.ScopeConfig{Sources: []string{"soest"}}, nil)
			wait := r.settle()
			p := r.h.Progress()
			if p.FailuresInRow == 0 || p.LastError == nil || (c.want != nil && !errors.Is(p.LastError, c.want)) {
				t.Fatalf("progress %+v, want a failure of kind %v", p, c.want)
			}
			if wait < c.waitLeast || wait > 10*time.Minute {
				t.Fatalf("it waits %v before trying again, want %v at least", wait, c.waitLeast)
			}
			held := p.Records
			// The platform mends; the harvest goes on and completes.
			broken.Lock()
			hostileOn = false
			broken.Unlock()
			clk.Advance(wait)
			if got := r.settle(); got != 24*time.Hour {
				t.Fatalf("after the platform mended it waits %v, want the interval", got)
			}
			p = r.h.Progress()
			if want := len(snapshotEntities(t, emu, "soest")); p.Records != uint64(want) || p.Records < held || p.FailuresInRow != 0 {
				t.Fatalf("after mending: %d records (held %d before, the platform has %d), %d failures in a row", p.Records, held, want, p.FailuresInRow)
			}
		})
	}
}

// A cursor the platform refuses (400, an expired cursor) starts the
// source's snapshot anew: nothing it still holds is lost, what it
// deleted while the cursor was lost (no change will say so) is swept
// when the new snapshot is read whole, and the round completes.
func TestHarvestStartsAnewOnARejectedCursor(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	held := snapshotEntities(t, emu, "soest")
	var lost string // deleted while the cursor was lost: the new snapshot lacks it
	for id := range held {
		lost = max(lost, id)
	}
	var rejected atomic.Bool
	feed := &testFeed{h: emu}
	feed.hostile = func(path string, _ int) (feedAnswer, bool) {
		switch {
		case strings.HasPrefix(path, "/api/export/changes") && rejected.CompareAndSwap(false, true):
			return feedAnswer{400, http.Header{}, []byte(`{"error":"Ongeldige cursor; gebruik de nextCursor uit een eerdere response."}`)}, true
		case strings.HasPrefix(path, "/api/export/snapshot") && rejected.Load():
			rec := httptest.NewRecorder()
			emu.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			var kept []string
			for _, line := range strings.SplitAfter(rec.Body.String(), "\n") {
				if !strings.Contains(line, `"entity_id":"`+lost+`"`) {
					kept = append(kept, line)
				}
			}
			return feedAnswer{rec.Code, rec.Header(), []byte(strings.Join(kept, ""))}, true
		}
		return feedAnswer{}, false
	}
	idx := openCouncil(t, t.TempDir())
	r := startHarvest(t, idx, feed, clk, replica.ScopeConfig{Sources: []string{"soest"}}, nil)
	if wait := r.settle(); wait != 24*time.Hour {
		t.Fatalf("it waits %v, want the interval: the round completes", wait)
	}
	p := r.h.Progress()
	if !errors.Is(p.LastError, obv.ErrCursorRejected) || p.Records != uint64(len(held)-1) || p.Swept != 1 {
		t.Fatalf("progress %+v: want the rejection recorded, every entity held but the one lost (of %d), and it swept", p, len(held))
	}
	for off := 0; ; off += 100 {
		res, err := idx.Search(context.Background(), localindex.Query{Sources: []string{"soest"}, Limit: 100, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.ID == lost {
				t.Fatalf("%s, gone from the new snapshot, is still held", lost)
			}
		}
		if len(res.Hits) < 100 {
			break
		}
	}
	snapshots := 0
	for _, path := range feed.paths() {
		if strings.HasPrefix(path, "/api/export/snapshot") && !strings.Contains(path, "cursor=") {
			snapshots++
		}
	}
	if snapshots != 2 {
		t.Fatalf("the snapshot was begun %d times, want twice (once anew)", snapshots)
	}
}

// The scope's years: an entity dated before the first year is not kept.
func TestHarvestKeepsTheScopesYears(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	idx := openCouncil(t, t.TempDir())
	r := startHarvest(t, idx, &testFeed{h: emu}, clk, replica.ScopeConfig{Since: "2026", Sources: []string{"soest"}}, nil)
	r.settle()
	ctx := context.Background()
	old, err := idx.Search(ctx, localindex.Query{To: "2025-12-31", Limit: 1})
	if err != nil || old.Total != 0 {
		t.Fatalf("entities before 2026 held: %+v, %v", old, err)
	}
	kept, err := idx.Search(ctx, localindex.Query{From: "2026-01-01", Limit: 1})
	if err != nil || kept.Total == 0 {
		t.Fatalf("no entity of 2026 held: %+v, %v", kept, err)
	}
}

// The scope reads every spelling of one scope as one, and says what to
// give when it cannot.
func TestHarvestScope(t *testing.T) {
	p := council(t)
	a, err := p.Scope(replica.ScopeConfig{Since: "2024", Sources: []string{"Utrecht", "soest", "soest"}})
	b, err2 := p.Scope(replica.ScopeConfig{Since: "2024", Sources: []string{"soest", "utrecht"}})
	if err != nil || err2 != nil || a != b || a != "since=2024 sources=soest,utrecht" {
		t.Fatalf("scopes %q (%v) and %q (%v)", a, err, b, err2)
	}
	if all, err := p.Scope(replica.ScopeConfig{}); err != nil || all != "since=all sources=all" {
		t.Fatalf("the whole feed: %q, %v", all, err)
	}
	for _, bad := range []replica.ScopeConfig{{Since: "last year"}, {Since: "24"}, {Sources: []string{"../etc"}}, {Sources: []string{""}}} {
		if _, err := p.Scope(bad); err == nil {
			t.Errorf("scope %+v accepted", bad)
		}
	}
}

// held is a replica as a host holds it, for the surface's tests.
type held struct {
	idx replica.Index
	h   replica.Harvester
}

func (h held) Current() (replica.Index, replica.Harvester, error) { return h.idx, h.h, nil }
func (held) Broken(error)                                         {}

// Word searches: answered from the replica when it has caught up and
// covers the sources asked, with its provenance and no platform request;
// otherwise the platform answers, and the provenance says why.
func TestSurfaceAnswersWordsFromTheReplica(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true})
	idx := openCouncil(t, t.TempDir())
	r := startHarvest(t, idx, &testFeed{h: emu}, clk, replica.ScopeConfig{Sources: []string{"soest"}}, nil)
	council := council(t).(replica.Offerer).Offer(held{idx, r.h}, clk).(obv.CouncilIndex)
	surface := obv.SurfaceWith(council)

	var asked []string
	env := adapters.Env{Now: clk.Now(), Get: func(_ context.Context, _ string, req adapters.Request) ([]byte, error) {
		asked = append(asked, req.Path)
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
		return rec.Body.Bytes(), nil
	}}
	ask := func(q adapters.Question) adapters.Page {
		t.Helper()
		asked = nil
		page, err := surface.Search(context.Background(), env, q)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}

	// Still being built: the platform answers.
	if page := ask(adapters.Question{Words: "raadsvergadering", Limit: 5}); len(asked) != 1 || !strings.Contains(page.Provenance, "asked OpenBesluitvorming: the replica is still being built") {
		t.Fatalf("before the first round: asked %v, provenance %q", asked, page.Provenance)
	}
	r.settle() // the round completes
	page := ask(adapters.Question{Words: "raadsvergadering", Organisation: "soest", Limit: 5})
	if len(asked) != 0 || len(page.Hits) == 0 || !strings.Contains(page.Provenance, "complete up to "+harvestStart.Format(time.RFC3339)) {
		t.Fatalf("caught up: asked %v, %d hits, provenance %q", asked, len(page.Hits), page.Provenance)
	}
	for _, h := range page.Hits {
		if err := obv.ValidEntityID(h.ID); err != nil || h.Source != "soest" {
			t.Fatalf("hit %+v: %v", h, err)
		}
	}
	// The platform down: the replica still answers, saying how fresh.
	up := env.Get
	env.Get = func(context.Context, string, adapters.Request) ([]byte, error) {
		return nil, adapters.Classify("obv", http.StatusBadGateway, false, 0, false, nil)
	}
	if down := ask(adapters.Question{Words: "raadsvergadering", Organisation: "soest", Limit: 5}); len(down.Hits) == 0 ||
		!strings.Contains(down.Provenance, "complete up to "+harvestStart.Format(time.RFC3339)) {
		t.Fatalf("the platform down: %+v", down)
	}
	env.Get = up

	byDate := ask(adapters.Question{Words: "raadsvergadering", Sort: "date", Limit: 20})
	if len(asked) != 0 || len(byDate.Hits) < 2 || !strings.Contains(byDate.Provenance, "it keeps only the sources soest, so other organisations' documents are not among these hits") {
		t.Fatalf("newest first: asked %v, %d hits", asked, len(byDate.Hits))
	}
	for i := 1; i < len(byDate.Hits); i++ {
		if byDate.Hits[i-1].Date < byDate.Hits[i].Date {
			t.Fatalf("newest first: %s before %s", byDate.Hits[i-1].Date, byDate.Hits[i].Date)
		}
	}
	for q, why := range map[adapters.Question]string{
		{Words: "raadsvergadering", Organisation: "utrecht", Limit: 5}: "outside the replica's scope",
		{Words: "xyzzyplugh", Limit: 5}:                                "holds no match; words inside documents are only at the platform",
		{Words: "raadsvergadering", Limit: 5, FullText: true}:          "full_text asks for words inside the documents",
	} {
		if page := ask(q); len(asked) != 1 || !strings.HasPrefix(page.Provenance, "asked OpenBesluitvorming: ") || !strings.Contains(page.Provenance, why) {
			t.Errorf("%+v: asked %v, provenance %q", q, asked, page.Provenance)
		}
	}
}
