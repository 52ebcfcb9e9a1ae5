package platformproxy

import (
	"net/http"

	up "github.com/besluitbron/besluitbron/upstream"
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
