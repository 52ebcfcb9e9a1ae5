package obv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// obv_votes: how a council voted on its motions (votes.go).

// EntityPath is the platform's entity detail, below its base URL (one
// entity id after it).
const EntityPath = "/api/entities/"

// EntityCost is the table's price of one entity detail: its rule for
// the path, or one unit when the table prices it as any other call.
func EntityCost() platforms.Cost {
	if c, ok := tableRow.CostOf(EntityPath + "motion%3Ax"); ok {
		return c
	}
	return platforms.Cost{Units: 1}
}

// votesCost is what obv_votes costs with words and limit motions: one
// search of limit motions and a detail of each.
func votesCost(search, entity platforms.Cost, limit int) float64 {
	return search.UnitsFor(float64(limit)) + float64(limit)*entity.UnitsFor(0)
}

var toolVotesDesc = toolVotesDescFor(toolBudget(), SearchCost(), EntityCost())

// toolVotesDescFor writes obv_votes' description for a budget and the
// prices of a search and an entity detail.
func toolVotesDescFor(b platforms.Budget, search, entity platforms.Cost) string {
	one := platforms.FormatUnits(entity.UnitsFor(0))
	return `How a municipal council, provincial council or water board voted on its motions (OpenBesluitvorming). Give a motion's id (motion:..., as obv_search returns it), or words of the motion (query) and/or an organisation key (organization, from obv_sources) with an optional period (date_from, date_to) to find motions first, newest first. Per motion: name, type, council, date, the result and status as published (aangenomen, verworpen, ingetrokken, aangehouden, overig), the published tally (in_favour, against and any other count it gives), and where the council publishes per-member votes (iBabs councils, about half): per group (fractie) its members' votes voor/tegen with counts and its majority, and the members who voted apart from their group. Where the council publishes no per-member votes the answer says "no per-member votes published" and gives the council's own vote_summary verbatim when there is one; nothing is guessed, and a member missing from the votes is not shown as absent. The tally is checked against the member votes and the result; what does not add up is listed in problems, never corrected. With party (a group's name as the council writes it, e.g. VVD), only that group's votes are shown, the tally and result kept. Each motion links to its besluitbron:// resource and its document.
Cost: the platform allows ` + b.Allowance() + ` for all BesluitBron users together. With id: one motion detail, ` + one + `. With words or an organisation: one search for limit motions (` + search.String() + `, so ` + platforms.FormatUnits(search.UnitsFor(MaxVotesLimit)) + ` up to limit ` + fmt.Sprint(MaxVotesLimit) + `) plus one detail per motion found (` + one + ` each): at most ` + platforms.FormatUnits(votesCost(search, entity, DefaultVotesLimit)) + ` at the default limit ` + fmt.Sprint(DefaultVotesLimit) + `, ` + platforms.FormatUnits(votesCost(search, entity, MaxVotesLimit)) + ` at limit ` + fmt.Sprint(MaxVotesLimit) + `. An organisation key not yet checked reads the sources list once (cheap, kept long). Details stay in BesluitBron's cache for weeks and searches briefly, so repeating a question costs the platform nothing; a first question waits for the budget when it is spent. Keep limit small: each motion is a detail request.`
}

type toolVotesIn struct {
	ID           string `json:"id,omitempty" jsonschema_description:"A motion's OpenBesluitvorming id (motion:ibabs:gemeente:houten:...), from obv_search. Give it alone, or give query and/or organization."`
	Query        string `json:"query,omitempty" jsonschema_description:"Words of the motions to find (all must match; \"quoted words\" as a phrase)."`
	Organization string `json:"organization,omitempty" jsonschema_description:"Organisation key of a municipality, province or water board (see obv_sources), e.g. houten."`
	Party        string `json:"party,omitempty" jsonschema_description:"Show only this group's (fractie's) votes, by its name as the council's data writes it (e.g. VVD)."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Motions to read (each is one detail request: see Cost)." jsonschema_extras:"minimum=1,maximum=obv.MaxVotesLimit,default=3"`
	Offset       int    `json:"offset,omitempty" jsonschema_description:"Skip this many motions of the search (paging; use next_offset of the previous answer)." jsonschema_extras:"minimum=0,maximum=1000,default=0"`
	mcpkit.DatesIn
}

type toolVotesOut struct {
	mcpkit.Meta
	Count       int           `json:"count" jsonschema_description:"Motions in this answer."`
	Total       int           `json:"total,omitempty" jsonschema_description:"Motions the search found in all (see total_is_approximate)."`
	TotalApprox bool          `json:"total_is_approximate,omitempty" jsonschema_description:"total is the platform's estimate."`
	HasMore     bool          `json:"has_more"`
	NextOffset  int           `json:"next_offset,omitempty"`
	BudgetUnits float64       `json:"budget_units" jsonschema_description:"Budget units the search and motion details behind this answer cost the platform's shared budget when asked of it (see Cost), spent when they were first asked; an answer from BesluitBron's cache (from_cache) spent nothing now. The sources list an organisation check may read is not counted."`
	Party       string        `json:"party,omitempty" jsonschema_description:"The group asked for."`
	Motions     []MotionVotes `json:"motions"`
	Note        string        `json:"note,omitempty"`
}

// VotesParams are obv_votes' arguments.
type VotesParams struct {
	ID, Query, Organization, Party string
	DateFrom, DateTo               string
	Limit, Offset                  int
}

// Check checks and normalises p before anything is asked of the platform.
func (p *VotesParams) Check() error {
	p.ID, p.Organization = strings.TrimSpace(p.ID), strings.TrimSpace(p.Organization)
	p.Query, p.Party = strings.TrimSpace(p.Query), adapters.Squash(p.Party)
	if p.Limit == 0 {
		p.Limit = DefaultVotesLimit
	}
	if p.Limit < 1 || p.Limit > MaxVotesLimit {
		return fmt.Errorf("limit %d is out of range: use 1 to %d (each motion is one detail request of the platform's budget)", p.Limit, MaxVotesLimit)
	}
	if p.Offset < 0 || p.Offset > 1000 {
		return fmt.Errorf("offset %d is out of range: use 0 to 1000", p.Offset)
	}
	if len([]rune(p.Party)) > 60 || strings.IndexFunc(p.Party, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0 {
		return fmt.Errorf("party must be a group's name as the council writes it, such as VVD (at most 60 characters, no control characters)")
	}
	if _, _, err := adapters.ParseDates(p.DateFrom, p.DateTo); err != nil {
		return err
	}
	if p.ID != "" {
		if p.Query != "" || p.Organization != "" || p.DateFrom != "" || p.DateTo != "" || p.Offset != 0 {
			return fmt.Errorf("give either id (one motion) or query and/or organization with dates and offset (a search), not both")
		}
		if err := ValidEntityID(p.ID); err != nil {
			return err
		}
		if kind, _, _ := strings.Cut(p.ID, ":"); kind != "motion" {
			return fmt.Errorf("id %q is a %s, not a motion: give a motion's id (motion:...), or find motions with query and/or organization; obv_fetch reads a %s", adapters.Cut(p.ID, 80), kind, kind)
		}
		return nil
	}
	if p.Query == "" && p.Organization == "" {
		return fmt.Errorf("give a motion's id (motion:..., from obv_search), or query (words of the motions) and/or organization (a key from obv_sources)")
	}
	if strings.IndexFunc(p.Query, unicode.IsLetter) < 0 && strings.IndexFunc(p.Query, unicode.IsDigit) < 0 && p.Query != "" {
		return fmt.Errorf("query %q holds no word: the platform strips punctuation and would find nothing", adapters.Cut(p.Query, 40))
	}
	return nil
}

// search is p's search for motions.
func (p VotesParams) search() SearchParams {
	return SearchParams{Query: p.Query, Organization: p.Organization, EntityType: "Motion", Sort: "date_desc",
		DateFrom: p.DateFrom, DateTo: p.DateTo, Limit: p.Limit, Offset: p.Offset}
}

func toolVotes(ctx context.Context, c mcpkit.Env, in toolVotesIn) (*toolVotesOut, *mcpgo.CallToolResult) {
	p := VotesParams{ID: in.ID, Query: in.Query, Organization: in.Organization, Party: in.Party,
		DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := p.Check(); err != nil {
		return nil, mcpkit.Invalid(err)
	}
	var sreq adapters.Request
	if p.ID == "" {
		var err error
		if sreq, err = SearchRequest(p.search()); err != nil {
			return nil, mcpkit.Invalid(err)
		}
	}
	out := &toolVotesOut{Party: p.Party, Motions: []MotionVotes{}}
	get := c.Getter(ctx, platforms.OBV)
	entity := EntityCost().UnitsFor(0)
	type hit struct{ id, council, date string }
	var ids []hit
	if p.ID != "" {
		ids = []hit{{id: p.ID}}
	} else {
		if p.Organization != "" {
			if res := checkOrganization(ctx, c.Untracked(), p.Organization); res != nil {
				return nil, res
			}
		}
		body, err := get(sreq)
		if err != nil {
			return nil, c.Failed(platforms.OBV, err)
		}
		pg, err := ParseSearch(body)
		if err != nil {
			return nil, mcpkit.ParseFailed(platforms.OBV, err)
		}
		out.BudgetUnits += SearchCost().UnitsFor(float64(p.Limit))
		out.Total, out.TotalApprox, out.HasMore = pg.Total, pg.TotalApprox, pg.HasMore
		for _, h := range pg.Hits {
			if h.Type != "" && h.Type != "Motion" || !strings.HasPrefix(h.ID, "motion:") {
				continue // the search was for motions; anything else is not read
			}
			ids = append(ids, hit{h.ID, h.Source, h.Date})
			if len(ids) == p.Limit {
				break
			}
		}
		if pg.HasMore {
			out.NextOffset = p.Offset + len(pg.Hits)
		}
	}
	var notes []string
	for i, f := range ids {
		req, err := EntityRequest(f.id)
		if err != nil {
			notes = append(notes, fmt.Sprintf("A search hit was left out: %v.", err))
			continue
		}
		body, err := get(req)
		if err != nil {
			// A failed detail fails the call: an answer with a motion
			// missing is no function of the platform's answers alone (the
			// connector may keep it), and the details read so far are in
			// the cache, so asking again costs only the rest.
			var re *adapters.RouteError
			if errors.As(err, &re) && re.Status == 404 {
				if p.ID != "" {
					return nil, mcpgo.NewToolResultError("OpenBesluitvorming has no motion " + p.ID + ": take a motion's id from obv_search (entity_type Motion), or search with query and/or organization.")
				}
				return nil, mcpgo.NewToolResultError(fmt.Sprintf("OpenBesluitvorming's search gave motion %s, but it has no detail for it (yet): try again in a few minutes, or page past it with offset=%d.", f.id, p.Offset+i+1))
			}
			return nil, c.Failed(platforms.OBV, err)
		}
		out.BudgetUnits += entity
		mv, err := ParseMotionVotes(f.id, body)
		if err != nil {
			if p.ID != "" {
				return nil, mcpkit.ParseFailed(platforms.OBV, err)
			}
			notes = append(notes, err.Error()+"; left out")
			continue
		}
		if mv.Council == "" {
			mv.Council = f.council
		}
		if mv.Date == "" {
			mv.Date = f.date
		}
		mv.URI = Surface().URI(mv.ID, "Motion")
		out.Motions = append(out.Motions, mv)
	}
	out.Count = len(out.Motions)
	if p.ID == "" && len(ids) == 0 {
		what := "No motion matches"
		if p.Offset > 0 && out.Total > 0 {
			what = fmt.Sprintf("Offset %d is past the motions found for", p.Offset)
		}
		notes = append(notes, what+" this search"+map[bool]string{true: " in this period", false: ""}[p.DateFrom != "" || p.DateTo != ""]+"; try fewer or other words, or obv_search with entity_type Motion.")
	}
	if p.Party != "" && len(out.Motions) > 0 {
		found, seen := FilterGroup(out.Motions, p.Party)
		perMember := 0
		for _, m := range out.Motions {
			if m.PerMember {
				perMember++
			}
		}
		switch {
		case perMember == 0:
			notes = append(notes, fmt.Sprintf("None of these motions has per-member votes published, so how %q voted is not in the data.", p.Party))
		case !found:
			notes = append(notes, fmt.Sprintf("No motion here shows votes of a group named %q. The groups in these votes are named: %s.", p.Party, strings.Join(seen, ", ")))
		}
	}
	out.Note = strings.Join(notes, " ")
	return out, nil
}
