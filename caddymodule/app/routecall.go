package app

import (
	"context"
	"errors"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/subcall"
)

// routeCaller sends BesluitBron's own requests (the load status upkeep,
// a replica's harvest) through a running server's platform route, as
// the shared session, whose usage the fair queue does not count: so they
// go through the same cache, budget and proxy as every visitor's. One
// serves the process (it lives in the pooled Figures).
type routeCaller struct {
	mu   sync.Mutex
	srv  *caddyhttp.Server
	host string
}

// seen records the server and Host of a request a module served: own
// requests go through the same server and site, whose routes may match
// on Host.
func (c *routeCaller) seen(srv *caddyhttp.Server, host string) {
	c.mu.Lock()
	c.srv, c.host = srv, host
	c.mu.Unlock()
}

// do runs req against platform's route (subcall.Calls on
// answerFromServers): the 2xx answer, else the route's
// *adapters.RouteError or an *adapters.UnreachedError.
func (c *routeCaller) do(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
	calls := subcall.Calls{Do: c.answerFromServers}
	if _, err := calls.Get(ctx, platform, req); err != nil {
		return nil, err
	}
	return calls.Answers()[0], nil
}

// answerFromServers runs req through the server last seen when it
// carries the route, else through each server whose routes hold the
// platform's proxy (subrequest.ServersFor; never an admin's other sites
// or the offline emulators' own), until one answers 2xx: that answer,
// else the last server's answer or error.
func (c *routeCaller) answerFromServers(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
	c.mu.Lock()
	seenSrv, host := c.srv, c.host
	c.mu.Unlock()
	servers := subrequest.ServersFor(platform)
	var targets []*caddyhttp.Server
	for _, s := range servers {
		if s == seenSrv {
			targets = append(targets, s)
		}
	}
	if len(targets) == 0 {
		targets = servers
	}
	if len(targets) == 0 {
		return nil, errors.New("no running HTTP server carries the platform's route")
	}
	if host == "" {
		host = "localhost"
	}
	var last *subcall.Answer
	var lastErr error
	for _, srv := range targets {
		o := subrequest.Origin{Server: srv, Host: host, RemoteAddr: "127.0.0.1:0", Key: session.Shared}
		a, err := subrequest.Do(ctx, o, platform, req)
		if err == nil && a.OK() {
			return a, nil
		}
		last, lastErr = a, err
	}
	return last, lastErr
}
