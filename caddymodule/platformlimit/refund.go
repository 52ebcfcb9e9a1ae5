package platformlimit

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/fairqueue"
)

// When a call's units go back to the budget.
//
// A call that got no answer from the platform most likely never reached
// the platform's accounting: a refused or timed-out dial, no place on any
// host, a pooled connection found dead (TCP user timeout, probes), a reset
// before the answer. Keeping its units would leave the budget spent for
// calls the platform never served, so that after a dead path the next
// callers wait, or are refused, for nothing. Such a call is refunded. If
// the platform did count it after all, the budget is at most one call too
// generous, and the platform's own word on its next answer pulls it back
// down: RateLimit-Remaining/Reset, or a 429 that pauses the budget.
//
// Never refunded:
//   - A call the platform answered, with any status, 5xx included, also
//     when the answer broke off mid-body: the platform counted it.
//   - A call whose caller hung up after the request reached a platform's
//     connection: the platform is serving it and counts it. Refunding it
//     would let a client that hangs up on every request before its answer
//     send the platform as many requests as it likes, past the budget.
//     (When it is not known whether the request left, as behind another
//     proxy handler than platform_proxy, a hang-up is not refunded either.)

// sentPlaceholder is set by platform_proxy: the number of attempts a
// platform received (0: nothing of the request left BesluitBron).
const sentPlaceholder = "http.platform_proxy.sent"

// refundable reports whether an admitted call's units go back, after the
// next handler returned err, with answered telling whether a response
// status was written. sent is the platform_proxy's count of attempts that
// reached a platform, known only when platform_proxy ran.
func refundable(r *http.Request, answered bool, err error, sent int64, known bool) bool {
	switch {
	case known && sent == 0:
		// Nothing left BesluitBron, whatever the proxy answered itself
		// (a refused dial, no place on any host), also when the caller
		// hung up while it was on its way.
		return true
	case err == nil || answered:
		return false // the platform answered: it counted the call
	case r.Context().Err() != nil:
		return false // the caller hung up; the platform may be serving it
	default:
		return true // sent, and the path failed before any answer
	}
}

// sentAttempts reads {http.platform_proxy.sent}.
func sentAttempts(repl *caddy.Replacer) (int64, bool) {
	if repl == nil {
		return 0, false
	}
	v, ok := repl.Get(sentPlaceholder)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}

// settle refunds an admitted call when refundable says so, and counts it.
func (h *Handler) settle(r *http.Request, repl *caddy.Replacer, adm fairqueue.Admission, answered bool, err error) {
	sent, known := sentAttempts(repl)
	if !refundable(r, answered, err, sent, known) {
		return
	}
	if !h.budget.Refund(adm) {
		// Its history is gone (thousands of calls since, or a
		// reconfiguration): the call stays counted.
		return
	}
	if repl != nil {
		repl.Set("http.platform_limit.refunded", true)
	}
	h.logger.Debug("call got no answer from the platform: units refunded",
		zap.String("platform", h.Platform),
		zap.Float64("units", adm.Cost),
		zap.Int64("sent", sent),
		zap.Bool("sent_known", known),
		zap.Error(err))
}
