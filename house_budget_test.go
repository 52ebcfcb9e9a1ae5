package besluitbron

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
)

// budgetWaiting is how many calls wait in a platform's budget (the admin
// API), 0 when the platform has no budget.
func budgetWaiting(t *testing.T, admin, platform string) int {
	t.Helper()
	resp, err := http.Get("http://" + admin + "/besluitbron/budget/" + platform)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return 0
	}
	var st struct {
		Waiting int `json:"waiting"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Waiting
}

// TestSkippingTheCacheNeverSkipsTheBudget: one address sends requests
// that skip the cache (Cache-Control: no-store, a Range, a junk
// parameter), all at once, to each platform the default Caddyfile had left
// unbudgeted. What reaches the platform (its emulator's own count) stays
// within the platform's budget, its capacity plus the refill of the time
// the test took; the rest waits in the budget's fair queue.
//
// The bound uses the wall clock only as an upper bound on the window (the
// time from the first request sent to the count read), so a slow machine
// loosens it and never makes it fail.
func TestSkippingTheCacheNeverSkipsTheBudget(t *testing.T) {
	proxy, emulators := offlineHouse(t)
	admin := os.Getenv("BESLUITBRON_ADMIN")
	for _, tc := range []struct {
		platform, path string
	}{
		{platforms.TK, "/OData/v4/2.0/Fractie?$top=3"},
		{platforms.OpenTK, "/search/index.xml?q=stikstof"},
		{platforms.ORI, "/ori_*/_search?q=woningbouw&size=2"},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			desc, _ := platforms.Get(tc.platform)
			if desc.Budget == nil {
				t.Fatalf("platform %s has no budget in platforms", tc.platform)
			}
			capacity, rate := desc.Budget.Capacity, desc.Budget.Capacity/desc.Budget.Window.Seconds()
			n := int(4*capacity) + 4 // well past what one window admits
			// What the platform received, over all its hosts (OpenTK has two).
			received := func() int64 {
				var sum int64
				for _, base := range emulators[tc.platform] {
					sum += testproc.EmulatorRequests(t, base)
				}
				return sum
			}
			before := received()

			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			start := time.Now()
			for i := range n {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, proxy+"/platforms/"+tc.platform+tc.path, nil)
				switch i % 3 {
				case 0:
					req.Header.Set("Cache-Control", "no-store")
				case 1:
					req.Header.Set("Range", "bytes=0-99")
				case 2:
					req.URL.RawQuery += fmt.Sprintf("&junk=%d", i)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					if resp, err := http.DefaultClient.Do(req); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}()
			}
			// Every request either reached the platform or waits in the
			// budget; then the count is read.
			var reached int64
			for deadline := time.Now().Add(20 * time.Second); ; {
				reached = received() - before
				if reached+int64(budgetWaiting(t, admin, tc.platform)) >= int64(n) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after 20s, %d of %d requests reached the platform and %d wait", reached, n, budgetWaiting(t, admin, tc.platform))
				}
				time.Sleep(5 * time.Millisecond) // polling a condition, not waiting for time to pass
			}
			window := time.Since(start)
			cancel()
			wg.Wait()
			if limit := capacity + rate*window.Seconds(); float64(reached) > limit {
				t.Errorf("%d of %d cache-skipping requests from one address reached %s within %v; its budget allows %.1f (capacity %v, %.1f a second)",
					reached, n, tc.platform, window.Round(time.Millisecond), limit, capacity, rate)
			}
			t.Logf("%d of %d cache-skipping requests reached %s in %v (budget: %v, then %.1f a second); the rest waited",
				reached, n, tc.platform, window.Round(time.Millisecond), capacity, rate)
		})
	}
}
