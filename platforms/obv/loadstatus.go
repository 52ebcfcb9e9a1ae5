package obv

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// OpenBesluitvorming publishes its import's freshness ("Laadstatus",
// /api/status): per organisation and per supplier. BesluitBron keeps it
// fresh in the background as its shared session (adapters.LoadReporter,
// the besluitbron app's keeper), so obv_laadstatus and the status page
// read it without asking the platform.

// LoadStatusName is the platform's own word for it.
func (provider) LoadStatusName() string { return "Laadstatus" }

// LoadStatusRequest asks for /api/status.
func (provider) LoadStatusRequest() adapters.Request { return StatusRequest() }

// ParseLoadStatus reads /api/status: the Status, summed per supplier (or
// per organisation where the answer names no supplier).
func (provider) ParseLoadStatus(body []byte) (adapters.LoadStatus, error) {
	st, err := ParseStatus(body)
	if err != nil {
		return adapters.LoadStatus{}, err
	}
	return adapters.LoadStatus{Value: st, Summary: summary(st)}, nil
}

func summary(st Status) adapters.LoadSummary {
	var s adapters.LoadSummary
	for _, g := range st.Suppliers {
		s.OK += g.OKSourceCount
		s.Total += g.SourceCount
		s.Groups = append(s.Groups, adapters.LoadGroup{Label: g.Label, State: g.State, OK: g.OKSourceCount, Count: g.SourceCount})
	}
	if len(st.Suppliers) == 0 {
		for _, src := range st.Sources {
			s.Total++
			if src.State == "ok" {
				s.OK++
			}
		}
	}
	return s
}

var _ adapters.LoadReporter = provider{}

const toolStatusDesc = `Laadstatus: how fresh OpenBesluitvorming's import is per organisation (state ok/failing/discontinued, last successful import, latest content date, last error) and per supplier (iBabs, Notubiz, ...). Use it to tell whether a missing recent document is simply not imported yet.
Cost: free for you: BesluitBron's own maintenance refreshes it every few minutes as its shared session; the answer says how old it is.`

type toolStatusIn struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Only this organisation key (see obv_sources)."`
	State        string `json:"state,omitempty" jsonschema_description:"Only organisations in this state, e.g. failing."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"At most this many organisations." jsonschema_extras:"minimum=1,maximum=400,default=50"`
}

type toolStatusOut struct {
	mcpkit.Meta
	GeneratedAt  string           `json:"generated_at" jsonschema_description:"When the platform made the status."`
	FetchedAt    string           `json:"fetched_at" jsonschema_description:"When BesluitBron fetched it (RFC 3339)."`
	AgeSeconds   int              `json:"age_seconds"`
	States       map[string]int   `json:"states" jsonschema_description:"Organisations per state."`
	Suppliers    []SupplierStatus `json:"suppliers"`
	Sources      []SourceStatus   `json:"sources"`
	HasMore      bool             `json:"has_more" jsonschema_description:"More organisations match than limit."`
	MaintainedBy string           `json:"maintained_by"`
}

// toolStatus answers from the load status the maintenance keeps
// (mcpkit.Env.LoadStatus), fetched now only when it has none fresh.
func toolStatus(ctx context.Context, env mcpkit.Env, in toolStatusIn) (*toolStatusOut, *mcpgo.CallToolResult) {
	kept, fetchedNow, fail := env.LoadStatus(ctx, platforms.OBV)
	if fail != nil {
		return nil, fail
	}
	st, ok := kept.Value.(Status)
	if !ok {
		return nil, mcpgo.NewToolResultError("internal error: the load status kept is not OpenBesluitvorming's")
	}
	rows := []SourceStatus{}
	for _, s := range st.Sources {
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
	for _, s := range st.Sources {
		counts[s.State]++
	}
	more := len(rows) > in.Limit
	if more {
		rows = rows[:in.Limit]
	}
	age := env.Now().Sub(kept.Fetched).Round(time.Second)
	out := &toolStatusOut{Meta: mcpkit.Meta{Platform: platforms.OBV, FromCache: !fetchedNow || cachestatus.Hit(kept.Cache)},
		GeneratedAt: st.GeneratedAt, FetchedAt: kept.Fetched.UTC().Format(time.RFC3339), AgeSeconds: int(age.Seconds()),
		States: counts, Suppliers: st.Suppliers, Sources: rows, HasMore: more,
		MaintainedBy: "BesluitBron maintenance (shared session)"}
	if out.Suppliers == nil {
		out.Suppliers = []SupplierStatus{}
	}
	if fetchedNow {
		out.QueueWaitMS = kept.QueueWaitMS
	}
	return out, nil
}
