package site

import (
	"net/http"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/fanout"
)

// newSearcher builds the fan-out engine over the site's platforms. Its
// platform calls go to the server in the request's context (the Origin
// the site puts there), as the shared session.
func newSearcher(h *Handler) (searcher, error) {
	e, err := fanout.New(fanout.Options{
		Do:        subrequest.DoFromContext,
		Platforms: h.Platforms,
		Deadline:  time.Duration(h.Deadline),
		Adapters:  h.adapters,
		Clock:     h.clock,
	})
	if err != nil {
		return nil, err
	}
	h.engine = e
	return e, nil
}

// serveJSON is GET /search for an app: the engine's own JSON API
// (fanout.ServeJSON: the same parameters as the form, 400 with
// {"error": ...} for a question it refuses).
func (h *Handler) serveJSON(w http.ResponseWriter, r *http.Request) error {
	return fanout.ServeJSON(w, r, h.engine)
}
