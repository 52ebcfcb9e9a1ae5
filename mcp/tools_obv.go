package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
)

// OpenBesluitvorming's load status is kept by the besluitbron app (its
// keeper refreshes it as the shared session), so its tool is the
// connector's: the platform's other tools live in platforms/obv.

const obvStatusDesc = `Laadstatus: how fresh OpenBesluitvorming's import is per organisation (state ok/failing/discontinued, last successful import, latest content date, last error) and per supplier (iBabs, Notubiz, ...). Use it to tell whether a missing recent document is simply not imported yet.
Cost: free for you: BesluitBron's own maintenance refreshes it every few minutes as its shared session; the answer says how old it is.`

type obvStatusIn struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Only this organisation key (see obv_sources)."`
	State        string `json:"state,omitempty" jsonschema_description:"Only organisations in this state, e.g. failing."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"At most this many organisations." jsonschema_extras:"minimum=1,maximum=400,default=50"`
}

type obvStatusOut struct {
	mcpkit.Meta
	GeneratedAt  string               `json:"generated_at" jsonschema_description:"When the platform made the status."`
	FetchedAt    string               `json:"fetched_at" jsonschema_description:"When BesluitBron fetched it (RFC 3339)."`
	AgeSeconds   int                  `json:"age_seconds"`
	States       map[string]int       `json:"states" jsonschema_description:"Organisations per state."`
	Suppliers    []obv.SupplierStatus `json:"suppliers"`
	Sources      []obv.SourceStatus   `json:"sources"`
	HasMore      bool                 `json:"has_more" jsonschema_description:"More organisations match than limit."`
	MaintainedBy string               `json:"maintained_by"`
}

func (c *connector) obvStatus(ctx context.Context, in obvStatusIn) (*obvStatusOut, *mcpgo.CallToolResult) {
	snap, now, fail := c.laadstatus(ctx)
	if fail != nil {
		return nil, fail
	}
	rows := []obv.SourceStatus{}
	for _, s := range snap.Status.Sources {
		if in.Organization != "" && !strings.EqualFold(s.SourceKey, in.Organization) {
			continue
		}
		if in.State != "" && !strings.EqualFold(s.State, in.State) {
			continue
		}
		rows = append(rows, s)
	}
	if in.Organization != "" && len(rows) == 0 {
		return nil, mcpgo.NewToolResultError(fmt.Sprintf("Organisation %q has no load status: check the key with obv_sources.", in.Organization))
	}
	counts := map[string]int{}
	for _, s := range snap.Status.Sources {
		counts[s.State]++
	}
	more := len(rows) > in.Limit
	if more {
		rows = rows[:in.Limit]
	}
	age := c.now().Sub(snap.Fetched).Round(time.Second)
	out := &obvStatusOut{Meta: mcpkit.Meta{Platform: platforms.OBV, FromCache: !now || cachestatus.Hit(snap.Cache)},
		GeneratedAt: snap.Status.GeneratedAt, FetchedAt: snap.Fetched.UTC().Format(time.RFC3339), AgeSeconds: int(age.Seconds()),
		States: counts, Suppliers: snap.Status.Suppliers, Sources: rows, HasMore: more,
		MaintainedBy: "BesluitBron maintenance (shared session)"}
	if out.Suppliers == nil {
		out.Suppliers = []obv.SupplierStatus{}
	}
	if now {
		out.QueueWaitMS = snap.QueueWaitMS
	}
	return out, nil
}

// laadstatus returns the load status the app's keeper last fetched; when
// it has none yet (or it is too old), it fetches it now, also as the
// shared session, and hands it to the keeper.
func (c *connector) laadstatus(ctx context.Context) (snap *app.Laadstatus, fetchedNow bool, fail *mcpgo.CallToolResult) {
	k := c.settings().laadstatus
	if k != nil {
		if l, ok := k.Last(); ok && c.now().Sub(l.Fetched) < 2*k.Interval()+time.Minute {
			return &l, false, nil
		}
	}
	o, ok := subrequest.OriginFrom(ctx)
	if !ok {
		return nil, false, mcpgo.NewToolResultError("internal error: no server for the load status")
	}
	o.Key = session.Shared
	ctx = subrequest.WithOrigin(ctx, o)
	ans, fail := c.call(ctx, platforms.OBV, obv.StatusRequest())
	if fail != nil {
		return nil, false, fail
	}
	st, err := obv.ParseStatus(ans.Body)
	if err != nil {
		return nil, false, mcpkit.ParseFailed(platforms.OBV, err)
	}
	l := app.Laadstatus{Status: st, Fetched: c.now(), Cache: ans.Cache, QueueWaitMS: ans.QueueWaitMS}
	if k != nil {
		k.Store(l)
	}
	return &l, true, nil
}
