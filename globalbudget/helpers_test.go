package globalbudget

import (
	"context"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// cluster is several instances of one platform's budget on one Redis
// prefix, each with its own store, as several processes would be.
type cluster struct {
	t      testing.TB
	prefix string
	clock  *fakeclock.Clock
	bs     []*Budget
	stores []*sharedstore.Store
}

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func newCluster(t testing.TB, n int, cfg fairqueue.Config, urls ...string) *cluster {
	t.Helper()
	cl := &cluster{t: t, prefix: redistest.Prefix(t), clock: fakeclock.New(t0)}
	for i := 0; i < n; i++ {
		// The timeout only bounds a slow answer: a cut (redistest.Proxy)
		// closes the connections, so calls fail at once. At 300 ms a
		// machine busy with other builds degraded an instance outside
		// the cut (TestRedisCutMidFlood saw 3 degradations, not 1).
		o := sharedstore.Options{Prefix: cl.prefix, Instances: n, ProbeEvery: 20 * time.Millisecond, Timeout: 5 * time.Second}
		if i < len(urls) {
			o.URL = urls[i]
		}
		s := redistest.Open(t, o)
		b, err := New(Options{Platform: "obv", Store: s, Config: cfg, Clock: cl.clock, Poll: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close() })
		cl.bs = append(cl.bs, b)
		cl.stores = append(cl.stores, s)
	}
	return cl
}

// settle waits (bounded) until no instance has a decision running or
// pending.
func (cl *cluster) settle() {
	cl.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for quiet := 0; quiet < 3; {
		busy := false
		for _, b := range cl.bs {
			b.mu.Lock()
			if b.busy || len(b.kick) > 0 {
				busy = true
			}
			b.mu.Unlock()
		}
		if busy {
			quiet = 0
		} else {
			quiet++
		}
		if time.Now().After(deadline) {
			cl.t.Fatal("instances did not settle")
		}
		time.Sleep(time.Millisecond)
	}
}

// advance moves the shared fake clock in steps, letting the instances
// decide after each.
func (cl *cluster) advance(d, step time.Duration) {
	for d > 0 {
		s := min(d, step)
		cl.clock.Advance(s)
		cl.settle()
		d -= s
	}
}

type got struct {
	adm fairqueue.Admission
	err error
}

// async starts an Acquire and returns its result channel.
func async(ctx context.Context, b *Budget, key fairqueue.Key, cost float64) chan got {
	ch := make(chan got, 1)
	go func() {
		a, err := b.Acquire(ctx, key, cost)
		ch <- got{a, err}
	}()
	return ch
}

func ready(ch chan got) (got, bool) {
	select {
	case g := <-ch:
		return g, true
	default:
		return got{}, false
	}
}

// waitFor polls (bounded) until cond holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// checkTTLs fails the test when a key under the cluster's prefix has no
// TTL.
func (cl *cluster) checkTTLs() {
	cl.t.Helper()
	keys := redistest.Keys(cl.t, cl.prefix)
	if len(keys) == 0 {
		cl.t.Fatal("no keys written")
	}
	for k, ttl := range keys {
		if ttl <= 0 {
			cl.t.Errorf("key %s has no TTL (%v)", k, ttl)
		}
	}
}
