package mcp

import (
	"time"

	"github.com/besluitbron/besluitbron/adapters/obv"
)

// laadstatus returns OpenBesluitvorming's load status as the maintenance
// last fetched it, and when; false before the first refresh. The
// connector publishes it in the besluitbron app (App.PublishLaadstatus)
// for the site's status page, which so asks the platform nothing itself.
func (m *maintainer) laadstatus() (obv.Status, time.Time, bool) {
	snap := m.snapshot()
	if snap == nil {
		return obv.Status{}, time.Time{}, false
	}
	return snap.status, snap.fetched, true
}
