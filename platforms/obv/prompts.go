package obv

import (
	"github.com/besluitbron/besluitbron/mcpkit"
)

// The councils' part of how_did_they_vote, the prompt the Tweede Kamer
// leads (platforms/tk/prompts.go): it calls obv_votes, so OpenBesluitvorming
// writes the steps, as it knows its organisations and what its councils
// publish.

// VotesAsk is what how_did_they_vote asks of the councils: the checked
// arguments; Council "" is every council.
type VotesAsk struct {
	Council, Subject, Party, Since, Until string
}

// CouncilVotesSteps writes the steps of a council's votes on a subject
// into p: the organisation's key (from the memo, else obv_sources), then
// obv_votes, then how to present what it gives. The connector offers obv.
func CouncilVotesSteps(env mcpkit.Env, p *mcpkit.Plan, a VotesAsk) {
	key := ""
	if a.Council != "" {
		if s, ok := knownOrganisation(env, a.Council); ok {
			key = s.Key
		} else {
			key = "<the key found above>"
			p.Step("Find the council's organisation key: %s. Take the key of the municipality, province or water board meant; when several fit, ask the user which.",
				mcpkit.Call("obv_sources", map[string]any{"name": a.Council}))
		}
	}
	votes := map[string]any{"query": a.Subject, "organization": key, "date_from": a.Since, "date_to": a.Until, "party": a.Party, "limit": DefaultVotesLimit}
	where := "its motions"
	if key == "" {
		where = "the motions of every council (naming one is faster and cheaper: when the user means one council, ask which)"
	}
	p.Step("Find %s on the subject and how they were voted on: %s. Each motion found is one detail request of OpenBesluitvorming's shared budget: keep limit small, and page on with offset=next_offset only when the user wants more. If nothing is found, try fewer or other words (all must match).",
		where, mcpkit.Call("obv_votes", votes))
	p.Step("Present each motion: its name, council and date, the result and status as published (aangenomen, verworpen, ...), and the published tally (in_favour, against). Where the council publishes per-member votes, give per group (fractie) its members' votes voor and tegen with the counts and the group's majority, and name the members who voted apart from their group. Where the answer says \"no per-member votes published\", say exactly that and quote the council's vote_summary verbatim when there is one: never infer how a group or member voted from the result, the tally or a group's size, and do not call a member missing from the votes absent. Report the problems the answer lists as given; do not correct them.")
	if a.Party != "" {
		p.Say("(party %s is shown as the council's data writes the group's name; when the answer says no group of that name voted, it lists the names used: ask again with one of them.)", a.Party)
	}
}
