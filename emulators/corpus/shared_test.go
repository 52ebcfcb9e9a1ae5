package corpus

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestSharedBuildsEachKeyOnce(t *testing.T) {
	var s Shared[int, *[]int]
	var builds atomic.Int64
	build := func(k int) func() *[]int {
		return func() *[]int { builds.Add(1); v := []int{k}; return &v }
	}
	var wg sync.WaitGroup
	got := make([]*[]int, 16)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = s.Get(7, build(7)) }()
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("16 concurrent callers of one key built it %d times, want once", n)
	}
	for _, g := range got {
		if g != got[0] || (*g)[0] != 7 {
			t.Fatalf("callers of one key got different values: %v and %v", g, got[0])
		}
	}
}

func TestSharedForgetsTheOldestKey(t *testing.T) {
	s := Shared[int, int]{Max: 2}
	builds := map[int]int{}
	get := func(k int) int { return s.Get(k, func() int { builds[k]++; return k * 10 }) }
	for _, k := range []int{1, 2, 1, 3, 2, 1} {
		if v := get(k); v != k*10 {
			t.Fatalf("Get(%d) = %d, want %d", k, v, k*10)
		}
	}
	// 1 and 2 built, 1 kept, 3 pushes 1 out; 2 is still held, 1 is built again.
	if builds[1] != 2 || builds[2] != 1 || builds[3] != 1 {
		t.Fatalf("builds = %v, want 1 twice (forgotten when 3 came) and 2, 3 once", builds)
	}
}
