package platformproxy

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/httpx"
)

// defaultMaxBody is the default request body cap: an ORI _msearch or an
// OpenTK search form is a few KiB.
const defaultMaxBody = 64 << 10

// refusal is the JSON body of a 405, 413 or 400 the handler answers
// itself (written by hand; the type documents it and the tests decode
// into it).
type refusal struct {
	// Error is "method_not_allowed", "body_too_large", "bad_body",
	// "body_not_allowed" (a GET or HEAD with a body) or "bad_parameter"
	// (a priced query parameter not given as one number in range).
	Error    string   `json:"error"`
	Platform string   `json:"platform"`
	Allow    []string `json:"allow,omitempty"`
	MaxBody  int64    `json:"max_body,omitempty"`
	// Parameter names the query parameter of a bad_parameter.
	Parameter string `json:"parameter,omitempty"`
	Message   string `json:"message"`
}

func writeRefusal(w http.ResponseWriter, status int, body refusal) {
	httpx.WriteRefusal(w, status, body)
}

// admit lets through only what a platform needs: GET and HEAD anywhere,
// POST to the platform's read-only searches, and a body of at most
// MaxBody bytes, which it reads into memory and returns (canonical.go
// makes the platform's request of it). Anything else it answers itself
// and returns false.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) ([]byte, bool, error) {
	search := h.proxyFor(r.URL.Path).IsSearch(r)
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
	case r.Method == http.MethodPost && search:
	default:
		allow := []string{http.MethodGet, http.MethodHead}
		if search {
			allow = append(allow, http.MethodPost)
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		msg := fmt.Sprintf("%s is not passed on to platform %s: only reads (GET, HEAD) and its read-only searches (POST) are", r.Method, h.Platform)
		writeRefusal(w, http.StatusMethodNotAllowed, refusal{Error: "method_not_allowed", Platform: h.Platform, Allow: allow, Message: msg})
		return nil, false, nil
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true, nil
	}
	tooLarge := func() {
		msg := fmt.Sprintf("request body over %d bytes: platform %s takes at most that", h.MaxBody, h.Platform)
		writeRefusal(w, http.StatusRequestEntityTooLarge, refusal{Error: "body_too_large", Platform: h.Platform, MaxBody: h.MaxBody, Message: msg})
	}
	// A Content-Length over the cap is refused before a byte is read
	// (net/http closes the connection rather than drain a large body); a
	// chunked body is read one byte past the cap.
	body, over, err := httpx.BufferBody(r, h.MaxBody)
	if err != nil {
		if r.Context().Err() != nil {
			return nil, false, caddyhttp.Error(499, fmt.Errorf("platform_proxy %s: client gone while sending the body: %w", h.Platform, err))
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			tooLarge()
			return nil, false, nil
		}
		writeRefusal(w, http.StatusBadRequest, refusal{Error: "bad_body", Platform: h.Platform, Message: "reading the request body: " + err.Error()})
		return nil, false, nil
	}
	if over {
		tooLarge()
		return nil, false, nil
	}
	return body, true, nil
}
