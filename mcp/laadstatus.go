package mcp

import (
	"time"

	"github.com/besluitbron/besluitbron/mcp/adapters/obv"
)

// Laadstatus returns OpenBesluitvorming's load status as the maintenance
// last fetched it, and when; false before the first refresh or when no
// connector offers obv. Read-only, for the site's status page
// (caddymodule/site), so the page asks the platform nothing itself.
func Laadstatus() (obv.Status, time.Time, bool) {
	var snap *statusSnapshot
	maintainers.Range(func(_, v any) bool {
		snap = v.(*maintainer).snapshot()
		return false
	})
	if snap == nil {
		return obv.Status{}, time.Time{}, false
	}
	return snap.status, snap.fetched, true
}
