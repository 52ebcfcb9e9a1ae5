package platformproxy

import (
	"fmt"
	"strings"

	up "github.com/besluitbron/besluitbron/upstream"
)

// mountProxy serves the paths below prefix of a platform that lives on
// more than one host (platforms.Platform.Mounts: KOOP's SRU search beside
// its repository of laws and regulations). Each has its own hosts,
// failover and attempts; the route's cache and budget in front are the
// platform's one.
type mountProxy struct {
	prefix string
	proxy  *up.Proxy
	dials  []string // its hosts' dial addresses
}

// proxyFor is the proxy that serves reqPath (below the route).
func (h *Handler) proxyFor(reqPath string) *up.Proxy {
	for _, m := range h.mounts {
		if strings.HasPrefix(reqPath, m.prefix) {
			return m.proxy
		}
	}
	return h.up
}

// proxyOfDial is the proxy one of whose hosts is dial.
func (h *Handler) proxyOfDial(dial string) *up.Proxy {
	for _, m := range h.mounts {
		for _, d := range m.dials {
			if d == dial {
				return m.proxy
			}
		}
	}
	return h.up
}

// proxyOf builds the proxy over baseURLs, each host with its pooled
// transport (shared with earlier configs of the same settings).
func (h *Handler) proxyOf(baseURLs []string, tlsKey string, topt up.TransportOptions, opt up.Options) (*up.Proxy, error) {
	var hosts []*up.Host
	seen := map[string]bool{}
	for _, raw := range baseURLs {
		u, err := parseBaseURL(raw)
		if err != nil {
			return nil, fmt.Errorf("platform %s: %w", h.Platform, err)
		}
		if seen[u.dial] {
			return nil, fmt.Errorf("platform %s: base URL %s repeats host %s", h.Platform, raw, u.dial)
		}
		seen[u.dial] = true
		u.transport, err = h.transport(u.dial, tlsKey, topt)
		if err != nil {
			return nil, fmt.Errorf("platform %s: %w", h.Platform, err)
		}
		h.upstreams = append(h.upstreams, u)
		hosts = append(hosts, &up.Host{Scheme: u.scheme, Host: u.host, Dial: u.dial, Prefix: u.prefix, Transport: u.transport})
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("platform %s: no base URL", h.Platform)
	}
	px, err := up.NewProxy(hosts, opt)
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", h.Platform, err)
	}
	return px, nil
}
