package testcaddy

import (
	"errors"
	"io"
	"net/http"
	"syscall"
)

// AcrossReloads is a transport for test clients that live through a
// Reload. On Linux Caddy binds each config's listener as its own
// SO_REUSEPORT socket (caddy/listen_unix.go), so for the moment both
// configs listen the kernel spreads new connections over both sockets,
// and the connections still waiting in the old socket's accept queue when
// it closes are reset: at dial ("connect: connection reset by peer") or
// at the first read (reset, or EOF). No server read such a request, so it
// is sent again, on a new connection, up to reloadTries times in all;
// every other error stands. Keep-alive is off because a reload also
// closes the old server's idle connections, and net/http does not resend
// a POST caught on one. Real clients meet the same resets during a reload
// (docs/operations.md).
//
// Use it for the requests that cross a reload, not as a test's only
// client: closing every connection as soon as its answer is read can cut
// the proxy's own upstream connection before it returns to its pool,
// which tests of connection reuse would count.
var AcrossReloads http.RoundTripper = resendUnserved{&http.Transport{DisableKeepAlives: true}}

// reloadTries bounds the sends of one request: a reload's window lasts
// while the old server shuts down, milliseconds, so a few tries suffice.
const reloadTries = 5

// resendUnserved sends a request again while its connection was closed
// or reset before any answer; see AcrossReloads.
type resendUnserved struct{ next http.RoundTripper }

func (r resendUnserved) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	for try := 1; try < reloadTries && unserved(err) && (req.Body == nil || req.GetBody != nil); try++ {
		again := req.Clone(req.Context())
		if req.GetBody != nil {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			again.Body = body
		}
		resp, err = r.next.RoundTrip(again)
	}
	return resp, err
}

// unserved reports whether err means the connection ended before the
// server answered anything: closed (EOF) or reset.
func unserved(err error) bool {
	return err != nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET))
}
