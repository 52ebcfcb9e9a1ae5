package upstream

import (
	"net/http"
	"strings"
)

// Headers a platform never gets, lower case. A platform needs the path,
// the query, the body and its content headers; everything below either
// belongs to one hop (RFC 9110 §7.6.1), carries a client's credentials or
// cookies, names our own sessions, or tells the platform about our users.
var (
	droppedHeaders = map[string]bool{
		// hop-by-hop
		"connection":        true,
		"keep-alive":        true,
		"te":                true,
		"trailer":           true,
		"transfer-encoding": true,
		"upgrade":           true,
		// credentials and cookies of our clients
		"authorization": true,
		"cookie":        true,
		"cookie2":       true,
		// our sessions
		"mcp-session-id": true,
		// net/http reads these as "safe to resend"; only the proxy
		// decides that (outgoing marks the searches)
		"idempotency-key":   true,
		"x-idempotency-key": true,
		// who our users are
		"x-forwarded-for":   true,
		"x-forwarded-host":  true,
		"x-forwarded-proto": true,
		"forwarded":         true,
		"x-real-ip":         true,
		"via":               true,
	}
	// Proxy-Authorization, Proxy-Connection, ...; Besluitbron-Session,
	// Besluitbron-Subrequest and any other of our own headers.
	droppedPrefixes = []string{"proxy-", "besluitbron-"}
)

// stripHeaders deletes from h every header a platform must not get,
// whatever the case of its name (a Header map built by hand need not be
// canonical), and every header the Connection header names.
func stripHeaders(h http.Header) {
	var named map[string]bool
	for k, vs := range h {
		if !strings.EqualFold(k, "Connection") {
			continue
		}
		for _, v := range vs {
			for _, f := range strings.Split(v, ",") {
				if f = strings.ToLower(strings.TrimSpace(f)); f != "" {
					if named == nil {
						named = map[string]bool{}
					}
					named[f] = true
				}
			}
		}
	}
	for k := range h {
		lk := strings.ToLower(k)
		if droppedHeaders[lk] || named[lk] || hasDroppedPrefix(lk) {
			delete(h, k)
		}
	}
}

func hasDroppedPrefix(lower string) bool {
	for _, p := range droppedPrefixes {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}
