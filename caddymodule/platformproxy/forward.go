package platformproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	up "github.com/besluitbron/besluitbron/upstream"
)

// forward sends out, the canonical request (canonical.go), through the
// platform's upstream.Proxy (host choice, caps, failover, attempts, the
// request's rewriting and our User-Agent are all there) and copies the
// answer to w. It replaces Caddy's
// reverse_proxy, which would only have seen one placeholder upstream: the
// status codes of a failure are reverse_proxy's (502, 504 on a timeout,
// 499 when the client went away), and a body cut off after the headers
// went out aborts the response as reverse_proxy does, so the cache in
// front never stores it.
func (h *Handler) forward(w http.ResponseWriter, out *http.Request) error {
	resp, err := h.proxyFor(out.URL.Path).RoundTrip(out)
	var off *up.OffPlatformRedirect
	if errors.As(err, &off) {
		h.refuseRedirect(w, off)
		return nil
	}
	if err != nil {
		return statusError(err)
	}
	defer resp.Body.Close()
	removeHopHeaders(resp.Header)
	hdr := w.Header()
	for k, vs := range resp.Header {
		hdr[k] = vs
	}
	if len(resp.Trailer) > 0 {
		names := make([]string, 0, len(resp.Trailer))
		for k := range resp.Trailer {
			names = append(names, k)
		}
		hdr.Add("Trailer", strings.Join(names, ", "))
	}
	w.WriteHeader(resp.StatusCode)
	if err := copyBody(w, resp); err != nil {
		h.logger.Warn("aborting with incomplete response",
			zap.String("platform", h.Platform), zap.Error(err))
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}
	for k, vs := range resp.Trailer {
		hdr[http.TrailerPrefix+k] = vs
	}
	return nil
}

// copyBody copies the answer. An answer of unknown length or an event
// stream is flushed as it comes, as reverse_proxy does: a platform that
// sends its answer in parts (a long export) is not held back.
func copyBody(w http.ResponseWriter, resp *http.Response) error {
	stream := resp.ContentLength == -1 || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			if stream {
				_ = rc.Flush()
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// statusError gives a failed round trip the status reverse_proxy gives it.
func statusError(err error) error {
	if errors.Is(err, up.ErrNoPlace) {
		return caddyhttp.Error(http.StatusServiceUnavailable, err)
	}
	status := http.StatusBadGateway
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		status = http.StatusGatewayTimeout
	}
	if errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "operation was canceled") {
		status = 499 // the client went away (nginx's and Caddy's code)
	}
	return caddyhttp.Error(status, err)
}

// hopHeaders belong to one connection (RFC 9110 §7.6.1), as reverse_proxy
// removes them from an answer.
var hopHeaders = []string{"Alt-Svc", "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}
