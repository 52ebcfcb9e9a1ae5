// Package session decides which session a request belongs to (docs/rules.md, "Who a client is")
// and remembers the MCP session ids the connectors issued. The fair queue
// keys budgets on it, the inbound limits key their session layer on it, and
// MCP tool calls carry it into their in-process sub-requests.
//
// Keys carry a prefix that says where they came from, so an address can
// never pose as a session id: "mcp:<id>", "app:<header value>",
// "addr:<client ip>", or Shared.
package session

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

const (
	// Header lets an app that is not an MCP client name its own session.
	Header = "Besluitbron-Session"
	// MCPHeader carries the session id of a 2025-era MCP client.
	MCPHeader = "Mcp-Session-Id"
	// Shared is the one session of the site's own search page and
	// BesluitBron's maintenance; its usage is never counted.
	Shared = "shared"
)

type internalKey struct{}

// WithInternal marks ctx as an in-process sub-request (an MCP tool call, a
// maintenance job) made on behalf of session key. Inbound limits let such
// requests pass, since the call that caused them was already counted.
func WithInternal(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, internalKey{}, key)
}

// Internal reports whether ctx belongs to an in-process sub-request, and
// for which session.
func Internal(ctx context.Context) (key string, ok bool) {
	key, ok = ctx.Value(internalKey{}).(string)
	return key, ok
}

// Key returns the session key of r for the fair queue: the internal
// sub-request's session; else an MCP session id the connectors issued (in
// g); else the Besluitbron-Session header; else the client address.
func (g *Registry) Key(r *http.Request) string {
	if key, ok := Internal(r.Context()); ok {
		return key
	}
	if id := r.Header.Get(MCPHeader); id != "" && g.Has(id) {
		return "mcp:" + id
	}
	if v := strings.TrimSpace(r.Header.Get(Header)); v != "" && len(v) <= 128 {
		return "app:" + v
	}
	return "addr:" + ClientIP(r)
}

// TrustedKeys returns the keys the inbound limits count r against: the
// key of the MCP session a connector issued (in g: "mcp:<id>", or "" without
// one) and the key of the client address ("addr:<client ip>"). A request
// with a session counts against both, so sessions divide their address's
// room and never multiply it. The self-declared Besluitbron-Session header
// is not consulted, and a made-up Mcp-Session-Id yields no session: it
// counts as its address alone, so inventing ids opens no new room.
// In-process sub-requests (Internal) are the caller's to let through.
//
// The limits run before anything else, so TrustedKeys asks no shared
// store: an id this instance does not know yet (issued by another
// instance) counts as its address until the connector, behind the limits,
// has looked it up. A flood of made-up ids therefore costs Redis nothing
// before the address limit has judged it.
func (g *Registry) TrustedKeys(r *http.Request) (sessionKey, addressKey string) {
	if id := r.Header.Get(MCPHeader); id != "" && g.HasLocal(id) {
		sessionKey = "mcp:" + id
	}
	return sessionKey, "addr:" + ClientIP(r)
}

// ClientIP returns Caddy's idea of the client address (which honours the
// server's trusted_proxies), or the connection's remote host outside Caddy.
func ClientIP(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
