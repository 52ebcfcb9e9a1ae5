package site_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testproc"
)

// emulatorCounts is what one platform's emulators answered: requests in
// all, and by path.
type emulatorCounts struct {
	Total  int64
	ByPath map[string]int64
}

// readEmulators reads every emulator's /_emulator/stats, summed per
// platform (OpenTK has two hosts).
func readEmulators(t *testing.T, h house) map[string]emulatorCounts {
	t.Helper()
	out := map[string]emulatorCounts{}
	for k, bases := range h.emulators {
		c := emulatorCounts{ByPath: map[string]int64{}}
		for _, base := range bases {
			c.Total += testproc.EmulatorRequests(t, base)
			resp, err := http.Get(base + "/_emulator/stats")
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				ByPath map[string]int64 `json:"by_path"`
			}
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("%s emulator stats: %v", k, err)
			}
			for p, n := range st.ByPath {
				c.ByPath[p] += n
			}
		}
		out[k] = c
	}
	return out
}

// budgetCounts is one platform budget's counters from the admin API.
type budgetCounts struct {
	Admitted   uint64  `json:"admitted"`
	Rejected   uint64  `json:"rejected"`
	UnitsSpent float64 `json:"units_spent"`
	Capacity   float64 `json:"capacity"`
}

// readBudgets reads every platform's budget from the admin endpoint
// (GET /besluitbron/budget/<platform>), for the platforms that keep one.
func readBudgets(t *testing.T, h house) map[string]budgetCounts {
	t.Helper()
	out := map[string]budgetCounts{}
	for k := range h.emulators {
		resp, err := http.Get(h.admin + "/besluitbron/budget/" + k)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusNotFound { // no budget for it
			resp.Body.Close()
			continue
		}
		var b budgetCounts
		err = json.NewDecoder(resp.Body).Decode(&b)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("budget %s: HTTP %d, %v", k, resp.StatusCode, err)
		}
		out[k] = b
	}
	return out
}

// flood is what n concurrent page searches did.
type flood struct {
	status   map[int]int               // responses by HTTP status
	states   map[string]map[string]int // per platform: outcome state -> searches
	took     []time.Duration           // each answered search, until read in full
	requests map[string]int64          // per platform: requests its emulators answered
	paths    map[string][]string       // per platform: "path ×n" of those requests
	budgets  map[string][2]float64     // per platform: calls admitted, units spent
	refused  map[string]int            // 429s by Retry-After and Content-Type
}

// htmlOutcome is one platform's outcome in the page (the no-JavaScript
// answer): <li class="outcome ..." data-platform="obv" data-state="cache">.
var htmlOutcome = regexp.MustCompile(`data-platform="(\w+)" data-state="(\w+)"`)

// pageFlood sends n identical searches GET /search?q=words at once, each
// from its own loopback address (127.0.x.y, as many browsers would), as
// HTML or, with asJSON, as an app's JSON, and counts what reached the
// platforms: each emulator's requests and each budget's calls.
func pageFlood(t *testing.T, h house, n int, words string, asJSON bool) flood {
	t.Helper()
	emuBefore, budBefore := readEmulators(t, h), readBudgets(t, h)
	f := flood{status: map[int]int{}, states: map[string]map[string]int{}, refused: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		// 127.0.2.1 upwards: never 127.0.0.1, the address the test's
		// other requests come from.
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(2+i/250), byte(1+i%250))}}
		cl := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext}}
		req, _ := http.NewRequest(http.MethodGet, h.base+"/search?"+url.Values{"q": {words}}.Encode(), nil)
		if asJSON {
			req.Header.Set("Accept", "application/json")
		} else {
			req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
		}
		wg.Go(func() {
			defer cl.CloseIdleConnections()
			<-start
			t0 := time.Now()
			resp, err := cl.Do(req)
			if err != nil {
				t.Errorf("search %d: %v", i, err)
				return
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			took := time.Since(t0)
			if err != nil {
				t.Errorf("search %d: %v", i, err)
				return
			}
			got := map[string]string{}
			if resp.StatusCode == http.StatusOK {
				if asJSON {
					var res struct {
						Outcomes []struct{ Platform, State string }
					}
					if err := json.Unmarshal(body, &res); err != nil {
						t.Errorf("search %d: %v", i, err)
					}
					for _, o := range res.Outcomes {
						got[o.Platform] = o.State
					}
				} else {
					for _, m := range htmlOutcome.FindAllStringSubmatch(string(body), -1) {
						got[m[1]] = m[2]
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			f.status[resp.StatusCode]++
			if resp.StatusCode == http.StatusTooManyRequests {
				f.refused[fmt.Sprintf("Retry-After %s, %s", resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"))]++
			}
			if resp.StatusCode == http.StatusOK {
				f.took = append(f.took, took)
			}
			for p, s := range got {
				if f.states[p] == nil {
					f.states[p] = map[string]int{}
				}
				f.states[p][s]++
			}
		})
	}
	close(start)
	wg.Wait()
	emuAfter, budAfter := readEmulators(t, h), readBudgets(t, h)
	f.requests, f.paths, f.budgets = map[string]int64{}, map[string][]string{}, map[string][2]float64{}
	for k, after := range emuAfter {
		f.requests[k] = after.Total - emuBefore[k].Total
		for p, c := range after.ByPath {
			if d := c - emuBefore[k].ByPath[p]; d > 0 {
				f.paths[k] = append(f.paths[k], fmt.Sprintf("%s ×%d", p, d))
			}
		}
		sort.Strings(f.paths[k])
	}
	for k, after := range budAfter {
		before := budBefore[k]
		f.budgets[k] = [2]float64{float64(after.Admitted - before.Admitted), after.UnitsSpent - before.UnitsSpent}
	}
	return f
}

// oneSearch is what one question asks of each platform's emulator in a
// fresh house: one search, plus, the first time, Tweede Kamer's OData
// $metadata (for the field names, remembered an hour) and ORI's look-up of
// its hits' organisation names (remembered too). A platform not named
// here: one request.
var oneSearch = map[string]int64{"tk": 2, "ori": 2}

// report is the flood in a few lines, for the figures.
func (f flood) report() string {
	var b strings.Builder
	var codes []int
	for c := range f.status {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	fmt.Fprint(&b, "responses:")
	for _, c := range codes {
		fmt.Fprintf(&b, " %d×HTTP %d", f.status[c], c)
	}
	for k, n := range f.refused {
		fmt.Fprintf(&b, " (%d×429 with %s)", n, k)
	}
	if len(f.took) > 0 {
		s := append([]time.Duration(nil), f.took...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		q := func(p float64) string {
			return fmt.Sprintf("%.0f ms", float64(s[int(p*float64(len(s)-1)+0.5)].Microseconds())/1000)
		}
		fmt.Fprintf(&b, "; answered searches p50 %s, p95 %s, max %s", q(0.5), q(0.95), q(1))
	}
	var keys []string
	for k := range f.states {
		keys = append(keys, k)
	}
	for k := range f.requests {
		if f.states[k] == nil && f.requests[k] > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		var states []string
		for s, n := range f.states[k] {
			states = append(states, fmt.Sprintf("%s %d", s, n))
		}
		sort.Strings(states)
		bud := "no budget"
		if v, ok := f.budgets[k]; ok {
			bud = fmt.Sprintf("budget: %.0f calls admitted, %.0f units spent", v[0], v[1])
		}
		fmt.Fprintf(&b, "\n  %-12s requests at the emulator %d %v; %s; outcomes: %s",
			k, f.requests[k], f.paths[k], bud, strings.Join(states, ", "))
	}
	return b.String()
}
