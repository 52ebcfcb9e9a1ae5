package tk

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
)

// The Tweede Kamer leads two prompts:
//
//   - how_did_they_vote: how parliament, or a council, voted on a subject.
//     One prompt for one kind of work, as parliament_on and regulations_on
//     are: the Kamer leads (its votes are complete, per fractie with seats
//     and per member), and OpenBesluitvorming writes the councils' part
//     (obv.CouncilVotesSteps) when council is given, or when the connector
//     offers no Kamer. Offered with tk or obv; the plan names tk_votes or
//     obv_votes, never a tool the connector lacks.
//   - dossier_status: where a Kamerstuk dossier (a bill) stands: its course
//     with the connector's dossier_timeline where it lists it
//     (mcpkit.OffersTool), then its votes with tk_votes. Offered with tk.

// Prompts: how_did_they_vote and dossier_status.
func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{
		{Name: "how_did_they_vote", Title: "How did they vote on a subject?",
			Desc: "How the Tweede Kamer's parties (or a municipal council, provincial council or water board) voted on motions, amendments and bills about a subject, optionally one party and a period: per party voor or tegen with its seats, members who voted apart, the result. Relies on tk_votes (Tweede Kamer) and obv_votes with obv_sources (councils, OpenBesluitvorming) as far as the connector offers them.",
			Args: []mcpkit.Arg{
				{Name: "subject", Title: "Subject", Required: true, Desc: "Words of the motion's, amendment's or bill's title (e.g. stikstof, huurbevriezing); every word must match."},
				{Name: "party", Title: "Party", Vocabulary: ListVocabulary("Fractie", true), Desc: "Only this party's vote: a Tweede Kamer fractie by abbreviation or name (VVD, GroenLinks-PvdA), or a council group as the council writes it."},
				{Name: "council", Title: "Council", Vocabulary: obv.Organisations(true), Desc: "For a municipal council, provincial council or water board: its OpenBesluitvorming key or name (utrecht, provincie-utrecht). Leave empty for the Tweede Kamer."},
				{Name: "since", Title: "Since", Date: true, Desc: "Only votes from this day on, YYYY-MM-DD."},
				{Name: "until", Title: "Until", Date: true, Desc: "Only votes up to this day, YYYY-MM-DD."},
			},
			Offered: func(offers func(string) bool) bool { return offers(platforms.TK) || offers(platforms.OBV) },
			Plan:    planVotes},
		{Name: "dossier_status", Title: "Where does a bill stand?",
			Desc: "Where a Kamerstuk dossier (a bill, a budget) stands now: its steps so far, the Staatsblad publication and the law's version in force where it got that far, and the votes on it, its amendments and motions. Relies on dossier_timeline where the connector lists it, and tk_votes.",
			Args: []mcpkit.Arg{
				{Name: "dossier", Title: "Dossier", Required: true, Vocabulary: DossierVocabulary(), Desc: "A Kamerstuk dossier number, with its addition after a dash (36200-VII) or without one (36410)."},
			},
			Offered: func(offers func(string) bool) bool { return offers(platforms.TK) },
			Plan:    planDossier},
	}
}

func planVotes(env mcpkit.Env, a mcpkit.Args) (string, error) {
	subject, party, council, since, until := a["subject"], a["party"], a["council"], a["since"], a["until"]
	if since != "" && until != "" && since > until {
		return "", fmt.Errorf("since %s is after until %s: give the period's first day in since and its last in until", since, until)
	}
	if strings.IndexFunc(subject, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return "", fmt.Errorf("subject %q holds no word: give words of the title voted on (e.g. stikstof)", mcpkit.Clip(subject, 40))
	}
	if len([]rune(party)) > 60 {
		return "", fmt.Errorf("party is longer than 60 characters: give a party's abbreviation or name (VVD, GroenLinks-PvdA)")
	}
	who := "the parties"
	if party != "" {
		who = party
	}
	where := "in the Tweede Kamer"
	switch {
	case council != "":
		where = "in the council of " + council
	case !env.Offers(platforms.TK):
		where = "in the councils"
	}
	period := ""
	switch {
	case since != "" && until != "":
		period = " between " + since + " and " + until
	case since != "":
		period = " since " + since
	case until != "":
		period = " up to " + until
	}
	q := "How did " + who + " vote on " + subject + " " + where + period + "?"
	var p mcpkit.Plan
	ask := obv.VotesAsk{Council: council, Subject: subject, Party: party, Since: since, Until: until}
	switch {
	case council != "":
		if !env.Offers(platforms.OBV) {
			return "", fmt.Errorf("council %q: a council's votes come from OpenBesluitvorming (obv), which this connector does not offer (it offers %s); leave council empty for the Tweede Kamer's votes",
				mcpkit.Clip(council, 40), strings.Join(env.Offered(), ", "))
		}
		obv.CouncilVotesSteps(env, &p, ask)
	case env.Offers(platforms.TK):
		vp := VotesParams{Query: subject, DateFrom: since, DateTo: until}
		if err := vp.Check(); err != nil {
			return "", fmt.Errorf("%s (tk_votes matches every word in a title or subject)", strings.Replace(err.Error(), "query", "subject", 1))
		}
		p.Step("Find the decisions that were votes on the subject: %s. Newest voting day first; page on with offset=next_offset. If nothing is found, try fewer or other words of the title (every word must be in the zaak's title or subject).%s",
			mcpkit.Call("tk_votes", map[string]any{"query": subject, "date_from": since, "date_to": until, "party": party}),
			map[bool]string{true: " With party only that fractie's vote is shown, the result and totals kept; when the note says no decision shows its vote, it names the fracties that voted: ask again with one of them.", false: ""}[party != ""])
		p.Step("Present each decision: the zaak (number, kind: motie, amendement, wetsvoorstel; title), the voting day, the result as the Kamer recorded it (aangenomen or verworpen). A vote met handopsteken: each fractie voor or tegen with its seats, and the totals. A hoofdelijke vote: the members' votes per fractie, and name the members who voted apart from their fractie. Votes marked Vergissing (cast by mistake) apart and uncounted. Report the problems an answer lists (totals that do not add up) as given; never correct them.")
		if env.Offers(platforms.OBV) {
			p.Say("(For a municipal council, provincial council or water board, ask again with council: its votes come from obv_votes.)")
		}
	default:
		obv.CouncilVotesSteps(env, &p, ask)
	}
	p.Step("Answer: per decision, newest first, how %s voted and the result, with the seats or members behind it; say when nothing was found rather than guessing.", who)
	return p.Finish(q), nil
}

func planDossier(env mcpkit.Env, a mcpkit.Args) (string, error) {
	number, addition, err := ParseDossier(a["dossier"])
	if err != nil {
		return "", err
	}
	name := number
	if addition != "" {
		name += "-" + addition
	}
	q := "Where does Kamerstuk dossier " + name + " stand now?"
	args := map[string]any{"dossier": number, "toevoeging": addition}
	var p mcpkit.Plan
	timeline := mcpkit.OffersTool(env, mcpkit.TimelineTool)
	if timeline {
		p.Step("Its course: %s. The dossier's steps in order (kamerstukken, debates, votes, the Eerste Kamer, the Staatsblad publication, the law's version in force), with the links it could not make reported as missing.",
			mcpkit.Call(mcpkit.TimelineTool, args))
	}
	p.Step("The votes on its zaken (the bill, its amendments, motions on it): %s. Newest first; when has_more, page on with offset=next_offset. The vote on the bill itself (wetsvoorstel) says whether the Tweede Kamer adopted it, and how each fractie voted with its seats.",
		mcpkit.Call("tk_votes", args))
	var reads []string
	if timeline && env.Offers(platforms.OB) {
		reads = append(reads, "the Staatsblad publication with "+mcpkit.Call("ob_fetch", map[string]any{"id": "<its id, e.g. stb-2024-12>"}))
	}
	if timeline && env.Offers(platforms.BWB) {
		reads = append(reads, "the law's version in force with "+mcpkit.Call("bwb_fetch", map[string]any{"id": "<its BWB id>", "date": "<the version's date>"}))
	}
	if len(reads) > 0 {
		p.Step("Where the course names them, read %s.", strings.Join(reads, "; "))
	}
	p.Step("Answer: where the dossier stands now: the last step reached and its date (submitted, advice of the Raad van State, written preparation, plenary debate, adopted or rejected by the Tweede Kamer, before the Eerste Kamer, published in the Staatsblad, in force), the final vote per fractie where there was one, the amendments and motions adopted, and what comes next. A step the sources do not show is missing: say so, never fill it in. A dossier that is no bill (a budget, a policy letter) is told as what it is.")
	return p.Finish(q), nil
}
