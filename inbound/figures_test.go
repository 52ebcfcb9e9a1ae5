//go:build figures

package inbound

import (
	"runtime"
	"testing"
	"time"
)

// TestFigureMemoryMillionKeys measures the heap held by 1,000,000 distinct
// keys (for docs/benchmarks/inbound-limits.md). It runs only with
// -tags figures.
func TestFigureMemoryMillionKeys(t *testing.T) {
	ks := keys(1 << 20)[:1_000_000]
	for _, maxKeys := range []int{2_000_000, 1_000_000, 100_000} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		z := NewZone(Config{Address: lim(time.Second, 10), MaxKeys: maxKeys})
		start := time.Now()
		for i, k := range ks {
			z.Allow(at(time.Duration(i)*time.Microsecond), nil, Client{Address: k})
		}
		took := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := z.Keys().Len()
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("max_keys %d: 1,000,000 distinct keys inserted in %s; %d held, %d evicted; heap %.1f MiB (%.0f bytes per key held)",
			maxKeys, took.Round(time.Millisecond), held, z.Keys().Evicted(), float64(heap)/(1<<20), float64(heap)/float64(held))
		sweepStart := time.Now()
		left := z.Keys().Sweep(at(time.Hour))
		t.Logf("  sweep of all %d keys once idle: %s, %d left", held, time.Since(sweepStart).Round(time.Millisecond), left)
		runtime.KeepAlive(z)
	}
}
