package platformproxy

import (
	"fmt"
	"net/http"

	"go.uber.org/zap"

	up "github.com/besluitbron/besluitbron/upstream"
)

// refuseRedirect answers a platform's redirect outside its base URLs with
// a 502 naming the target, instead of passing it on: a Location to any
// host on our domain is an open redirect (a link to
// /platforms/<key>/... that lands on a phishing page). A redirect within
// the base URLs is rewritten to this route (redirect_prefix) upstream and
// never gets here. The platform did answer, so the call stays counted in
// its budget ({http.platform_proxy.sent} is not 0).
func (h *Handler) refuseRedirect(w http.ResponseWriter, off *up.OffPlatformRedirect) {
	h.logger.Warn("platform redirected outside its base URLs; answered 502",
		zap.String("platform", h.Platform),
		zap.Int("status", off.Status),
		zap.String("location", off.Location))
	// The base URLs are not named: an operator's may be private mirrors.
	msg := fmt.Sprintf("platform %s redirected (%d) to %s, outside its base URLs; BesluitBron passes on only redirects within them",
		h.Platform, off.Status, off.Location)
	writeRefusal(w, http.StatusBadGateway, refusal{Error: "redirect_off_platform", Platform: h.Platform, Message: msg})
}
