package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// These tests run several Stores on one Redis prefix: each is one
// instance (its own Redis connection, its own local tiers).

// instance opens one cache instance of platform obv on prefix (through
// url when not empty: a proxy the test cuts).
func instance(t *testing.T, prefix, url string, c *clock, version string) *Store {
	t.Helper()
	// A generous deadline: these tests are about coordination, and a
	// loaded test machine must not turn them into degraded-mode tests
	// (those cut Redis off through a proxy).
	ss := redistest.Open(t, sharedstore.Options{Prefix: prefix, URL: url, ProbeEvery: 10 * time.Millisecond, Timeout: 2 * time.Second})
	s, err := Open(Options{Platform: "obv", Version: version, Dir: t.TempDir(), MemoryBytes: 8 << 20, MaxBody: 1 << 20, Clock: c.Now, SweepEvery: -1,
		Shared: NewRedisShared(ss, "obv", RedisSharedOptions{Poll: 5 * time.Millisecond})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// gate holds an upstream until open; a test that fails before it opens
// the gate has it opened by its cleanup, which runs before the instances'
// Close (cleanups run last-in first-out), so a failure is reported
// instead of Close waiting for ever on a request still held.
func gate(t *testing.T) (release chan struct{}, open func()) {
	release = make(chan struct{})
	var once sync.Once
	open = func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	return release, open
}

func redisShared(s *Store) *RedisShared { return s.SharedTier().(*RedisShared) }

// eventually polls cond (without sleeping) until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // a bounded poll for an event, not a wait for time to pass
	}
}

func followers(t *testing.T, s *Store, key string) int64 {
	n, err := redisShared(s).Followers(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSharedMissOnOneIsAHitOnAnother(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	u := okUpstream(`{"a":1}`, "X-Upstream", "yes")
	if r := do(t, s1, listPolicy, u, get("/api/x?b=2&a=1")); r.Code != 200 {
		t.Fatal(r.Code)
	}
	c.Advance(30 * time.Second)
	r := do(t, s2, listPolicy, u, get("/api/x?a=1&b=2"))
	if u.calls.Load() != 1 {
		t.Fatalf("upstream calls %d, want 1", u.calls.Load())
	}
	if r.Code != 200 || r.Body.String() != `{"a":1}` || r.Header().Get("X-Upstream") != "yes" || r.Header().Get("Age") != "30" {
		t.Fatalf("shared hit: %d %q %v", r.Code, r.Body.String(), r.Header())
	}
	if got := r.Header().Get(cachestatus.Header); got != "BesluitBron; hit; ttl=86370" {
		t.Fatalf("Cache-Status %q", got)
	}
	st := s2.Stats()
	if st.Shared == nil || st.Shared.Hits != 1 || st.Hits != 1 || st.Shared.Mode != "shared" {
		t.Fatalf("stats %+v %+v", st, st.Shared)
	}
	noSharedErrors(t, s1, s2)
	// Now local: the next hit never asks Redis.
	do(t, s2, listPolicy, u, get("/api/x?a=1&b=2"))
	if st := s2.Stats(); st.Shared.Hits != 1 || st.Shared.Misses != 0 || st.Hits != 2 {
		t.Fatalf("second hit went to the shared tier: %+v", st.Shared)
	}
}

func TestShared200MissesOverThreeInstancesOneUpstreamCall(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	stores := []*Store{instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")}
	body := strings.Repeat("0123456789", 800)
	release, open := gate(t)
	u := blockingUpstream(body, release)
	const n = 200
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); recs[i] = do(t, stores[i%3], listPolicy, u, get("/big")) }(i)
	}
	eventually(t, "200 callers waiting", func() bool {
		w := stores[0].Waiting() + stores[1].Waiting() + stores[2].Waiting()
		if u.calls.Load() > 1 {
			t.Fatalf("%d upstream calls, waiting %d, shared %+v %+v %+v", u.calls.Load(), w, stores[0].Stats().Shared, stores[1].Stats().Shared, stores[2].Stats().Shared)
		}
		return w == n && u.calls.Load() == 1
	})
	open()
	wg.Wait()
	if u.calls.Load() != 1 {
		// The tiers' figures say why: a takeover (a lease that lapsed) or
		// Redis errors (a degraded instance asks for itself, by design).
		t.Fatalf("%d upstream calls for %d identical misses over 3 instances; shared %+v %+v %+v", u.calls.Load(), n,
			stores[0].Stats().Shared, stores[1].Stats().Shared, stores[2].Stats().Shared)
	}
	for i, r := range recs {
		if r.Code != 200 || r.Body.String() != body {
			t.Fatalf("caller %d: %d, %d bytes", i, r.Code, r.Body.Len())
		}
	}
	var leads, remote int64
	for _, s := range stores {
		st := s.Stats()
		leads += st.Shared.Leads
		remote += st.Shared.Coalesced
	}
	if leads != 1 {
		t.Fatalf("leases taken %d, want 1", leads)
	}
	noSharedErrors(t, stores...)
	assertTTLs(t, prefix)
}

func TestSharedLeaderCrashOtherTakesOver(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s2 := instance(t, prefix, "", c, "1")
	key := testKey("obv", get("/doc"), nil)
	rs := redisShared(s2)
	// An instance took the lease and died: no renewal, no answer.
	ctx := context.Background()
	if err := rs.Backend().Do(ctx, func(ctx context.Context, cl redis.UniversalClient) error {
		return cl.Set(ctx, rs.leaseKey(key), "dead-instance:0", time.Minute).Err()
	}); err != nil {
		t.Fatal(err)
	}
	u := okUpstream("fresh")
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- do(t, s2, listPolicy, u, get("/doc")) }()
	eventually(t, "s2 waits for the dead leader", func() bool { return followers(t, s2, key) == 1 })
	if u.calls.Load() != 0 {
		t.Fatal("asked the platform while another instance held the lease")
	}
	// The dead leader's lease lapses (its TTL ends; here at once).
	if err := rs.Backend().Do(ctx, func(ctx context.Context, cl redis.UniversalClient) error {
		return cl.PExpire(ctx, rs.leaseKey(key), time.Millisecond).Err()
	}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Code != 200 || r.Body.String() != "fresh" || u.calls.Load() != 1 {
		t.Fatalf("takeover: %d %q, calls %d", r.Code, r.Body.String(), u.calls.Load())
	}
	if st := s2.Stats().Shared; st.Takeovers != 1 || st.Leads != 1 {
		t.Fatalf("stats %+v", st)
	}
	assertTTLs(t, prefix)
}

func TestSharedLeaderHangingUpDoesNotCutOffOtherInstances(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2, s3 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	body := strings.Repeat("abcdefghij", 500)
	release, open := gate(t)
	u := blockingUpstream(body, release)
	key := testKey("obv", get("/doc"), nil)

	leaderCtx, hangUp := context.WithCancel(context.Background())
	leaderDone := make(chan error, 1)
	go func() {
		leaderDone <- s1.Serve(httptest.NewRecorder(), get("/doc").WithContext(leaderCtx), listPolicy, u, nil)
	}()
	eventually(t, "s1 asks the platform", func() bool { return u.calls.Load() == 1 })
	followerDone := make(chan *httptest.ResponseRecorder, 1)
	go func() { followerDone <- do(t, s2, listPolicy, u, get("/doc")) }()
	eventually(t, "s2 waits", func() bool { return followers(t, s2, key) == 1 })
	hangUp()
	eventually(t, "s1 keeps the request for s2", func() bool { return s1.Stats().Shared.KeptForRemote == 1 })
	open()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	r := <-followerDone
	if r.Code != 200 || r.Body.String() != body {
		t.Fatalf("remote follower cut off: %d, %d bytes", r.Code, r.Body.Len())
	}
	if !strings.Contains(r.Header().Get(cachestatus.Header), "collapsed") {
		t.Fatalf("Cache-Status %q", r.Header().Get(cachestatus.Header))
	}
	if r := do(t, s3, listPolicy, u, get("/doc")); r.Body.String() != body || !strings.Contains(r.Header().Get(cachestatus.Header), "hit") {
		t.Fatalf("s3: %q", r.Header().Get(cachestatus.Header))
	}
	if u.calls.Load() != 1 {
		t.Fatalf("upstream calls %d", u.calls.Load())
	}
	noSharedErrors(t, s1, s2, s3)
}

func TestSharedUnstorableAnswerReachesWaitingInstances(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	release, open := gate(t)
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		<-release
		w.Header().Set("Retry-After", "7")
		w.Header().Set("Content-Length", "4")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "busy")
		return nil
	}}
	key := testKey("obv", get("/s"), nil)
	first := make(chan *httptest.ResponseRecorder, 1)
	go func() { first <- do(t, s1, listPolicy, u, get("/s")) }()
	eventually(t, "s1 leads", func() bool { return u.calls.Load() == 1 })
	second := make(chan *httptest.ResponseRecorder, 1)
	go func() { second <- do(t, s2, listPolicy, u, get("/s")) }()
	eventually(t, "s2 waits", func() bool { return followers(t, s2, key) == 1 })
	open()
	for _, r := range []*httptest.ResponseRecorder{<-first, <-second} {
		if r.Code != 503 || r.Body.String() != "busy" || r.Header().Get("Retry-After") != "7" {
			t.Fatalf("%d %q %v", r.Code, r.Body.String(), r.Header())
		}
	}
	if u.calls.Load() != 1 {
		t.Fatalf("calls %d", u.calls.Load())
	}
	// Not stored: the next request asks again.
	r := do(t, s2, listPolicy, u, get("/s"))
	if u.calls.Load() != 2 {
		t.Fatalf("an unstorable answer was served later: calls %d, %q", u.calls.Load(), r.Header().Get(cachestatus.Header))
	}
	noSharedErrors(t, s1, s2)
}

func TestSharedBudgetRefusalIsNotShared(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	release, open := gate(t)
	var mu sync.Mutex
	n := 0
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			<-release
			return &fairqueue.Rejection{Reason: fairqueue.ReasonQueueFull, RetryAfter: 5 * time.Second}
		}
		return okUpstream("mine").handler(w, r)
	}}
	key := testKey("obv", get("/b"), nil)
	first := make(chan error, 1)
	go func() { first <- s1.Serve(httptest.NewRecorder(), get("/b"), listPolicy, u, nil) }()
	eventually(t, "s1 leads", func() bool { return u.calls.Load() == 1 })
	second := make(chan *httptest.ResponseRecorder, 1)
	go func() { second <- do(t, s2, listPolicy, u, get("/b")) }()
	eventually(t, "s2 waits", func() bool { return followers(t, s2, key) == 1 })
	open()
	if err := <-first; !isRejection(err) {
		t.Fatalf("leader: %v", err)
	}
	if r := <-second; r.Code != 200 || r.Body.String() != "mine" {
		t.Fatalf("s2 got another session's refusal: %d %q", r.Code, r.Body.String())
	}
	if u.calls.Load() != 2 {
		t.Fatalf("calls %d", u.calls.Load())
	}
	noSharedErrors(t, s1, s2)
}

func TestSharedPurgeClearsEveryInstance(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	u := okUpstream("x")
	do(t, s1, listPolicy, u, get("/a"))
	do(t, s2, listPolicy, u, get("/a")) // now in s2's local tiers too
	if s2.Stats().MemoryEntries != 1 || u.calls.Load() != 1 {
		t.Fatalf("setup: %+v", s2.Stats())
	}
	if err := s1.Purge(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "s2 clears its local tiers", func() bool {
		st := s2.Stats()
		return st.Shared.PurgesReceived == 1 && st.MemoryEntries == 0 && st.HotEntries == 0
	})
	do(t, s2, listPolicy, u, get("/a"))
	if u.calls.Load() != 2 {
		t.Fatalf("a purged entry was served: calls %d", u.calls.Load())
	}
	do(t, s1, listPolicy, u, get("/a"))
	if u.calls.Load() != 2 {
		t.Fatalf("the entry stored after the purge is not shared: calls %d", u.calls.Load())
	}
	assertTTLs(t, prefix)
	noSharedErrors(t, s1, s2)
}

func TestSharedPurgeMissedIsFoundByARead(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	u := okUpstream("x")
	do(t, s1, listPolicy, u, get("/a"))
	do(t, s2, listPolicy, u, get("/a"))
	// s2 misses the notice: another instance sets a new generation
	// without telling anyone.
	rs := redisShared(s1)
	if err := rs.Backend().Do(context.Background(), func(ctx context.Context, cl redis.UniversalClient) error {
		return cl.Set(ctx, rs.genKey(), "g2", time.Hour).Err()
	}); err != nil {
		t.Fatal(err)
	}
	do(t, s2, listPolicy, u, get("/other")) // a local miss reads the generation
	eventually(t, "s2 clears its local tiers", func() bool {
		st := s2.Stats()
		return st.Shared.PurgesReceived == 1 && st.DiskEntries <= 1 && st.HotEntries <= 1
	})
	e, _ := s2.getLocal(testKey("obv", get("/a"), nil), "", c.Now())
	if e != nil {
		t.Fatal("an entry from before the purge is still local")
	}
}

func TestSharedOtherVersionDroppedFromRedis(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	old, cur := instance(t, prefix, "", c, "1.0"), instance(t, prefix, "", c, "2.0")
	do(t, old, listPolicy, okUpstream("old"), get("/v"))
	u := okUpstream("new")
	r := do(t, cur, listPolicy, u, get("/v"))
	if r.Body.String() != "new" || u.calls.Load() != 1 || !strings.Contains(r.Header().Get(cachestatus.Header), "detail=other-version") {
		t.Fatalf("%q %q", r.Body.String(), r.Header().Get(cachestatus.Header))
	}
	if cur.Stats().VersionDrops != 1 {
		t.Fatalf("drops %d", cur.Stats().VersionDrops)
	}
	// The new version's entry replaced it: a third instance of 2.0 hits.
	third := instance(t, prefix, "", c, "2.0")
	if r := do(t, third, listPolicy, u, get("/v")); r.Body.String() != "new" || u.calls.Load() != 1 {
		t.Fatalf("%q calls %d", r.Body.String(), u.calls.Load())
	}
	// The 1.0 instance finds 2.0's entry in Redis (after its own local
	// copy expires from memory) as another version and drops it there.
	rs := redisShared(cur)
	key := testKey("obv", get("/v"), nil)
	if err := old.purgeLocal(); err != nil {
		t.Fatal(err)
	}
	do(t, old, listPolicy, okUpstream("old"), get("/v"))
	var exists int64
	_ = rs.Backend().Do(context.Background(), func(ctx context.Context, cl redis.UniversalClient) error {
		v, err := cl.Get(ctx, rs.entryKey(rs.generation(), key)).Bytes()
		if err == nil {
			if ver, _ := peekVersion(v); ver == "1.0" {
				exists = 1
			}
		}
		return nil
	})
	if exists != 1 || old.Stats().VersionDrops != 1 {
		t.Fatalf("1.0 did not drop 2.0's entry and store its own: %d drops", old.Stats().VersionDrops)
	}
}

func TestSharedRedisCutMidFlightStillAnswers(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	proxy := redistest.NewProxy(t)
	s1 := instance(t, prefix, proxy.URL(), c, "1")
	u0 := okUpstream("kept")
	do(t, s1, listPolicy, u0, get("/kept"))
	release, open := gate(t)
	u := blockingUpstream(strings.Repeat("m", 1000), release)
	key := testKey("obv", get("/mid"), nil)
	const n = 5
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); recs[i] = do(t, s1, listPolicy, u, get("/mid")) }(i)
	}
	waitWaiters(t, s1, key, n)
	eventually(t, "s1 asks the platform", func() bool { return u.calls.Load() == 1 })
	proxy.Cut()
	open()
	wg.Wait()
	for i, r := range recs {
		if r.Code != 200 || r.Body.Len() != 1000 {
			t.Fatalf("caller %d failed because Redis did: %d", i, r.Code)
		}
	}
	eventually(t, "degraded", func() bool { return s1.Stats().Shared.Mode == "degraded" })
	// Degraded: local hits, and misses go to the platform.
	if r := do(t, s1, listPolicy, u0, get("/kept")); r.Body.String() != "kept" || u0.calls.Load() != 1 {
		t.Fatalf("local hit while degraded: %q calls %d", r.Body.String(), u0.calls.Load())
	}
	if r := do(t, s1, listPolicy, u0, get("/new")); r.Code != 200 || u0.calls.Load() != 2 {
		t.Fatalf("miss while degraded: %d", r.Code)
	}
	if st := s1.Stats().Shared; st.Errors == 0 {
		t.Fatalf("no shared errors counted: %+v", st)
	}
	proxy.Restore()
	eventually(t, "rejoined", func() bool { return s1.Stats().Shared.Mode == "shared" })
	do(t, s1, listPolicy, u0, get("/after"))
	other := instance(t, prefix, "", c, "1")
	if r := do(t, other, listPolicy, u0, get("/after")); r.Body.String() != "kept" || u0.calls.Load() != 3 {
		t.Fatalf("after rejoin not shared: calls %d", u0.calls.Load())
	}
}

func noSharedErrors(t *testing.T, stores ...*Store) {
	t.Helper()
	for i, s := range stores {
		if st := s.Stats().Shared; st.Errors != 0 || st.Skipped != 0 {
			t.Fatalf("instance %d: shared calls failed: %+v", i, st)
		}
	}
}

// assertTTLs checks that every key under prefix has a TTL.
func assertTTLs(t *testing.T, prefix string) {
	t.Helper()
	keys := redistest.Keys(t, prefix)
	if len(keys) == 0 {
		t.Fatal("no keys at all")
	}
	for k, ttl := range keys {
		if ttl <= 0 {
			t.Errorf("key %s has no TTL (%v)", k, ttl)
		}
	}
}

func TestSharedEveryKeyHasATTL(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	for i := 0; i < 5; i++ {
		do(t, s1, listPolicy, okUpstream("x"), get(fmt.Sprintf("/k%d", i)))
		do(t, s2, listPolicy, okUpstream("x"), get(fmt.Sprintf("/k%d", i)))
	}
	if err := s2.Purge(); err != nil {
		t.Fatal(err)
	}
	do(t, s1, listPolicy, okUpstream("x"), get("/after"))
	// An unstorable answer's key and the waiters' count.
	rs := redisShared(s1)
	key := testKey("obv", get("/w"), nil)
	if err := rs.Follow(context.Background(), key, 1); err != nil {
		t.Fatal(err)
	}
	if err := rs.Follow(context.Background(), key, -1); err != nil {
		t.Fatal(err)
	}
	do(t, s1, listPolicy, &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(500)
		return nil
	}}, get("/w"))
	assertTTLs(t, prefix)
}

func TestSingleInstanceHasNoSharedFigures(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	if s.Stats().Shared != nil || s.SharedTier() != nil {
		t.Fatal("shared figures without a shared tier")
	}
}

// An entry expired on one instance and fetched anew by another is a hit
// there: the expired local copy does not send it to the platform again.
func TestSharedRefreshByOneIsFreshForAll(t *testing.T) {
	prefix, c := redistest.Prefix(t), newClock()
	s1, s2 := instance(t, prefix, "", c, "1"), instance(t, prefix, "", c, "1")
	pol := listPolicy
	pol.StaleWhileRevalidate = 0
	u := okUpstream("v")
	do(t, s1, pol, u, get("/r"))
	do(t, s2, pol, u, get("/r")) // s2 holds it locally now
	c.Advance(pol.TTL + time.Minute)
	do(t, s1, pol, u, get("/r")) // expired: s1 fetches anew
	if u.calls.Load() != 2 {
		t.Fatalf("calls %d", u.calls.Load())
	}
	r := do(t, s2, pol, u, get("/r"))
	if u.calls.Load() != 2 || !strings.HasPrefix(r.Header().Get(cachestatus.Header), "BesluitBron; hit; ttl=") {
		t.Fatalf("s2 went to the platform again: calls %d, %q", u.calls.Load(), r.Header().Get(cachestatus.Header))
	}
	noSharedErrors(t, s1, s2)
}
