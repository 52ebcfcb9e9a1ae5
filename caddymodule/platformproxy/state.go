package platformproxy

import (
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"

	up "github.com/besluitbron/besluitbron/upstream"
)

// pool holds what outlives a config: per platform the hosts' in-flight
// counts (so a reload never doubles a per-host cap) and per host and
// connection settings the kept-alive connection pool (so a reload keeps
// the pooled connections). Keys: "platform:<key>" and
// "transport:<key>|<dial>|<settings>". A reload that changes a host's
// connection settings gets a new pool for it; the old one closes when the
// old config is cleaned up.
var pool = caddy.NewUsagePool()

// platformState is one platform's shared state.
type platformState struct {
	places *up.Places
	// deadConn reports a connection the kernel found dead to the proxy
	// of the config in force (set when a config starts).
	deadConn atomic.Pointer[func(dial string, err error)]
}

func (*platformState) Destruct() error { return nil }

func (s *platformState) setDeadConn(f func(string, error)) { s.deadConn.Store(&f) }

func (s *platformState) noteDeadConn(dial string) func(error) {
	return func(err error) {
		if f := s.deadConn.Load(); f != nil {
			(*f)(dial, err)
		}
	}
}

// pooledTransport is one host's connection pool.
type pooledTransport struct{ *http.Transport }

// Destruct closes the idle connections when no config uses the pool.
func (t pooledTransport) Destruct() error {
	t.CloseIdleConnections()
	return nil
}

// takeState takes the platform's shared state from the pool.
func (h *Handler) takeState() error {
	key := "platform:" + h.Platform
	v, loaded, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		return &platformState{places: up.NewPlaces()}, nil
	})
	if err != nil {
		return err
	}
	h.refs = append(h.refs, key)
	h.state = v.(*platformState)
	if !loaded {
		// The first config of the platform: nothing runs yet whose
		// reports this would take over.
		h.state.setDeadConn(h.deadConn)
	}
	return nil
}

// transport takes (or creates) the connection pool of one host with these
// settings. tlsKey names the TLS settings (opt.TLS), which the key cannot
// print.
func (h *Handler) transport(dial, tlsKey string, opt up.TransportOptions) (*http.Transport, error) {
	printable := opt
	printable.OnDeadConn, printable.TLS = nil, nil
	key := fmt.Sprintf("transport:%s|%s|%+v|%s", h.Platform, dial, printable, tlsKey)
	opt.OnDeadConn = h.state.noteDeadConn(dial)
	v, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		return pooledTransport{up.NewTransport(opt)}, nil
	})
	if err != nil {
		return nil, err
	}
	h.refs = append(h.refs, key)
	return v.(pooledTransport).Transport, nil
}

// release gives back every pool reference the handler took.
func (h *Handler) release() error {
	var first error
	for _, key := range h.refs {
		if _, err := pool.Delete(key); err != nil && first == nil {
			first = err
		}
	}
	h.refs = nil
	return first
}

var (
	_ caddy.Destructor = (*platformState)(nil)
	_ caddy.Destructor = pooledTransport{}
)
