package obv

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Votes in councils (issue 37, point 2). A motion's detail
// (GET /api/entities/{id}, fixtures/obv/entity-motion.json) carries
// motion{name, motion_type, status, result, tally{in_favour, against},
// votes[{option, voter, voter_name, group, group_name}]}: per-member votes
// where the council's system publishes them (iBabs councils), an empty
// list and at most a free-text vote_summary where it does not (Notubiz:
// the platforms reference, sections 11 and 12). Nothing is inferred: a
// member who is not in the votes is not shown as absent, an option other
// than voor or tegen is shown as given, and what does not add up is
// reported in problems, never corrected.

// MaxVotesLimit is the most motions one obv_votes call reads: each costs
// one detail request of the platform's budget.
const MaxVotesLimit = 10

// DefaultVotesLimit is obv_votes' default number of motions.
const DefaultVotesLimit = 3

// maxVoteRows is the most votes of one motion that are counted: the
// largest council bodies have 55 seats (Provinciale Staten), so more is
// reported, never silently cut.
const maxVoteRows = 500

// maxVoteProblems is the most problems one motion lists.
const maxVoteProblems = 20

// Vote options the platform's schema names (motion.votes[].option).
const (
	OptionFor     = "voor"
	OptionAgainst = "tegen"
)

// NoMemberVotes is what a motion without per-member votes says.
const NoMemberVotes = "no per-member votes published: the council's system publishes none for this motion (OpenBesluitvorming has them where it does, mainly iBabs councils); how each member or group voted is not known and is not guessed"

// notVoted tells whether a published result means the motion was not put
// to the vote: withdrawn (ingetrokken) or held over (aangehouden).
func notVoted(result string) bool { return result == "ingetrokken" || result == "aangehouden" }

// VoteTally is the tally as the platform publishes it.
type VoteTally struct {
	InFavour *int           `json:"in_favour,omitempty" jsonschema_description:"Votes for, as published (tally.in_favour)."`
	Against  *int           `json:"against,omitempty" jsonschema_description:"Votes against, as published (tally.against)."`
	Other    map[string]int `json:"other,omitempty" jsonschema_description:"Any other count the tally gives, under its own name."`
}

// GroupVotes is one group's (fractie's) votes on a motion.
type GroupVotes struct {
	Group   string       `json:"group" jsonschema_description:"The group as the council's data names it (group_name)."`
	Vote    string       `json:"vote" jsonschema_description:"The majority of its members' votes: voor, tegen, or verdeeld when tied."`
	Members int          `json:"members" jsonschema_description:"Members of the group with a vote in the data."`
	Voor    int          `json:"voor"`
	Tegen   int          `json:"tegen"`
	Other   int          `json:"other,omitempty" jsonschema_description:"Votes with an option other than voor or tegen (shown as given in other_votes)."`
	ForBy   []string     `json:"voor_members,omitempty" jsonschema_description:"The members who voted voor."`
	AgBy    []string     `json:"tegen_members,omitempty" jsonschema_description:"The members who voted tegen."`
	OtherBy []MemberVote `json:"other_votes,omitempty" jsonschema_description:"Members whose vote is another option, as the data gives it."`
}

// MemberVote is one member's vote.
type MemberVote struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Vote  string `json:"vote" jsonschema_description:"The option as the data gives it."`
}

// MemberTotals count the per-member votes.
type MemberTotals struct {
	Members int `json:"members" jsonschema_description:"Votes in the data (one per member)."`
	Voor    int `json:"voor"`
	Tegen   int `json:"tegen"`
	Other   int `json:"other,omitempty" jsonschema_description:"Votes with another option (see problems)."`
}

// MotionVotes is one motion with its votes.
type MotionVotes struct {
	ID           string        `json:"id" jsonschema_description:"The motion's OpenBesluitvorming id."`
	Name         string        `json:"name"`
	MotionType   string        `json:"motion_type,omitempty" jsonschema_description:"As published (Moties, Amendementen, ...)."`
	Council      string        `json:"council,omitempty" jsonschema_description:"The organisation as the platform names it."`
	Organization string        `json:"organization,omitempty" jsonschema_description:"The organisation's key (from the id), for obv_search."`
	Date         string        `json:"date,omitempty" jsonschema_description:"The meeting's day, when the data gives it."`
	Result       string        `json:"result" jsonschema_description:"As published: aangenomen, verworpen, ingetrokken, aangehouden or overig; empty when none is."`
	Status       string        `json:"status,omitempty" jsonschema_description:"The council's status text, as published."`
	Tally        *VoteTally    `json:"tally,omitempty" jsonschema_description:"The tally as published; absent when the data gives none."`
	VoteSummary  string        `json:"vote_summary,omitempty" jsonschema_description:"The council's own free-text vote breakdown, verbatim (some Notubiz councils)."`
	PerMember    bool          `json:"per_member" jsonschema_description:"The data holds a vote per member."`
	Groups       []GroupVotes  `json:"groups" jsonschema_description:"Per group its members' votes (per-member votes only; with party, only that group)."`
	Dissenters   []MemberVote  `json:"dissenters,omitempty" jsonschema_description:"Members who voted apart from their group's majority."`
	Totals       *MemberTotals `json:"member_totals,omitempty" jsonschema_description:"The per-member votes counted (per-member votes only)."`
	Note         string        `json:"note,omitempty" jsonschema_description:"What the data does not hold (no per-member votes published), or what was left out."`
	Consistent   bool          `json:"consistent" jsonschema_description:"The tally, the member votes and the result agree; otherwise problems says what does not."`
	Problems     []string      `json:"problems,omitempty" jsonschema_description:"What in the data does not add up; reported as found, never corrected."`
	Summary      string        `json:"summary" jsonschema_description:"One line: motion, result, tally, member votes."`
	MeetingID    string        `json:"meeting_id,omitempty" jsonschema_description:"The meeting it was voted in (obv_fetch reads it)."`
	URI          string        `json:"uri,omitempty" jsonschema_description:"besluitbron:// resource URI of the motion."`
	URL          string        `json:"url,omitempty" jsonschema_description:"The motion's document at the council, when published."`
}

// rawMotion is a motion detail read leniently: a field of another type
// than the schema's is reported, not fatal.
type rawMotion struct {
	EntityID     string `json:"entityId"`
	EntityType   string `json:"entityType"`
	Title        string `json:"title"`
	Organization string `json:"organization"`
	Date         string `json:"date"`
	SortDate     string `json:"sortDate"`
	DownloadURL  string `json:"downloadUrl"`
	MeetingID    string `json:"meetingId"`
	Motion       *struct {
		Name        json.RawMessage            `json:"name"`
		MotionType  json.RawMessage            `json:"motion_type"`
		Status      json.RawMessage            `json:"status"`
		Result      json.RawMessage            `json:"result"`
		Tally       map[string]json.RawMessage `json:"tally"`
		VoteSummary json.RawMessage            `json:"vote_summary"`
		Votes       json.RawMessage            `json:"votes"`
	} `json:"motion"`
}

// text reads a JSON string; ok is false for anything else (null and
// absent included), bad for a value of another type.
func text(raw json.RawMessage) (s string, ok, bad bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, false
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, true
	}
	return s, true, false
}

// ParseMotionVotes reads a motion's detail (id is the id it was asked
// by, used where the answer names none): its result, tally and votes,
// counted per group, with what does not add up in Problems.
func ParseMotionVotes(id string, body []byte) (MotionVotes, error) {
	var e rawMotion
	if err := json.Unmarshal(body, &e); err != nil {
		return MotionVotes{}, fmt.Errorf("OpenBesluitvorming motion answer is not the expected JSON: %v", err)
	}
	mv := MotionVotes{ID: cmp.Or(e.EntityID, id), Council: adapters.Squash(e.Organization), Date: dateOf(e.SortDate, e.Date),
		MeetingID: e.MeetingID, URL: link(e.DownloadURL), Groups: []GroupVotes{}}
	if parts := strings.SplitN(mv.ID, ":", 5); len(parts) == 5 {
		mv.Organization = parts[3]
	}
	var problems []string
	field := func(name string, raw json.RawMessage) string {
		s, _, bad := text(raw)
		if bad {
			problems = append(problems, "motion."+name+" is not text; left out")
		}
		return adapters.Squash(s)
	}
	if e.Motion == nil {
		if e.EntityType != "" && e.EntityType != "Motion" {
			return MotionVotes{}, fmt.Errorf("OpenBesluitvorming entity %s is a %s, not a motion", adapters.Cut(mv.ID, 80), adapters.Cut(e.EntityType, 40))
		}
		mv.Name = adapters.Squash(e.Title)
		mv.Problems = []string{"the platform's answer holds no motion (no result, tally or votes): nothing to count"}
		mv.Note = NoMemberVotes
		mv.Summary = summaryOf(&mv)
		return mv, nil
	}
	m := e.Motion
	mv.Name = cmp.Or(field("name", m.Name), adapters.Squash(e.Title))
	mv.MotionType = field("motion_type", m.MotionType)
	mv.Status = field("status", m.Status)
	mv.Result = strings.ToLower(field("result", m.Result))
	mv.VoteSummary = strings.TrimSpace(field("vote_summary", m.VoteSummary))
	mv.Tally, problems = tallyOf(m.Tally, problems)

	votes, problems := votesOf(m.Votes, problems)
	countVotes(&mv, votes, &problems)
	checkResult(&mv, &problems)
	switch {
	case len(votes) == 0 && notVoted(mv.Result):
		mv.Note = "published as " + mv.Result + ": not put to the vote, so there are no votes to show"
	case len(votes) == 0:
		mv.Note = NoMemberVotes
		if mv.VoteSummary != "" {
			mv.Note += "; the council's own vote_summary is given verbatim"
		}
	}
	mv.Consistent = len(problems) == 0
	if len(problems) > maxVoteProblems {
		problems = append(problems[:maxVoteProblems], fmt.Sprintf("and %d more problems", len(problems)-maxVoteProblems))
	}
	mv.Problems = problems
	mv.Summary = summaryOf(&mv)
	return mv, nil
}

// tallyOf reads the tally: in_favour and against, and any other whole
// count under its own name; what is no whole number is reported.
func tallyOf(raw map[string]json.RawMessage, problems []string) (*VoteTally, []string) {
	if len(raw) == 0 {
		return nil, problems
	}
	t := &VoteTally{}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		if string(v) == "null" {
			continue
		}
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 0 {
			problems = append(problems, fmt.Sprintf("tally.%s is %s, not a count; left out", adapters.Cut(k, 40), adapters.Cut(strings.ToValidUTF8(string(v), "\uFFFD"), 40)))
			continue
		}
		switch k {
		case "in_favour":
			t.InFavour = &n
		case "against":
			t.Against = &n
		default:
			if len(t.Other) >= 10 {
				continue
			}
			if t.Other == nil {
				t.Other = map[string]int{}
			}
			t.Other[adapters.Cut(k, 40)] = n
		}
	}
	if t.InFavour == nil && t.Against == nil && t.Other == nil {
		return nil, problems
	}
	return t, problems
}

type memberVote struct {
	name, voter, group, option string
}

// votesOf reads the votes list leniently, at most maxVoteRows of it.
func votesOf(raw json.RawMessage, problems []string) ([]memberVote, []string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, problems
	}
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, append(problems, "motion.votes is not a list of votes; no member vote is counted")
	}
	if len(rows) > maxVoteRows {
		problems = append(problems, fmt.Sprintf("the answer lists %d votes, more than any council has members; only the first %d are counted", len(rows), maxVoteRows))
		rows = rows[:maxVoteRows]
	}
	var out []memberVote
	badField := false
	for i, r := range rows {
		var v memberVote
		for _, f := range []struct {
			key string
			to  *string
		}{{"voter_name", &v.name}, {"voter", &v.voter}, {"group_name", &v.group}, {"option", &v.option}} {
			s, _, bad := text(r[f.key])
			badField = badField || bad
			*f.to = adapters.Squash(s)
		}
		if v.name == "" {
			v.name = cmp.Or(v.voter, fmt.Sprintf("(vote %d: no voter named)", i+1))
		}
		v.name, v.group = adapters.Cut(v.name, 80), adapters.Cut(v.group, 80)
		out = append(out, v)
	}
	if badField {
		problems = append(problems, "some votes hold a field that is not text (voter_name, voter, group_name or option); it is read as empty")
	}
	return out, problems
}

// countVotes groups the member votes, finds each group's majority and who
// voted apart from it, and holds the tally to the count.
func countVotes(mv *MotionVotes, votes []memberVote, problems *[]string) {
	if len(votes) == 0 {
		return
	}
	mv.PerMember = true
	t := &MemberTotals{}
	mv.Totals = t
	groups := map[string]*GroupVotes{}
	var order []string
	seen := map[string]bool{}
	unknown := map[string]bool{}
	noGroup := 0
	for _, v := range votes {
		gname := v.group
		if gname == "" {
			gname = "(no group in the data)"
			noGroup++
		}
		key := strings.ToLower(gname)
		g := groups[key]
		if g == nil {
			g = &GroupVotes{Group: gname}
			groups[key] = g
			order = append(order, key)
		}
		who := cmp.Or(v.voter, strings.ToLower(v.name))
		if seen[who] {
			*problems = append(*problems, fmt.Sprintf("member %s votes more than once in the data; each vote is counted", adapters.Cut(v.name, 60)))
		}
		seen[who] = true
		g.Members++
		t.Members++
		switch strings.ToLower(v.option) {
		case OptionFor:
			g.Voor++
			t.Voor++
			g.ForBy = append(g.ForBy, v.name)
		case OptionAgainst:
			g.Tegen++
			t.Tegen++
			g.AgBy = append(g.AgBy, v.name)
		default:
			g.Other++
			t.Other++
			opt := adapters.Cut(v.option, 40)
			g.OtherBy = append(g.OtherBy, MemberVote{Name: v.name, Group: gname, Vote: opt})
			if !unknown[strings.ToLower(opt)] {
				unknown[strings.ToLower(opt)] = true
				*problems = append(*problems, fmt.Sprintf("vote option %q (of %s) is neither voor nor tegen; shown as given, counted under other", opt, adapters.Cut(v.name, 60)))
			}
		}
	}
	if noGroup > 0 {
		*problems = append(*problems, fmt.Sprintf("%d vote(s) name no group (group_name)", noGroup))
	}
	for _, key := range order {
		g := groups[key]
		g.Vote = groupMajority(g.Voor, g.Tegen)
		mv.Groups = append(mv.Groups, *g)
	}
	for _, g := range mv.Groups {
		if g.Vote == "verdeeld" {
			continue
		}
		apart := g.AgBy
		vote := OptionAgainst
		if g.Vote == OptionAgainst {
			apart, vote = g.ForBy, OptionFor
		}
		for _, n := range apart {
			mv.Dissenters = append(mv.Dissenters, MemberVote{Name: n, Group: g.Group, Vote: vote})
		}
	}
	// The published tally against the member votes.
	if tl := mv.Tally; tl != nil {
		if tl.InFavour != nil && *tl.InFavour != t.Voor {
			*problems = append(*problems, fmt.Sprintf("the tally gives %d voor, but %d members voted voor in the data", *tl.InFavour, t.Voor))
		}
		if tl.Against != nil && *tl.Against != t.Tegen {
			*problems = append(*problems, fmt.Sprintf("the tally gives %d tegen, but %d members voted tegen in the data", *tl.Against, t.Tegen))
		}
	}
}

// groupMajority is a group's vote: the option most of its members cast,
// "verdeeld" when voor and tegen tie (other options count for neither).
func groupMajority(voor, tegen int) string {
	switch {
	case voor > tegen:
		return OptionFor
	case tegen > voor:
		return OptionAgainst
	}
	return "verdeeld"
}

// checkResult holds the published result to the counts: the tally where
// it gives both sides, else the member votes.
func checkResult(mv *MotionVotes, problems *[]string) {
	voor, tegen, from := 0, 0, ""
	switch {
	case mv.Tally != nil && mv.Tally.InFavour != nil && mv.Tally.Against != nil:
		voor, tegen, from = *mv.Tally.InFavour, *mv.Tally.Against, "the tally gives"
	case mv.Totals != nil && mv.Totals.Other == 0:
		voor, tegen, from = mv.Totals.Voor, mv.Totals.Tegen, "the member votes give"
	default:
		return
	}
	switch mv.Result {
	case "aangenomen":
		if voor <= tegen {
			*problems = append(*problems, fmt.Sprintf("published as aangenomen, but %s voor %d, not more than tegen %d", from, voor, tegen))
		}
	case "verworpen":
		if voor > tegen {
			*problems = append(*problems, fmt.Sprintf("published as verworpen, but %s voor %d, more than tegen %d", from, voor, tegen))
		}
	case "ingetrokken", "aangehouden": // notVoted
		if voor+tegen > 0 {
			*problems = append(*problems, fmt.Sprintf("published as %s (not put to the vote), but %s voor %d and tegen %d", mv.Result, from, voor, tegen))
		}
	}
}

func summaryOf(mv *MotionVotes) string {
	s := cmp.Or(mv.Name, mv.ID)
	if mv.Council != "" || mv.Date != "" {
		s += " (" + strings.TrimSpace(strings.Join(nonEmpty(mv.Council, mv.Date), ", ")) + ")"
	}
	s += ": " + cmp.Or(mv.Result, "no result published")
	if t := mv.Tally; t != nil {
		s += "; tally " + VoteTallyText(t)
	}
	if tt := mv.Totals; tt != nil {
		s += fmt.Sprintf("; %d member votes: voor %d, tegen %d", tt.Members, tt.Voor, tt.Tegen)
		if tt.Other > 0 {
			s += fmt.Sprintf(", other %d", tt.Other)
		}
		if n := len(mv.Dissenters); n > 0 {
			s += fmt.Sprintf("; %d voted apart from their group", n)
		}
	} else if !notVoted(mv.Result) {
		s += "; no per-member votes published"
	}
	if !mv.Consistent {
		s += "; DOES NOT ADD UP: see problems"
	}
	return s
}

// VoteTallyText writes a tally as "20 voor, 11 tegen" (with its other
// counts; "?" for a side it does not give).
func VoteTallyText(t *VoteTally) string {
	n := func(p *int) string {
		if p == nil {
			return "?"
		}
		return strconv.Itoa(*p)
	}
	s := n(t.InFavour) + " voor, " + n(t.Against) + " tegen"
	keys := make([]string, 0, len(t.Other))
	for k := range t.Other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s += fmt.Sprintf(", %d %s", t.Other[k], k)
	}
	return s
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// FilterGroup keeps only party's group (matched on the name the council's
// data gives, case-insensitively) in each motion's groups and dissenters.
// found tells whether any motion shows it; seen are the group names the
// motions give, for a message.
func FilterGroup(ms []MotionVotes, party string) (found bool, seen []string) {
	want := strings.ToLower(adapters.Squash(party))
	have := map[string]bool{}
	for i := range ms {
		keep := []GroupVotes{}
		for _, g := range ms[i].Groups {
			if !have[g.Group] {
				have[g.Group] = true
				seen = append(seen, g.Group)
			}
			if strings.ToLower(g.Group) == want {
				keep = append(keep, g)
			}
		}
		if len(keep) > 0 {
			found = true
		}
		var dis []MemberVote
		for _, d := range ms[i].Dissenters {
			if strings.ToLower(d.Group) == want {
				dis = append(dis, d)
			}
		}
		ms[i].Groups, ms[i].Dissenters = keep, dis
	}
	sort.Strings(seen)
	return found, seen
}
