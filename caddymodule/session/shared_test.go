package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// instances returns n registries sharing one Redis prefix, as n instances
// would, each with its own clock.
func instances(t *testing.T, n int) ([]*Registry, []*testClock, string) {
	t.Helper()
	prefix := redistest.Prefix(t)
	regs := make([]*Registry, n)
	clocks := make([]*testClock, n)
	for i := range regs {
		st := redistest.Open(t, sharedstore.Options{Prefix: prefix, Instances: n})
		clocks[i] = &testClock{t: t0}
		regs[i] = NewRegistry(1000, 24*time.Hour, clocks[i].Now)
		regs[i].Share(st)
		t.Cleanup(func() { _ = regs[i].Destruct() })
	}
	return regs, clocks, prefix
}

const sid = "mcp-session-6f1d2a8e-0c1b-4e43-9d36-8b0a1c2d3e4f"

// An id issued on one instance is valid on the other, for its own
// connector only; made-up ids are unknown on both; every key has a TTL
// of the connector's idle time.
func TestSharedSessionValidEverywhere(t *testing.T) {
	regs, _, prefix := instances(t, 2)
	one, two := regs[0], regs[1]
	one.Issue(sid, "raad", time.Hour)

	if v := two.Check(sid, "raad"); v != Known {
		t.Fatalf("instance 2: Check(raad) = %v, want Known", v)
	}
	if two.Check(sid, "rijk") != Unknown || two.IssuedBy(sid, "rijk") {
		t.Fatal("instance 2 accepts raad's session at rijk")
	}
	if !two.Has(sid) || !two.IssuedBy(sid, "raad") {
		t.Fatal("instance 2: Has/IssuedBy false after the lookup")
	}
	for _, g := range regs {
		for _, id := range []string{"mcp-session-made-up", sid + "x", strings.Repeat("a", 200)} {
			if g.Check(id, "raad") != Unknown || g.Has(id) {
				t.Fatalf("made-up id %q accepted", id)
			}
		}
	}
	keys := redistest.Keys(t, prefix)
	if len(keys) != 1 {
		t.Fatalf("keys %v, want the one session", keys)
	}
	for k, ttl := range keys {
		if ttl <= 59*time.Minute || ttl > time.Hour {
			t.Fatalf("%s: TTL %s, want the connector's idle time (1h)", k, ttl)
		}
	}
	if st := two.SharedStatus(); st.Mode != "shared" || st.Found != 1 || st.Missed < 1 {
		t.Fatalf("status %+v", st)
	}
}

// A DELETE on instance 2 ends the session on instance 1: at once by the
// notice, and at the latest on instance 1's next refresh (clock moved on)
// if the notice was lost. A connector cannot end another's session.
func TestSharedSessionEndEverywhere(t *testing.T) {
	regs, clocks, prefix := instances(t, 2)
	one, two := regs[0], regs[1]

	// Refresh path: instance 1 does not listen (as if the notice were
	// lost); its next refresh, SharedTouchEvery later, finds the key gone.
	one.Issue(sid, "raad", time.Hour)
	deaf := one.sh.Load()
	deaf.unsub()
	if !two.IssuedBy(sid, "raad") {
		t.Fatal("instance 2 does not know the session")
	}
	if two.End(sid, "rijk") || !one.IssuedBy(sid, "raad") {
		t.Fatal("rijk ended raad's session")
	}
	if !two.End(sid, "raad") {
		t.Fatal("End reported no session")
	}
	if two.IssuedBy(sid, "raad") {
		t.Fatal("instance 2 still accepts the ended session")
	}
	if !one.IssuedBy(sid, "raad") {
		t.Fatal("instance 1 dropped it before its refresh without a notice")
	}
	clocks[0].Advance(SharedTouchEvery)
	if one.IssuedBy(sid, "raad") {
		t.Fatal("instance 1 still accepts the session after its refresh")
	}
	if len(redistest.Keys(t, prefix)) != 0 {
		t.Fatal("the ended session's key is left")
	}

	// Notice path: both listen; instance 1 forgets at once (the notice
	// is a hint, so poll for it, bounded).
	one.sh.Store(nil)
	one.Share(deaf.store) // listening again
	const id2 = sid + "-2"
	deadline := time.Now().Add(5 * time.Second)
	for {
		one.Issue(id2, "raad", time.Hour)
		if !two.IssuedBy(id2, "raad") {
			t.Fatal("instance 2 does not know the second session")
		}
		two.End(id2, "raad")
		for range 200 {
			if !one.knowsLocally(id2) {
				return
			}
			time.Sleep(5 * time.Millisecond) // waiting for the notice, not for time to pass
		}
		if time.Now().After(deadline) {
			t.Fatal("instance 1 never got the end notice")
		}
	}
}

func (g *Registry) knowsLocally(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.ids[id]
	return ok
}

// Use refreshes the key's TTL, at most once per SharedTouchEvery per id;
// an id idle on every instance for its TTL is gone everywhere.
func TestSharedSessionRefresh(t *testing.T) {
	regs, clocks, prefix := instances(t, 1)
	g := regs[0]
	g.Issue(sid, "raad", 2*time.Hour)
	key := prefix + ":sess:" + sid
	// As if most of its life had passed:
	if err := g.sh.Load().store.Client().PExpire(context.Background(), key, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	g.Has(sid) // within SharedTouchEvery of the issue: no refresh
	if ttl := redistest.Keys(t, prefix)[key]; ttl > time.Minute {
		t.Fatalf("refreshed too soon: TTL %s", ttl)
	}
	clocks[0].Advance(SharedTouchEvery)
	if !g.Has(sid) {
		t.Fatal("session lost")
	}
	if ttl := redistest.Keys(t, prefix)[key]; ttl <= time.Hour {
		t.Fatalf("not refreshed: TTL %s, want 2h", ttl)
	}
}

// Redis cut: a known session stays valid, an id issued meanwhile is valid
// here and written on rejoin, an unknown id is Unverified (accepted by a
// connector, no session for the limits), an end made meanwhile is made on
// rejoin; the registry rejoins by itself.
func TestSharedSessionRedisCut(t *testing.T) {
	prefix := redistest.Prefix(t)
	proxy := redistest.NewProxy(t)
	cut := redistest.Open(t, sharedstore.Options{URL: proxy.URL(), Prefix: prefix, ProbeEvery: 10 * time.Millisecond})
	other := redistest.Open(t, sharedstore.Options{Prefix: prefix})
	clock := &testClock{t: t0}
	g := NewRegistry(1000, 24*time.Hour, clock.Now)
	g.Share(cut)
	defer g.Destruct()
	o := NewRegistry(1000, 24*time.Hour, nil)
	o.Share(other)
	defer o.Destruct()

	const known, ended, fresh = sid + "-known", sid + "-ended", sid + "-fresh"
	g.Issue(known, "raad", time.Hour)
	g.Issue(ended, "raad", time.Hour)
	o.Issue(sid, "raad", time.Hour) // issued elsewhere, never seen here

	proxy.Cut()
	clock.Advance(SharedTouchEvery) // the next lookup refreshes: it meets the cut
	if !g.IssuedBy(known, "raad") {
		t.Fatal("a known session was refused while Redis is cut")
	}
	if cut.Healthy() {
		t.Fatal("store still healthy after a failed call")
	}
	if v := g.Check(sid, "raad"); v != Unverified || g.Has(sid) {
		t.Fatalf("unknown id while degraded: Check %v, Has %v; want Unverified, false", v, g.Has(sid))
	}
	g.Issue(fresh, "raad", time.Hour)
	if !g.IssuedBy(fresh, "raad") {
		t.Fatal("a session issued while Redis is cut is not valid here")
	}
	g.End(ended, "raad")
	if st := g.SharedStatus(); st.Mode != "degraded" || st.Pending != 2 || st.Unverified < 1 {
		t.Fatalf("status while cut: %+v", st)
	}

	proxy.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for g.SharedStatus().Pending != 0 || !cut.Healthy() {
		if time.Now().After(deadline) {
			t.Fatalf("no rejoin: %+v", g.SharedStatus())
		}
		time.Sleep(5 * time.Millisecond) // polling for the probe's rejoin
	}
	if !o.IssuedBy(fresh, "raad") {
		t.Fatal("the session issued during the cut is unknown elsewhere after the rejoin")
	}
	if o.Has(ended) {
		t.Fatal("the session ended during the cut is still known elsewhere")
	}
	if g.Check(sid, "raad") != Known {
		t.Fatal("after the rejoin the other instance's session is not Known")
	}
	for k, ttl := range redistest.Keys(t, prefix) {
		if ttl <= 0 {
			t.Fatalf("%s has no TTL", k)
		}
	}
}

// Without a shared store nothing changes: Check is IssuedBy, End is
// Remove, and the status says local.
func TestSharedNone(t *testing.T) {
	g, _ := newTestRegistry(10)
	g.Issue("a", "raad", time.Hour)
	if g.Check("a", "raad") != Known || g.Check("a", "rijk") != Unknown || g.Check("b", "raad") != Unknown {
		t.Fatal("Check without a store")
	}
	if g.End("a", "rijk") || !g.End("a", "raad") || g.Has("a") {
		t.Fatal("End without a store")
	}
	if g.SharedStatus().Mode != "local" {
		t.Fatal("mode")
	}
}

// A reload from one instance alone to a shared store keeps the sessions
// issued before it: they are written to the store on their next use,
// not taken for ended.
func TestSharedKeepsEarlierSessions(t *testing.T) {
	prefix := redistest.Prefix(t)
	g := NewRegistry(1000, 24*time.Hour, nil)
	defer g.Destruct()
	g.Issue(sid, "raad", time.Hour) // alone
	g.Share(redistest.Open(t, sharedstore.Options{Prefix: prefix}))
	if !g.IssuedBy(sid, "raad") {
		t.Fatal("the session issued before the store was lost")
	}
	other := NewRegistry(1000, 24*time.Hour, nil)
	defer other.Destruct()
	other.Share(redistest.Open(t, sharedstore.Options{Prefix: prefix}))
	if !other.IssuedBy(sid, "raad") {
		t.Fatal("the earlier session is unknown to the other instance after its use")
	}
	if ttl := redistest.Keys(t, prefix)[prefix+":sess:"+sid]; ttl <= 59*time.Minute {
		t.Fatalf("TTL %s, want 1h", ttl)
	}
}

// The hot path with a shared store: a lookup of an id this instance knows
// (no Redis call between refreshes), against the same lookup alone.
func BenchmarkSharedHas(b *testing.B) {
	for _, mode := range []string{"alone", "shared"} {
		b.Run(mode, func(b *testing.B) {
			g := NewRegistry(100_000, 24*time.Hour, nil)
			if mode == "shared" {
				g.Share(redistest.Open(b, sharedstore.Options{}))
				defer g.Destruct()
			}
			ids := make([]string, 1024)
			for i := range ids {
				ids[i] = sid + "-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + time.Duration(i).String()
				g.Issue(ids[i], "raad", time.Hour)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if !g.Has(ids[i&1023]) {
					b.Fatal("unknown")
				}
			}
		})
	}
}

// The inbound limits identify a request before any limit has judged it,
// so they must not ask Redis: 1,000 made-up ids cost no lookup there, and
// a session of another instance counts as its address until the
// connector (behind the limits) has looked it up.
func TestTrustedKeysAskNoSharedStore(t *testing.T) {
	regs, _, _ := instances(t, 2)
	one, two := regs[0], regs[1]
	one.Issue(sid, "raad", time.Hour)
	req := func(id string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp/raad", nil)
		r.Header.Set(MCPHeader, id)
		return r
	}
	for i := range 1000 {
		if s, _ := two.TrustedKeys(req(fmt.Sprintf("mcp-session-made-up-%d", i))); s != "" {
			t.Fatalf("a made-up id got session key %q", s)
		}
	}
	if s, _ := two.TrustedKeys(req(sid)); s != "" {
		t.Fatalf("instance 2 counted instance 1's session %q before knowing it", s)
	}
	if f := two.SharedStatus().Fetched; f != 0 {
		t.Fatalf("the inbound limits' identification made %d Redis lookups, want 0", f)
	}
	if two.Check(sid, "raad") != Known {
		t.Fatal("the connector's check did not find the session")
	}
	if s, _ := two.TrustedKeys(req(sid)); s != "mcp:"+sid {
		t.Fatalf("after the connector's lookup: session key %q", s)
	}
}
