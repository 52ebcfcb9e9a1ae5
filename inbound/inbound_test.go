package inbound

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func lim(every time.Duration, burst int) Limit { return Limit{Every: every, Burst: burst} }

func at(d time.Duration) time.Time { return t0.Add(d) }

// The bucket lets through exactly what golang.org/x/time/rate lets through
// for the same rate, burst and arrival times.
func TestBucketMatchesXTimeRate(t *testing.T) {
	for _, tc := range []struct {
		every time.Duration
		burst int
	}{{100 * time.Millisecond, 1}, {100 * time.Millisecond, 5}, {time.Second, 3}, {50 * time.Millisecond, 40}} {
		t.Run(fmt.Sprintf("%s/%d", tc.every, tc.burst), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.burst)))
			b := NewBucket(lim(tc.every, tc.burst))
			oracle := rate.NewLimiter(rate.Every(tc.every), tc.burst)
			now := t0
			for i := range 20000 {
				// Arrivals at odd nanoseconds, so no float rounding in the
				// oracle lands exactly on a refill boundary.
				now = now.Add(time.Duration(rng.Int64N(int64(tc.every)*2/int64(max(tc.burst/4, 1)))) | 1)
				want := oracle.AllowN(now, 1)
				if got := b.Allow(now); got != want {
					t.Fatalf("request %d at %s: bucket %v, x/time/rate %v", i, now.Sub(t0), got, want)
				}
			}
		})
	}
}

func TestBurstThenRetryAfter(t *testing.T) {
	z := NewZone(Config{Address: lim(time.Second, 3), MaxKeys: 100})
	for i := range 3 {
		if d := z.Allow(t0, nil, Client{Address: "addr:a"}); !d.Allowed || d.Remaining != 2-i {
			t.Fatalf("request %d: %+v, want allowed with %d left", i, d, 2-i)
		}
	}
	d := z.Allow(t0, nil, Client{Address: "addr:a"})
	if d.Allowed || d.Layer != LayerAddress || d.RetryAfter != time.Second || d.RetryAfterSeconds() != 1 {
		t.Fatalf("4th request: %+v, want refused by address, retry after 1s", d)
	}
	if d.Limit != 3 || d.Remaining != 0 || d.Reset != 3*time.Second || d.ResetSeconds() != 3 {
		t.Fatalf("4th request headers: %+v, want limit 3, remaining 0, reset 3s", d)
	}
	// 999ms later the wait is 1ms, still announced as 1 whole second.
	d = z.Allow(at(999*time.Millisecond), nil, Client{Address: "addr:a"})
	if d.Allowed || d.RetryAfter != time.Millisecond || d.RetryAfterSeconds() != 1 {
		t.Fatalf("at 999ms: %+v, want refused, retry after 1ms (1s)", d)
	}
	// Honouring Retry-After is enough.
	if d := z.Allow(at(time.Second), nil, Client{Address: "addr:a"}); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("at 1s: %+v, want allowed, 0 left", d)
	}
	// Another address has its own bucket.
	if d := z.Allow(t0, nil, Client{Address: "addr:b"}); !d.Allowed {
		t.Fatalf("other address: %+v", d)
	}
}

func TestRetryAfterIsLongestOverRefusingLayers(t *testing.T) {
	process := NewBucket(lim(2*time.Second, 1))
	z := NewZone(Config{Connector: lim(time.Second, 1), Session: lim(5*time.Second, 1), MaxKeys: 100})
	if d := z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:one"}); !d.Allowed {
		t.Fatalf("first: %+v", d)
	}
	d := z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:one"})
	if d.Allowed || d.Layer != LayerSession || d.RetryAfter != 5*time.Second {
		t.Fatalf("second: %+v, want refused by session with 5s", d)
	}
	for _, l := range []Layer{LayerSession, LayerConnector, LayerProcess} {
		if !d.RefusedBy(l) {
			t.Errorf("layer %s not in Refused %b", l, d.Refused)
		}
	}
	// A new session is refused by the process (2s) and connector (1s).
	d = z.Allow(t0, process, Client{Session: "mcp:other", Address: "addr:one"})
	if d.Allowed || d.Layer != LayerProcess || d.RetryAfter != 2*time.Second || d.RefusedBy(LayerSession) {
		t.Fatalf("other session: %+v, want refused by process with 2s", d)
	}
	// At 1.5s the connector has room but the process not yet.
	d = z.Allow(at(1500*time.Millisecond), process, Client{Session: "mcp:other", Address: "addr:one"})
	if d.Allowed || d.Layer != LayerProcess || d.RetryAfter != 500*time.Millisecond || d.RefusedBy(LayerConnector) {
		t.Fatalf("other session at 1.5s: %+v, want refused by process only, 500ms", d)
	}
	if d := z.Allow(at(2*time.Second), process, Client{Session: "mcp:other", Address: "addr:one"}); !d.Allowed {
		t.Fatalf("other session at 2s: %+v", d)
	}
}

// A refused request consumes nothing in any layer, whichever layer refuses.
func TestRefusedConsumesNothing(t *testing.T) {
	t.Run("process refuses", func(t *testing.T) {
		process := NewBucket(lim(time.Second, 1))
		z := NewZone(Config{Connector: lim(time.Second, 10), Address: lim(time.Second, 10), MaxKeys: 100})
		z.Allow(t0, process, Client{Address: "addr:x"}) // takes the process's only token
		for range 100 {
			if d := z.Allow(t0, process, Client{Address: "addr:a"}); d.Allowed || d.Layer != LayerProcess {
				t.Fatalf("%+v, want refused by process", d)
			}
		}
		if n := z.connector.Tokens(t0); n != 9 {
			t.Fatalf("connector holds %d tokens, want 9 (only the one allowed request)", n)
		}
		// addr:a got nothing counted: with the process unlimited it has
		// its full burst (10), of which the connector has 9 left.
		for i := range 9 {
			if d := z.Allow(t0, nil, Client{Address: "addr:a"}); !d.Allowed {
				t.Fatalf("request %d of addr:a after refusals: %+v", i, d)
			}
		}
	})
	t.Run("connector refuses", func(t *testing.T) {
		process := NewBucket(lim(time.Second, 100))
		z := NewZone(Config{Connector: lim(time.Second, 1), Address: lim(time.Second, 5), MaxKeys: 100})
		z.Allow(t0, process, Client{Address: "addr:x"})
		for range 50 {
			if d := z.Allow(t0, process, Client{Address: "addr:a"}); d.Allowed || d.Layer != LayerConnector {
				t.Fatalf("%+v, want refused by connector", d)
			}
		}
		if n := process.Tokens(t0); n != 99 {
			t.Fatalf("process holds %d tokens, want 99", n)
		}
		if z.keys.Len() != 1 {
			t.Fatalf("%d keys stored, want 1 (a refused key is not stored)", z.keys.Len())
		}
	})
	t.Run("flooding address drains no shared layer", func(t *testing.T) {
		process := NewBucket(lim(time.Second, 100))
		z := NewZone(Config{Connector: lim(time.Second, 50), Address: lim(time.Second, 5), MaxKeys: 100})
		for range 10000 {
			z.Allow(t0, process, Client{Address: "addr:flood"})
		}
		if n := z.connector.Tokens(t0); n != 45 {
			t.Fatalf("connector holds %d tokens, want 45", n)
		}
		if n := process.Tokens(t0); n != 95 {
			t.Fatalf("process holds %d tokens, want 95", n)
		}
	})
}

func TestSessionAndAddressLimitsDiffer(t *testing.T) {
	z := NewZone(Config{Session: lim(time.Second, 2), Address: lim(time.Second, 4), MaxKeys: 100})
	count := func(c Client) int {
		n := 0
		for range 10 {
			if z.Allow(t0, nil, c).Allowed {
				n++
			}
		}
		return n
	}
	// A session alone gets its session's 2 (its address would allow 4).
	if n := count(Client{Session: "mcp:s", Address: "addr:a"}); n != 2 {
		t.Errorf("session passed %d, want 2", n)
	}
	// A request without a session gets its address's 4.
	if n := count(Client{Address: "addr:b"}); n != 4 {
		t.Errorf("address passed %d, want 4", n)
	}
	// The session's 2 came out of addr:a's 4: its requests without a
	// session have 2 left.
	if n := count(Client{Address: "addr:a"}); n != 2 {
		t.Errorf("address of the session passed %d, want the 2 its session left", n)
	}
}

// Sessions divide their address's room, they never multiply it: one
// address opening many sessions gets one address's rate, however many;
// a session from another address, and a session alone, are unaffected.
func TestManySessionsShareOneAddress(t *testing.T) {
	// Address 10/s burst 5, session 5/s burst 3, connector roomy.
	cfg := Config{Connector: lim(time.Millisecond, 1000), Session: lim(200*time.Millisecond, 3), Address: lim(100*time.Millisecond, 5), MaxKeys: 1000}
	for _, sessions := range []int{15, 50} {
		t.Run(fmt.Sprint(sessions), func(t *testing.T) {
			z := NewZone(cfg)
			process := NewBucket(lim(time.Millisecond, 1000))
			honest := 0
			flooder := 0
			// For 10 s the flooder sends one request per session every
			// 10 ms; the honest session (another address) one every 200 ms,
			// exactly its session rate.
			for ms := 0; ms <= 10_000; ms += 10 {
				now := at(time.Duration(ms) * time.Millisecond)
				for s := range sessions {
					if z.Allow(now, process, Client{Session: fmt.Sprintf("mcp:flood-%d", s), Address: "addr:flooder"}).Allowed {
						flooder++
					}
				}
				if ms%200 == 0 {
					d := z.Allow(now, process, Client{Session: "mcp:honest", Address: "addr:honest"})
					if !d.Allowed {
						t.Fatalf("honest session refused at %d ms: %+v", ms, d)
					}
					honest++
				}
			}
			// The address's burst of 5, then one per 100 ms for 10 s.
			if want := 5 + 100; flooder != want {
				t.Errorf("%d sessions from one address passed %d requests in 10 s, want the address's %d", sessions, flooder, want)
			}
			if honest != 51 {
				t.Errorf("honest session passed %d, want all 51", honest)
			}
			// What was refused cost the shared layers nothing: they hold
			// their burst minus what passed and has not yet refilled.
			if n := process.Tokens(at(11 * time.Second)); n != 1000 {
				t.Errorf("process holds %d tokens a second later, want its full 1000", n)
			}
			// One session alone, from a fresh address, gets its session's
			// rate: burst 3, then one per 200 ms.
			alone := 0
			for ms := 0; ms <= 10_000; ms += 10 {
				if z.Allow(at(20*time.Second+time.Duration(ms)*time.Millisecond), process, Client{Session: "mcp:alone", Address: "addr:alone"}).Allowed {
					alone++
				}
			}
			if alone != 3+50 {
				t.Errorf("a session alone passed %d in 10 s, want its session's %d", alone, 3+50)
			}
		})
	}
}

// A session request refused by its address takes nothing from its
// session, its connector or the process, and its Retry-After is the
// longest wait of every refusing layer.
func TestAddressRefusalConsumesNothing(t *testing.T) {
	process := NewBucket(lim(time.Second, 100))
	z := NewZone(Config{Connector: lim(time.Second, 50), Session: lim(time.Second, 3), Address: lim(2*time.Second, 4), MaxKeys: 100})
	for range 4 { // the address's 4, without a session
		z.Allow(t0, process, Client{Address: "addr:a"})
	}
	for range 100 {
		d := z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:a"})
		if d.Allowed || d.Layer != LayerAddress || d.RefusedBy(LayerSession) || d.RetryAfter != 2*time.Second {
			t.Fatalf("%+v, want refused by the address alone, retry after 2s", d)
		}
	}
	if n := z.connector.Tokens(t0); n != 46 {
		t.Fatalf("connector holds %d tokens, want 46", n)
	}
	if n := process.Tokens(t0); n != 96 {
		t.Fatalf("process holds %d tokens, want 96", n)
	}
	// The session was charged nothing: from another address it has all 3.
	for i := range 3 {
		if d := z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:b"}); !d.Allowed {
			t.Fatalf("session request %d from another address: %+v", i, d)
		}
	}
	// Now both refuse: the session in 1 s, the address in 2 s. Retry-After
	// is the longer, and honouring it is enough.
	d := z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:a"})
	if d.Allowed || d.Layer != LayerAddress || !d.RefusedBy(LayerSession) || d.RetryAfter != 2*time.Second {
		t.Fatalf("%+v, want refused by both, address's 2s the longest", d)
	}
	if d := z.Allow(at(2*time.Second), process, Client{Session: "mcp:s", Address: "addr:a"}); !d.Allowed {
		t.Fatalf("after Retry-After: %+v", d)
	}
	// A refusal by the session gives back nothing it did not take: the
	// address keeps its token.
	z2 := NewZone(Config{Session: lim(time.Second, 1), Address: lim(time.Second, 2), MaxKeys: 100})
	z2.Allow(t0, nil, Client{Session: "mcp:x", Address: "addr:c"})
	for range 10 {
		if d := z2.Allow(t0, nil, Client{Session: "mcp:x", Address: "addr:c"}); d.Allowed || d.Layer != LayerSession {
			t.Fatalf("%+v, want refused by the session", d)
		}
	}
	if d := z2.Allow(t0, nil, Client{Address: "addr:c"}); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("address after session refusals: %+v, want its 2nd token", d)
	}
}

func TestHeadersDescribeTightestLayer(t *testing.T) {
	process := NewBucket(lim(10*time.Millisecond, 1000))
	z := NewZone(Config{Connector: lim(100*time.Millisecond, 50), Session: lim(time.Second, 10), MaxKeys: 100})
	d := z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:one"})
	if !d.Allowed || d.Layer != LayerSession || d.Limit != 10 || d.Remaining != 9 || d.Reset != time.Second {
		t.Fatalf("%+v, want session layer: limit 10, remaining 9, reset 1s", d)
	}
	// 41 other sessions take 41 of the connector's 50.
	for i := range 41 {
		z.Allow(t0, process, Client{Session: fmt.Sprintf("mcp:o%d", i), Address: "addr:one"})
	}
	d = z.Allow(t0, process, Client{Session: "mcp:s", Address: "addr:one"})
	if !d.Allowed || d.Layer != LayerConnector || d.Limit != 50 || d.Remaining != 7 || d.Reset != 4300*time.Millisecond || d.ResetSeconds() != 5 {
		t.Fatalf("%+v, want connector layer: limit 50, remaining 7, reset 4.3s (5)", d)
	}
}

func TestUnlimited(t *testing.T) {
	z := NewZone(Config{MaxKeys: 10})
	for range 1000 {
		if d := z.Allow(t0, NewBucket(Limit{}), Client{Address: "addr:a"}); !d.Allowed || d.Layer != LayerNone {
			t.Fatalf("%+v", d)
		}
	}
	if z.keys.Len() != 0 {
		t.Fatalf("unlimited layer stored %d keys", z.keys.Len())
	}
}

func TestReconfigureKeepsFill(t *testing.T) {
	z := NewZone(Config{Address: lim(time.Second, 5), MaxKeys: 100})
	for range 5 {
		z.Allow(t0, nil, Client{Address: "addr:a"})
	}
	z.Configure(Config{Address: lim(time.Second, 6), MaxKeys: 100})
	if d := z.Allow(t0, nil, Client{Address: "addr:a"}); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after raising the burst to 6: %+v, want the 6th allowed, none left", d)
	}
	if d := z.Allow(t0, nil, Client{Address: "addr:a"}); d.Allowed {
		t.Fatalf("7th: %+v, want refused (reload handed out no fresh burst)", d)
	}
	// Lowering the limit caps the debt at one bucket of the new limit.
	z.Configure(Config{Address: lim(100*time.Millisecond, 2), MaxKeys: 100})
	d := z.Allow(t0, nil, Client{Address: "addr:a"})
	if d.Allowed || d.RetryAfter != 100*time.Millisecond {
		t.Fatalf("after lowering: %+v, want refused with 100ms", d)
	}
}

func TestKeysBoundedUnderChurn(t *testing.T) {
	const maxKeys = 6400
	z := NewZone(Config{Address: lim(time.Minute, 10), MaxKeys: maxKeys})
	// A busy key that must survive the churn: 9 of its 10 tokens used.
	for range 9 {
		z.Allow(t0, nil, Client{Address: "addr:busy"})
	}
	for i := range 200_000 {
		now := at(time.Duration(i) * time.Microsecond)
		if d := z.Allow(now, nil, Client{Address: fmt.Sprintf("addr:%d", i)}); !d.Allowed {
			t.Fatalf("fresh key %d refused: %+v", i, d)
		}
		if i%10000 == 0 && z.keys.Len() > z.keys.MaxKeys() {
			t.Fatalf("after %d keys: %d held, cap %d", i, z.keys.Len(), z.keys.MaxKeys())
		}
	}
	if n := z.keys.Len(); n > z.keys.MaxKeys() || n < maxKeys/2 {
		t.Fatalf("%d keys held, want between %d and the cap %d", n, maxKeys/2, z.keys.MaxKeys())
	}
	if z.keys.Evicted() == 0 {
		t.Fatal("no evictions counted")
	}
	// The busy key, deepest in debt, was not evicted.
	if d := z.Allow(at(200*time.Millisecond), nil, Client{Address: "addr:busy"}); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("busy key: %+v, want its 10th token and nothing left", d)
	}
	if d := z.Allow(at(200*time.Millisecond), nil, Client{Address: "addr:busy"}); d.Allowed {
		t.Fatalf("busy key forgot its usage: %+v", d)
	}
	// Once every bucket is full again, a sweep drops every key.
	if n := z.keys.Sweep(at(time.Hour)); n != 0 {
		t.Fatalf("sweep left %d keys", n)
	}
}

func TestSweepDropsOnlyIdleKeys(t *testing.T) {
	z := NewZone(Config{Address: lim(time.Second, 10), MaxKeys: 1000})
	z.Allow(t0, nil, Client{Address: "addr:early"})               // full again at 1s
	z.Allow(at(5*time.Second), nil, Client{Address: "addr:late"}) // full again at 6s
	if n := z.keys.Sweep(at(3 * time.Second)); n != 1 {
		t.Fatalf("sweep at 3s left %d keys, want 1", n)
	}
	if n := z.keys.Sweep(at(6 * time.Second)); n != 0 {
		t.Fatalf("sweep at 6s left %d keys, want 0", n)
	}
}

func TestLowerCapEnforcedBySweep(t *testing.T) {
	z := NewZone(Config{Address: lim(time.Minute, 10), MaxKeys: 10000})
	for i := range 5000 {
		z.Allow(t0, nil, Client{Address: fmt.Sprintf("addr:%d", i)})
	}
	z.Configure(Config{Address: lim(time.Minute, 10), MaxKeys: 640})
	if n := z.keys.Sweep(t0); n > 640 {
		t.Fatalf("%d keys after lowering the cap to 640", n)
	}
}

// Under concurrency exactly the burst passes, and refusals in a later
// layer give back what earlier layers reserved.
func TestConcurrentExact(t *testing.T) {
	process := NewBucket(lim(time.Hour, 1000))
	z := NewZone(Config{Connector: lim(time.Hour, 300), Address: lim(time.Hour, 20), MaxKeys: 10000})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				if z.Allow(t0, process, Client{Address: fmt.Sprintf("addr:%d", (g*2000+i)%40)}).Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := allowed.Load(); n != 300 {
		t.Fatalf("%d allowed, want exactly the connector's 300", n)
	}
	if n := process.Tokens(t0); n != 700 {
		t.Fatalf("process holds %d tokens, want 700 (refusals gave back their reservations)", n)
	}
}

func TestParseLimit(t *testing.T) {
	good := []struct {
		args []string
		want Limit
	}{
		{[]string{"20/s", "60"}, lim(50*time.Millisecond, 60)},
		{[]string{"600/m", "100"}, lim(100*time.Millisecond, 100)},
		{[]string{"3600/h", "1"}, lim(time.Second, 1)},
		{[]string{"3/10s", "3"}, lim(3333333333, 3)},
		{[]string{"0.5", "2"}, lim(2*time.Second, 2)},
		{[]string{"1000", "2000"}, lim(time.Millisecond, 2000)},
		{[]string{"off"}, Limit{}},
	}
	for _, tc := range good {
		got, err := ParseLimit(tc.args)
		if err != nil || got != tc.want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
	bad := [][]string{
		{}, {"20/s"}, {"20/s", "0"}, {"20/s", "-1"}, {"20/s", "x"}, {"0/s", "1"}, {"-3/s", "1"},
		{"x/s", "1"}, {"20/d", "1"}, {"20/-1s", "1"}, {"2000000/s", "10"}, {"20/s", "5", "6"}, {"on"},
		{"NaN/s", "1"}, {"Inf/s", "1"}, {"1/h", "2000000000"},
	}
	for _, args := range bad {
		if l, err := ParseLimit(args); err == nil {
			t.Errorf("ParseLimit(%q) = %+v, want an error", args, l)
		}
	}
}

func TestLimitString(t *testing.T) {
	for _, s := range [][]string{{"20/s", "60"}, {"7/m", "3"}, {"1/h", "1"}} {
		l, _ := ParseLimit(s)
		if got := l.String(); got != s[0]+" "+s[1] {
			t.Errorf("String of %q = %q", s, got)
		}
	}
	if (Limit{}).String() != "off" {
		t.Error("unlimited is not off")
	}
}
