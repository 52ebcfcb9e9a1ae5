package mcp

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// dossier_timeline (issue 37, point 3): one answer that lists a Kamerstuk
// dossier's or bill's steps in date order, from every platform that
// holds a part of its way (mcpkit.TimelineSource), asked in the order of
// their stage, each seeing what the earlier ones found. The chain is the
// data's: each source says which link of its data ties a step to the
// dossier, and a link the data does not give is listed in missing. The
// connector offers the tool where it offers a source of the parliament
// stage; it names no platform.

type timelineIn struct {
	Dossier    string `json:"dossier" jsonschema:"required" jsonschema_description:"The Kamerstuk dossier, the bill's dossier number: 36410, or with its addition after a dash (36200-VII) or in toevoeging." jsonschema_extras:"examples=36410"`
	Toevoeging string `json:"toevoeging,omitempty" jsonschema_description:"The dossier's addition (VII), when dossier does not hold it."`
	Law        string `json:"law,omitempty" jsonschema_description:"Optional: the law the bill makes or changes, by the id the fetch tool of its platform takes (the description names it); its data is read for the version that took effect. Without it that link is reported missing."`
}

type timelineOut struct {
	mcpkit.Meta
	Dossier    string                `json:"dossier" jsonschema_description:"The dossier, as its number and addition (36200-VII)."`
	Count      int                   `json:"count" jsonschema_description:"Steps in this answer."`
	Steps      []mcpkit.TimelineStep `json:"steps" jsonschema_description:"The dossier's steps in date order (steps without a date last), each with its citation, besluitbron:// URI, source link and the data that links it."`
	Missing    []mcpkit.TimelineGap  `json:"missing" jsonschema_description:"The links of the chain the data does not give (no Staatsblad publication yet, no law named, a platform that failed or is not offered): reported, never guessed."`
	Notes      []string              `json:"notes,omitempty" jsonschema_description:"What was left out (a page cut short) and how the parts were read."`
	Requests   map[string]int        `json:"requests" jsonschema_description:"Platform requests per platform key (each through BesluitBron's cache and the platform's budget; a cache hit counts)."`
	Provenance string                `json:"provenance" jsonschema_description:"Where the steps come from: the platforms, asked now through the cache, not a replica."`
}

// timelineSources are the registered sources, by stage then table order.
func timelineSources() []timelineSource {
	var out []timelineSource
	for _, p := range platforms.Providers() {
		if s, ok := p.(mcpkit.TimelineSource); ok {
			out = append(out, timelineSource{key: p.Platform().Key, src: s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].src.TimelineStage() < out[j].src.TimelineStage() })
	return out
}

type timelineSource struct {
	key string
	src mcpkit.TimelineSource
}

// offersTimeline: a connector offering these platforms offers a source
// of the dossier itself.
func offersTimeline(keys []string) bool {
	for _, s := range timelineSources() {
		if s.src.TimelineStage() == mcpkit.StageParliament && slices.Contains(keys, s.key) {
			return true
		}
	}
	return false
}

// stageLink is the link a stage gives, for a stage no offered platform
// holds.
func stageLink(stage int) string {
	switch stage {
	case mcpkit.StageParliament:
		return "parliamentary steps"
	case mcpkit.StagePublication:
		return "Staatsblad publication"
	case mcpkit.StageLaw:
		return "law version in force"
	}
	return fmt.Sprintf("stage %d", stage)
}

// timelineDesc is the tool's description: the sources' parts, then the
// cost of all.
func timelineDesc() string {
	var what, cost []string
	total := 0
	for _, s := range timelineSources() {
		w, n, c := s.src.TimelineDesc()
		what, cost = append(what, w), append(cost, c)
		total += n
	}
	return `The steps of a Kamerstuk dossier or bill in date order, in one answer: its documents, the activities and decisions on it with the votes, the Eerste Kamer where present, the Staatsblad publication and the version of the law that took effect with its in-force date, each where the connector offers the platform that holds it. Each step has its date, kind, platform, title, citation, besluitbron:// URI (where a resource holds it) and source link, and says which link of the data ties it to the dossier: the chain is read from the platforms' own links and metadata, never from titles, and a link the data does not give is listed in missing. ` +
		strings.Join(what, " ") +
		fmt.Sprintf("\nCost: at most %d platform requests for one timeline: %s. Every request goes through BesluitBron's cache and the platform's budget shared by all users, so a repeated timeline costs the platforms nothing; votes and dossiers are not yet kept in BesluitBron's replicas, so a first timeline waits for the platforms (and for their budgets when others spend them): about a second, against milliseconds from the cache.", total, strings.Join(cost, "; "))
}

// timelineSpec is the tool's row of the table.
func timelineSpec() toolSpec {
	s := specOf("besluitbron", mcpkit.Typed(mcpkit.TimelineTool, "Timeline of a dossier or bill", mcpkit.CostBudget, timelineDesc(), dossierTimeline))
	s.offered = offersTimeline
	return s
}

func dossierTimeline(ctx context.Context, env mcpkit.Env, in timelineIn) (*timelineOut, *mcpgo.CallToolResult) {
	d, err := mcpkit.ParseDossier(in.Dossier, in.Toevoeging)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	q := mcpkit.TimelineQuery{Dossier: d, Law: strings.TrimSpace(in.Law)}
	// Every source checks the question before any platform is asked.
	var srcs []timelineSource
	stages := map[int]bool{}
	lawTaken := false
	for _, s := range timelineSources() {
		stages[s.src.TimelineStage()] = stages[s.src.TimelineStage()] || env.Offers(s.key)
		if !env.Offers(s.key) {
			continue
		}
		mine, err := s.src.TimelineCheck(q)
		if err != nil {
			return nil, mcpkit.Invalid(err)
		}
		lawTaken = lawTaken || mine
		srcs = append(srcs, s)
	}
	if q.Law != "" && !lawTaken {
		return nil, mcpkit.Invalid(fmt.Errorf("law %q: this connector offers no platform of laws to read it (it offers %s)", mcpkit.Clip(q.Law, 40), strings.Join(env.Offered(), ", ")))
	}
	out := &timelineOut{Dossier: d.String(), Steps: []mcpkit.TimelineStep{}, Missing: []mcpkit.TimelineGap{}, Requests: map[string]int{}}
	for _, s := range srcs {
		part, fail := s.src.Timeline(ctx, env, mcpkit.TimelineQuery{Dossier: q.Dossier, Law: q.Law, Steps: out.Steps})
		if fail != nil {
			if s.src.TimelineStage() == mcpkit.StageParliament {
				return nil, fail
			}
			// A later stage's failure is its part missing, as it said.
			part.Missing = append(part.Missing, mcpkit.TimelineGap{Platform: s.key, Link: stageLink(s.src.TimelineStage()), Why: mcpkit.ResultText(fail)})
		}
		out.Steps = append(out.Steps, part.Steps...)
		out.Missing = append(out.Missing, part.Missing...)
		out.Notes = append(out.Notes, part.Notes...)
		out.Requests[s.key] += part.Requests
	}
	var stageList []int
	for st := range stages {
		stageList = append(stageList, st)
	}
	sort.Ints(stageList)
	for _, st := range stageList {
		if !stages[st] {
			out.Missing = append(out.Missing, mcpkit.TimelineGap{Link: stageLink(st),
				Why: "this connector offers no platform that holds it (it offers " + strings.Join(env.Offered(), ", ") + ")"})
		}
	}
	// Date order; a step without a date last; the sources' own order
	// within a day (a document before the decision on it).
	sort.SliceStable(out.Steps, func(i, j int) bool {
		a, b := out.Steps[i].Date, out.Steps[j].Date
		if (a == "") != (b == "") {
			return b == ""
		}
		return a < b
	})
	out.Count = len(out.Steps)
	var asked []string
	for _, s := range srcs {
		asked = append(asked, fmt.Sprintf("%s %d", s.key, out.Requests[s.key]))
	}
	out.Provenance = "Read from the platforms through BesluitBron's cache and their budgets (requests: " + strings.Join(asked, ", ") +
		"); dossiers, decisions and votes are not yet kept in BesluitBron's replicas, so the platforms are asked (from_cache says whether every answer came from the cache)."
	return out, nil
}
