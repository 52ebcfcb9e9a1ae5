package platformlimit

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// TestAdversaryBesideHonest is issue 10's figure, through Caddy
// (platform_limit obv with the default Caddyfile's limits, then
// reverse_proxy) against the OpenBesluitvorming emulator, in real time:
//
//  1. One address (127.0.0.1) keeps 1,200 searches in flight, each under a
//     new Besluitbron-Session name; a refused search is sent again after
//     100 ms (a hostile client that ignores Retry-After).
//  2. After BESLUITBRON_ADVERSARY (the issue: 30s), another address
//     (127.0.0.2) asks one search under a fresh session: its status and
//     wait are the figure (target 2xx within 3 s).
//  3. Then the second address keeps one search in flight for
//     BESLUITBRON_ADVERSARY_SHARE (default 60s), and the units each
//     address got at the platform are set against the rule's share: the
//     fluid allocation with weights 1/(1+used/60) from each address's
//     usage at the start of the phase.
//
// It runs only when asked (it needs 127.0.0.2 on the loopback, as Linux
// has):
//
//	BESLUITBRON_ADVERSARY=30s go test -run TestAdversaryBesideHonest -v -timeout 10m ./caddymodule/platformlimit/
func TestAdversaryBesideHonest(t *testing.T) {
	spec := os.Getenv("BESLUITBRON_ADVERSARY")
	if spec == "" {
		t.Skip("set BESLUITBRON_ADVERSARY=<flood time before the honest search> to run the real-time adversary figure")
	}
	floodFor, err := time.ParseDuration(spec)
	if err != nil {
		t.Fatalf("BESLUITBRON_ADVERSARY: %v", err)
	}
	shareFor := time.Minute
	if v := os.Getenv("BESLUITBRON_ADVERSARY_SHARE"); v != "" {
		if shareFor, err = time.ParseDuration(v); err != nil {
			t.Fatalf("BESLUITBRON_ADVERSARY_SHARE: %v", err)
		}
	}
	const inFlight = 1200

	em := obv.NewEmulator(obv.Config{Seed: 1})
	var unitsAt sync.Map // "A"/"B" -> *atomic.Int64 (units at the platform)
	unitsAt.Store("A", new(atomic.Int64))
	unitsAt.Store("B", new(atomic.Int64))
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := "A"
		if strings.HasPrefix(r.URL.Query().Get("query"), "honest") {
			who = "B"
		}
		if c := obv.Cost(r); c > 0 {
			v, _ := unitsAt.Load(who)
			v.(*atomic.Int64).Add(int64(c))
		}
		em.ServeHTTP(w, r)
	}))
	defer up.Close()

	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
}
http://:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_limit obv {
			max_queue 1000
			max_wait 2m
		}
		reverse_proxy %s
	}
}`, admin, port, strings.TrimPrefix(up.URL, "http://")))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv/api/search?limit=24&query=", port)
	clientFrom := func(ip string, conns int) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{
			DialContext: d.DialContext, MaxIdleConnsPerHost: conns, MaxIdleConns: conns,
		}}
	}
	adv, honest := clientFrom("127.0.0.1", inFlight), clientFrom("127.0.0.2", 4)
	if _, err := honest.Get(base + "honest-warmup"); err != nil {
		t.Skipf("cannot connect from 127.0.0.2: %v", err)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var (
		next              atomic.Int64
		advOK, advRefused atomic.Int64
		advOther          atomic.Int64
		wg                sync.WaitGroup
		queries           = []string{"begroting", "motie", "jeugdzorg", "centrumplan", "woningbouw", "klimaat"}
	)
	for i := range inFlight {
		wg.Go(func() {
			for ctx.Err() == nil {
				n := next.Add(1)
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+queries[(i+int(n))%len(queries)], nil)
				req.Header.Set("Besluitbron-Session", "made-up-"+strconv.FormatInt(n, 10))
				resp, err := adv.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch {
				case resp.StatusCode == http.StatusOK:
					advOK.Add(1)
				case resp.StatusCode == http.StatusServiceUnavailable:
					advRefused.Add(1)
					select { // the adversary's pacing, not a wait for state
					case <-ctx.Done():
					case <-time.After(100 * time.Millisecond):
					}
				default:
					advOther.Add(1)
				}
			}
		})
	}
	time.Sleep(floodFor) // the flood's real-time phase: the figure is measured in real time
	st := adminStatus(t, admin, "obv")
	t.Logf("after %v of flood: %d waiting (max_queue 1000), %d clients, %d sessions remembered; adversary 200s %d, 503s %d",
		floodFor, st.Waiting, st.Clients, st.Sessions, advOK.Load(), advRefused.Load())

	// The honest search.
	start := time.Now()
	req, _ := http.NewRequest(http.MethodGet, base+"honest-first", nil)
	req.Header.Set("Besluitbron-Session", "honest-fresh")
	resp, err := honest.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	wait := time.Since(start)
	t.Logf("honest search from another address: status %d after %v (queue wait header %s ms)", resp.StatusCode, wait.Round(time.Millisecond), resp.Header.Get("Besluitbron-Queue-Wait"))
	if resp.StatusCode/100 != 2 || wait > 3*time.Second {
		t.Errorf("honest search: %d after %v; target 2xx within 3 s", resp.StatusCode, wait)
	}

	// The share phase: both addresses busy.
	heaviest := adminStatus(t, admin, "obv").Heaviest
	used := map[string]float64{}
	for _, c := range heaviest {
		switch c.Client {
		case "addr:127.0.0.1":
			used["A"] = c.Used
		case "addr:127.0.0.2":
			used["B"] = c.Used
		}
	}
	load := func(who string) int64 { v, _ := unitsAt.Load(who); return v.(*atomic.Int64).Load() }
	a0, b0 := load("A"), load("B")
	end := time.Now().Add(shareFor)
	var honestCalls, honestBad int
	for time.Now().Before(end) {
		req, _ := http.NewRequest(http.MethodGet, base+"honest-busy", nil)
		req.Header.Set("Besluitbron-Session", "honest-fresh")
		resp, err := honest.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		honestCalls++
		if resp.StatusCode != http.StatusOK {
			honestBad++
		}
	}
	da, db := float64(load("A")-a0), float64(load("B")-b0)
	stop()
	wg.Wait()

	// The rule's share: fluid allocation with weights 1/(1+used/C), usage
	// growing as units are served, both always waiting.
	ua, ub := used["A"], used["B"]
	fa, fb := 0.0, 0.0
	rate := obv.Capacity / 60.0
	for s := 0.0; s < shareFor.Seconds(); s += 0.01 {
		wa, wb := 1/(1+ua/obv.Capacity), 1/(1+ub/obv.Capacity)
		ga, gb := rate*0.01*wa/(wa+wb), rate*0.01*wb/(wa+wb)
		ua, ub, fa, fb = ua+ga, ub+gb, fa+ga, fb+gb
	}
	total := da + db
	t.Logf("share phase %v: adversary %.0f units (%.1f%%), honest %.0f units (%.1f%%, %d calls, %d not 200); rule's share for the adversary %.1f%% (usage at start: adversary %.0f, honest %.0f)",
		shareFor, da, 100*da/total, db, 100*db/total, honestCalls, honestBad, 100*fa/(fa+fb), used["A"], used["B"])
	t.Logf("emulator 429s: %d; adversary over the whole run: %d answered, %d refused (503), %d other", em.Limited(), advOK.Load(), advRefused.Load(), advOther.Load())
	if em.Limited() != 0 {
		t.Errorf("the emulator answered 429 %d times", em.Limited())
	}
	if math.IsNaN(fa) {
		t.Fatal("no rule share")
	}
}
