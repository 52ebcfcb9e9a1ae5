package cache

import (
	"context"
	"net/http"

	"github.com/besluitbron/besluitbron/httpx"
)

// refresh starts one background request for key, unless one is in flight,
// and stores its answer. It runs on a detached request, so it outlives the
// request that triggered it (the souin #699 trap); Close or the flight
// deadline (also past an answer too large to store) ends it. body is the
// POST body the key hashes (nil for GET): the refresh sends it again,
// since the triggering request's body is not the detached copy's to read.
func (s *Store) refresh(key string, r *http.Request, body []byte, pol Policy, next Next, detach Detach) {
	s.flightsMu.Lock()
	if s.flights[key] != nil || s.closeCtx.Err() != nil {
		s.flightsMu.Unlock()
		return
	}
	var req *http.Request
	if detach != nil {
		req = detach(r)
	} else {
		req = r.Clone(context.WithoutCancel(r.Context()))
	}
	if body != nil {
		httpx.SetBody(req, body)
	}
	// The refresh itself counts as a waiter, so callers that join it and
	// hang up never end it; its deadline does, as a miss's flight's.
	f := s.newFlight(req.Context())
	f.background = true
	s.flights[key] = f
	s.refreshes.Add(1)
	stopOnClose := context.AfterFunc(s.closeCtx, f.cancel)
	s.goBackground(func() {
		defer stopOnClose()
		defer f.cancel()
		fw := &fetchWriter{header: http.Header{}, max: pol.MaxBody}
		fw.onPassthrough = func() { s.publish(key, f, &result{shared: false}) }
		err, aborted := runNext(next, fw, req.WithContext(f.ctx))
		if fw.passthrough {
			s.publish(key, f, &result{shared: false})
			return
		}
		res := stalled(f, fw.result(err, aborted))
		s.keep(key, res, pol, s.clock())
		s.publish(key, f, res)
	})
	s.flightsMu.Unlock()
}
