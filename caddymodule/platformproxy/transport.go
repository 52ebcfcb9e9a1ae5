package platformproxy

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
)

// upstream is one base URL of a platform.
type upstream struct {
	scheme    string // http or https
	host      string // Host header and TLS server name, without a default port
	dial      string // host:port, the reverse proxy's upstream address
	prefix    string // path prefix of the base URL, without a trailing slash
	transport *reverseproxy.HTTPTransport
}

func parseBaseURL(raw string) (*upstream, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("base URL %q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("base URL %q: must not carry a query, fragment or user info", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return &upstream{
		scheme: u.Scheme,
		host:   u.Host,
		dial:   net.JoinHostPort(u.Hostname(), port),
		prefix: strings.TrimSuffix(u.EscapedPath(), "/"),
	}, nil
}

// hostTransport completes the request for the upstream the reverse proxy
// picked: Caddy's upstream list holds host:port only, so scheme, Host,
// path prefix and the identifying headers are set here, per host (OpenTK's
// two hosts differ in prefix).
type hostTransport struct {
	byDial    map[string]*upstream
	userAgent string
}

// headers that would tell a platform about our users.
var clientHeaders = []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded", "X-Real-Ip", "Via"}

func (t *hostTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	u, ok := t.byDial[req.URL.Host]
	if !ok {
		// Only the configured hosts are ever contacted.
		return nil, fmt.Errorf("refusing upstream %q: not a configured host of this platform", req.URL.Host)
	}
	req.URL.Scheme = u.scheme
	req.Host = u.host
	if u.prefix != "" {
		req.URL.RawPath = ""
		path := req.URL.EscapedPath()
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		joined := u.prefix + path
		if p, err := url.PathUnescape(joined); err == nil {
			req.URL.Path = p
			if req.URL.EscapedPath() != joined {
				req.URL.RawPath = joined
			}
		}
	}
	for _, h := range clientHeaders {
		req.Header.Del(h)
	}
	req.Header.Set("User-Agent", t.userAgent)
	return u.transport.RoundTrip(req)
}
