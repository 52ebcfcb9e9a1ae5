package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDeadPathSocketOptions reads back, from the kernel, the options of a
// connection the pool dialled with the platform_proxy defaults: probes
// start after 5 s of silence (well before the 30 s idle timeout), and
// unacknowledged data or probes close the connection after 20 s.
func TestDeadPathSocketOptions(t *testing.T) {
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	opt := TransportOptions{ProbeInterval: DefaultProbeInterval, ProbeCount: DefaultProbeCount}
	if got := opt.DeadAfter(); got != 20*time.Second {
		t.Fatalf("DeadAfter = %v, want 20s", got)
	}
	tr := testTransport(opt)
	defer tr.CloseIdleConnections()
	var conn net.Conn
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { conn = info.Conn },
	})
	req, _ := http.NewRequestWithContext(ctx, "GET", a.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	wc, ok := conn.(*watchedConn)
	if !ok {
		t.Fatalf("connection is %T, want the watched one", conn)
	}
	raw, err := wc.Conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ level, opt, val int }{
		"SO_KEEPALIVE":     {unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		"TCP_KEEPIDLE":     {unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 5},
		"TCP_KEEPINTVL":    {unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 5},
		"TCP_KEEPCNT":      {unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3},
		"TCP_USER_TIMEOUT": {unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, 20000},
	}
	for name, w := range want {
		var got int
		var gerr error
		if err := raw.Control(func(fd uintptr) { got, gerr = unix.GetsockoptInt(int(fd), w.level, w.opt) }); err != nil {
			t.Fatal(err)
		}
		if gerr != nil || got != w.val {
			t.Errorf("%s = %d (%v), want %d", name, got, gerr, w.val)
		}
	}
}
