package site

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/fanout"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/mcp/adapters"
)

var timeNow = time.Now

// newSearcher builds the fan-out engine over the site's platforms. Its
// platform calls go to the server in the request's context (the Origin
// the site puts there), as the shared session.
func newSearcher(h *Handler) (searcher, error) {
	e, err := fanout.New(fanout.Options{
		Do: func(ctx context.Context, platform string, req adapters.Request) (*subrequest.Answer, error) {
			o, ok := subrequest.OriginFrom(ctx)
			if !ok {
				return nil, errors.New("no Caddy server to send the platform request to")
			}
			return subrequest.Do(ctx, o, platform, req)
		},
		Platforms: h.Platforms,
		Deadline:  time.Duration(h.Deadline),
		TKRoot:    h.TKODataRoot,
	})
	if err != nil {
		return nil, err
	}
	h.engine = e
	return e, nil
}

// serveJSON is GET /search for an app: the engine's merged answer as
// JSON, or 400 with {"error": ...} saying what to fix.
func (h *Handler) serveJSON(w http.ResponseWriter, r *http.Request) error {
	q, _ := h.query(r)
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "limit must be a whole number"})
		}
		q.Limit = n
	}
	if err := h.checkQuery(q); err != nil {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	}
	return writeJSON(w, http.StatusOK, h.engine.Search(r.Context(), q, nil))
}
