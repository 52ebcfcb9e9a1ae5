package inbound

import (
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
