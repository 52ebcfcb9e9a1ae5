package subrequest

import (
	"sort"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// PlatformRoute is the handler that sends a platform's requests upstream
// (platform_proxy): a server whose routes hold one for a platform can take
// a sub-request for it.
type PlatformRoute interface {
	// ProxiedPlatform is the platform key the handler proxies (obv, tk, ...).
	ProxiedPlatform() string
}

// maxRouteDepth bounds the walk through nested subroutes (handle inside
// route inside handle ...); real configs nest a few levels.
const maxRouteDepth = 32

// Carries reports whether srv's routes, subroutes included, hold a
// provisioned handler that proxies platform.
func Carries(srv *caddyhttp.Server, platform string) bool {
	return srv != nil && routesCarry(srv.Routes, platform, 0)
}

func routesCarry(routes caddyhttp.RouteList, platform string, depth int) bool {
	if depth > maxRouteDepth {
		return false
	}
	for _, r := range routes {
		for _, h := range r.Handlers {
			switch h := h.(type) {
			case PlatformRoute:
				if h.ProxiedPlatform() == platform {
					return true
				}
			case *caddyhttp.Subroute:
				if routesCarry(h.Routes, platform, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// ServersFor returns the running config's HTTP servers that carry
// platform's route, by server name: where code that has no request of its
// own to follow (a background refresh) sends its sub-requests. Asking the
// others would reach sites that are not BesluitBron's (the offline
// emulators' own servers, an admin's other sites) and only draw 404s.
// When no server's route is recognisable (an admin proxies the platform
// with another handler, such as reverse_proxy), it returns every server,
// for the caller to try in turn.
func ServersFor(platform string) []*caddyhttp.Server {
	app, err := caddy.ActiveContext().AppIfConfigured("http")
	if err != nil {
		return nil
	}
	httpApp, ok := app.(*caddyhttp.App)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(httpApp.Servers))
	for n := range httpApp.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var carriers, all []*caddyhttp.Server
	for _, n := range names {
		srv := httpApp.Servers[n]
		all = append(all, srv)
		if Carries(srv, platform) {
			carriers = append(carriers, srv)
		}
	}
	if len(carriers) > 0 {
		return carriers
	}
	return all
}
