package cache

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// discardWriter is a ResponseWriter that keeps nothing; its header map is
// emptied per request, as a server gives each request a fresh one.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func benchmarkHit(b *testing.B, size int) {
	s, err := Open(Options{Platform: "obv", Version: "1", MemoryBytes: 64 << 20, SweepEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := strings.Repeat("x", size)
	u := okUpstream(body)
	r, _ := http.NewRequest(http.MethodGet, "http://localhost/api/sources?implemented=true", nil)
	r.Header.Set("Accept", "application/json")
	w := &discardWriter{h: http.Header{}}
	if err := s.Serve(w, r, listPolicy, u, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(w.h)
		w.n = 0
		if err := s.Serve(w, r, listPolicy, u, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if u.calls.Load() != 1 || w.n != size {
		b.Fatalf("not a hit: calls %d, wrote %d", u.calls.Load(), w.n)
	}
}

func BenchmarkHit2KiB(b *testing.B)  { benchmarkHit(b, 2<<10) }
func BenchmarkHit64KiB(b *testing.B) { benchmarkHit(b, 64<<10) }

// BenchmarkMemory100k stores 100,000 entries of 2 KiB (list/search sized)
// and reports the heap they take.
func BenchmarkMemory100k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := Open(Options{Platform: "obv", Version: "1", MemoryBytes: 512 << 20, SweepEvery: -1})
		if err != nil {
			b.Fatal(err)
		}
		body := []byte(strings.Repeat("y", 2048))
		now := time.Now()
		for k := 0; k < 100_000; k++ {
			e := &Entry{Version: "1", Kind: KindList, StoredAt: now, Expires: now.Add(time.Hour), KeepUntil: now.Add(time.Hour), Status: 200,
				Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
			if err := s.Put(fmt.Sprintf("key-%d", k), e); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if s.Stats().MemoryEntries != 100_000 {
			b.Fatalf("memory tier holds %d", s.Stats().MemoryEntries)
		}
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MiB-heap/100k")
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/100_000-2048, "B-overhead/entry")
		_ = s.Close()
	}
}

// BenchmarkOpen100k measures start-up with 100,000 durable entries of
// 2 KiB: opening the file and counting its index (nothing is judged or
// removed at start).
func BenchmarkOpen100k(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "obv.db")
	db, n, _, err := openBolt(path)
	if err != nil || n != 0 {
		b.Fatal(err)
	}
	body := []byte(strings.Repeat("z", 2048))
	now := time.Now()
	const total = 100_000
	for start := 0; start < total; start += 10_000 {
		err := db.Update(func(tx *bolt.Tx) error {
			for k := start; k < start+10_000; k++ {
				e := &Entry{Version: "1", Kind: KindDocument, StoredAt: now, Expires: now.Add(time.Hour), KeepUntil: now.Add(time.Hour), Status: 200, Body: body}
				key := []byte(testKey("obv", mustReq(fmt.Sprintf("/api/entities/%d", k)), nil))
				val := e.encode()
				idx := make([]byte, indexLen)
				putIndex(idx, e.KeepUntil, e.StoredAt, len(val))
				if err := tx.Bucket(bucketEntries).Put(key, val); err != nil {
					return err
				}
				if err := tx.Bucket(bucketIndex).Put(key, idx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	_ = db.Close()
	st, _ := os.Stat(path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(Options{Platform: "obv", Version: "1", Dir: dir, SweepEvery: -1})
		if err != nil {
			b.Fatal(err)
		}
		if got := s.Stats().DiskEntries; got != total {
			b.Fatalf("entries %d", got)
		}
		b.StopTimer()
		_ = s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "MiB-file")
}

func mustReq(path string) *http.Request {
	r, err := http.NewRequest(http.MethodGet, "http://localhost"+path, nil)
	if err != nil {
		panic(err)
	}
	return r
}
