package platformproxy

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// The proxy's counters reach Caddy's metrics, labelled by platform only: a
// request whose first host answers 503 fails over to the second, so one
// request, two attempts, one failover.
func TestMetricsCountAttemptsAndFailovers(t *testing.T) {
	down := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	})
	ok := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	})
	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
%s}
:%d {
	handle_path /platforms/opentk/* {
		route {
			platform_proxy opentk %s %s
		}
	}
}`, admin, allowLoopback, port, down.URL, ok.URL))

	if status, _, body := get(t, fmt.Sprintf("http://127.0.0.1:%d/platforms/opentk/getdoc/2023D41173", port)); status != 200 || body != "ok" {
		t.Fatalf("got %d %q, want the second host's answer", status, body)
	}
	_, _, metrics := get(t, fmt.Sprintf("http://localhost:%d/metrics", admin))
	for _, want := range []string{
		`caddy_platform_proxy_requests_total{platform="opentk"} 1`,
		`caddy_platform_proxy_attempts_total{platform="opentk"} 2`,
		`caddy_platform_proxy_failovers_total{platform="opentk"} 1`,
		`caddy_platform_proxy_no_place_total{platform="opentk"} 0`,
		`caddy_platform_proxy_dead_connections_total{platform="opentk"} 0`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if down.requests.Load() != 1 || ok.requests.Load() != 1 {
		t.Errorf("hosts saw %d and %d requests, want 1 and 1", down.requests.Load(), ok.requests.Load())
	}
}
