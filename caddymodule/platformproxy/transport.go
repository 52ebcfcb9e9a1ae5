package platformproxy

import (
	"fmt"
	"net/http"

	up "github.com/besluitbron/besluitbron/caddymodule/upstream"
)

// upstream is one base URL of a platform.
type upstream struct {
	scheme    string // http or https
	host      string // Host header and TLS server name, without a default port
	dial      string // host:port
	prefix    string // path prefix of the base URL, without a trailing slash
	transport *http.Transport
}

func parseBaseURL(raw string) (*upstream, error) {
	h, err := up.ParseBaseURL(raw)
	if err != nil {
		return nil, err
	}
	return &upstream{scheme: h.Scheme, host: h.Host, dial: h.Dial, prefix: h.Prefix}, nil
}

// hostTransport is the reverse proxy's transport. Caddy's upstream list
// holds one placeholder address (the first host's); the upstream.Proxy
// behind it picks the host itself (caps, failover, attempts), sets scheme,
// Host, path prefix and User-Agent and drops the client's X-Forwarded-*.
type hostTransport struct {
	dial  string
	proxy *up.Proxy
}

func (t *hostTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != t.dial {
		// Only the configured hosts are ever contacted.
		return nil, fmt.Errorf("refusing upstream %q: not a configured host of this platform", req.URL.Host)
	}
	return t.proxy.RoundTrip(req)
}
