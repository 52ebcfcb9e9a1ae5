//go:build figures

package platformlimit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// TestFlood is figure 3 of docs/benchmarks/fair-queue.md: a real-time
// flood from 50 concurrent clients (one session each, each from its own
// loopback address) through Caddy (platform_limit obv with
// its defaults, then reverse_proxy) against the OpenBesluitvorming
// emulator, which keeps its own 60-unit bucket and answers 429 past it.
// It reports the units that reached the emulator over its budget in any
// interval (target 0) and the emulator's 429s (target 0). It runs only
// when asked:
//
//	BESLUITBRON_FLOOD=10m go test -tags figures -run TestFlood -v -timeout 30m ./caddymodule/platformlimit/
func TestFlood(t *testing.T) {
	spec := os.Getenv("BESLUITBRON_FLOOD")
	if spec == "" {
		t.Skip("set BESLUITBRON_FLOOD=<duration> to run the real-time flood")
	}
	dur, err := time.ParseDuration(spec)
	if err != nil {
		t.Fatalf("BESLUITBRON_FLOOD: %v", err)
	}
	const sessions = 50

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

	// Entity ids and PDF pages to ask for, fetched on another client
	// address so they do not touch the flood's bucket.
	var ids, pages []string
	for _, q := range []string{"begroting", "motie", "jeugdzorg", "centrumplan"} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/api/search?limit=50&query="+q, nil)
		r.RemoteAddr = "192.0.2.1:1"
		em.ServeHTTP(w, r)
		var res struct {
			Results []struct {
				EntityID        string `json:"entityId"`
				PreviewImageURL string `json:"previewImageUrl"`
			} `json:"results"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
			t.Fatalf("search for ids: %v", err)
		}
		for _, h := range res.Results {
			ids = append(ids, h.EntityID)
			if h.PreviewImageURL != "" {
				pages = append(pages, h.PreviewImageURL)
			}
		}
	}
	if len(ids) == 0 || len(pages) == 0 {
		t.Fatal("no ids or pages from the emulator")
	}

	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
}
http://127.0.0.1:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_limit obv
		reverse_proxy %s
	}
}`, admin, port, strings.TrimPrefix(up.URL, "http://")))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port)

	type sessionFig struct {
		units  float64
		calls  int
		status map[int]int
		waits  []time.Duration
	}
	figs := make([]*sessionFig, sessions)
	// Each session comes from its own loopback address (127.0.0.10 and
	// up), so the 50 sessions are 50 clients (docs/rules.md, "Who a client is": a client is
	// its address; sessions of one address divide its share).
	clientFrom := func(i int) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(10+i))}}
		return &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 2}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	queries := []string{"begroting", "motie", "jeugdzorg", "centrumplan", "woningbouw", "klimaat"}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		f := &sessionFig{status: map[int]int{}}
		figs[i] = f
		cl := clientFrom(i)
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			for ctx.Err() == nil {
				var path string
				var cost float64
				switch n := rng.IntN(10); {
				case n < 5:
					path, cost = "/api/search?limit=24&query="+queries[rng.IntN(len(queries))], 1
				case n < 6:
					path, cost = "/api/search?limit=100&query="+queries[rng.IntN(len(queries))], 5
				case n < 8:
					path, cost = pages[rng.IntN(len(pages))], 0.125
				case n < 9:
					path, cost = "/api/entities/"+url.PathEscape(ids[rng.IntN(len(ids))]), 1
				default:
					path, cost = "/api/sources", 1
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
				req.Header.Set("Besluitbron-Session", "flood-"+strconv.Itoa(i))
				resp, err := cl.Do(req)
				if err != nil {
					continue // the flood's end cancels requests in flight
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				f.status[resp.StatusCode]++
				if resp.StatusCode < 500 && resp.StatusCode != 429 {
					f.calls++
					f.units += cost
				}
				if ms, err := strconv.Atoi(resp.Header.Get(platforms.HeaderQueueWait)); err == nil {
					f.waits = append(f.waits, time.Duration(ms)*time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	amu.Lock()
	defer amu.Unlock()
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i].at.Before(arrivals[j].at) })
	// Units over the budget in any interval [i, j] of arrivals at the
	// platform: Σ cost − (60 + refill over the interval).
	worst, sent := math.Inf(-1), 0.0
	for i := range arrivals {
		units := 0.0
		for j := i; j < len(arrivals); j++ {
			units += arrivals[j].cost
			worst = max(worst, units-obv.Capacity-arrivals[j].at.Sub(arrivals[i].at).Seconds()*obv.Capacity/60)
		}
		sent += arrivals[i].cost
	}
	over := math.Max(0, worst)
	var all []time.Duration
	status := map[int]int{}
	minU, maxU := math.Inf(1), 0.0
	for _, f := range figs {
		all = append(all, f.waits...)
		for s, n := range f.status {
			status[s] += n
		}
		minU, maxU = math.Min(minU, f.units), math.Max(maxU, f.units)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(p*float64(len(all))))]
	}
	st := adminStatus(t, admin, "obv")
	t.Logf("flood: %d sessions for %v", sessions, elapsed.Round(time.Second))
	t.Logf("calls at the platform: %d, units %.3f (%.2f units/min; budget 60/min plus the initial 60)", len(arrivals), sent, sent/elapsed.Minutes())
	t.Logf("units over the budget in any interval: %.6f (closest approach %.6f)", over, worst)
	t.Logf("429 answers from the emulator: %d", em.Limited())
	t.Logf("client statuses: %v", status)
	t.Logf("queue wait: p50 %v p90 %v p99 %v max %v", pct(0.5), pct(0.9), pct(0.99), pct(1))
	t.Logf("units per client: min %.2f max %.2f (fairness among equal clients)", minU, maxU)
	t.Logf("budget: spent %.3f, admitted %d, rejected %d, cancelled %d", st.UnitsSpent, st.Admitted, st.Rejected, st.Cancelled)
	if over > 1e-9 {
		t.Errorf("%.6f units over the budget", over)
	}
	if n := em.Limited(); n != 0 {
		t.Errorf("the emulator answered 429 %d times", n)
	}
}
