package inbound

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// Generous limits, as in the default config: the benchmarks measure the
// allowed path unless they say otherwise.
func benchZone(maxKeys int) (*Zone, *Bucket) {
	return NewZone(Config{
			Connector: lim(time.Nanosecond*1000, 1_000_000),
			Session:   lim(time.Microsecond, 1_000_000),
			Address:   lim(time.Microsecond, 1_000_000),
			MaxKeys:   maxKeys,
		}),
		NewBucket(lim(time.Microsecond, 1_000_000))
}

func keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = "addr:10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
	}
	return ks
}

// One request through all three layers, allowed.
func BenchmarkAllow(b *testing.B) {
	z, p := benchZone(1_000_000)
	ks := keys(1024)
	now := t0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now = now.Add(2 * time.Microsecond)
		if !z.Allow(now, p, Client{Address: ks[i&1023]}).Allowed {
			b.Fatal("refused")
		}
	}
}

// One request with a session: four layers (session, address, connector,
// process), allowed.
func BenchmarkAllowSession(b *testing.B) {
	z, p := benchZone(1_000_000)
	ks := keys(1024)
	now := t0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now = now.Add(2 * time.Microsecond)
		if !z.Allow(now, p, Client{Session: "mcp:" + ks[i&1023][5:], Address: ks[i&1023]}).Allowed {
			b.Fatal("refused")
		}
	}
}

// Fifty sessions of one address flooding, refused at the address.
func BenchmarkAllowSessionsRefusedAtAddress(b *testing.B) {
	z, p := benchZone(1_000_000)
	z.Configure(Config{Connector: lim(time.Microsecond, 1000), Session: lim(time.Hour, 1), Address: lim(time.Hour, 1), MaxKeys: 1000})
	z.Allow(t0, p, Client{Address: "addr:flood"})
	sessions := make([]string, 50)
	for i := range sessions {
		sessions[i] = "mcp:flood-" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if z.Allow(t0, p, Client{Session: sessions[i%50], Address: "addr:flood"}).Allowed {
			b.Fatal("allowed")
		}
	}
}

// A flooding client refused at its own address.
func BenchmarkAllowRefused(b *testing.B) {
	z, p := benchZone(1_000_000)
	z.Configure(Config{Connector: lim(time.Microsecond, 1000), Address: lim(time.Hour, 1), MaxKeys: 1000})
	z.Allow(t0, p, Client{Address: "addr:flood"})
	b.ReportAllocs()
	for b.Loop() {
		if z.Allow(t0, p, Client{Address: "addr:flood"}).Allowed {
			b.Fatal("allowed")
		}
	}
}

// Allowed requests from all cores, 64k distinct keys.
func BenchmarkAllowParallel(b *testing.B) {
	z, p := benchZone(1_000_000)
	ks := keys(1 << 16)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			z.Allow(time.Now(), p, Client{Address: ks[i&(1<<16-1)]})
		}
	})
}

// A new key on every request, at the cap: every insert may evict.
func BenchmarkAllowChurnAtCap(b *testing.B) {
	z, p := benchZone(100_000)
	ks := keys(1 << 20)
	now := t0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now = now.Add(time.Microsecond)
		z.Allow(now, p, Client{Address: ks[i&(1<<20-1)]})
	}
}

// TestFigureMemoryMillionKeys measures the heap held by 1,000,000 distinct
// keys (for docs/benchmarks/inbound-limits.md). It runs only with
// BESLUITBRON_FIGURES=1.
func TestFigureMemoryMillionKeys(t *testing.T) {
	if os.Getenv("BESLUITBRON_FIGURES") == "" {
		t.Skip("set BESLUITBRON_FIGURES=1 to measure")
	}
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
