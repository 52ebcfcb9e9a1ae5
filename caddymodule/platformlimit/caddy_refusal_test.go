package platformlimit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy" // the proxy behind the budget
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// TestProxyRefusalsAreRefunded: what platform_proxy refuses itself (a
// method other than GET/HEAD/search POST: 405; a body over max_body:
// 413) never reaches a platform, so the budget in front gives its unit
// back. A hostile client sending PUTs and oversized POSTs, one by one and
// many at once, leaves the budget as it was; an honest GET afterwards is
// admitted at once and is the only request the platform sees.
func TestProxyRefusalsAreRefunded(t *testing.T) {
	clk := fakeclock.New(t0) // the window never moves: only refunds give units back
	var reached atomic.Int64
	var mu sync.Mutex
	var seen []string
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(platform.Close)

	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	// opentk: its descriptor's read-only search is POST /search.
	budgetsOn(t, clk, "test-refusals")
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
}
:%d {
	route {
		platform_limit test-refusals {
			capacity 3
			window 10m
		}
		platform_proxy opentk %s {
			allow_private 127.0.0.1/8
			max_body 1KiB
		}
	}
}
`, admin, port, platform.URL))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	before := adminStatus(t, admin, "test-refusals")

	big := strings.Repeat("x", 2<<10)
	do := func(method, path, body string, chunked bool) (int, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
			if chunked {
				rd = io.MultiReader(rd) // no length known: sent chunked
			}
		}
		req, err := http.NewRequest(method, base+path, rd)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	type call struct {
		method, path, body string
		chunked            bool
		want               int
	}
	var calls []call
	for i := 0; i < 10; i++ {
		calls = append(calls, call{http.MethodPut, "/x", `{"a":1}`, false, http.StatusMethodNotAllowed})
		// Half with a Content-Length over the cap (refused unread), half
		// chunked (refused one byte past the cap).
		calls = append(calls, call{http.MethodPost, "/search", big, i%2 == 1, http.StatusRequestEntityTooLarge})
	}
	// One by one: with capacity 3, a kept unit would show at the fourth.
	for _, c := range calls {
		if got, err := do(c.method, c.path, c.body, c.chunked); err != nil || got != c.want {
			t.Fatalf("%s %s (%d bytes, chunked %v): %d, %v; want %d", c.method, c.path, len(c.body), c.chunked, got, err, c.want)
		}
	}
	// Many at once: each waits its turn for one of the 3 units and gives
	// it back, so all are answered.
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(calls))
	for k := 0; k < 4; k++ {
		for _, c := range calls {
			wg.Add(1)
			go func(c call) {
				defer wg.Done()
				if got, err := do(c.method, c.path, c.body, c.chunked); err != nil || got != c.want {
					errs <- fmt.Errorf("%s %s: %d, %v; want %d", c.method, c.path, got, err, c.want)
				}
			}(c)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	st := adminStatus(t, admin, "test-refusals")
	refused := uint64(5 * len(calls))
	if st.UnitsSpent != before.UnitsSpent || st.Available != 3 || st.Refunded-before.Refunded != refused {
		t.Fatalf("after %d refusals: spent %v (was %v), available %v, refunded %d; want spent unchanged, 3 available, %d refunded",
			refused, st.UnitsSpent, before.UnitsSpent, st.Available, st.Refunded-before.Refunded, refused)
	}

	// The honest GET goes at once: with no unit left it would wait for
	// the fake clock, which never moves.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/x", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("honest GET after the refusals: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" {
		t.Fatalf("honest GET: %d %q", resp.StatusCode, b)
	}
	if st := adminStatus(t, admin, "test-refusals"); st.UnitsSpent != before.UnitsSpent+1 {
		t.Errorf("the GET spent %v units, want 1", st.UnitsSpent-before.UnitsSpent)
	}
	mu.Lock()
	defer mu.Unlock()
	if reached.Load() != 1 || seen[0] != "GET /x" {
		t.Errorf("the platform saw %v, want only GET /x", seen)
	}
}
