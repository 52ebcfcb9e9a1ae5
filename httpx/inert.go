package httpx

import "net/http"

// A platform's answer is served on BesluitBron's own origin, next to /mcp
// and the search page. MakeInert keeps it from acting there:
//
//   - X-Content-Type-Options: nosniff, so a browser never reads a platform
//     answer as HTML or script that it did not label so;
//   - Content-Security-Policy: sandbox, so a platform page that does reach
//     a browser as HTML (one that reflects a query, say) runs in an opaque
//     origin without script, forms or navigation of the top window. It is
//     added as a policy of its own: a platform's own policies stay and are
//     enforced too, so the answer is never less restricted than the
//     platform made it;
//   - no header that acts on our origin rather than on the answer:
//     cookies (Set-Cookie, Set-Cookie2), Refresh (a navigation to any
//     host, an open redirect), Clear-Site-Data (would wipe our origin's
//     storage), Strict-Transport-Security (our origin's transport is the
//     operator's decision) and Service-Worker-Allowed (widens what a
//     worker script may control). An answer that set a cookie is a
//     personal one: with the cookie gone it is marked Cache-Control:
//     no-store, so no cache keeps it (platform_cache included, which stores
//     no answer that sets a cookie, docs/rules.md "Cache" rule 5).
//
// It is idempotent: platform_proxy and platform_cache both apply it, so an
// answer is inert whichever of them serves it and whatever sits behind the
// cache.
func MakeInert(h http.Header) {
	if len(h["Set-Cookie"]) > 0 || len(h["Set-Cookie2"]) > 0 {
		h["Cache-Control"] = []string{"no-store"}
	}
	for _, k := range originHeaders {
		delete(h, k)
	}
	h["X-Content-Type-Options"] = []string{"nosniff"}
	csp := h["Content-Security-Policy"]
	for _, v := range csp {
		if v == sandboxPolicy {
			return
		}
	}
	h["Content-Security-Policy"] = append(csp[:len(csp):len(csp)], sandboxPolicy)
}

const sandboxPolicy = "sandbox"

// originHeaders act on the origin that serves them (canonical names:
// headers from net/http's transport and Header.Set are canonical).
var originHeaders = []string{"Set-Cookie", "Set-Cookie2", "Refresh", "Clear-Site-Data",
	"Strict-Transport-Security", "Service-Worker-Allowed"}

// InertWriter makes every answer written through it inert (MakeInert)
// just before its header goes out, whoever set the header fields: the
// platform's copied headers, a stored entry's, or a handler's own.
type InertWriter struct {
	http.ResponseWriter
	wrote bool // the final header went out
}

// Inert wraps w in an InertWriter.
func Inert(w http.ResponseWriter) *InertWriter { return &InertWriter{ResponseWriter: w} }

// WriteHeader makes the header inert, then writes it.
// An informational (1xx) header is made inert too; the final one again.
func (w *InertWriter) WriteHeader(code int) {
	if !w.wrote {
		MakeInert(w.ResponseWriter.Header())
		w.wrote = code >= 200
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes the header first when no one did (a 200), inert.
func (w *InertWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		MakeInert(w.ResponseWriter.Header())
		w.wrote = true
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the writer below (flushes of
// a streamed answer, deadlines).
func (w *InertWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
