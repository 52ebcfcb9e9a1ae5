//go:build figures

package multiinstance

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/platforms"
	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// TestFloodAcrossThreeInstances is the issue-13 figure run: three
// instances on one Redis, 150 sessions (each its own loopback address)
// whose calls land on a random instance, against one OpenBesluitvorming
// emulator that keeps its own 60-unit bucket and answers 429 past it. The
// emulator runs in this process, so every call's arrival time and price
// is recorded: units over the budget in any interval are computed from
// them. With BESLUITBRON_FLOOD_CUT=<d>, Redis is cut off (through a proxy
// this test controls) for d in the middle of the flood;
// BESLUITBRON_FLOOD_INSTANCES=<n> runs n instances with 50 sessions each;
// BESLUITBRON_FLOOD_ALONE=1 runs them without Redis, as before issue 13. Beside the flood,
// once a minute, a lone session asks one search through instance 2: its
// wait is the cross-instance wait. It runs only when asked:
//
//	BESLUITBRON_FLOOD=10m go test -tags figures -run TestFloodAcrossThreeInstances -v -timeout 40m ./internal/multiinstance/
//	BESLUITBRON_FLOOD=3m BESLUITBRON_FLOOD_CUT=30s go test -tags figures -run TestFloodAcrossThreeInstances -v -timeout 20m ./internal/multiinstance/
func TestFloodAcrossThreeInstances(t *testing.T) {
	spec := os.Getenv("BESLUITBRON_FLOOD")
	if spec == "" {
		t.Skip("set BESLUITBRON_FLOOD=<duration> to run the three-instance flood")
	}
	dur, err := time.ParseDuration(spec)
	if err != nil {
		t.Fatalf("BESLUITBRON_FLOOD: %v", err)
	}
	var cut time.Duration
	if c := os.Getenv("BESLUITBRON_FLOOD_CUT"); c != "" {
		if cut, err = time.ParseDuration(c); err != nil {
			t.Fatalf("BESLUITBRON_FLOOD_CUT: %v", err)
		}
	}
	instances, sessions := 3, 150
	if v := os.Getenv("BESLUITBRON_FLOOD_INSTANCES"); v != "" {
		if instances, err = strconv.Atoi(v); err != nil || instances < 1 || instances > 9 {
			t.Fatalf("BESLUITBRON_FLOOD_INSTANCES: want 1 to 9, got %q", v)
		}
		sessions = 50 * instances
	}

	em := obv.NewEmulator(obv.Config{Seed: 1})
	type arrival struct {
		at   time.Time
		cost float64
	}
	var (
		amu      sync.Mutex
		arrivals []arrival
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := obv.Cost(r); c > 0 {
			amu.Lock()
			arrivals = append(arrivals, arrival{time.Now(), c})
			amu.Unlock()
		}
		em.ServeHTTP(w, r)
	}))
	defer up.Close()

	proxy := redistest.NewProxy(t)
	redisURL := proxy.URL()
	if os.Getenv("BESLUITBRON_FLOOD_ALONE") != "" {
		redisURL = "none" // the instances without Redis: each its own budget
	}
	h := startHouseWith(t, instances, houseOptions{redisURL: redisURL, urls: map[string]string{"obv": up.URL}})

	queries := []string{"begroting", "motie", "jeugdzorg", "centrumplan", "woningbouw", "klimaat"}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var (
		smu      sync.Mutex
		status   = map[int]int{}
		failures atomic.Int64 // transport errors before the flood's end
		waits    []time.Duration
	)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		cl := clientAt(byte(1+i/200), byte(10+i%200))
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for ctx.Err() == nil {
				// A new question most of the time (a miss), so the budget,
				// not the cache, decides.
				path := fmt.Sprintf("/platforms/obv/api/search?limit=%d&query=%s+%d", 24*(1+rng.IntN(2)), queries[rng.IntN(len(queries))], rng.IntN(1_000_000))
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.instances[rng.IntN(instances)].base+path, nil)
				req.Header.Set("Besluitbron-Session", "flood-"+strconv.Itoa(i))
				resp, err := cl.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						if failures.Add(1) <= 3 {
							t.Logf("transport failure: %v", err)
						}
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				smu.Lock()
				status[resp.StatusCode]++
				if ms, err := strconv.Atoi(resp.Header.Get(platforms.HeaderQueueWait)); err == nil {
					waits = append(waits, time.Duration(ms)*time.Millisecond)
				}
				smu.Unlock()
			}
		})
	}
	// The lone session: one search through instance 2 every minute, from
	// an address of its own, after the flood has filled the queues.
	var lone []time.Duration
	var loneStatus []int
	wg.Go(func() {
		cl := clientAt(2, 1)
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(30 * time.Second): // the flood's pace, not a test waiting on a result
			}
			path := fmt.Sprintf("/platforms/obv/api/search?limit=24&query=lone+%d", n)
			t0 := time.Now()
			resp, err := cl.Get(h.instances[min(1, instances-1)].base + path)
			if err != nil {
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			smu.Lock()
			lone = append(lone, time.Since(t0))
			loneStatus = append(loneStatus, resp.StatusCode)
			smu.Unlock()
		}
	})
	var cutAt, restoredAt time.Time
	var rejoin []time.Duration
	if cut > 0 {
		wg.Go(func() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(dur/2 - cut/2): // the flood's schedule
			}
			cutAt = time.Now()
			proxy.Cut()
			time.Sleep(cut) // the outage itself
			proxy.Restore()
			restoredAt = time.Now()
			// Time to rejoin: until each instance's store says shared.
			for _, in := range h.instances {
				for {
					if storeMode(in.admin) == "shared" {
						rejoin = append(rejoin, time.Since(restoredAt))
						break
					}
					time.Sleep(50 * time.Millisecond) // polling the instance
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	amu.Lock()
	defer amu.Unlock()
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i].at.Before(arrivals[j].at) })
	worst, sent := math.Inf(-1), 0.0
	for i := range arrivals {
		units := 0.0
		for j := i; j < len(arrivals); j++ {
			units += arrivals[j].cost
			worst = max(worst, units-obv.Capacity-arrivals[j].at.Sub(arrivals[i].at).Seconds()*obv.Capacity/60)
			if arrivals[j].at.Sub(arrivals[i].at) > 3*time.Minute {
				break // past 3 min the refill alone exceeds any burst
			}
		}
		sent += arrivals[i].cost
	}
	over := math.Max(0, worst)
	possible := obv.Capacity + elapsed.Seconds()*obv.Capacity/60
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	pct := func(d []time.Duration, p float64) time.Duration {
		if len(d) == 0 {
			return 0
		}
		return d[min(len(d)-1, int(p*float64(len(d))))]
	}
	t.Logf("flood: %d instances, %d sessions, %v", instances, sessions, elapsed.Round(time.Second))
	t.Logf("units at the platform: %.3f of %.1f possible (%.1f %% of the budget used), %d calls", sent, possible, 100*sent/possible, len(arrivals))
	t.Logf("units over the budget in any interval: %.6f (closest approach %.6f)", over, worst)
	t.Logf("429 answers from the emulator: %d", em.Limited())
	t.Logf("client statuses: %v; transport failures: %d", status, failures.Load())
	t.Logf("queue wait: p50 %v p90 %v p99 %v max %v", pct(waits, 0.5), pct(waits, 0.9), pct(waits, 0.99), pct(waits, 1))
	sortedLone := append([]time.Duration(nil), lone...)
	sort.Slice(sortedLone, func(i, j int) bool { return sortedLone[i] < sortedLone[j] })
	t.Logf("lone session through instance 2 (one search every 30 s): n=%d, statuses %v, waits %v (max %v)", len(lone), loneStatus, lone, pct(sortedLone, 1))
	if cut > 0 {
		t.Logf("Redis cut at %v for %v; rejoin after restore per instance: %v", cutAt.Sub(start).Round(time.Second), restoredAt.Sub(cutAt).Round(time.Second), rejoin)
	}
	for i, in := range h.instances {
		_, b := get(t, in.admin+"/besluitbron/budget/obv")
		t.Logf("instance %d budget: %s", i+1, b)
	}
	if over > 1e-9 {
		t.Errorf("%.6f units over the budget", over)
	}
	if n := em.Limited(); n != 0 {
		t.Errorf("the emulator answered 429 %d times", n)
	}
}
