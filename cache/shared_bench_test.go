package cache

import (
	"net/http"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// BenchmarkHitCost compares, side by side, a hit in single-instance mode,
// a local hit of an instance with a shared tier (the hot path never asks
// Redis), and a shared-tier hit (the entry only in Redis: the local tiers
// are emptied before each iteration, outside the timer), for a 2 KiB
// answer.
func BenchmarkHitCost(b *testing.B) {
	body := strings.Repeat("x", 2<<10)
	open := func(b *testing.B, shared Shared) *Store {
		s, err := Open(Options{Platform: "obv", Version: "1", MemoryBytes: 64 << 20, SweepEvery: -1, Shared: shared})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}
	sharedTier := func(b *testing.B) Shared {
		prefix := redistest.Prefix(b)
		return NewRedisShared(redistest.Open(b, sharedstore.Options{Prefix: prefix}), "obv", RedisSharedOptions{})
	}
	run := func(b *testing.B, s *Store, beforeEach func()) {
		u := okUpstream(body)
		r, _ := http.NewRequest(http.MethodGet, "http://localhost/api/sources?implemented=true", nil)
		r.Header.Set("Accept", "application/json")
		w := &discardWriter{h: http.Header{}}
		if err := s.Serve(w, r, listPolicy, u, nil); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if beforeEach != nil {
				b.StopTimer()
				beforeEach()
				b.StartTimer()
			}
			clear(w.h)
			w.n = 0
			if err := s.Serve(w, r, listPolicy, u, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if u.calls.Load() != 1 || w.n != len(body) || !strings.Contains(w.h.Get(cachestatus.Header), "hit") {
			b.Fatalf("not a hit: calls %d, wrote %d, %q", u.calls.Load(), w.n, w.h.Get(cachestatus.Header))
		}
	}
	b.Run("single-instance", func(b *testing.B) { run(b, open(b, nil), nil) })
	b.Run("local-with-shared-tier", func(b *testing.B) {
		s := open(b, sharedTier(b))
		run(b, s, nil)
		if st := s.Stats().Shared; st.Hits != 0 || st.Misses != 1 {
			b.Fatalf("local hits asked Redis: %+v", st)
		}
	})
	b.Run("shared-tier", func(b *testing.B) {
		s := open(b, sharedTier(b))
		run(b, s, func() {
			s.hot.clear()
			_ = s.mem.Reset()
		})
		if st := s.Stats().Shared; st.Hits != int64(b.N) || st.Errors != 0 {
			b.Fatalf("not shared-tier hits: %+v over %d", st, b.N)
		}
	})
}
