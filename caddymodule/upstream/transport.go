package upstream

import (
	"crypto/tls"
	"net"
	"net/http"
	"time"
)

// TransportOptions are the connection settings of one host's pool.
type TransportOptions struct {
	// DialTimeout bounds the TCP connect and, separately, the TLS
	// handshake.
	DialTimeout time.Duration
	// IdleTimeout is how long an unused kept-alive connection stays in
	// the pool.
	IdleTimeout time.Duration
	// MaxIdleConnsPerHost bounds the idle connections kept for the host.
	MaxIdleConnsPerHost int
	// ProbeInterval is the TCP keep-alive idle time and probe interval;
	// after ProbeCount unanswered probes the kernel closes the
	// connection. Zero disables the probes.
	ProbeInterval time.Duration
	ProbeCount    int
	// Policy is checked against every address dialled.
	Policy AddrPolicy
	// TLS, when set, is cloned for the host (tests use it to trust a test
	// CA). Certificates are always verified against the host name.
	TLS *tls.Config
}

// NewTransport returns the kept-alive connection pool for one host.
//
// It speaks HTTP/1.1 only, so every request in flight has its own
// connection (HTTP/2 would multiplex them onto one, where one stalled
// connection stalls them all and a GOAWAY fails them together). It has no
// response header timeout and no read timeout: a long, silent answer is
// not cut; a dead path is found by the TCP keep-alive probes instead. It
// does not use HTTP_PROXY: an egress proxy would dial on our behalf and
// bypass the address policy.
func NewTransport(o TransportOptions) *http.Transport {
	dialer := &net.Dialer{
		Timeout: o.DialTimeout,
		Control: o.Policy.Control,
	}
	if o.ProbeInterval > 0 {
		count := o.ProbeCount
		if count <= 0 {
			count = 3
		}
		dialer.KeepAliveConfig = net.KeepAliveConfig{
			Enable:   true,
			Idle:     o.ProbeInterval,
			Interval: o.ProbeInterval,
			Count:    count,
		}
	} else {
		dialer.KeepAlive = -1
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLS != nil {
		tlsConf = o.TLS.Clone()
	}
	tlsConf.NextProtos = []string{"http/1.1"}
	return &http.Transport{
		DialContext:         dialer.DialContext,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: o.DialTimeout,
		MaxIdleConnsPerHost: o.MaxIdleConnsPerHost,
		IdleConnTimeout:     o.IdleTimeout,
		// Non-nil and empty: never HTTP/2.
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
		ForceAttemptHTTP2: false,
	}
}
