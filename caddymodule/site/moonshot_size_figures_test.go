//go:build figures

package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
	bwbemulator "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
	cvdremulator "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
	obemulator "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	obvemulator "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	rsemulator "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	tkemulator "github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

// TestFiguresMoonshotSizes measures issue 36's moonshot at the platforms'
// sizes: the fan-out's latency (/search, JSON, all six platforms) with
// every replica caught up, against the same house without replicas (the
// live fan-out through the emulators), in one run.
//
// The replicas are caught up as fast as the code allows, without
// pretending: each platform's own provider (the registered
// replica.Provider, as the house builds it) opens an index in a folder
// and its own harvester reads the emulator's whole feed in process
// (replicatest.Fetch: no Caddy, no budget, a fake clock), until its first
// pass is complete, as the obv and tk figures tests do. Then the house
// (the product binary in a process of its own, moonSizes says why)
// starts on those folders: each replica resumes from its checkpoint and
// asks the platform, through the house's route, only what changed since
// (the emulators are the same, their clocks fixed, so nothing has), and
// the test waits until each has completed a pass of the house's own (its
// complete_up_to at or after the house's start). The case-law replica is
// harvested by the house itself at the small size (it was not asked at a
// real size). The house's own harvest, at the idle budget, would take
// hours at these sizes (docs/benchmarks.md: 2 h 21 min for OBV at 3M).
//
// Sizes (environment; the defaults are small, so the test takes about a
// minute; the full run below took 26 minutes on 2 shared cores, 14 of
// them the pre-builds):
//
//	MOON_OBV_RECORDS     OBV large export's log length (default 20,000;
//	                     3,950,000 holds about 3 million entities)
//	MOON_TK_DOCUMENTS    TK SyncFeed Documents (default 2,000; 400,000)
//	MOON_BWB_REGULATIONS BWB generated regulations (default 400; 22,000)
//	MOON_CVDR_REGULATIONS CVDR generated regulations (default 400; 200,000)
//	MOON_OB_SCALE        OB emulator's Scale, about 15,000 publications
//	                     over twenty years each (default 1; 20 is
//	                     emulator.RealisticScale)
//	MOON_QUESTIONS       distinct questions (default 200)
//	MOON_DIR             where the replicas' folders go (default the
//	                     test's temporary folder)
//	MOON_COVERED_ONLY    1: reuse the folders an earlier run left under
//	                     MOON_DIR (same sizes; one removed is pre-built
//	                     anew, as after an index format change), skip
//	                     the live house and the mix, and measure only
//	                     the coverage candidates and the rounds (about
//	                     4 minutes with every folder kept)
//	MOON_COVERED_ROUNDS  rounds of the covered questions (default 10)
//	MOON_CPUPROFILE      a file for the CPU profile of those rounds
//	MOON_HEAPPROFILE     a file for the heap profile after them
//
// The full run:
//
//	MOON_OBV_RECORDS=3950000 MOON_TK_DOCUMENTS=400000 MOON_BWB_REGULATIONS=22000 \
//	MOON_CVDR_REGULATIONS=200000 MOON_OB_SCALE=20 nice -n 10 \
//	go test -tags figures -run TestFiguresMoonshotSizes -v -count=1 -timeout 3h ./caddymodule/site/
//
// Each question is asked once before it is measured (warm: the house,
// the indexes' pages, the emulators), and the platforms' caches are
// purged between the two passes, so a question a replica cannot answer
// goes to its platform on the measured pass too, as a new question does.
// Both houses are asked the mix (moonQuestions) and then the coverage
// candidates (moonCoverageCandidates): the goal's figure is the warm
// fan-out over the candidates no platform was asked for, the questions
// every replica covered, beside the same questions asked live.
// Figures are logged, not asserted; what is checked is that every
// replica's pass is complete and that no outcome failed.
func TestFiguresMoonshotSizes(t *testing.T) {
	n := struct{ obv, tk, bwb, cvdr, obScale, questions int }{
		moonEnv("MOON_OBV_RECORDS", 20_000), moonEnv("MOON_TK_DOCUMENTS", 2_000), moonEnv("MOON_BWB_REGULATIONS", 400),
		moonEnv("MOON_CVDR_REGULATIONS", 400), moonEnv("MOON_OB_SCALE", 1), moonEnv("MOON_QUESTIONS", 200),
	}
	root := os.Getenv("MOON_DIR")
	if root == "" {
		root = t.TempDir()
	}
	root = filepath.Join(root, fmt.Sprintf("moon-%d-%d-%d-%d-%d", n.obv, n.tk, n.bwb, n.cvdr, n.obScale))
	coveredOnly := os.Getenv("MOON_COVERED_ONLY") == "1"
	if coveredOnly {
		// The house harvests the case-law replica itself, small: anew,
		// so that its pass is one of this house's (awaitOwnPass).
		if err := os.RemoveAll(filepath.Join(root, "caselaw")); err != nil {
			t.Fatal(err)
		}
	} else if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	// The house's binary is built now, from the tree the pre-builds are
	// compiled from: built later, after an edit that changes an index's
	// format, it would rebuild the pre-built folders on opening them.
	testproc.Binary(t)

	// The emulators, each on a clock that stands still: what the
	// pre-build reads is what the house's route finds. OBV's clock is
	// after its large export's log has ended (deletes and all).
	obvEmu := obvemulator.NewEmulator(obvemulator.Config{Seed: 1, Clock: fakeclock.New(obvemulator.DefaultLargeExportEpoch.AddDate(0, 0, 60)),
		NoRateLimit: true, LargeExport: &obvemulator.LargeExport{Records: n.obv}})
	emus := map[string]http.Handler{
		// OpenBesluitvorming lists the export's sources alone, so the
		// council replica, keeping every source listed, holds all of
		// what the platform lists (startMoonHouse says why).
		// Its RateLimit-* headers are left out (withoutRateLimit).
		"obv": withoutRateLimit(listingOnly(obvEmu, obvEmu.LargeExportSources()...)),
		"tk": tkemulator.New(tkemulator.Config{Seed: 1, Clock: fakeclock.New(at), Documents: 400, Feed: tkemulator.FeedConfig{
			Documents: n.tk, Resent: n.tk / 16, ResentAfter: time.Hour, Deleted: n.tk / 200, DeletedAfter: 2 * time.Hour}}),
		"bwb":         bwbemulator.New(bwbemulator.Config{Clock: fakeclock.New(at), Generated: n.bwb, PageCap: 1000}),
		"cvdr":        cvdremulator.NewWith(cvdremulator.Config{Generated: n.cvdr, PageCap: 1000}),
		"ob":          obemulator.New(obemulator.Config{Seed: 1, Clock: fakeclock.New(at), Scale: n.obScale, MaxRecords: 1000}),
		"rechtspraak": rsemulator.New(rsemulator.Config{Seed: 1, Clock: fakeclock.New(at)}),
	}

	// What each replica keeps: its whole feed (OBV every source listed,
	// TK its documents), as the house's blocks below say.
	type kept struct {
		key, dir, block string
		scope           replica.ScopeConfig
	}
	keeps := []kept{
		{key: "obv", dir: "council", block: "since all"},
		{key: "tk", dir: "parliament", block: "sources document", scope: replica.ScopeConfig{Sources: []string{"document"}}},
		{key: "bwb", dir: "laws", block: "since all"},
		{key: "cvdr", dir: "local-regulations", block: "since all"},
		{key: "ob", dir: "publications", block: "since all"},
	}
	pre := map[string]moonBuilt{}
	var blocks strings.Builder
	for _, k := range keeps {
		dir := filepath.Join(root, k.dir)
		fmt.Fprintf(&blocks, "\n\t\treplica %s {\n\t\t\tdir %s\n\t\t\t%s\n\t\t}", k.key, dir, k.block)
		if _, err := os.Stat(dir); coveredOnly && err == nil {
			continue
		}
		b := prebuildReplica(t, k.key, dir, k.scope, emus[k.key])
		pre[k.key] = b
		t.Logf("pre-built %-4s %10d records in %6d pages, %v (%.0f records/s); %.1f MiB on disk; RSS %.0f MiB (peak %.0f)",
			k.key, b.records, b.pages, b.wall.Round(time.Millisecond), float64(b.records)/b.wall.Seconds(),
			figures.MiB(moonDirSize(t, dir)), moonRSS("VmRSS"), moonRSS("VmHWM"))
	}
	fmt.Fprintf(&blocks, "\n\t\tcaselaw {\n\t\t\tdir %s\n\t\t\tsince 2026-11-01\n\t\t}", filepath.Join(root, "caselaw"))
	debug.FreeOSMemory()
	t.Logf("after the pre-builds, freed memory returned: RSS %.0f MiB", moonRSS("VmRSS"))

	questions := moonQuestions(n.questions)
	candidates := moonCoverageCandidates()
	if coveredOnly {
		started := time.Now()
		house := startMoonHouseSized(t, true, 1_000_000, &moonSizes{Emulators: emus, Replicas: blocks.String()})
		awaitOwnPass(t, house, started)
		afterCandidates := measureMoon(t, house, candidates)
		logCovered(t, candidates, moonMeasure{}, afterCandidates)
		repeatCovered(t, house, root, coveredOf(afterCandidates, candidates), moonEnv("MOON_COVERED_ROUNDS", 10))
		return
	}

	// Today's fan-out: every question to every platform that searches
	// words, through the emulators.
	live := startMoonHouseSized(t, false, 1_000_000, &moonSizes{Emulators: emus})
	before := measureMoon(t, live, questions)
	beforeCandidates := measureMoon(t, live, candidates)
	t.Logf("live fan-out measured: warm p50 %v p95 %v max %v", before.warm.p50, before.warm.p95, before.warm.max)
	rssLive := live.rss("VmRSS")
	live.stop()

	// The replicas: the house resumes each from its folder.
	started := time.Now()
	house := startMoonHouseSized(t, true, 1_000_000, &moonSizes{Emulators: emus, Replicas: blocks.String()})
	caught := awaitOwnPass(t, house, started)
	catchUpRequests := map[string]int64{}
	for _, k := range moonPlatforms {
		catchUpRequests[k], _ = house.emus[k].seen()
	}
	after := measureMoon(t, house, questions)
	afterCandidates := measureMoon(t, house, candidates)
	rssReplicas, peak := house.rss("VmRSS"), house.rss("VmHWM")

	// The figures.
	t.Logf("sizes: OBV large export %d records; TK %d Documents (%d re-sent, %d deleted); BWB %d regulations; CVDR %d regulations; OB scale %d; %d distinct questions",
		n.obv, n.tk, n.tk/16, n.tk/200, n.bwb, n.cvdr, n.obScale, len(questions))
	t.Logf("%-12s %10s %8s %10s %12s %8s %10s", "replica", "held", "pages", "pre-build", "house's pass", "asked", "disk MiB")
	for _, k := range moonPlatforms {
		dir := filepath.Join(root, map[string]string{"obv": "council", "tk": "parliament", "bwb": "laws", "cvdr": "local-regulations", "ob": "publications", "rechtspraak": "caselaw"}[k])
		b := pre[k]
		t.Logf("%-12s %10d %8d %10v %12v %8d %10.1f", k, caught[k].records, b.pages, b.wall.Round(time.Second), caught[k].after.Round(time.Millisecond),
			catchUpRequests[k], figures.MiB(moonDirSize(t, dir)))
	}
	t.Logf("RSS of the house's process: live house %.0f MiB; with the replicas %.0f MiB, peak %.0f MiB", rssLive, rssReplicas, peak)
	for _, r := range []struct {
		name string
		m    moonMeasure
	}{{"live fan-out (no replica)", before}, {"from the replicas", after}} {
		t.Logf("%s: first pass p50 %v p95 %v max %v; warm pass p50 %v p95 %v max %v; outcomes failed %d, timed out %d",
			r.name, r.m.cold.p50, r.m.cold.p95, r.m.cold.max, r.m.warm.p50, r.m.warm.p95, r.m.warm.max, r.m.failed, r.m.timedOut)
		t.Logf("%s, warm pass split: %d questions asked no platform, p50 %v p95 %v max %v; %d asked one or more, p50 %v p95 %v max %v",
			r.name, r.m.nLocal, r.m.allLocal.p50, r.m.allLocal.p95, r.m.allLocal.max, r.m.nSent, r.m.sent.p50, r.m.sent.p95, r.m.sent.max)
	}
	t.Logf("%-12s %22s %22s %26s %24s %24s", "platform", "requests live (warm)", "with replicas (warm)", "answered from the replica", "took p50/p95 live", "took p50/p95 replicas")
	var sumB, sumA int64
	for _, k := range moonPlatforms {
		sumB += before.requests[k]
		sumA += after.requests[k]
		b, a := moonPercentiles(before.took[k]), moonPercentiles(after.took[k])
		t.Logf("%-12s %22d %22d %19d of %d %24s %24s", k, before.requests[k], after.requests[k], after.local[k], after.answered[k],
			fmt.Sprintf("%v / %v", b.p50, b.p95), fmt.Sprintf("%v / %v", a.p50, a.p95))
	}
	t.Logf("%-12s %22d %22d", "all", sumB, sumA)
	logCovered(t, candidates, beforeCandidates, afterCandidates)
	// Every question found covered, the mix's and the candidates', asked
	// again round after round: nine or ten samples make no p95.
	for i, c := range after.covered {
		if c {
			t.Logf("covered question of the mix: %q %s..%s, %v", questions[i].words, questions[i].from, questions[i].to, after.byQuestion[i])
		}
	}
	covered := append(coveredOf(after, questions), coveredOf(afterCandidates, candidates)...)
	repeatCovered(t, house, root, covered, moonEnv("MOON_COVERED_ROUNDS", 10))
	if before.failed+after.failed+before.timedOut+after.timedOut > 0 {
		t.Errorf("some outcomes failed or timed out: the latencies above are not all of answered questions")
	}
}

// withoutRateLimit is emu without the RateLimit-* headers of its
// answers. OpenBesluitvorming's emulator, run without its rate limit
// (NoRateLimit), still states "RateLimit-Remaining: 60" on every answer,
// which pulls the house's budget, raised here to 1,000,000 units so the
// run measures latency rather than waits, down to 60 units: the house's
// harvest, waiting for half the budget (replica.VisitorsFirst), would
// then ask a page every 30 s, 62 minutes for the 124 sources' changes.
// At the platform's real budget (60 units a minute) the same rule lets
// about a page a second go.
func withoutRateLimit(emu http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			if !strings.HasPrefix(k, "Ratelimit-") {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// moonEnv is the positive integer in the environment variable name, or
// def.
func moonEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// moonRSS is a figure of /proc/self/status, in MiB.
func moonRSS(key string) float64 { return float64(figures.ProcKB(key)) / 1024 }

func moonDirSize(t *testing.T, dir string) int64 {
	t.Helper()
	n, err := replica.DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// prebuildReplica makes key's replica in dir as the house would, in
// process: the registered provider opens the index and builds its
// harvester with the scope the house's block gives, which reads emu
// (the platform's route's answers, without Caddy or a budget) on a fake
// clock until its first pass is complete; then the index is closed, its
// checkpoint saying where the feed stands.
func prebuildReplica(t *testing.T, key, dir string, sc replica.ScopeConfig, emu http.Handler) (b moonBuilt) {
	t.Helper()
	p := moonProvider(t, key)
	scope, err := p.Scope(sc)
	if err != nil {
		t.Fatal(err)
	}
	idx, _, err := p.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pages atomic.Int64
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	h, err := p.Harvester(idx, replica.Harvest{Fetch: replicatest.Fetch(key, emu, func(adapters.Request) { pages.Add(1) }),
		Clock: clk, Scope: scope, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- h.Run(ctx) }()
	// The harvester waits on the clock only after a failed page or once
	// its pass is complete (for the next).
	clk.AwaitTimer()
	b.wall = time.Since(start)
	pr := h.Progress()
	cancel()
	<-done
	if pr.Stopped != nil || pr.FailuresInRow > 0 || pr.CompleteUpTo.IsZero() {
		t.Fatalf("pre-building the %s replica: stopped %v, %d failures in a row (%v), complete up to %v", key, pr.Stopped, pr.FailuresInRow, pr.LastError, pr.CompleteUpTo)
	}
	b.pages, b.records = pages.Load(), pr.Records
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	return b
}

// moonBuilt is what a pre-build took and left.
type moonBuilt struct {
	wall    time.Duration // the harvester's own time, no budget wait
	pages   int64
	records uint64
}

// moonProvider is key's replica provider, as the house finds it.
func moonProvider(t *testing.T, key string) replica.Provider {
	t.Helper()
	pp, _ := platforms.ProviderOf(key)
	p, ok := pp.(replica.Provider)
	if !ok {
		t.Fatalf("%s keeps no replica", key)
	}
	return p
}

// caughtUp is when a replica of the house completed its own pass, and
// what it then held.
type caughtUp struct {
	after   time.Duration
	records uint64
}

// awaitOwnPass waits until every replica of h has completed a pass that
// began at or after started (the house's own, not the pre-build's),
// noting when each did, then pauses the harvests, so that every request
// an emulator counts from then on is a question's. Each look is a
// request to the house, paced by its answer; the deadline only bounds a
// hang.
func awaitOwnPass(t *testing.T, h moonHouse, started time.Time) map[string]caughtUp {
	t.Helper()
	out := map[string]caughtUp{}
	deadline := started.Add(30 * time.Minute)
	from := started.Truncate(time.Second) // complete_up_to is RFC 3339, to the second
	for len(out) < len(moonPlatforms) {
		var st struct {
			Replicas []struct {
				Platform string
				Status   map[string]any
			}
		}
		if err := json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st); err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Replicas {
			if e, _ := r.Status["error"].(string); e != "" {
				t.Fatalf("the %s replica stopped: %s", r.Platform, e)
			}
			if _, done := out[r.Platform]; done {
				continue
			}
			s, _ := r.Status["complete_up_to"].(string)
			up, err := time.Parse(time.RFC3339, s)
			if err != nil || up.Before(from) {
				continue
			}
			held, _ := r.Status[moonProvider(t, r.Platform).Replica().Units()].(float64) // the count is under the replica's unit
			out[r.Platform] = caughtUp{after: time.Since(started), records: uint64(held)}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for the replicas' own passes: %d of %d done: %+v", len(out), len(moonPlatforms), st.Replicas)
		}
	}
	t.Logf("every replica completed a pass of the house's own after %v", time.Since(started).Round(time.Millisecond))
	for _, k := range moonPlatforms {
		if code, body := adminPost(t, h.admin+"/besluitbron/replica/"+k+"/pause"); code != http.StatusOK || !strings.Contains(body, `"paused":true`) {
			t.Fatalf("pausing the %s replica: %d %s", k, code, body)
		}
	}
	return out
}

// moonLatency is a pass's p50, p95 and max.
type moonLatency struct{ p50, p95, max time.Duration }

// moonPercentiles is lat's p50, p95 and max (zero when empty).
func moonPercentiles(lat []time.Duration) moonLatency {
	if len(lat) == 0 {
		return moonLatency{}
	}
	p50, p95 := figures.Percentiles(lat)
	return moonLatency{p50.Round(100 * time.Microsecond), p95.Round(100 * time.Microsecond), slices.Max(lat).Round(100 * time.Microsecond)}
}

// moonMeasure is what one house's passes over the questions gave.
type moonMeasure struct {
	cold, warm moonLatency
	// local and sent split the warm pass: the questions no platform was
	// asked for (every outcome answered from a replica, or skipped), and
	// the rest.
	allLocal, sent  moonLatency
	nLocal, nSent   int
	requests        map[string]int64           // the warm pass's, at the emulators
	answered, local map[string]int             // the warm pass's outcomes
	took            map[string][]time.Duration // the warm pass's, per platform (took_ms)
	// byQuestion is the warm pass's latency of each question, in order;
	// covered says which asked no platform.
	byQuestion     []time.Duration
	covered        []bool
	tookByQuestion []map[string]time.Duration // each platform's took_ms
	// tookCovered is the warm pass's took_ms per platform, over the
	// covered questions only.
	tookCovered      map[string][]time.Duration
	failed, timedOut int
}

// measureMoon asks every question of h twice through /search (JSON, the
// six platforms), each pass after the platforms' caches are purged: the
// first warms the house, the indexes and the emulators; the second is
// measured, its platform requests counted at the emulators.
func measureMoon(t *testing.T, h moonHouse, questions []moonQuestion) moonMeasure {
	t.Helper()
	m := moonMeasure{requests: map[string]int64{}, answered: map[string]int{}, local: map[string]int{}, took: map[string][]time.Duration{},
		tookCovered: map[string][]time.Duration{}}
	pass := func(count bool) moonLatency {
		h.purgeCaches(t)
		lat := make([]time.Duration, 0, len(questions))
		var local, sent []time.Duration
		for _, q := range questions {
			answered, res := askMoon(t, h, q)
			lat = append(lat, answered)
			if !count {
				continue
			}
			asked := false
			took := map[string]time.Duration{}
			for _, o := range res.Outcomes {
				if o.State != fanout.StateSkipped {
					took[o.Platform] = time.Duration(o.TookMS) * time.Millisecond
					m.took[o.Platform] = append(m.took[o.Platform], took[o.Platform])
				}
				switch o.State {
				case fanout.StateAnswered, fanout.StateCache:
					m.answered[o.Platform]++
					if strings.Contains(o.Provenance, "complete up to") {
						m.local[o.Platform]++
					} else {
						asked = true
					}
				case fanout.StateTimeout:
					m.timedOut++
					asked = true
				case fanout.StateFailed:
					m.failed++
					asked = true
					t.Logf("%s failed on %q: %s", o.Platform, q.words, o.Error)
				}
			}
			m.byQuestion = append(m.byQuestion, lat[len(lat)-1])
			m.tookByQuestion = append(m.tookByQuestion, took)
			m.covered = append(m.covered, !asked)
			if asked {
				sent = append(sent, lat[len(lat)-1])
			} else {
				local = append(local, lat[len(lat)-1])
				for k, d := range took {
					m.tookCovered[k] = append(m.tookCovered[k], d)
				}
			}
		}
		if count {
			m.allLocal, m.nLocal = moonPercentiles(local), len(local)
			m.sent, m.nSent = moonPercentiles(sent), len(sent)
		}
		if count {
			for _, k := range moonPlatforms {
				m.requests[k], _ = h.emus[k].seen()
			}
		}
		return moonPercentiles(lat)
	}
	m.cold = pass(false)
	m.warm = pass(true)
	return m
}

// askMoon asks h one question through /search (JSON, the six platforms)
// and returns how long the answer took and the answer.
func askMoon(t *testing.T, h moonHouse, q moonQuestion) (time.Duration, fanout.Result) {
	t.Helper()
	v := url.Values{"q": {q.words}, "platforms": {strings.Join(moonPlatforms, ",")}}
	if q.from != "" {
		v.Set("from", q.from)
		v.Set("to", q.to)
	}
	began := time.Now()
	body := get(t, h.base+"/search?"+v.Encode(), http.Header{"Accept": {"application/json"}})
	took := time.Since(began)
	var res fanout.Result
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("/search %v: %v in %.300s", v, err, body)
	}
	return took, res
}

// repeatCovered asks the covered questions of h rounds times more, one
// after the other, each round in the same order, and logs the fan-out's
// latency over every sample, each question's own p50 and largest, and
// each platform's took_ms. Per round it logs what ran beside the
// questions: the house's CPU time against the round's wall time, its
// garbage collections, and the segment files of each
// replica's index under root (a change means bleve merged or wrote).
// A sample that asked a platform after all is counted and left out.
func repeatCovered(t *testing.T, h moonHouse, root string, qs []moonQuestion, rounds int) {
	t.Helper()
	if len(qs) == 0 {
		return
	}
	profiled := make(chan struct{})
	if f := os.Getenv("MOON_CPUPROFILE"); f != "" {
		// Caddy's admin endpoint profiles the house's process for a
		// fixed time; 30 s outlasts the rounds, and an idle process
		// adds no samples.
		go func() {
			defer close(profiled)
			h.adminProfile(t, "profile?seconds=30", f)
		}()
	} else {
		close(profiled)
	}
	var all []time.Duration
	each := make([][]time.Duration, len(qs))
	took := map[string][]time.Duration{}
	asked := 0
	for round := range rounds {
		began, cpu, cycles := time.Now(), h.cpu(), h.gcCycles(t)
		var asking time.Duration
		var these []time.Duration
		for i, q := range qs {
			d, res := askMoon(t, h, q)
			asking += d
			local := true
			for _, o := range res.Outcomes {
				if o.State != fanout.StateSkipped && !strings.Contains(o.Provenance, "complete up to") {
					local = false
				}
			}
			if !local {
				asked++
				continue
			}
			for _, o := range res.Outcomes {
				if o.State != fanout.StateSkipped {
					took[o.Platform] = append(took[o.Platform], time.Duration(o.TookMS)*time.Millisecond)
				}
			}
			all = append(all, d)
			these = append(these, d)
			each[i] = append(each[i], d)
		}
		wall, cpuUsed := time.Since(began), h.cpu()-cpu
		p := moonPercentiles(these)
		t.Logf("round %d: p50 %v max %v; wall %v, asking %v; the house's CPU %v (%.2f cores over the wall), %d GC cycles; segment files %s",
			round+1, p.p50, p.max, wall.Round(time.Millisecond), asking.Round(time.Millisecond), cpuUsed.Round(10*time.Millisecond),
			cpuUsed.Seconds()/wall.Seconds(), h.gcCycles(t)-cycles, moonSegmentFiles(root))
	}
	if f := os.Getenv("MOON_HEAPPROFILE"); f != "" {
		h.adminProfile(t, "heap?gc=1", f)
	}
	<-profiled
	p := moonPercentiles(all)
	t.Logf("covered questions asked %d rounds more (%d samples, %d left out for asking a platform): p50 %v p95 %v max %v",
		rounds, len(all), asked, p.p50, p.p95, p.max)
	var per []string
	for i, q := range qs {
		qp := moonPercentiles(each[i])
		name := q.words
		if q.from != "" {
			name += " (" + q.from + ".." + q.to + ")"
		}
		per = append(per, fmt.Sprintf("%s p50 %v max %v", name, qp.p50, qp.max))
	}
	t.Logf("each covered question over the rounds: %s", strings.Join(per, ", "))
	for _, k := range moonPlatforms {
		tp := moonPercentiles(took[k])
		t.Logf("over the rounds, %-12s took p50 %v p95 %v max %v (%d outcomes)", k, tp.p50, tp.p95, tp.max, len(took[k]))
	}
}

// coveredOf are the questions of qs that m found covered (no platform
// asked), in order.
func coveredOf(m moonMeasure, qs []moonQuestion) []moonQuestion {
	var out []moonQuestion
	for i, c := range m.covered {
		if c {
			out = append(out, qs[i])
		}
	}
	return out
}

// cpu is the CPU time the house's process has used.
func (h moonHouse) cpu() time.Duration { return figures.CPUOf(h.proc.Pid()) }

// rss is a kB figure of the house's process's status, in MiB.
func (h moonHouse) rss(key string) float64 {
	return float64(figures.ProcKBOf(h.proc.Pid(), key)) / 1024
}

// gcCycles is how many garbage collections the house's process has
// completed, from its Go collector's metrics on the admin endpoint.
func (h moonHouse) gcCycles(t *testing.T) int {
	t.Helper()
	for _, line := range strings.Split(get(t, h.admin+"/metrics", nil), "\n") {
		if v, ok := strings.CutPrefix(line, "go_gc_duration_seconds_count "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("go_gc_duration_seconds_count %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("the house's metrics name no go_gc_duration_seconds_count")
	return 0
}

// adminProfile writes the house's profile (Caddy's admin endpoint,
// /debug/pprof/<what>) to file.
func (h moonHouse) adminProfile(t *testing.T, what, file string) {
	res, err := http.Get(h.admin + "/debug/pprof/" + what)
	if err != nil {
		t.Errorf("profiling the house: %v", err)
		return
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %.200s", res.Status, b)
	}
	if err == nil {
		err = os.WriteFile(file, b, 0o644)
	}
	if err != nil {
		t.Errorf("profiling the house (%s): %v", what, err)
	}
}

// moonSegmentFiles counts the index segment files (.zap) in each
// replica folder under root, "council 12, parliament 3, ...".
func moonSegmentFiles(root string) string {
	entries, _ := os.ReadDir(root)
	var out []string
	for _, e := range entries {
		n := 0
		filepath.WalkDir(filepath.Join(root, e.Name()), func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".zap") {
				n++
			}
			return nil
		})
		out = append(out, fmt.Sprintf("%s %d", e.Name(), n))
	}
	return strings.Join(out, ", ")
}

// moonCoverageCandidates are questions drawn so that many are covered by
// every replica, the moonshot goal's condition: each word the generated
// corpora's titles share most, the policy topics (corpus.Topics: OBV's,
// OB's and some of TK's titles) and the generated CVDR's subjects and
// organisations (cvdremulator.TitleVocabulary: its titles name nothing
// else), asked once for any date and once for one year of 2024 to 2026
// (fixed seed); and each year of 2006 to 2026 as a word. Which of them every replica covers is not decided here:
// the house's answers tell (moonMeasure.covered, no platform asked).
func moonCoverageCandidates() []moonQuestion {
	r := corpus.Rand(36, "moonshot coverage candidates")
	words := slices.Concat(corpus.Topics, cvdremulator.TitleVocabulary())
	slices.Sort(words)
	words = slices.Compact(words)
	out := make([]moonQuestion, 0, 2*len(words)+2*21)
	for _, w := range words {
		y := 2024 + r.IntN(3)
		out = append(out, moonQuestion{words: w}, moonQuestion{words: w, from: fmt.Sprintf("%d-01-01", y), to: fmt.Sprintf("%d-12-31", y)})
	}
	// A year, which every generator writes in titles (TestMoonshot's
	// question): alone, and for the dates of that year.
	for y := 2006; y <= 2026; y++ {
		out = append(out, moonQuestion{words: strconv.Itoa(y)}, moonQuestion{words: strconv.Itoa(y), from: fmt.Sprintf("%d-01-01", y), to: fmt.Sprintf("%d-12-31", y)})
	}
	return out
}

// logCovered logs the goal's figure: the warm fan-out over the candidate
// questions that no platform was asked for with the replicas (every
// replica covered them), beside the same questions asked live in the
// same run, and each platform's own time over them.
func logCovered(t *testing.T, candidates []moonQuestion, live, replicas moonMeasure) {
	t.Helper()
	var fromReplicas, liveSame []time.Duration
	var words []string
	for i, c := range replicas.covered {
		if !c {
			continue
		}
		fromReplicas = append(fromReplicas, replicas.byQuestion[i])
		if i < len(live.byQuestion) { // none asked live with MOON_COVERED_ONLY
			liveSame = append(liveSame, live.byQuestion[i])
		}
		q := candidates[i]
		w := q.words
		if q.from != "" {
			w += " (" + q.from[:4] + ")"
		}
		slowest := ""
		for k, d := range replicas.tookByQuestion[i] {
			if slowest == "" || d > replicas.tookByQuestion[i][slowest] || (d == replicas.tookByQuestion[i][slowest] && k < slowest) {
				slowest = k
			}
		}
		words = append(words, fmt.Sprintf("%s %v (slowest %s %v)", w, replicas.byQuestion[i].Round(100*time.Microsecond), slowest, replicas.tookByQuestion[i][slowest]))
	}
	r, l := moonPercentiles(fromReplicas), moonPercentiles(liveSame)
	var each []string
	for _, k := range moonPlatforms {
		each = append(each, fmt.Sprintf("%s %d", k, replicas.local[k]))
	}
	t.Logf("coverage candidates: %d; covered by every replica (no platform asked, warm pass): %d; answered from each replica: %s",
		len(candidates), len(fromReplicas), strings.Join(each, ", "))
	t.Logf("covered questions, warm fan-out from the replicas: p50 %v p95 %v max %v; the same questions live: p50 %v p95 %v max %v",
		r.p50, r.p95, r.max, l.p50, l.p95, l.max)
	for _, k := range moonPlatforms {
		p := moonPercentiles(replicas.tookCovered[k])
		t.Logf("covered questions, %-12s took p50 %v p95 %v max %v (%d outcomes)", k, p.p50, p.p95, p.max, len(replicas.tookCovered[k]))
	}
	t.Logf("covered questions: %s", strings.Join(words, ", "))
}
