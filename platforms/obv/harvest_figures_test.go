//go:build figures

package obv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/internal/fts5bench"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
	"github.com/besluitbron/besluitbron/platforms/obv/export"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// Figures of OpenBesluitvorming's replica (docs/benchmarks.md, "OpenBesluitvorming's
// replica"): the real harvester (harvest.go) reads the emulator's large
// export in process, as many records as OBV_FIGURES_RECORDS (default a
// million); then word searches on the index it built, beside SQLite FTS5
// holding the same records. Timings are only logged; what is checked is
// that the index holds what the platform does.
//
//	go test -tags figures -run TestFiguresOBV -v -timeout 3h ./platforms/obv/

// figFeed is the emulator as the harvester's fetch sees it. Each call
// moves the clock on by step (a call a second is the platform's whole
// budget, one in two seconds half of it), and never to before floor.
type figFeed struct {
	h     http.Handler
	clk   *fakeclock.Clock
	step  time.Duration
	floor atomic.Int64 // unix nanoseconds

	calls, records, deletes, bytes atomic.Int64
	mu                             sync.Mutex
	titles                         []string // every 499th record's title, for the queries
}

func (f *figFeed) fetch(_ context.Context, req adapters.Request) ([]byte, http.Header, error) {
	next := f.clk.Now().Add(f.step)
	if fl := time.Unix(0, f.floor.Load()); next.Before(fl) {
		next = fl
	}
	f.clk.AdvanceTo(next)
	n := f.calls.Add(1)
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
	if rec.Code/100 != 2 {
		return nil, nil, adapters.Classify("obv", rec.Code, false, 0, false, rec.Body.Bytes())
	}
	body := rec.Body.Bytes()
	f.bytes.Add(int64(len(body)))
	lines := bytes.Count(body, []byte{'\n'})
	f.records.Add(int64(lines))
	f.deletes.Add(int64(bytes.Count(body, []byte(`"op":"delete"`))))
	if lines > 0 && n%2 == 0 {
		f.sample(body)
	}
	return body, rec.Header(), nil
}

// sample keeps a few titles of a page: the queries' vocabulary.
func (f *figFeed) sample(body []byte) {
	for i, line := range bytes.Split(body, []byte{'\n'}) {
		if i%499 != 0 || len(line) == 0 {
			continue
		}
		var r struct {
			Payload struct{ Name string } `json:"payload"`
		}
		if json.Unmarshal(line, &r) == nil && r.Payload.Name != "" {
			f.mu.Lock()
			f.titles = append(f.titles, r.Payload.Name)
			f.mu.Unlock()
		}
	}
}

func figProvider(t *testing.T) replica.Provider {
	t.Helper()
	p, _ := platforms.ProviderOf(platforms.OBV)
	rp, ok := p.(replica.Provider)
	if !ok {
		t.Fatal("obv keeps no replica")
	}
	return rp
}

// figRound waits for the harvester to finish a round (it then waits on
// the clock for the next) and fails on a round that did not succeed.
func figRound(t *testing.T, h replica.Harvester, clk *fakeclock.Clock) {
	t.Helper()
	clk.AwaitTimer()
	if p := h.Progress(); p.FailuresInRow > 0 || p.Stopped != nil {
		t.Fatalf("the harvest failed: %v (stopped: %v)", p.LastError, p.Stopped)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// snapshotAll reads every source's snapshot whole, as the platform holds
// it at the clock's time, bypassing the harvester.
func snapshotAll(t *testing.T, h http.Handler, sources []string, each func(export.ExportRecord)) {
	t.Helper()
	for _, src := range sources {
		for cursor := ""; ; {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, export.SnapshotRequest(src, cursor, 1000).Path, nil))
			page, err := export.ParseExportPage(src, rec.Header(), rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page.Records {
				each(r)
			}
			if !page.More {
				break
			}
			cursor = page.Next
		}
	}
}

func TestFiguresOBVReplica(t *testing.T) {
	n := envInt("OBV_FIGURES_RECORDS", 1_000_000)
	dir := os.Getenv("OBV_FIGURES_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, fmt.Sprintf("obv-%d", n))
	_ = os.RemoveAll(dir)
	epoch := emulator.DefaultLargeExportEpoch
	// 300 days before the epoch every entity of the log is created and
	// few are changed: the first round reads the snapshot, the second
	// (after the log ended) the changes, deletes among them.
	clk := fakeclock.New(epoch.AddDate(0, 0, -300))
	emu := emulator.NewEmulator(emulator.Config{Seed: 1, Clock: clk, NoRateLimit: true, LargeExport: &emulator.LargeExport{Records: n}})
	sources := emu.LargeExportSources()
	feed := &figFeed{h: emu, clk: clk, step: 2 * time.Second}

	idx, _, err := localindex.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	p := figProvider(t)
	scope, err := p.Scope(replica.ScopeConfig{Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Harvester(idx, replica.Harvest{Fetch: feed.fetch, Clock: clk, Scope: scope, Interval: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()

	type round struct {
		wall                 time.Duration
		calls, records, dels int64
		held                 uint64
		clockSpan            time.Duration
	}
	var rounds []round
	measure := func(start time.Time, clkStart time.Time, c0, r0, d0 int64) {
		figRound(t, h, clk)
		held, _ := idx.Count()
		rounds = append(rounds, round{time.Since(start), feed.calls.Load() - c0, feed.records.Load() - r0,
			feed.deletes.Load() - d0, held, clk.Now().Sub(clkStart)})
	}
	wall := time.Now()
	measure(wall, clk.Now(), 0, 0, 0)
	// The second round: the rest of the log, when it has all been written.
	c0, r0, d0 := feed.calls.Load(), feed.records.Load(), feed.deletes.Load()
	feed.floor.Store(epoch.AddDate(0, 0, 60).UnixNano())
	start2, clk2 := time.Now(), clk.Now()
	clk.Advance(24 * time.Hour)
	measure(start2, clk2, c0, r0, d0)
	total := time.Since(wall)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	size := mustDirSize(t, dir)

	for i, r := range rounds {
		t.Logf("round %d: %d calls (units), %d records (%d deletes), %v wall (%.0f records/s), %d entities held after; at 30 units/minute %.1f minutes, at 60 %.1f",
			i+1, r.calls, r.records, r.dels, r.wall.Round(time.Millisecond), float64(r.records)/r.wall.Seconds(), r.held, float64(r.calls)/30, float64(r.calls)/60)
	}
	calls := feed.calls.Load()
	t.Logf("catch-up: %d records in %d calls over %d sources, %v wall (%.0f records/s); at the idle budget (30 units/minute) %.1f hours",
		feed.records.Load(), calls, len(sources), total.Round(time.Second), float64(feed.records.Load())/total.Seconds(), float64(calls)/30/60)
	held, _ := idx.Count()
	t.Logf("index: %d entities, %.1f MiB on disk (%.0f bytes/entity); feed bytes %.1f MiB; RSS now %.0f MiB, peak %.0f MiB; Go heap in use %.0f MiB after GC",
		held, figures.MiB(size), float64(size)/float64(held), figures.MiB(feed.bytes.Load()), float64(figures.ProcKB("VmRSS"))/1024, float64(figures.ProcKB("VmHWM"))/1024, figures.MiB(int64(ms.HeapInuse)))

	// What the platform holds now, against the index; and FTS5 with the
	// same records.
	ftsPath := filepath.Join(filepath.Dir(dir), fmt.Sprintf("obv-%d.fts5", n))
	_ = os.Remove(ftsPath)
	fts, err := fts5bench.Open(ftsPath, fts5bench.Schema{Table: "council", Tokenize: "unicode61 remove_diacritics 2",
		Columns: []fts5bench.Column{{Name: "id"}, {Name: "title", Indexed: true}, {Name: "words", Indexed: true}, {Name: "day"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer fts.Close()
	var platform int
	var batch [][]any
	ftsStart := time.Now()
	flush := func() {
		if err := fts.Insert(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	snapshotAll(t, emu, sources, func(r export.ExportRecord) {
		platform++
		d, err := export.FeedDocument(r)
		if err != nil {
			t.Fatal(err)
		}
		if batch = append(batch, []any{d.ID, d.Title, d.Words, d.Date}); len(batch) == 1000 {
			flush()
		}
	})
	flush()
	if err := fts.Optimize(context.Background()); err != nil {
		t.Fatal(err)
	}
	ftsSize, _ := fts.Size()
	t.Logf("the platform holds %d entities, the index %d; FTS5 loaded in %v, %.1f MiB",
		platform, held, time.Since(ftsStart).Round(time.Second), figures.MiB(ftsSize))
	if uint64(platform) != held {
		t.Errorf("the index holds %d entities, the platform %d", held, platform)
	}

	figSearch(t, idx, fts, feed.titles)
	t.Logf("index on disk after the searches (merges settled): %.1f MiB; RSS now %.0f MiB, peak %.0f MiB",
		figures.MiB(mustDirSize(t, dir)), float64(figures.ProcKB("VmRSS"))/1024, float64(figures.ProcKB("VmHWM"))/1024)
}

// figSearch times word searches on the index and on FTS5. The queries
// are drawn from titles the harvest read (every 499th record of every
// other page): half one word of a title, a third two words of the same
// title, the rest three; words of four letters or more, no numbers.
func figSearch(t *testing.T, idx *localindex.Index, fts *fts5bench.Table, titles []string) {
	r := rand.New(rand.NewPCG(1, 2))
	var queries [][]string
	for len(queries) < 600 && len(titles) > 0 {
		var words []string
		for _, w := range strings.FieldsFunc(strings.ToLower(titles[r.IntN(len(titles))]), func(c rune) bool { return !unicode.IsLetter(c) }) {
			if len([]rune(w)) >= 4 && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		k := 1
		switch x := r.IntN(6); {
		case x >= 5:
			k = 3
		case x >= 3:
			k = 2
		}
		if len(words) < k {
			continue
		}
		r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		queries = append(queries, words[:k])
	}
	t.Logf("%d queries from %d sampled titles, e.g. %v", len(queries), len(titles), queries[:min(6, len(queries))])
	ctx := context.Background()
	time1 := func(name string, run func(q []string) int) {
		for _, q := range queries[:50] { // warm up
			run(q)
		}
		lat := make([]time.Duration, 0, len(queries))
		hits := 0
		for _, q := range queries {
			s := time.Now()
			hits += run(q)
			lat = append(lat, time.Since(s))
		}
		slices.Sort(lat)
		pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))].Round(time.Microsecond) }
		t.Logf("%s: p50 %v, p95 %v, p99 %v over %d queries (top 10, %.1f hits a query on average)", name, pct(.5), pct(.95), pct(.99), len(lat), float64(hits)/float64(len(lat)))
	}
	var matches uint64
	time1("local index (localindex.Search, Dutch analyzer, BM25)", func(q []string) int {
		res, err := idx.Search(ctx, localindex.Query{Words: strings.Join(q, " "), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		matches += res.Total
		return len(res.Hits)
	})
	t.Logf("the local index's queries match %d entities on average", matches/uint64(len(queries)+50))
	time1("SQLite FTS5 (unicode61, bm25)", func(q []string) int {
		quoted := make([]string, len(q))
		for i, w := range q {
			quoted[i] = `"` + w + `"`
		}
		hits, err := fts.Search(ctx, fts5bench.Query{Match: strings.Join(quoted, " AND "), Limit: 10, Columns: []string{"id", "title", "day"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	})
}

// TestFiguresOBVRepeats checks what the harvester keeps when the log
// moves while it reads: a page every 200 days on the clock from two
// years before the epoch (while the last entities are created and the
// first changes come), so the change feed after the snapshot gives records the
// snapshot already gave, older versions after newer ones, and deletes. At the end the index must hold exactly the
// entities the platform holds, and a motion the platform has decided
// must not be found as still held over (aangehouden, its first version).
func TestFiguresOBVRepeats(t *testing.T) {
	epoch := emulator.DefaultLargeExportEpoch
	clk := fakeclock.New(epoch.AddDate(-2, 0, 0))
	emu := emulator.NewEmulator(emulator.Config{Seed: 3, Clock: clk, NoRateLimit: true,
		LargeExport: &emulator.LargeExport{Records: 4 * 3000, Sources: 4, Every: time.Hour}})
	sources := emu.LargeExportSources()
	feed := &figFeed{h: emu, clk: clk, step: 200 * 24 * time.Hour}
	var twice, older, deletes int
	seen := map[string]int64{} // entity → the newest seq read
	got := map[string]bool{}   // entity and seq read
	fetch := func(ctx context.Context, req adapters.Request) ([]byte, http.Header, error) {
		body, hdr, err := feed.fetch(ctx, req)
		for _, line := range bytes.Split(body, []byte{'\n'}) {
			var r export.ExportRecord
			if len(line) == 0 || json.Unmarshal(line, &r) != nil {
				continue
			}
			key := r.EntityID + "@" + strconv.FormatInt(r.Seq, 10)
			switch newest, ok := seen[r.EntityID]; {
			case got[key]:
				twice++
			case ok && r.Seq < newest:
				older++
			}
			got[key] = true
			seen[r.EntityID] = max(seen[r.EntityID], r.Seq)
			if r.Op == export.OpDelete {
				deletes++
			}
		}
		return body, hdr, err
	}
	idx, _, err := localindex.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	p := figProvider(t)
	scope, _ := p.Scope(replica.ScopeConfig{Sources: sources})
	h, err := p.Harvester(idx, replica.Harvest{Fetch: fetch, Clock: clk, Scope: scope, Interval: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// Rounds until one starts after the last record was written.
	end, rounds := epoch.AddDate(0, 1, 0), 1
	for figRound(t, h, clk); !h.Progress().CompleteUpTo.After(end); rounds++ {
		clk.Advance(24 * time.Hour)
		figRound(t, h, clk)
	}
	t.Logf("%d rounds, %d calls, %d records: %d read twice, %d older than one read before, %d deletes",
		rounds, feed.calls.Load(), feed.records.Load(), twice, older, deletes)

	var wrong int
	for _, src := range sources {
		platform := map[string]bool{}
		decided := 0 // motions the platform holds as aangehouden
		snapshotAll(t, emu, []string{src}, func(r export.ExportRecord) {
			platform[r.EntityID] = true
			if strings.EqualFold(r.EntityType, "motion") && strings.Contains(string(r.Payload), `"result":"aangehouden"`) {
				decided++
			}
		})
		held := map[string]bool{}
		for off := 0; ; off += 100 {
			res, err := idx.Search(context.Background(), localindex.Query{Sources: []string{src}, Limit: 100, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			for _, hit := range res.Hits {
				held[hit.ID] = true
			}
			if len(res.Hits) < 100 {
				break
			}
		}
		for id := range platform {
			if !held[id] {
				wrong++
				t.Errorf("%s: the platform holds %s, the index does not", src, id)
			}
		}
		for id := range held {
			if !platform[id] {
				wrong++
				t.Errorf("%s: the index holds %s, deleted on the platform", src, id)
			}
		}
		res, _ := idx.Search(context.Background(), localindex.Query{Words: "aangehouden", Types: []string{"motion"}, Sources: []string{src}})
		t.Logf("%s: platform %d entities, index %d; motions held over: platform %d, index %d", src, len(platform), len(held), decided, res.Total)
		if res.Total != uint64(decided) {
			t.Errorf("%s: %d motions held over in the index, %d on the platform", src, res.Total, decided)
		}
	}
	if twice == 0 || older == 0 || deletes == 0 {
		t.Errorf("the run did not test repeats: %d twice, %d older, %d deletes", twice, older, deletes)
	}
}

// TestFiguresOBVExpiredCursor checks the index after the harvester's
// stored cursor expired between two rounds (CursorTTL two hours, the
// interval a day): the harvester reads the source's snapshot anew, and
// the entities deleted on the platform while it waited, in neither that
// snapshot nor the change feed after it, must be swept away.
func TestFiguresOBVExpiredCursor(t *testing.T) {
	epoch := emulator.DefaultLargeExportEpoch
	clk := fakeclock.New(epoch)
	emu := emulator.NewEmulator(emulator.Config{Seed: 4, Clock: clk, NoRateLimit: true,
		LargeExport: &emulator.LargeExport{Records: 2 * 5000, Sources: 2, CursorTTL: 2 * time.Hour}})
	sources := emu.LargeExportSources()
	feed := &figFeed{h: emu, clk: clk, step: 2 * time.Second}
	var refused atomic.Int64
	fetch := func(ctx context.Context, req adapters.Request) ([]byte, http.Header, error) {
		body, hdr, err := feed.fetch(ctx, req)
		if err != nil {
			refused.Add(1)
		}
		return body, hdr, err
	}
	idx, _, err := localindex.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	p := figProvider(t)
	scope, _ := p.Scope(replica.ScopeConfig{Sources: sources})
	h, err := p.Harvester(idx, replica.Harvest{Fetch: fetch, Clock: clk, Scope: scope, Interval: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	figRound(t, h, clk)
	before, _ := idx.Count()
	deletes0 := feed.deletes.Load()
	clk.Advance(24 * time.Hour)
	figRound(t, h, clk)
	t.Logf("held %d after the first round; the second read %d records, %d deletes", before, feed.records.Load(), feed.deletes.Load()-deletes0)
	platform := 0
	snapshotAll(t, emu, sources, func(export.ExportRecord) { platform++ })
	held, _ := idx.Count()
	t.Logf("after a day's wait: %d cursors refused, the platform holds %d entities, the index %d", refused.Load(), platform, held)
	if refused.Load() == 0 || held != uint64(platform) || before <= held {
		t.Errorf("no restart, or the index (%d, %d before) does not hold what the platform does (%d)", held, before, platform)
	}
}

// mustDirSize is the bytes under dir (replica.DirSize).
func mustDirSize(t *testing.T, dir string) int64 {
	t.Helper()
	n, err := replica.DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
