package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/platformcache"
	"github.com/besluitbron/besluitbron/mcpkit"
)

// A kept result is written with the Cache-Status ttl, Age and fetched_at
// the tool would write at that moment (resultmemo.go): with the cache's
// and the connector's clocks on one fake clock moved between calls (within
// a second, seconds, a minute, past midnight, past the entries' expiry),
// each answer of a kept tool from the memo is byte for byte the answer of
// the tool run anew at that moment, and the same JSON as mcp-go's. Kept
// results are written from the memo across seconds; a tool kept for the
// day (mcpkit.KeptForTheDay) runs again on a new date, and nothing is
// written from the memo once its entries expired.
func TestResultMemoFollowsTheClock(t *testing.T) {
	base := cachedSite(t)
	// A fraction of a second into the minute before midnight: the ttl
	// and the Age of an entry turn at other moments.
	conn := pooled(t, "alles")
	clk := fakeClockOn(t, conn, time.Date(2026, 12, 3, 23, 57, 30, 700_000_000, time.UTC))
	modern := connect(t, base, false, nil)
	legacy := connect(t, base, true, nil)
	var kept []toolCall
	for _, c := range toolCorpus(t, modern) {
		if keepingOf()[c.name] != mcpkit.NotKept {
			kept = append(kept, c)
		}
	}
	// bwb_search on today's date (the corpus's names one).
	kept = append(kept, toolCall{"bwb_search", map[string]any{"query": "belastingcapaciteit"}})
	if len(kept) < 4 {
		t.Fatalf("kept tools in the corpus: %v", kept)
	}
	f := conn.fast
	hc := &http.Client{}
	eras := []rawEra{{name: "2026-07-28", modern: true}, {name: "2025-11-25", session: legacy.GetSessionId()}}
	// The 2025 session's first call goes to mcp-go (its idle clock).
	body, hdr := rawToolCall(eras[1], 0, "tk_fracties", nil)
	postRaw(t, hc, base, body, hdr)

	post := func(c toolCall, e rawEra) []byte {
		t.Helper()
		body, hdr := rawToolCall(e, 7, c.name, c.args)
		resp, b := postRaw(t, hc, base, body, hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d %s", e.name, c.name, resp.StatusCode, b)
		}
		return b
	}
	maxTTL := int64(0)
	ttlRE := regexp.MustCompile(`ttl=(\d+)`)
	// check calls c in era e at the clock's moment: from the memo where
	// one holds (fromMemo tells), then the tool run anew (memo off), then
	// mcp-go; all three must agree.
	check := func(step string, c toolCall, e rawEra) (fromMemo bool) {
		t.Helper()
		served, memo := f.served.Load(), f.memoServed.Load()
		a := post(c, e)
		fromMemo = f.memoServed.Load() > memo
		// Not the fast path's (a miss after expiry or a new date, the
		// 2025 session's idle clock: mcp-go answered and stored), or a
		// stale answer whose refresh runs in the background: call again
		// until it is a fresh hit the fast path answers.
		for tries := 0; f.served.Load() == served || bytes.Contains(a, []byte("stale-while-revalidate")); tries++ {
			if tries == 200 {
				t.Fatalf("%s %s %s: not a fresh hit of the fast path once warm: %s", step, e.name, c.name, a)
			}
			served = f.served.Load()
			a = post(c, e)
		}
		f.memoOff.Store(true)
		served = f.served.Load()
		b := post(c, e)
		f.memoOff.Store(false)
		if f.served.Load() == served {
			t.Fatalf("%s %s %s: the tool's own answer was not the fast path's", step, e.name, c.name)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s %s %s (memo %v): the answer differs from the tool's own\nanswer: %s\ntool:   %s", step, e.name, c.name, fromMemo, a, b)
		}
		f.off.Store(true)
		m := post(c, e)
		f.off.Store(false)
		var va, vm any
		if json.Unmarshal(a, &va) != nil || json.Unmarshal(m, &vm) != nil || !reflect.DeepEqual(va, vm) {
			t.Errorf("%s %s %s: the answer differs from mcp-go's\nanswer: %s\nmcp-go: %s", step, e.name, c.name, a, m)
		}
		for _, s := range ttlRE.FindAllSubmatch(a, -1) {
			if v, _ := strconv.ParseInt(string(s[1]), 10, 64); v > maxTTL {
				maxTTL = v
			}
		}
		return fromMemo
	}
	each := func(step string, wantMemo func(toolCall, rawEra) (want, known bool)) {
		t.Helper()
		for _, c := range kept {
			for _, e := range eras {
				got := check(step, c, e)
				if want, known := wantMemo(c, e); known && got != want {
					t.Errorf("%s %s %s %v: answered from the memo %v, want %v", step, e.name, c.name, c.args, got, want)
				}
			}
		}
	}
	any := func(toolCall, rawEra) (bool, bool) { return false, false }
	always := func(toolCall, rawEra) (bool, bool) { return true, true }
	// After expiry the first era's call goes to mcp-go, which asks the
	// platform again; obv_search's list of organisations may expire with
	// it (a Put on the list memo while it runs: not kept).
	never := func(_ toolCall, e rawEra) (bool, bool) { return false, e.modern }

	each("warm", any) // every kept result rendered once
	each("at once", always)
	for _, d := range []time.Duration{400 * time.Millisecond, 600 * time.Millisecond, 3 * time.Second, 7 * time.Second, 61 * time.Second} {
		clk.Advance(d)
		each("+"+d.String(), always)
	}
	// Past midnight: a tool kept for the day whose call reads today
	// runs again (its request names the date); the others hold.
	clk.AdvanceTo(time.Date(2026, 12, 4, 0, 0, 0, 200_000_000, time.UTC))
	// (A kept result is the same in both eras: where the first era's call
	// of a step rendered and kept it anew, the second era's is written
	// from the memo; where it went to mcp-go, the second may render it.)
	each("next day", func(c toolCall, e rawEra) (bool, bool) {
		if keepingOf()[c.name] == mcpkit.KeptForTheDay {
			return false, e.modern
		}
		return true, true
	})
	clk.Advance(2 * time.Second)
	each("next day +2s", always)
	// Past every entry's freshness and its stale_while_revalidate (a day
	// at most): nothing is written from the memo.
	if maxTTL == 0 {
		t.Fatal("no ttl seen")
	}
	clk.Advance(time.Duration(maxTTL+1)*time.Second + 48*time.Hour)
	each("expired", never)
	// Stored anew, each result is rendered and kept again (a list the
	// tools read may be stored anew on the way, a Put on the list memo:
	// what was kept before it does not hold); then written from the memo.
	clk.Advance(5 * time.Second)
	each("stored anew +5s", any)
	clk.Advance(3 * time.Second)
	each("stored anew +8s", always)
}

// fakeClockOn puts conn and every platform's cache store on one test
// clock from start, until the test ends.
func fakeClockOn(t testing.TB, conn *connector, start time.Time) *testClock {
	clk := newTestClock(start)
	conn.setClock(clk.Now)
	t.Cleanup(func() { conn.setClock(time.Now) })
	for _, k := range cachedKeys() {
		if s := platformcache.StoreOf(k); s != nil {
			s.SetClock(clk.Now)
			t.Cleanup(func() { s.SetClock(time.Now) })
		}
	}
	return clk
}

// testClock is a test's clock for the connector and the caches: moved
// forward, or back to where it started (fakeclock.Clock moves forward
// only; no timer here depends on it).
type testClock struct {
	start time.Time
	ns    atomic.Int64
	steps atomic.Int64
}

func newTestClock(start time.Time) *testClock {
	c := &testClock{start: start}
	c.ns.Store(start.UnixNano())
	return c
}

func (c *testClock) Now() time.Time { return time.Unix(0, c.ns.Load()).In(c.start.Location()) }

func (c *testClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func (c *testClock) AdvanceTo(t time.Time) { c.ns.Store(t.UnixNano()) }

// Step moves the clock by d, and every n steps back to its start: a
// long run (a fuzz target's, a benchmark's) moves its clock between
// calls without its cache entries expiring (a search's live 10 minutes).
func (c *testClock) Step(d time.Duration, n int64) {
	if c.steps.Add(1)%n == 0 {
		c.AdvanceTo(c.start)
		return
	}
	c.Advance(d)
}
