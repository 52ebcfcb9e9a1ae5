//go:build figures

package multiinstance

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// TestCrossInstanceWait is the issue-13 figure "cross-instance wait":
// session A floods OpenBesluitvorming through instance 1 (32 calls in
// flight at all times, from one address), and session B, from another
// address, asks one search through instance 2 every 20 s. B's wait is
// the time from asking to the answer. Runs only when asked:
//
//	BESLUITBRON_CROSSWAIT=5m go test -tags figures -run TestCrossInstanceWait -v -timeout 20m ./internal/multiinstance/
func TestCrossInstanceWait(t *testing.T) {
	spec := os.Getenv("BESLUITBRON_CROSSWAIT")
	if spec == "" {
		t.Skip("set BESLUITBRON_CROSSWAIT=<duration> to measure the cross-instance wait")
	}
	dur, err := time.ParseDuration(spec)
	if err != nil {
		t.Fatal(err)
	}
	em := obv.NewEmulator(obv.Config{Seed: 1})
	up := httptest.NewServer(em)
	defer up.Close()
	h := startHouseWith(t, 3, houseOptions{urls: map[string]string{"obv": up.URL}})
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	a := clientAt(3, 1)
	for i := range 32 {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/platforms/obv/api/search?limit=24&query=a+%d+%d", h.instances[0].base, i, n), nil)
				req.Header.Set("Besluitbron-Session", "flooder")
				if resp, err := a.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		})
	}
	var waits []time.Duration
	var statuses []int
	b := clientAt(3, 2)
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Second): // the scenario's pace
		}
		if ctx.Err() != nil {
			break
		}
		t0 := time.Now()
		resp, err := b.Get(fmt.Sprintf("%s/platforms/obv/api/search?limit=24&query=b+%d", h.instances[1].base, n))
		if err != nil {
			t.Errorf("B: %v", err)
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		waits = append(waits, time.Since(t0))
		statuses = append(statuses, resp.StatusCode)
	}
	cancel()
	wg.Wait()
	sorted := append([]time.Duration(nil), waits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	if len(sorted) == 0 {
		t.Fatal("B asked nothing")
	}
	t.Logf("B's waits through instance 2 while A floods instance 1: n=%d p50 %v max %v; all %v; statuses %v; emulator 429s %d",
		len(sorted), sorted[len(sorted)/2], sorted[len(sorted)-1], waits, statuses, em.Limited())
}
