package platformcache

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// TestInCaddyCoalescingFirstClientHangsUp: through Caddy's real
// reverse_proxy, N identical misses make one upstream request; the first
// client hangs up while it is in flight; the others get the whole body and
// so does the next hit (no blank or cut body stored: souin #337/#703/#704).
func TestInCaddyCoalescingFirstClientHangsUp(t *testing.T) {
	body := strings.Repeat(`["motie","aangenomen"],`, 4000)
	release := make(chan struct{})
	arrived := make(chan struct{}, 100)
	var calls atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		arrived <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := 0; i < len(body); i += 4096 {
			_, _ = io.WriteString(w, body[i:min(i+4096, len(body))])
			w.(http.Flusher).Flush()
		}
	}))
	defer up.Close()
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
}
:%d {
	route /platforms/tk/* {
		uri strip_prefix /platforms/tk
		platform_cache tk {
			document {
				path */resource
			}
		}
		reverse_proxy %s {
			flush_interval -1
		}
	}
}`, port, up.URL))
	url := fmt.Sprintf("http://127.0.0.1:%d/platforms/tk/OData/v4/2.0/Document(1)/resource", port)

	ctx, hangUp := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		firstDone <- err
	}()
	<-arrived // the first request is at the platform
	store := storeOf("tk")
	const n = 8
	var wg sync.WaitGroup
	bodies := make([]string, n)
	statuses := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, b := fetch(t, "GET", url)
			bodies[i], statuses[i] = b, resp.Header.Get("Cache-Status")
		}(i)
	}
	for store.Waiting() < n+1 { // all have joined the flight (polling state, not time)
		runtime.Gosched()
	}
	hangUp()
	if err := <-firstDone; err == nil {
		t.Fatal("first client did not hang up")
	}
	close(release)
	wg.Wait()
	for i := range bodies {
		if bodies[i] != body || !strings.Contains(statuses[i], "collapsed") {
			t.Fatalf("waiter %d: %d bytes (want %d), %q", i, len(bodies[i]), len(body), statuses[i])
		}
	}
	resp, b := fetch(t, "GET", url)
	if b != body || !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit") {
		t.Fatalf("stored entry: %d bytes, %q", len(b), resp.Header.Get("Cache-Status"))
	}
	if calls.Load() != 1 {
		t.Fatalf("%d upstream requests", calls.Load())
	}
}
