package platformproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit" // the budget in front
	"github.com/besluitbron/besluitbron/internal/netnstest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// TestCaddyDeadPathRefundsBudgetInNetns: a platform route with the
// default connection settings and a platform_limit in front; the
// platform's only host is behind a real link that is cut while it holds
// a request on a pooled connection. The caller gets a 502 within the
// bound (20 s to find the connection dead, the resend's dial on the dead
// path at most 5 s more), the dead connection is counted, and the budget
// counted the call once, the resend included, then refunded it: it got no
// answer (issue 10.7).
func TestCaddyDeadPathRefundsBudgetInNetns(t *testing.T) {
	path := netnstest.New(t)
	ln := path.Listen(t)
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		io.WriteString(w, "ok")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { close(release); srv.Close() })

	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
}
:%d {
	handle_path /platforms/rechtspraak/* {
		route {
			platform_limit rechtspraak {
				capacity 10
				window 10m
				cost * 1
			}
			platform_proxy rechtspraak http://%s {
				allow_private %s
			}
		}
	}
}`, admin, port, ln.Addr(), path.FarIP))
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/rechtspraak", port)
	if status, _, body := get(t, base+"/warm"); status != 200 || body != "ok" {
		t.Fatalf("warm-up: %d %q", status, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type answer struct {
		status int
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/hang", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- answer{status: resp.StatusCode}
	}()
	<-arrived
	cut := path.Cut(t)
	a := <-done
	took := time.Since(cut)
	t.Logf("caller answered %v after the cut: %d %v", took, a.status, a.err)
	if a.err != nil || a.status != http.StatusBadGateway {
		t.Errorf("caller got %d %v, want 502", a.status, a.err)
	}
	if took > 35*time.Second {
		t.Errorf("caller answered %v after the cut, want within 35 s (20 s to find it dead + 5 s dial)", took)
	}

	_, _, metrics := get(t, fmt.Sprintf("http://localhost:%d/metrics", admin))
	if want := `caddy_platform_proxy_dead_connections_total{platform="rechtspraak"} 1`; !strings.Contains(metrics, want) {
		t.Errorf("metrics lack %s", want)
	}
	_, _, body := get(t, fmt.Sprintf("http://localhost:%d/besluitbron/budget/rechtspraak", admin))
	var b struct {
		Available     float64 `json:"available"`
		Admitted      uint64  `json:"admitted"`
		Refunded      uint64  `json:"refunded"`
		UnitsRefunded float64 `json:"units_refunded"`
		UnitsSpent    float64 `json:"units_spent"`
	}
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		t.Fatalf("budget status %q: %v", body, err)
	}
	t.Logf("budget after the dead call: %d admitted, %d refunded (%v units), %v units spent, %v available",
		b.Admitted, b.Refunded, b.UnitsRefunded, b.UnitsSpent, b.Available)
	// The warm-up stays spent; the dead call (its resend on a new
	// connection included) is admitted once, never charged again, and
	// refunded once, since it got no answer (issue 10.7). Nothing refills
	// in the test's seconds beyond a hundredth of a unit (10 per 10 min).
	if b.Admitted != 2 || b.Refunded != 1 || b.UnitsRefunded != 1 || b.UnitsSpent != 1 || b.Available < 9 {
		t.Errorf("budget %+v; want 2 admitted, 1 refunded (1 unit), 1 unit spent, 9 or more available", b)
	}
	if want := `caddy_platform_limit_refunds_total{platform="rechtspraak"} 1`; !strings.Contains(metrics, want) {
		t.Errorf("metrics lack %s", want)
	}
}
