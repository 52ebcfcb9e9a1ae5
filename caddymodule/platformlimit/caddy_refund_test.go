package platformlimit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy" // the proxy behind the budget
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// TestRefundsThroughCaddy: platform_limit in front of the real
// platform_proxy (and of Caddy's reverse_proxy), one budget per route.
// Calls that got no answer give their units back: a refused dial, a
// platform that read the request and closed the connection, a caller who
// hung up while its request waited for a place on the host; a platform's
// 503 answer, and a caller who hung up once the platform had its
// request, keep theirs. The admin status and the metrics show the
// refunds.
func TestRefundsThroughCaddy(t *testing.T) {
	clk := fakeclock.New(t0)
	closes := listen(t, func(c net.Conn) {
		http.ReadRequest(bufio.NewReader(c)) // read it, answer nothing
		c.Close()
	})
	fails := listen(t, func(c net.Conn) {
		http.ReadRequest(bufio.NewReader(c))
		io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\nConnection: close\r\n\r\ndown")
		c.Close()
	})
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	holds := listen(t, func(c net.Conn) {
		http.ReadRequest(bufio.NewReader(c))
		arrived <- struct{}{}
		<-release
		c.Close()
	})
	t.Cleanup(func() { close(release) })
	refused := closedAddr(t)

	port, admin := testproc.FreePort(t), testproc.FreePort(t)
	// proxy is a platform_proxy of platform to addr (loopback allowed).
	proxy := func(platform, addr, more string) string {
		return fmt.Sprintf("platform_proxy %s http://%s {\n\t\t\t\tallow_private 127.0.0.1/8%s\n\t\t\t}", platform, addr, more)
	}
	route := func(name, proxy string) string {
		return fmt.Sprintf(`
	handle_path /%s/* {
		route {
			platform_limit test-%s {
				capacity 10
				window 10m
			}
			%s
		}
	}`, name, name, proxy)
	}
	budgetsOn(t, clk, "test-refused", "test-closes", "test-fails", "test-busy", "test-rp")
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
	metrics
}
:%d {%s%s%s%s%s
}`, admin, port,
		route("refused", proxy("rechtspraak", refused, "")),
		route("closes", proxy("ob", closes, "")),
		route("fails", proxy("oa", fails, "")),
		route("busy", proxy("tk", holds, "\n\t\t\t\tmax_requests_per_host 1")),
		route("rp", "reverse_proxy "+refused)))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	for _, c := range []struct {
		path   string
		status int
	}{{"/refused/x", 502}, {"/closes/x", 502}, {"/fails/x", 503}, {"/rp/x", 502}} {
		if resp, body := get(t, base+c.path); resp.StatusCode != c.status {
			t.Errorf("%s: %d %q, want %d", c.path, resp.StatusCode, body, c.status)
		}
	}

	// The host takes one request at a time: the first reaches it and is
	// held, the second waits for a place. Both callers hang up.
	ctx1, hangUp1 := context.WithCancel(context.Background())
	ctx2, hangUp2 := context.WithCancel(context.Background())
	done := make(chan error, 2)
	call := func(ctx context.Context) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/busy/x", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}
	go call(ctx1)
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("the first call did not reach the host: %v", err)
	}
	go call(ctx2)
	for adminStatus(t, admin, "test-busy").Admitted != 2 {
		time.Sleep(5 * time.Millisecond) // polling Caddy's state while the request arrives
	}
	hangUp2()
	<-done
	// Caddy sees the hang-up a moment after the caller: wait for the
	// refund before the first call frees the host, or the second could
	// take its place and be sent after all.
	for i := 0; i < 400 && adminStatus(t, admin, "test-busy").Refunded == 0; i++ {
		time.Sleep(5 * time.Millisecond) // polling Caddy's state
	}
	hangUp1()
	<-done

	for _, c := range []struct {
		platform string
		refunded uint64
	}{{"refused", 1}, {"closes", 1}, {"fails", 0}, {"rp", 1}, {"busy", 1}} {
		st := adminStatus(t, admin, "test-"+c.platform)
		wantSpent := float64(st.Admitted) - float64(c.refunded)
		// A refund is counted once the handler returns, which may be a
		// moment after the caller saw the hang-up.
		for i := 0; i < 200 && st.Refunded < c.refunded; i++ {
			time.Sleep(5 * time.Millisecond) // polling Caddy's state
			st = adminStatus(t, admin, "test-"+c.platform)
		}
		if st.Refunded != c.refunded || st.UnitsRefunded != float64(c.refunded) || st.UnitsSpent != wantSpent || st.Available != 10-wantSpent {
			t.Errorf("%s: admitted %d, refunded %d (%v units), spent %v, available %v; want %d refunded",
				c.platform, st.Admitted, st.Refunded, st.UnitsRefunded, st.UnitsSpent, st.Available, c.refunded)
		}
	}
	_, metrics := get(t, fmt.Sprintf("http://localhost:%d/metrics", admin))
	for _, want := range []string{
		`caddy_platform_limit_refunds_total{platform="test-refused"} 1`,
		`caddy_platform_limit_refunds_total{platform="test-fails"} 0`,
		`caddy_platform_limit_units_refunded_total{platform="test-closes"} 1`,
		// Units charged, refunds included: a counter never goes down.
		`caddy_platform_limit_units_spent_total{platform="test-refused"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// listen serves each connection with serve, until the test ends; it
// returns the listener's address.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// closedAddr is an address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
