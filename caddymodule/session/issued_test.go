package session

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// testClock is a clock that only moves when told to. (fakeclock.Clock
// does the same with timers; this package stays free of that dependency.)
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestRegistry(maxIDs int) (*Registry, *testClock) {
	clock := &testClock{t: t0}
	return NewRegistry(maxIDs, 24*time.Hour, clock.Now), clock
}

// checkList verifies the recency list against the map: same ids, linked
// both ways, most recently seen first. It fails the test on the first
// inconsistency.
func checkList(t *testing.T, g *Registry) []string {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	var order []string
	for e := g.head.next; e != &g.head; e = e.next {
		if e.next.prev != e {
			t.Fatalf("list broken after %q", e.id)
		}
		if g.ids[e.id] != e {
			t.Fatalf("%q in the list but not (or another entry) in the map", e.id)
		}
		if e.next != &g.head && e.next.seen.After(e.seen) {
			t.Fatalf("%q (seen %s) before %q (seen %s): not in recency order", e.id, e.seen, e.next.id, e.next.seen)
		}
		order = append(order, e.id)
		if len(order) > len(g.ids) {
			t.Fatalf("list longer than the map (%d)", len(g.ids))
		}
	}
	if len(order) != len(g.ids) {
		t.Fatalf("list holds %d ids, map %d", len(order), len(g.ids))
	}
	return order
}

// At the cap the least recently seen id goes, not the oldest issued one:
// an id the client keeps using survives however early it was issued.
func TestRegistryEvictsLeastRecentlySeen(t *testing.T) {
	g, clock := newTestRegistry(3)
	for _, id := range []string{"a", "b", "c"} {
		g.Add(id, "c")
		clock.Advance(time.Second)
	}
	if !g.Has("a") { // a, issued first, is now the most recently seen
		t.Fatal("a not found")
	}
	clock.Advance(time.Second)
	g.Add("d", "c") // evicts b, the least recently seen
	if g.Has("b") {
		t.Fatal("b survived; it was the least recently seen")
	}
	for _, id := range []string{"a", "c", "d"} {
		if !g.Has(id) {
			t.Fatalf("%s evicted, want only b gone", id)
		}
		clock.Advance(time.Second)
	}
	// Seen in the order a, c, d: e evicts a, f evicts c.
	g.Add("e", "c")
	g.Add("f", "c")
	if g.Has("a") || g.Has("c") || !g.Has("d") || !g.Has("e") || !g.Has("f") {
		t.Fatalf("after e, f: want d, e, f; have %v", checkList(t, g))
	}
	if g.Len() != 3 {
		t.Fatalf("Len %d, want the cap 3", g.Len())
	}
}

// The same at the production cap, with a made-up id flood pushing: an id
// seen recently survives 100,000 newer ids minus one, and no more.
func TestRegistryRecentSurvivesFloodAtCap(t *testing.T) {
	const capIDs = 100_000
	g, clock := newTestRegistry(capIDs)
	g.Add("kept", "c")
	g.Add("dropped", "c")
	for i := range capIDs - 2 {
		g.Add("s"+strconv.Itoa(i), "c")
	}
	clock.Advance(time.Minute)
	if !g.Has("kept") { // seen now: the most recent of all
		t.Fatal("kept missing before the flood")
	}
	for i := range capIDs - 1 {
		g.Add("flood-"+strconv.Itoa(i), "c")
	}
	if g.Len() != capIDs {
		t.Fatalf("Len %d, want the cap %d", g.Len(), capIDs)
	}
	if g.Has("dropped") {
		t.Fatal("dropped, the least recently seen, survived")
	}
	if !g.Has("kept") {
		t.Fatal("kept, seen before the flood, was evicted with 99,999 newer ids")
	}
	checkList(t, g)
}

// Sights less than touchEvery apart are one sight (one request looks its
// id up several times); the list stays sorted by last sight either way.
func TestRegistrySightGranularity(t *testing.T) {
	g, clock := newTestRegistry(2)
	g.Add("a", "c")
	clock.Advance(time.Millisecond)
	g.Add("b", "c")
	clock.Advance(500 * time.Millisecond)
	g.Has("a") // 0.5 s after a's sight: not a new one
	if got := fmt.Sprint(checkList(t, g)); got != "[b a]" {
		t.Fatalf("order %s, want [b a]", got)
	}
	clock.Advance(500 * time.Millisecond)
	g.Has("a") // 1 s after: a new sight, a to the front
	if got := fmt.Sprint(checkList(t, g)); got != "[a b]" {
		t.Fatalf("order %s, want [a b]", got)
	}
	g.Add("c", "c") // evicts b
	if g.Has("b") || !g.Has("a") || !g.Has("c") {
		t.Fatalf("after c: %v, want a and c", checkList(t, g))
	}
}

func TestRegistryIdleExpiry(t *testing.T) {
	g, clock := newTestRegistry(10)
	g.Add("old", "c")
	clock.Advance(12 * time.Hour)
	g.Add("young", "c")
	clock.Advance(12 * time.Hour) // old idle exactly 24h: still live
	if !g.Has("old") {
		t.Fatal("old gone at exactly the idle time")
	}
	clock.Advance(24*time.Hour + time.Nanosecond) // both idle past 24h
	if g.Has("young") {
		t.Fatal("young live after 36h idle")
	}
	// Expired ids still held are dropped from the tail by the next Add.
	if g.Len() != 1 {
		t.Fatalf("Len %d, want old still held until looked at", g.Len())
	}
	g.Add("new", "c")
	if g.Len() != 1 || !g.Has("new") {
		t.Fatalf("after Add: %v, want only new", checkList(t, g))
	}
}

func TestRegistryRemoveAndReAdd(t *testing.T) {
	g, clock := newTestRegistry(3)
	g.Add("a", "c")
	g.Add("b", "c")
	g.Remove("a", "c")
	g.Remove("a", "c")       // twice: no effect
	g.Remove("unknown", "c") // never issued: no effect
	if g.Has("a") || !g.Has("b") || g.Len() != 1 {
		t.Fatalf("after Remove: %v", checkList(t, g))
	}
	clock.Advance(time.Second)
	g.Add("b", "c") // a re-Add marks it seen, never duplicates it
	g.Add("c", "c")
	if got := checkList(t, g); fmt.Sprint(got) != "[c b]" {
		t.Fatalf("order %v, want [c b]", got)
	}
	if g := NewRegistry(0, time.Hour, nil); func() bool { g.Add("x", "c"); return !g.Has("x") }() {
		t.Fatal("a cap of 0 holds nothing; want at least one id")
	}
}

// Concurrent Add, Has and Remove at the cap keep the map and the list in
// step (run with -race).
func TestRegistryConcurrent(t *testing.T) {
	const capIDs = 500
	g, clock := newTestRegistry(capIDs)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				id := fmt.Sprintf("w%d-%d", w, i%700)
				switch i % 4 {
				case 0, 1:
					g.Add(id, "c")
				case 2:
					g.Has(id)
				case 3:
					g.Remove(fmt.Sprintf("w%d-%d", w, (i*7)%700), "c")
				}
				if i%1000 == 0 {
					clock.Advance(time.Second)
				}
			}
		}()
	}
	wg.Wait()
	if n := len(checkList(t, g)); n > capIDs {
		t.Fatalf("%d ids held, cap %d", n, capIDs)
	}
}

// BenchmarkRegistry measures the registry at the production cap of
// 100,000 ids, old (scan per eviction) and new (LRU list) side by side:
//
//	go test -run '^$' -bench Registry -benchtime 10001x -benchmem ./caddymodule/session/
//
// AddAtCap issues a new id into a full registry, so every Add evicts one.
// The old code evicted a tenth of the ids (10,001) in one Add, scanning
// the map once for each, and the next 10,000 Adds evicted nothing: a
// -benchtime of 10001x spans exactly one such cycle, so its ns/op is the
// honest average. AddAtCapLongest reports the longest single Add (the
// time every other session request waits for the lock). Has looks up a
// live id a second after it was last seen; HasPerRequest looks one id up
// three times, as one MCP request does.
func BenchmarkRegistry(b *testing.B) {
	const capIDs = 100_000
	type registry interface {
		Add(id, issuer string)
		Has(string) bool
	}
	impls := []struct {
		name string
		make func(now func() time.Time) registry
	}{
		{"before", func(now func() time.Time) registry { return newScanRegistry(capIDs, 24*time.Hour, now) }},
		{"after", func(now func() time.Time) registry { return NewRegistry(capIDs, 24*time.Hour, now) }},
	}
	ids := make([]string, 4*capIDs)
	for i := range ids {
		ids[i] = fmt.Sprintf("mcp-session-%08d-0000-4000-8000-000000000000", i)
	}
	for _, impl := range impls {
		// The registry's clock moves perCall on every reading: a
		// nanosecond while filling and adding, so the old code's "oldest"
		// is well defined; 0 where a benchmark moves it itself.
		var clock time.Time
		var perCall time.Duration
		tick := func() time.Time { clock = clock.Add(perCall); return clock }
		full := func() registry {
			clock, perCall = t0, time.Nanosecond
			g := impl.make(tick)
			for _, id := range ids[:capIDs] {
				g.Add(id, "c")
			}
			return g
		}
		b.Run("AddAtCap/"+impl.name, func(b *testing.B) {
			g := full()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.Add(ids[capIDs+i%(len(ids)-capIDs)], "c")
			}
		})
		// The longest single Add: how long every other request waits for
		// the lock while one Add evicts.
		b.Run("AddAtCapLongest/"+impl.name, func(b *testing.B) {
			g := full()
			var longest time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				g.Add(ids[capIDs+i%(len(ids)-capIDs)], "c")
				longest = max(longest, time.Since(start))
			}
			b.ReportMetric(float64(longest.Nanoseconds()), "longest-ns")
		})
		// A live id looked up a second after anything was last seen, so
		// every lookup records a new sight (the worst case for the list).
		b.Run("Has/"+impl.name, func(b *testing.B) {
			g := full()
			perCall = 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clock = clock.Add(time.Second)
				if !g.Has(ids[(i*7919)%capIDs]) {
					b.Fatal("live id not found")
				}
			}
		})
		// One MCP request: its id looked up three times in a row
		// (client_limit, the fair queue, mcp-go's validation).
		b.Run("HasPerRequest/"+impl.name, func(b *testing.B) {
			g := full()
			perCall = 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clock = clock.Add(time.Second)
				id := ids[(i*7919)%capIDs]
				if !g.Has(id) || !g.Has(id) || !g.Has(id) {
					b.Fatal("live id not found")
				}
			}
		})
	}
}

// An id belongs to the connector that issued it: another connector does
// not know it, cannot end it, and cannot take it over by adding it again;
// the other modules still see it as a real session (Has).
func TestRegistryIssuerOwnsID(t *testing.T) {
	g, _ := newTestRegistry(10)
	g.Add("s1", "raad")
	if !g.IssuedBy("s1", "raad") || g.IssuedBy("s1", "rijk") || g.IssuedBy("s1", "") {
		t.Fatal("s1 must be raad's alone")
	}
	if !g.Has("s1") {
		t.Fatal("an issued id must be a real session for the fair queue and the limits")
	}
	if g.Remove("s1", "rijk") || !g.IssuedBy("s1", "raad") {
		t.Fatal("rijk ended raad's session")
	}
	g.Add("s1", "rijk")
	if g.IssuedBy("s1", "rijk") || !g.IssuedBy("s1", "raad") || g.Len() != 1 {
		t.Fatal("a second Add under another name moved or duplicated the id")
	}
	if !g.Remove("s1", "raad") || g.Has("s1") || g.IssuedBy("s1", "raad") {
		t.Fatal("raad could not end its own session")
	}
}

// Hostile: a foreign connector's look-ups of an id neither keep it alive
// nor reorder it, so probing ids at one connector cannot hold another's
// sessions in the registry; and look-ups of made-up ids add nothing.
func TestRegistryForeignAndMadeUpLookups(t *testing.T) {
	g, clock := newTestRegistry(3)
	g.Add("a", "raad")
	g.Add("b", "raad")
	clock.Advance(2 * time.Second)
	for range 10 {
		g.IssuedBy("a", "rijk") // not a sight: a stays the least recent
	}
	g.Add("c", "raad")
	g.Add("d", "raad") // evicts a, not b
	if g.Has("a") || !g.Has("b") {
		t.Fatal("a foreign look-up counted as a sight")
	}
	for i := range 5000 {
		id := fmt.Sprintf("mcp-session-made-up-%d", i)
		if g.Has(id) || g.IssuedBy(id, "raad") {
			t.Fatalf("made-up %s known", id)
		}
	}
	if got := checkList(t, g); len(got) != 3 {
		t.Fatalf("registry holds %v after made-up look-ups", got)
	}
}
