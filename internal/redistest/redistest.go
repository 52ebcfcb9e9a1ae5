// Package redistest connects tests to the real Redis at 127.0.0.1:6379
// (BESLUITBRON_TEST_REDIS overrides the URL). Each test gets a key prefix
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
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/caddymodule/sharedstore"
)

// URL returns the Redis URL tests use.
func URL() string {
	if u := os.Getenv("BESLUITBRON_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Require skips the test (fails it under CI=true) when Redis does not
// answer at URL.
func Require(t testing.TB) {
	t.Helper()
	opt, err := redis.ParseURL(URL())
	if err != nil {
		t.Fatalf("BESLUITBRON_TEST_REDIS: %v", err)
	}
	c := redis.NewClient(opt)
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
	opt, err := redis.ParseURL(URL())
	if err != nil {
		return
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, pattern := range []string{prefix + ":*", "{" + prefix + ":*"} {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
			if len(keys) == 500 {
				c.Unlink(ctx, keys...)
				keys = keys[:0]
			}
		}
		if len(keys) > 0 {
			c.Unlink(ctx, keys...)
		}
		if err := iter.Err(); err != nil {
			t.Logf("redistest: cleaning %s: %v", prefix, err)
		}
	}
}

// Open returns a shared store on the test Redis under a new prefix,
// closed when the test ends. o's URL and Prefix are filled in.
func Open(t testing.TB, o sharedstore.Options) *sharedstore.Store {
	t.Helper()
	if o.Prefix == "" {
		o.Prefix = Prefix(t)
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

// Keys returns the keys under prefix (plain and hash-tagged), for tests
// that check what is left behind and that every key has a TTL.
func Keys(t testing.TB, prefix string) map[string]time.Duration {
	t.Helper()
	opt, _ := redis.ParseURL(URL())
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	out := map[string]time.Duration{}
	for _, pattern := range []string{prefix + ":*", "{" + prefix + ":*"} {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			k := iter.Val()
			ttl, _ := c.PTTL(ctx, k).Result()
			out[k] = ttl
		}
	}
	return out
}
