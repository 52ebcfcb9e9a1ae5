package upstream

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// Connection defaults shared by platform_proxy and the tests that check
// them.
const (
	// DefaultProbeInterval is the TCP keep-alive idle time and probe
	// interval: well below the pool's idle timeout, so an idle connection
	// is probed before it is reused.
	DefaultProbeInterval = 5 * time.Second
	// DefaultProbeCount is the number of unanswered probes (and the user
	// timeout is idle + count × interval: 20 s with the defaults).
	DefaultProbeCount = 3
)

// TransportOptions are the connection settings of one host's pool.
type TransportOptions struct {
	// DialTimeout bounds the TCP connect and, separately, the TLS
	// handshake.
	DialTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for the answer's headers once
	// the request is sent; zero waits without bound. The body that
	// follows is not bounded by it.
	ResponseHeaderTimeout time.Duration
	// IdleTimeout is how long an unused kept-alive connection stays in
	// the pool.
	IdleTimeout time.Duration
	// MaxIdleConnsPerHost bounds the idle connections kept for the host.
	MaxIdleConnsPerHost int
	// ProbeInterval is the TCP keep-alive idle time and probe interval.
	// With ProbeCount it also sets the TCP user timeout, DeadAfter: a
	// connection whose sent data or probes stay unacknowledged that long
	// is closed by the kernel. Zero disables both.
	ProbeInterval time.Duration
	ProbeCount    int
	// OnDeadConn, when set, is called once per connection the kernel
	// found dead (ETIMEDOUT after the user timeout or the probes; a host
	// or network that became unreachable). The pool's other idle
	// connections to the host share the dead path and are closed first,
	// so a resend goes over a new connection.
	OnDeadConn func(error)
	// Policy is checked against every address dialled.
	Policy AddrPolicy
	// TLS, when set, is cloned for the host (tests use it to trust a test
	// CA). Certificates are always verified against the host name.
	TLS *tls.Config
}

// DeadAfter is the TCP user timeout the options give: the probes' idle
// time plus their count times the interval, with the interval in whole
// seconds as the kernel takes it. Zero when probes are off.
func (o TransportOptions) DeadAfter() time.Duration {
	if o.ProbeInterval <= 0 {
		return 0
	}
	return o.probeInterval() * time.Duration(1+o.probeCount())
}

// probeInterval rounds up to whole seconds, as net.KeepAliveConfig does.
func (o TransportOptions) probeInterval() time.Duration {
	return (o.ProbeInterval + time.Second - 1).Truncate(time.Second)
}

func (o TransportOptions) probeCount() int {
	if o.ProbeCount <= 0 {
		return DefaultProbeCount
	}
	return o.ProbeCount
}

// NewTransport returns the kept-alive connection pool for one host.
//
// It speaks HTTP/1.1 only, so every request in flight has its own
// connection (HTTP/2 would multiplex them onto one, where one stalled
// connection stalls them all and a GOAWAY fails them together). The wait
// for an answer's headers is bounded (ResponseHeaderTimeout): a platform
// that accepts the request and never answers holds no connection, and no
// cache flight waiting on it, for longer. It has no read timeout: a long,
// silent body is not cut, because a live platform's kernel acknowledges
// the keep-alive probes. A dead path is found by the kernel instead: the probes go
// unanswered while waiting for an answer or while idle, and sent data that
// is never acknowledged hits the TCP user timeout (without it, Linux
// retransmits for about 15 minutes). It does not use HTTP_PROXY: an egress
// proxy would dial on our behalf and bypass the address policy.
func NewTransport(o TransportOptions) *http.Transport {
	userTimeout := o.DeadAfter()
	dialer := &net.Dialer{
		Timeout: o.DialTimeout,
		Control: func(network, address string, c syscall.RawConn) error {
			if err := o.Policy.Control(network, address, c); err != nil {
				return err
			}
			return setUserTimeout(c, userTimeout)
		},
	}
	if o.ProbeInterval > 0 {
		dialer.KeepAliveConfig = net.KeepAliveConfig{
			Enable:   true,
			Idle:     o.probeInterval(),
			Interval: o.probeInterval(),
			Count:    o.probeCount(),
		}
	} else {
		dialer.KeepAlive = -1
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLS != nil {
		tlsConf = o.TLS.Clone()
	}
	tlsConf.NextProtos = []string{"http/1.1"}
	tr := &http.Transport{
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: o.DialTimeout,
		// Only until the headers: net/http stops this timer when they
		// arrive, so a slow full text that has started answering goes on.
		ResponseHeaderTimeout: o.ResponseHeaderTimeout,
		MaxIdleConnsPerHost:   o.MaxIdleConnsPerHost,
		IdleConnTimeout:       o.IdleTimeout,
		// Non-nil and empty: never HTTP/2.
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
		ForceAttemptHTTP2: false,
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: c, dead: func(err error) {
			// Runs on the reading or writing goroutine, before
			// net/http sees the error and decides on a resend.
			tr.CloseIdleConnections()
			if o.OnDeadConn != nil {
				o.OnDeadConn(err)
			}
		}}, nil
	}
	return tr
}

// watchedConn reports the first dead-path error of a connection.
type watchedConn struct {
	net.Conn
	once sync.Once
	dead func(error)
}

func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil && DeadPath(err) {
		c.once.Do(func() { c.dead(err) })
	}
	return n, err
}

func (c *watchedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil && DeadPath(err) {
		c.once.Do(func() { c.dead(err) })
	}
	return n, err
}

// DeadPath tells whether err is the kernel saying a connection's path is
// dead: unacknowledged data or probes past the user timeout (ETIMEDOUT),
// or an unreachable host or network reported meanwhile. A reset or EOF is
// a live peer closing, not a dead path.
func DeadPath(err error) bool {
	return errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}
