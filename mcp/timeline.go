package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// dossier_timeline (issue 37, point 3): one answer that lists a Kamerstuk
// dossier's or bill's steps in date order, from every platform that
// holds a part of its way (adapters.TimelineSource), asked in the order
// of their stage by adapters.BuildTimeline, as the site's dossier page
// asks them. The connector offers the tool where it offers a source of
// the parliament stage; it names no platform.

type timelineIn struct {
	Dossier    string `json:"dossier" jsonschema:"required" jsonschema_description:"The Kamerstuk dossier, the bill's dossier number: 36410, or with its addition after a dash (36200-VII) or in toevoeging." jsonschema_extras:"examples=36410"`
	Toevoeging string `json:"toevoeging,omitempty" jsonschema_description:"The dossier's addition (VII), when dossier does not hold it."`
	Law        string `json:"law,omitempty" jsonschema_description:"Optional: the law the bill makes or changes, by the id the fetch tool of its platform takes (the description names it); its data is read for the version that took effect. Without it that link is reported missing."`
}

type timelineOut struct {
	mcpkit.Meta
	Dossier    string                  `json:"dossier" jsonschema_description:"The dossier, as its number and addition (36200-VII)."`
	Title      string                  `json:"title,omitempty" jsonschema_description:"The dossier's title, as the Kamer's data gives it; absent when it gives none."`
	Count      int                     `json:"count" jsonschema_description:"Steps in this answer."`
	Steps      []adapters.TimelineStep `json:"steps" jsonschema_description:"The dossier's steps in date order (steps without a date last), each with its citation, besluitbron:// URI, source link and the data that links it."`
	Missing    []adapters.TimelineGap  `json:"missing" jsonschema_description:"The links of the chain the data does not give (no Staatsblad publication yet, no law named, a platform that failed or is not offered): reported, never guessed."`
	Notes      []string                `json:"notes,omitempty" jsonschema_description:"What was left out (a page cut short) and how the parts were read."`
	Requests   map[string]int          `json:"requests" jsonschema_description:"Platform requests per platform key (each through BesluitBron's cache and the platform's budget; a cache hit counts)."`
	Provenance string                  `json:"provenance" jsonschema_description:"Where each platform's part was read: from the platform through the cache, or from BesluitBron's replica and how complete it is."`
}

// timelineSources are the registered sources, by stage then table order;
// their descriptions depend on no setting.
var timelineSources = sync.OnceValue(func() []adapters.TimelineFrom {
	return adapters.TimelineSources(platformSurfaces(), platforms.Keys())
})

// timelineDesc is the tool's description: the sources' parts, then the
// cost of all.
func timelineDesc() string {
	var what, cost []string
	total := 0
	for _, s := range timelineSources() {
		what, cost = append(what, s.Source.What), append(cost, s.Source.Cost)
		total += s.Source.Requests
	}
	return `The steps of a Kamerstuk dossier or bill in date order, in one answer: its documents, the activities and decisions on it with the votes, the Eerste Kamer where present, the Staatsblad publication and the version of the law that took effect with its in-force date, each where the connector offers the platform that holds it. Each step has its date, kind, platform, title, citation, besluitbron:// URI (where a resource holds it) and source link, and says which link of the data ties it to the dossier: the chain is read from the platforms' own links and metadata, never from titles, and a link the data does not give is listed in missing. ` +
		strings.Join(what, " ") +
		fmt.Sprintf("\nCost: at most %d platform requests for one timeline: %s. Every request goes through BesluitBron's cache and the platform's budget shared by all users, so a repeated timeline costs the platforms nothing; a first timeline waits for the platforms (and for their budgets when others spend them): about a second, against milliseconds from the cache.", total, strings.Join(cost, "; "))
}

// timelineSpec is the tool's row of the table.
func timelineSpec() toolSpec {
	s := specOf("besluitbron", mcpkit.Typed(mcpkit.TimelineTool, "Timeline of a dossier or bill", mcpkit.CostBudget, timelineDesc(),
		func(ctx context.Context, env mcpkit.Env, in timelineIn) (*timelineOut, *mcpgo.CallToolResult) {
			return env.(*toolCallEnv).dossierTimeline(ctx, in)
		}))
	s.offered = func(keys []string) bool { return adapters.OffersTimeline(timelineSources(), keys) }
	return s
}

func (t *toolCallEnv) dossierTimeline(ctx context.Context, in timelineIn) (*timelineOut, *mcpgo.CallToolResult) {
	d, err := adapters.ParseDossier(in.Dossier, in.Toevoeging)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	sources := adapters.TimelineSources(t.settings().surfaces, platforms.Keys())
	tl, err := adapters.BuildTimeline(ctx, t.surfaceEnv(ctx), sources, t.Offered(), adapters.TimelineQuery{Dossier: d, Law: in.Law, Explain: failureText})
	var bad *adapters.InvalidError
	var none *adapters.NoDossierError
	var failed *adapters.TimelineFailure
	switch {
	case errors.As(err, &bad):
		return nil, mcpkit.Invalid(bad.Err)
	case errors.As(err, &none):
		return nil, mcpgo.NewToolResultError(none.Why)
	case errors.As(err, &failed):
		return nil, t.Failed(failed.Platform, failed.Err)
	case err != nil:
		return nil, mcpgo.NewToolResultError(err.Error())
	}
	out := &timelineOut{Dossier: d.String(), Title: tl.Title, Count: len(tl.Steps), Steps: tl.Steps, Missing: tl.Missing, Notes: tl.Notes, Requests: tl.Requests}
	var asked []string
	for _, key := range tl.Asked {
		asked = append(asked, fmt.Sprintf("%s %s (%d requests)", key, tl.Provenance[key], tl.Requests[key]))
	}
	out.Provenance = "Per platform: " + strings.Join(asked, "; ") + " (from_cache says whether every answer came from the cache)."
	return out, nil
}
