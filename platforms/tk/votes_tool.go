package tk

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// toolVotesDesc is tk_votes' description; its cost sentence names the
// Kamer's budget from the platform table.
var toolVotesDesc = `How the Tweede Kamer voted on a motion, amendment or bill: give a zaak number (a motion's 2022Z17826), a Kamerstuk dossier (36200-VII, with ordnummer for one kamerstuk in it), or words of the title with an optional period of voting days (date_from, date_to; Dutch calendar days). Per decision, newest voting day first: the zaak (number, kind, title), the result as the Kamer recorded it (Stemmen - aangenomen / verworpen), the voting method (Met handopsteken: per fractie with its seats; Hoofdelijk: per member, grouped per fractie, with the members who voted apart from their fractie), each fractie's vote (Voor, Tegen, Niet deelgenomen) with its seats, and the totals, which must add up to the seats present: a decision whose data does not add up says so in problems and is never corrected. Votes the Kamer's data marks Vergissing (cast by mistake) are listed apart and not counted. With party (a fractie's name or abbreviation as the Kamer writes it, e.g. VVD, GroenLinks-PvdA), only that fractie's vote is shown, with the result and totals kept. Each decision links to its Besluit in the Kamer's SyncFeed.
Cost: where this BesluitBron keeps a replica of the Kamer's SyncFeed that holds the votes (zaken, besluiten, stemmingen, agendapunten, activiteiten; dossiers for a dossier) and has completed a pass, no platform request: the answer is joined from the replica, and provenance says how complete it is; title words are matched whole with their Dutch stems there. What the replica cannot vouch for (a zaak, dossier or words it holds no vote for, votes changed since its last pass, a partly read feed) goes to the platform, and provenance says why. From the platform: one platform request per call (two for a dossier: its zaken, then their votes), plus the OData service description about once a day; every request goes through BesluitBron's cache, so a repeated question costs the platform nothing, and otherwise through the Kamer's budget of ` + tableRow.Budget.Allowance() + ` (a request is one unit) shared by all users.`

type toolVotesIn struct {
	Zaak       string `json:"zaak,omitempty" jsonschema_description:"A zaak number: a motion, amendment or bill (2022Z17826)." jsonschema_extras:"examples=2022Z17826"`
	Dossier    string `json:"dossier,omitempty" jsonschema_description:"A Kamerstuk dossier number, with its addition after a dash (36200-VII) or in toevoeging."`
	Toevoeging string `json:"toevoeging,omitempty" jsonschema_description:"The dossier's addition (VII), when dossier does not hold it."`
	Ordnummer  int    `json:"ordnummer,omitempty" jsonschema_description:"One kamerstuk of the dossier by its number in it (36200-VII nr. 12: 12); 0 for the whole dossier." jsonschema_extras:"minimum=0,maximum=99999,default=0"`
	Query      string `json:"query,omitempty" jsonschema_description:"Words that must all appear in the zaak's title or subject."`
	Party      string `json:"party,omitempty" jsonschema_description:"Show only this fractie's vote (name or abbreviation as the Kamer writes it: VVD, PVV, GroenLinks-PvdA)."`
	Limit      int    `json:"limit,omitempty" jsonschema_description:"Decisions per page (for a dossier: its zaken per page)." jsonschema_extras:"minimum=1,maximum=25,default=10"`
	Offset     int    `json:"offset,omitempty" jsonschema_description:"Skip this many (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=1000,default=0"`
	mcpkit.DatesIn
}

type toolVotesOut struct {
	mcpkit.Meta
	Count      int        `json:"count" jsonschema_description:"Decisions in this answer."`
	Total      int        `json:"total" jsonschema_description:"Decisions (for a dossier: its zaken) the Kamer counts for the question."`
	HasMore    bool       `json:"has_more"`
	NextOffset int        `json:"next_offset,omitempty"`
	Party      string     `json:"party,omitempty" jsonschema_description:"The fractie asked for."`
	Decisions  []Decision `json:"decisions"`
	Note       string     `json:"note,omitempty"`
	Provenance string     `json:"provenance,omitempty" jsonschema_description:"Where a BesluitBron that keeps a replica of the Kamer's SyncFeed got the votes: from the replica, and how complete it is, or from the platform, and why."`
}

func toolVotes(ctx context.Context, c mcpkit.Env, in toolVotesIn) (*toolVotesOut, *mcpgo.CallToolResult) {
	p := VotesParams{Zaak: in.Zaak, Dossier: in.Dossier, Toevoeging: in.Toevoeging, Ordnummer: in.Ordnummer,
		Query: in.Query, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := p.Check(); err != nil {
		return nil, mcpkit.Invalid(err)
	}
	party := strings.TrimSpace(in.Party)
	if len([]rune(party)) > 60 || strings.IndexFunc(party, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0 {
		return nil, mcpkit.Invalid(fmt.Errorf("party must be a fractie's name or abbreviation such as VVD (at most 60 characters, no control characters)"))
	}
	// From the replica when it holds the answer whole (votes_replica.go):
	// no platform request.
	var why string
	if parliament, _ := c.Replica(platforms.TK).(ParliamentVotes); parliament != nil {
		a, ok, reason := parliament.Votes(ctx, p)
		if ok {
			out, res := votesOut(c, p, party, a.VotesFound)
			if res != nil {
				return nil, res
			}
			out.Provenance = a.Provenance
			// The replica's answer changes as it harvests, with no
			// platform answer behind it, so it fills its own Meta (as
			// tk_search's does).
			out.Meta = mcpkit.Meta{Platform: platforms.TK, FetchedAt: a.CompleteUpTo.UTC().Format(time.RFC3339)}
			return out, nil
		}
		why = reason
	}
	found, res := odataVotes(ctx, c, p)
	if res != nil {
		return nil, res
	}
	out, res := votesOut(c, p, party, found)
	if res != nil {
		return nil, res
	}
	if why != "" {
		out.Provenance = askedPlatform + why
	}
	return out, nil
}

// VotesFound are the decisions a vote question found, from OData or the
// replica, before the tool's paging and notes.
type VotesFound struct {
	Decisions []Decision
	// Total is the decisions that were votes the question matches (for a
	// dossier: those of this page's zaken).
	Total int
	// For a dossier: its zaken in all, and on this page.
	Dossier      bool
	DossierZaken int
	PageZaken    int
}

// odataVotes asks the platform (AskVotes) through the connector's cache
// and budget.
func odataVotes(ctx context.Context, c mcpkit.Env, p VotesParams) (VotesFound, *mcpgo.CallToolResult) {
	get := c.Getter(ctx, platforms.TK)
	s, err := toolSchema(c, get)
	if err != nil {
		return VotesFound{}, toolFailed(c, err)
	}
	found, err := AskVotes(s, get, p)
	if err != nil {
		return VotesFound{}, toolFailed(c, err)
	}
	return found, nil
}

// AskVotes asks the platform's OData service the votes p names: for a
// dossier its zaken, then their decisions; otherwise the decisions.
func AskVotes(s *Schema, get Getter, p VotesParams) (VotesFound, error) {
	v, err := VoteSets(s)
	if err != nil {
		return VotesFound{}, err
	}
	var found VotesFound
	ask, zaakIDs := p, []string(nil)
	if p.Dossier != "" {
		found.Dossier = true
		req, err := DossierZakenRequest(s, p)
		if err != nil {
			return VotesFound{}, err
		}
		body, err := get(req)
		if err != nil {
			return VotesFound{}, err
		}
		if zaakIDs, found.DossierZaken, err = ParseDossierZaken(s, body); err != nil {
			return VotesFound{}, err
		}
		found.PageZaken = len(zaakIDs)
		if len(zaakIDs) == 0 {
			return found, nil
		}
		ask.Limit, ask.Offset = PageSize, 0
	}
	req, err := VotesRequest(v, ask, zaakIDs)
	if err != nil {
		return VotesFound{}, err
	}
	body, err := get(req)
	if err != nil {
		return VotesFound{}, err
	}
	ds, total, err := ParseVotes(v, body)
	if err != nil {
		return VotesFound{}, err
	}
	found.Decisions, found.Total = ds, total
	return found, nil
}

// votesOut is tk_votes' answer to p from what was found, wherever it was
// found: paging, notes, the party asked for.
func votesOut(c mcpkit.Env, p VotesParams, party string, f VotesFound) (*toolVotesOut, *mcpgo.CallToolResult) {
	out := &toolVotesOut{Party: party, Decisions: f.Decisions}
	if out.Decisions == nil {
		out.Decisions = []Decision{}
	}
	if f.Dossier && f.PageZaken == 0 {
		name := dossierName(p)
		if p.Offset > 0 && f.DossierZaken > 0 {
			out.Total = f.DossierZaken
			out.Note = fmt.Sprintf("Offset %d is past the %d zaken of dossier %s.", p.Offset, f.DossierZaken, name)
			return out, nil
		}
		return nil, mcpgo.NewToolResultError("The Tweede Kamer's data has no zaak in dossier " + name +
			": check the number and its addition (36200-VII is another dossier than 36200), or search by title with query.")
	}
	ds := out.Decisions
	out.Count, out.Total = len(ds), f.Total
	if f.Dossier {
		out.Total = f.DossierZaken
		if next := p.Offset + f.PageZaken; next < f.DossierZaken {
			out.HasMore, out.NextOffset = true, next
		}
		if f.Total > len(ds) {
			out.Note = fmt.Sprintf("These %d zaken have %d decisions that were votes; the first %d are shown. ", f.PageZaken, f.Total, len(ds))
		}
	} else if next := p.Offset + len(ds); next < f.Total {
		out.HasMore, out.NextOffset = true, next
	}
	if len(ds) == 0 {
		out.Note += noVotesNote(p)
	}
	if party != "" && len(ds) > 0 {
		found, seen := FilterParty(out.Decisions, party, partyNames(c))
		if !found {
			out.Note += fmt.Sprintf("No decision here shows a vote of %q. The fracties in these votes are named: %s.", party, strings.Join(seen, ", "))
		}
	}
	out.Note = strings.TrimSpace(out.Note)
	return out, nil
}

func dossierName(p VotesParams) string {
	name := p.Dossier
	if p.Toevoeging != "" {
		name += "-" + p.Toevoeging
	}
	if p.Ordnummer != 0 {
		name += fmt.Sprintf(" nr. %d", p.Ordnummer)
	}
	return name
}

func noVotesNote(p VotesParams) string {
	switch {
	case p.Zaak != "":
		return "No vote is recorded on zaak " + p.Zaak + ": it may not have been put to the vote (yet), or the number may be another zaak's; tk_search finds a motion's documents."
	case p.Dossier != "":
		return "No zaak on this page of dossier " + dossierName(p) + " was put to the vote."
	}
	return "No decision that was a vote matches these words" + map[bool]string{true: " in this period", false: ""}[p.DateFrom != "" || p.DateTo != ""] + "; try fewer or other words of the title."
}

// partyNames maps the current fracties' names and abbreviations (lower
// case) to their abbreviation, from the list memo when tk_fracties or a
// completion filled it; it asks nothing.
func partyNames(c mcpkit.Env) map[string]string {
	v, ok := c.Lists().Get(ListMemo("Fractie"), c.Now())
	if !ok {
		return nil
	}
	l, ok := v.(List)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, it := range l.Items(true, c.Now()) {
		if ab := it.Extra["afkorting"]; ab != "" {
			out[strings.ToLower(it.Label)] = ab
			out[strings.ToLower(ab)] = ab
		}
	}
	return out
}
