package cache

import (
	"context"
	"net/http"

	"github.com/besluitbron/besluitbron/cachestatus"
)

// Stored-only requests (issue 33). The MCP connectors answer a tools/call
// beside mcp-go only when every platform answer behind it is in the cache
// (mcp/fastpath.go). They learn that by asking the route with the request
// marked stored-only: the cache then answers from what it holds, fresh or
// within stale-while-revalidate, and anything else with 504 and
// cachestatus.DetailNotStored, without asking the platform, queueing for its budget
// or counting a miss; the call then goes to mcp-go, which asks again
// normally. It is RFC 9111's only-if-cached (section 5.2.1.7), carried in
// the context so that only BesluitBron's own sub-requests can ask it.

type storedOnlyKey struct{}

// WithStoredOnly marks the requests made with ctx stored-only.
func WithStoredOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, storedOnlyKey{}, true)
}

// StoredOnly tells whether ctx marks its requests stored-only.
func StoredOnly(ctx context.Context) bool {
	v, _ := ctx.Value(storedOnlyKey{}).(bool)
	return v
}

// notStored answers a stored-only request the cache cannot serve.
func notStored(w http.ResponseWriter) error {
	w.Header().Set(cachestatus.Header, cachestatus.Name+"; fwd=miss; detail="+cachestatus.DetailNotStored)
	w.WriteHeader(http.StatusGatewayTimeout)
	return nil
}
