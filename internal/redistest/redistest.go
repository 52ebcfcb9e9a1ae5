// Package redistest connects tests to the real Redis at 127.0.0.1:6379
// (BESLUITBRON_TEST_REDIS overrides the URL; a redis+cluster:// URL runs
// the same tests against a Redis Cluster). Each test gets a key prefix
// of its own, and every key under it is removed when the test ends, so
// tests never see each other's keys and leave nothing behind.
//
// Where Redis is missing, tests skip with a clear message; under CI=true
// they fail instead, since CI runs Redis and a skipped test proves nothing.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/internal/testtier"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// URL returns the Redis URL tests use.
func URL() string {
	if u := os.Getenv("BESLUITBRON_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// client returns a client for URL: a cluster client for redis+cluster://.
func client() (redis.UniversalClient, error) {
	u := URL()
	if rest, ok := strings.CutPrefix(u, "redis+cluster://"); ok {
		opt, err := redis.ParseClusterURL("redis://" + rest)
		if err != nil {
			return nil, err
		}
		return redis.NewClusterClient(opt), nil
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}

// eachNode runs f on every primary (one for a single Redis): SCAN sees
// one node's keys only.
func eachNode(ctx context.Context, c redis.UniversalClient, f func(redis.UniversalClient) error) error {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return f(n) })
	}
	return f(c)
}

// Require skips the test (fails it under CI=true) when Redis does not
// answer at URL.
func Require(t testing.TB) {
	testtier.Full(t, "Redis")
	t.Helper()
	c, err := client()
	if err != nil {
		t.Fatalf("BESLUITBRON_TEST_REDIS: %v", err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		msg := "Redis is not reachable at " + URL() + " (" + err.Error() + "): start it with `redis-server --daemonize yes --save '' --appendonly no`, or set BESLUITBRON_TEST_REDIS"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI runs Redis, so this test may not skip")
		}
		t.Skip(msg)
	}
}

// Prefix returns a new key prefix for one test and removes every key
// under it when the test ends.
func Prefix(t testing.TB) string {
	t.Helper()
	Require(t)
	var b [5]byte
	_, _ = rand.Read(b[:])
	prefix := "bbtest-" + hex.EncodeToString(b[:])
	t.Cleanup(func() { Clean(t, prefix) })
	return prefix
}

// Clean removes every key under prefix, plain (prefix:...) or hash-tagged
// ({prefix:...}...).
func Clean(t testing.TB, prefix string) {
	c, err := client()
	if err != nil {
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = eachNode(ctx, c, func(n redis.UniversalClient) error {
		for _, pattern := range []string{prefix + ":*", "{" + prefix + ":*"} {
			iter := n.Scan(ctx, 0, pattern, 1000).Iterator()
			for iter.Next(ctx) {
				n.Unlink(ctx, iter.Val()) // one key per call: on a cluster, keys of one call must share a slot
			}
			if err := iter.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Logf("redistest: cleaning %s: %v", prefix, err)
	}
}

// Timeout is the Redis deadline of a test store that sets none. The
// product's 150 ms (sharedstore.DefaultTimeout) is for a server that
// answers in a millisecond; on a machine running CI's packages side by
// side under -race a call can take longer, and the store then degrades
// as if Redis had gone, which a test of sharing reads as a failure. A
// cut (Proxy.Cut) closes connections, so calls fail at once whatever the
// deadline; a test of the deadline itself sets its own.
const Timeout = 5 * time.Second

// Open returns a shared store on the test Redis under a new prefix,
// closed when the test ends. o's URL and Prefix are filled in, and its
// Timeout when unset.
func Open(t testing.TB, o sharedstore.Options) *sharedstore.Store {
	t.Helper()
	if o.Prefix == "" {
		o.Prefix = Prefix(t)
	}
	if o.Timeout == 0 {
		o.Timeout = Timeout
	}
	if o.URL == "" {
		o.URL = URL()
	}
	s, err := sharedstore.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// keyGone is PTTL's answer for a key that does not exist (go-redis
// gives Redis's -2 as a duration of -2); -1 is a key without a TTL.
const keyGone = -2 * time.Nanosecond

// Keys returns the keys under prefix (plain and hash-tagged), for tests
// that check what is left behind and that every key has a TTL.
func Keys(t testing.TB, prefix string) map[string]time.Duration {
	t.Helper()
	c, err := client()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	var mu sync.Mutex
	out := map[string]time.Duration{}
	err = eachNode(ctx, c, func(n redis.UniversalClient) error {
		for _, pattern := range []string{prefix + ":*", "{" + prefix + ":*"} {
			iter := n.Scan(ctx, 0, pattern, 1000).Iterator()
			for iter.Next(ctx) {
				k := iter.Val()
				ttl, _ := n.PTTL(ctx, k).Result()
				if ttl == keyGone {
					continue // expired or removed between the scan and this look: no key, no TTL to miss
				}
				mu.Lock()
				out[k] = ttl
				mu.Unlock()
			}
			if err := iter.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
