package inbound

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// busyRedis is how long the tests that judge the shared buckets let a
// Redis call take: far past the 150 ms default, so a busy machine (CI
// runs the cluster pass beside other jobs) never sends an instance to its
// local share, whose answers differ. The cut test keeps the default.
const busyRedis = 5 * time.Second

// globalZones returns n zones acting as n instances: each with its own
// store on one Redis prefix and its session and address buckets there,
// on the caller's clock.
func globalZones(t *testing.T, n int, cfg Config, o sharedstore.Options) ([]*Zone, []*sharedstore.Store, string) {
	t.Helper()
	if o.Prefix == "" {
		o.Prefix = redistest.Prefix(t)
	}
	o.Instances = n
	zones := make([]*Zone, n)
	stores := make([]*sharedstore.Store, n)
	for i := range zones {
		stores[i] = redistest.Open(t, o)
		zones[i] = NewZone(cfg)
		zones[i].SetGlobal(NewGlobal(stores[i], "raad", cfg.MaxKeys, true))
	}
	return zones, stores, o.Prefix
}

func sameDecision(a, b Decision) bool {
	a.Tier, b.Tier = 0, 0
	return a == b
}

// Requests spread at random over two instances get exactly the decisions
// one instance gives for the same arrivals: allowed or not, the layer,
// Retry-After, and the RateLimit figures. (Arrivals fall on whole
// microseconds, the global buckets' unit.)
func TestGlobalMatchesOneInstance(t *testing.T) {
	cfg := Config{Session: lim(2*time.Second, 3), Address: lim(time.Second, 5), MaxKeys: 1000}
	zones, _, prefix := globalZones(t, 2, cfg, sharedstore.Options{Timeout: busyRedis})
	one := NewZone(cfg)
	rng := rand.New(rand.NewPCG(13, 6))
	clients := []Client{
		{Address: "addr:a"}, {Session: "mcp:a1", Address: "addr:a"}, {Session: "mcp:a2", Address: "addr:a"},
		{Address: "addr:b"}, {Session: "mcp:b1", Address: "addr:b"},
		{Session: "mcp:trusted", Address: ""}, // a trusted source's session
	}
	now := t0
	passed := 0
	for i := range 1500 {
		now = now.Add(time.Duration(rng.Int64N(300_000)) * time.Microsecond)
		c := clients[rng.IntN(len(clients))]
		want := one.Allow(now, nil, c)
		got := zones[rng.IntN(2)].Allow(now, nil, c)
		if !sameDecision(got, want) {
			t.Fatalf("request %d (%+v at %s): two instances %+v, one instance %+v", i, c, now.Sub(t0), got, want)
		}
		if got.Tier != TierShared {
			t.Fatalf("request %d judged in tier %s", i, got.Tier)
		}
		if got.Allowed {
			passed++
		}
	}
	if passed < 300 || passed > 1400 {
		t.Fatalf("%d of 1500 passed: the workload does not exercise the limits", passed)
	}
	checkTTLs(t, prefix)
}

// checkTTLs fails if a key under prefix lacks a TTL or is not tagged.
func checkTTLs(t *testing.T, prefix string) {
	t.Helper()
	for k, ttl := range redistest.Keys(t, prefix) {
		if ttl <= 0 {
			t.Fatalf("%s: no TTL (%s)", k, ttl)
		}
		if !strings.HasPrefix(k, "{"+prefix+":in:raad:") {
			t.Fatalf("%s: not under the zone's hash tag", k)
		}
	}
}

// Hostile: one address opens many sessions and spreads them over two
// instances. Together they pass the address's limit once, not once per
// instance (two instances without a shared store pass it twice).
func TestGlobalManySessionsOneAddress(t *testing.T) {
	cfg := Config{Session: lim(6*time.Second, 10), Address: lim(3*time.Second, 20), MaxKeys: 1000}
	zones, _, prefix := globalZones(t, 2, cfg, sharedstore.Options{Timeout: busyRedis})
	apart := []*Zone{NewZone(cfg), NewZone(cfg)}
	count := func(zs []*Zone, now time.Time) (passed int) {
		for i := range 400 {
			c := Client{Session: fmt.Sprintf("mcp:s%d", i%40), Address: "addr:203.0.113.9"}
			if zs[i%2].Allow(now, nil, c).Allowed {
				passed++
			}
		}
		return passed
	}
	if g, a := count(zones, t0), count(apart, t0); g != 20 || a != 40 {
		t.Fatalf("at once: %d passed across shared instances (want the address burst 20), %d across separate ones (want 40)", g, a)
	}
	// A minute on: 20 more tokens at one per 3 s, none more.
	if g := count(zones, at(time.Minute)); g != 20 {
		t.Fatalf("a minute later %d passed, want 20", g)
	}
	// One session alone is held to the session's limit across both.
	if n := func() (n int) {
		for i := range 50 {
			if zones[i%2].Allow(at(time.Hour), nil, Client{Session: "mcp:one", Address: "addr:198.51.100.7"}).Allowed {
				n++
			}
		}
		return n
	}(); n != 10 {
		t.Fatalf("one session over two instances passed %d, want its burst 10", n)
	}
	checkTTLs(t, prefix)
}

// A request the store refuses takes nothing there and gives back what it
// reserved in the local layers; a request a local layer refuses takes
// nothing in the store.
func TestGlobalRefusalTakesNothing(t *testing.T) {
	cfg := Config{Connector: lim(time.Hour, 5), Session: lim(time.Hour, 3), Address: lim(time.Hour, 3), MaxKeys: 100}
	zones, _, _ := globalZones(t, 1, cfg, sharedstore.Options{Timeout: busyRedis})
	z := zones[0]
	for i := range 3 {
		if !z.Allow(t0, nil, Client{Address: "addr:a"}).Allowed {
			t.Fatalf("request %d refused", i)
		}
	}
	d := z.Allow(t0, nil, Client{Session: "mcp:x", Address: "addr:a"})
	if d.Allowed || d.Layer != LayerAddress || d.RefusedBy(LayerSession) || d.RetryAfter != time.Hour {
		t.Fatalf("over the address: %+v", d)
	}
	// The session's token was not taken, nor the connector's: the
	// connector has 2 left, the session all 3.
	for i := range 2 {
		if d := z.Allow(t0, nil, Client{Session: "mcp:x", Address: "addr:b"}); !d.Allowed {
			t.Fatalf("request %d from b: %+v", i, d)
		}
	}
	d = z.Allow(t0, nil, Client{Session: "mcp:x", Address: "addr:b"})
	if d.Allowed || d.Layer != LayerConnector || d.RefusedBy(LayerSession) || d.RefusedBy(LayerAddress) {
		t.Fatalf("the connector should refuse now, alone: %+v", d)
	}
	// The connector's refusal took nothing in the store: once the
	// connector has a token again, session x has its last one.
	d = z.Allow(at(time.Hour), nil, Client{Session: "mcp:x", Address: "addr:c"})
	if !d.Allowed {
		t.Fatalf("after the connector refilled: %+v", d)
	}
}

// Redis cut: the instance keeps serving on its local share (limit ÷
// instances), says so in its tier, and rejoins the global buckets by
// itself when Redis answers again.
func TestGlobalRedisCut(t *testing.T) {
	proxy := redistest.NewProxy(t)
	cfg := Config{Session: lim(time.Minute, 10), Address: lim(time.Minute, 10), MaxKeys: 100}
	zones, stores, prefix := globalZones(t, 2, cfg, sharedstore.Options{URL: proxy.URL(), ProbeEvery: 10 * time.Millisecond})
	z := zones[0]
	c := Client{Address: "addr:a"}
	for range 4 {
		if d := z.Allow(t0, nil, c); !d.Allowed || d.Tier != TierShared {
			t.Fatalf("before the cut: %+v", d)
		}
	}
	proxy.Cut()
	passed := 0
	for range 20 {
		d := z.Allow(t0, nil, c)
		if d.Tier != TierShare {
			t.Fatalf("during the cut: tier %s", d.Tier)
		}
		if d.Allowed {
			passed++
		} else if d.RetryAfter != 2*time.Minute {
			t.Fatalf("refusal on the share: %+v, want Retry-After 2m (one token of 10/min ÷ 2)", d)
		}
	}
	if passed != 5 {
		t.Fatalf("%d passed on the local share, want 10 ÷ 2 instances = 5", passed)
	}
	if st := z.Global().Stats(); st.Local != 20 || st.Shared != 4 {
		t.Fatalf("stats %+v", st)
	}
	proxy.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for !stores[0].Healthy() || !stores[1].Healthy() {
		if time.Now().After(deadline) {
			t.Fatal("no rejoin")
		}
		time.Sleep(5 * time.Millisecond) // polling for the probe's rejoin
	}
	// Back on the global bucket, which kept its 6 tokens.
	passed = 0
	for range 10 {
		if d := z.Allow(t0, nil, c); d.Allowed {
			passed++
		} else if d.Tier != TierShared {
			t.Fatalf("after the rejoin: tier %s", d.Tier)
		}
	}
	if passed != 6 {
		t.Fatalf("after the rejoin %d passed, want the global bucket's 6 left", passed)
	}
	checkTTLs(t, prefix)
}

// One request through the global session and address buckets (one script
// call to the local Redis), allowed; and the same while the store is
// degraded (the local share, no Redis call).
func BenchmarkGlobalAllow(b *testing.B) {
	for _, mode := range []string{"shared", "degraded"} {
		b.Run(mode, func(b *testing.B) {
			o := sharedstore.Options{Instances: 2}
			var proxy *redistest.Proxy
			if mode == "degraded" {
				proxy = redistest.NewProxy(b)
				o.URL, o.ProbeEvery = proxy.URL(), time.Hour
			}
			st := redistest.Open(b, o)
			z, p := benchZone(1_000_000)
			z.SetGlobal(NewGlobal(st, "bench", 1_000_000, false))
			if proxy != nil {
				proxy.Cut()
				z.Allow(t0, p, Client{Address: "addr:x"}) // meets the cut
			}
			ks := keys(1024)
			now := t0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				now = now.Add(2 * time.Microsecond)
				if d := z.Allow(now, p, Client{Session: "mcp:s" + ks[i&1023][5:], Address: ks[i&1023]}); !d.Allowed {
					b.Fatal("refused", d)
				}
			}
		})
	}
}
