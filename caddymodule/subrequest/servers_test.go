package subrequest

import (
	"net/http"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

type fakeProxy struct{ platform string }

func (f fakeProxy) ProxiedPlatform() string { return f.platform }
func (fakeProxy) ServeHTTP(http.ResponseWriter, *http.Request, caddyhttp.Handler) error {
	return nil
}

type otherHandler struct{}

func (otherHandler) ServeHTTP(http.ResponseWriter, *http.Request, caddyhttp.Handler) error {
	return nil
}

func route(hs ...caddyhttp.MiddlewareHandler) caddyhttp.Route {
	return caddyhttp.Route{Handlers: hs}
}

// A server carries a platform when a platform_proxy for it stands in its
// routes, however deep in handle/route blocks; an emulator's site or
// another platform's route does not.
func TestCarries(t *testing.T) {
	nested := &caddyhttp.Server{Routes: caddyhttp.RouteList{
		route(otherHandler{}),
		route(&caddyhttp.Subroute{Routes: caddyhttp.RouteList{
			route(&caddyhttp.Subroute{Routes: caddyhttp.RouteList{route(otherHandler{}, fakeProxy{"obv"})}}),
		}}),
	}}
	other := &caddyhttp.Server{Routes: caddyhttp.RouteList{route(&caddyhttp.Subroute{Routes: caddyhttp.RouteList{route(fakeProxy{"tk"})}})}}
	emulator := &caddyhttp.Server{Routes: caddyhttp.RouteList{route(otherHandler{})}}

	if !Carries(nested, "obv") || Carries(nested, "tk") {
		t.Error("nested: want obv only")
	}
	if Carries(other, "obv") || !Carries(other, "tk") {
		t.Error("other: want tk only")
	}
	if Carries(emulator, "obv") || Carries(nil, "obv") {
		t.Error("a server without platform routes carries none")
	}

	// A subroute nested past the bound is not followed (no endless walk).
	deep := caddyhttp.RouteList{route(fakeProxy{"obv"})}
	for range maxRouteDepth + 2 {
		deep = caddyhttp.RouteList{route(&caddyhttp.Subroute{Routes: deep})}
	}
	if Carries(&caddyhttp.Server{Routes: deep}, "obv") {
		t.Error("followed subroutes past maxRouteDepth")
	}
}
