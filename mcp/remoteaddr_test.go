package mcp

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Behind a front proxy (Caddy's trusted_proxies), a tool call's
// sub-requests must come from the client's address, not the proxy's:
// otherwise every client behind the proxy shares one fair-queue share.
func TestSubrequestsComeFromTheClientAddress(t *testing.T) {
	r := httptest.NewRequest("POST", "/mcp/raad", nil)
	r.RemoteAddr = "10.0.0.2:41000" // the front proxy
	ctx := context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{
		caddyhttp.ClientIPVarKey: "2001:db8::7", // what trusted_proxies resolved
	})
	r = r.WithContext(ctx)
	if got, want := clientRemoteAddr(r), "[2001:db8::7]:0"; got != want {
		t.Fatalf("sub-request RemoteAddr = %q, want %q", got, want)
	}
	plain := httptest.NewRequest("POST", "/mcp/raad", nil)
	plain.RemoteAddr = "192.0.2.9:5000"
	if got, want := clientRemoteAddr(plain), "192.0.2.9:0"; got != want {
		t.Fatalf("without Caddy's client IP: %q, want %q", got, want)
	}
}
