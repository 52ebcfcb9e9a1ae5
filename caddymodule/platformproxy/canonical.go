package platformproxy

import (
	"net/http"

	"github.com/besluitbron/besluitbron/canonical"
	"github.com/besluitbron/besluitbron/httpx"
)

// canonicalRequest makes the request the platform receives: the
// canonical form of r (package canonical), the same request
// platform_cache keys, so nothing that can change the answer reaches the
// platform without being in the key. A request without one (a GET or
// HEAD with a body, a form that does not read as one, a priced parameter
// other than one number in range) is answered 400 here, and false
// returned.
func (h *Handler) canonicalRequest(w http.ResponseWriter, r *http.Request, body []byte) (*http.Request, bool) {
	c, err := canonical.Build(r, body, h.rules)
	if err != nil {
		httpx.WriteRefusal(w, http.StatusBadRequest, canonical.RefusalOf(h.Platform, err))
		return nil, false
	}
	return c.Outgoing(r.Context()), true
}
