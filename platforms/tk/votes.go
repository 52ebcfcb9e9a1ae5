package tk

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Votes in the Tweede Kamer (issue 37, point 1). A plenary decision is a
// Besluit on an Agendapunt of a "Stemmingen" Activiteit, about one or more
// Zaken (a motion, an amendment, a bill). When it was put to the vote its
// BesluitSoort starts with "Stemmen" ("Stemmen - aangenomen", "Stemmen -
// verworpen") and its Stemming rows hold the votes: one per fractie with
// its seats (FractieGrootte) for a vote "Met handopsteken", one per
// member for a "Hoofdelijk" vote (fixtures/tk/odata-besluit-expand.json;
// the platforms reference, section 12). One request asks for the
// decisions with their votes, zaken and voting day:
//
//	Besluit?$filter=Verwijderd eq false and startswith(BesluitSoort,'Stemmen') and Zaak/any(z:…)
//	&$expand=Zaak(…),Stemming($filter=Verwijderd eq false;…),Agendapunt(…;$expand=Activiteit(…))
//
// in the shape of the real answer (an $expand two levels deep, as the
// fixture's). Lambdas are never nested: ASP.NET OData services cap their
// depth (MaxAnyAllExpressionDepth, 1 by default) and the Kamer publishes
// no cap, so a dossier is looked up in a request of its own.

// KamerSeats is the Tweede Kamer's number of seats (Grondwet art. 51).
const KamerSeats = 150

// MaxVotesLimit is the most decisions one call reads: a hoofdelijke
// stemming carries a row per member.
const MaxVotesLimit = 25

// maxStemmingRows is the most Stemming rows of one decision that are
// counted; more is reported, never silently cut.
const maxStemmingRows = 4 * KamerSeats

// maxProblems is the most problems one decision lists.
const maxProblems = 20

// Vote values of Stemming.Soort.
const (
	VoteFor     = "Voor"
	VoteAgainst = "Tegen"
	VoteNone    = "Niet deelgenomen"
)

// VoteZaak is a zaak a decision is about.
type VoteZaak struct {
	Nummer    string `json:"nummer" jsonschema_description:"Zaak number (2022Z17826)."`
	Soort     string `json:"soort,omitempty" jsonschema_description:"Kind: Motie, Amendement, Wetgeving, ..."`
	Titel     string `json:"titel,omitempty" jsonschema_description:"Title (for a motion: the debate's)."`
	Onderwerp string `json:"onderwerp,omitempty" jsonschema_description:"Subject (for a motion: what it asks)."`
	URL       string `json:"url,omitempty" jsonschema_description:"The zaak in the Kamer's SyncFeed."`
}

// PartyVote is one fractie's vote on a decision.
type PartyVote struct {
	Party string `json:"party" jsonschema_description:"The fractie as the Kamer's data names it (ActorFractie)."`
	Vote  string `json:"vote" jsonschema_description:"Voor, Tegen or Niet deelgenomen; for a vote per member the majority of its members, 'verdeeld' when tied."`
	Seats int    `json:"seats" jsonschema_description:"The fractie's seats (FractieGrootte)."`
	// per member (hoofdelijk)
	Members         int `json:"members,omitempty" jsonschema_description:"Members of the fractie in the vote (per-member votes)."`
	Voor            int `json:"voor,omitempty" jsonschema_description:"Members who voted for (per-member votes)."`
	Tegen           int `json:"tegen,omitempty" jsonschema_description:"Members who voted against (per-member votes)."`
	NietDeelgenomen int `json:"niet_deelgenomen,omitempty" jsonschema_description:"Members listed as not taking part (per-member votes)."`
	NotRecorded     int `json:"not_recorded,omitempty" jsonschema_description:"Seats of the fractie with no member row in the data (per-member votes): not shown as absent, because the data does not say so."`
}

// MemberVote is a member's vote apart from their fractie, or a vote marked
// as a mistake.
type MemberVote struct {
	Name  string `json:"name" jsonschema_description:"The member (or, for a vote per fractie, the fractie)."`
	Party string `json:"party" jsonschema_description:"The member's fractie."`
	Vote  string `json:"vote"`
	Seats int    `json:"seats,omitempty" jsonschema_description:"For a vote per fractie: its seats."`
}

// VoteTotals are a decision's totals.
type VoteTotals struct {
	Unit            string `json:"unit" jsonschema_description:"seats (vote per fractie: FractieGrootte summed) or members (hoofdelijk: one per member)."`
	Voor            int    `json:"voor"`
	Tegen           int    `json:"tegen"`
	NietDeelgenomen int    `json:"niet_deelgenomen"`
	Other           int    `json:"other,omitempty" jsonschema_description:"Counted under a vote value that is none of the three (reported in problems)."`
	Present         int    `json:"present" jsonschema_description:"Seats (or members) in the Kamer's data for this decision; voor + tegen + niet_deelgenomen must equal it."`
	NotInData       int    `json:"not_in_data,omitempty" jsonschema_description:"Of the Kamer's 150 seats, those the data does not account for (vacancies, or an incomplete answer)."`
}

// Decision is one vote.
type Decision struct {
	ID         string       `json:"besluit_id" jsonschema_description:"The Besluit's GUID."`
	Date       string       `json:"date,omitempty" jsonschema_description:"The voting day (the Stemmingen activity's date)."`
	Zaken      []VoteZaak   `json:"zaken"`
	Result     string       `json:"result" jsonschema_description:"BesluitSoort as the Kamer recorded it (Stemmen - aangenomen, Stemmen - verworpen, ...)."`
	ResultText string       `json:"result_text,omitempty" jsonschema_description:"BesluitTekst."`
	Method     string       `json:"method" jsonschema_description:"StemmingsSoort: Met handopsteken (per fractie) or Hoofdelijk (per member)."`
	PerMember  bool         `json:"per_member" jsonschema_description:"The data holds a vote per member."`
	Agendapunt string       `json:"agendapunt,omitempty"`
	Parties    []PartyVote  `json:"parties" jsonschema_description:"Each fractie's vote (only the party asked for, with party)."`
	Dissenters []MemberVote `json:"dissenters,omitempty" jsonschema_description:"Members who voted apart from their fractie's majority (per-member votes)."`
	Totals     VoteTotals   `json:"totals"`
	Mistaken   []MemberVote `json:"mistaken,omitempty" jsonschema_description:"Votes the Kamer's data marks Vergissing (cast by mistake): not counted in parties or totals."`
	Note       string       `json:"note,omitempty" jsonschema_description:"What was left out of the count, and why."`
	Consistent bool         `json:"consistent" jsonschema_description:"The totals add up to the seats present and agree with the recorded result; otherwise problems says what does not."`
	Problems   []string     `json:"problems,omitempty" jsonschema_description:"What in the Kamer's data does not add up; reported as found, never corrected."`
	Summary    string       `json:"summary" jsonschema_description:"One line: zaak, result, method, totals."`
	SourceURL  string       `json:"source_url" jsonschema_description:"The Besluit in the Kamer's SyncFeed."`
}

// entityURL is the SyncFeed's link to one entity (documented: the
// platforms reference, section 3).
func entityURL(guid string) string { return Public + FeedRoot + "/Entiteiten/" + guid }

// ParseVotes reads the answer to VotesRequest: its decisions, and the
// total the service counted.
func ParseVotes(v *voteSets, body []byte) ([]Decision, int, error) {
	rows, total, err := parseCounted(body)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Decision, 0, len(rows))
	for _, r := range rows {
		d, err := decisionOf(v, r)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, nil
}

// nested reads a navigation property of r: a list, or one object.
func nested(r row, name string) ([]row, error) {
	raw, ok := r[name]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var many []row
	if err := json.Unmarshal(raw, &many); err == nil {
		return many, nil
	}
	var one row
	if err := json.Unmarshal(raw, &one); err != nil || one == nil {
		return nil, fmt.Errorf("Tweede Kamer %s is neither an entity nor a list of them", name)
	}
	return []row{one}, nil
}

func (r row) flag(e *Entity, key string) bool { return r.str(e, key) == "true" }

func decisionOf(v *voteSets, r row) (Decision, error) {
	b := v.besluit
	id := strings.ToLower(r.str(b, fID))
	if !guidRE.MatchString(id) {
		return Decision{}, fmt.Errorf("Tweede Kamer decision has no valid %s", b.Name(fID))
	}
	d := newDecision(id, r.str(b, fBesluitSoort), r.str(b, fBesluitTekst), r.str(b, fStemmingsSoort))
	zaken, err := nested(r, "Zaak")
	if err != nil {
		return Decision{}, err
	}
	for _, z := range zaken {
		if z.flag(v.zaak, fVerwijderd) {
			continue
		}
		d.Zaken = append(d.Zaken, voteZaakOf(z.str(v.zaak, fID), z.str(v.zaak, fNummer), z.str(v.zaak, fSoort), z.str(v.zaak, fTitel), z.str(v.zaak, fOnderwerp)))
	}
	aps, err := nested(r, "Agendapunt")
	if err != nil {
		return Decision{}, err
	}
	if len(aps) > 0 {
		d.Agendapunt = adapters.Squash(aps[0].str(v.agendapunt, fOnderwerp))
		acts, err := nested(aps[0], "Activiteit")
		if err != nil {
			return Decision{}, err
		}
		if len(acts) > 0 {
			d.Date = day(acts[0].str(v.activiteit, fDatum))
		}
	}
	stemmingen, err := nested(r, "Stemming")
	if err != nil {
		return Decision{}, err
	}
	st := v.stemming
	rows := make([]voteRow, 0, len(stemmingen))
	for _, s := range stemmingen {
		rows = append(rows, voteRow{Name: s.str(st, fActorNaam), Party: s.str(st, fActorFractie), Soort: s.str(st, fSoort),
			Persoon: s.str(st, fPersoonID), Seats: s.str(st, fFractieGrootte), Deleted: s.flag(st, fVerwijderd), Mistaken: s.flag(st, fVergissing)})
	}
	tally(rows, &d)
	return d, nil
}

// newDecision is a decision before its zaken and votes: the Besluit's
// GUID (lower case), BesluitSoort, BesluitTekst and StemmingsSoort. Both
// ways of reading votes (OData here, the replica in votes_replica.go)
// build it so.
func newDecision(id, result, text, method string) Decision {
	return Decision{ID: id, Result: result, ResultText: text, Method: method, SourceURL: entityURL(id),
		Zaken: []VoteZaak{}, Parties: []PartyVote{}}
}

// voteZaakOf is a zaak of a decision from its fields as the Kamer gives
// them.
func voteZaakOf(id, nummer, soort, titel, onderwerp string) VoteZaak {
	vz := VoteZaak{Nummer: nummer, Soort: soort, Titel: adapters.Squash(titel), Onderwerp: adapters.Squash(onderwerp)}
	if zid := strings.ToLower(id); guidRE.MatchString(zid) {
		vz.URL = entityURL(zid)
	}
	return vz
}

// voteRow is one Stemming row as the Kamer gives it, whichever way it was
// read (OData's Stemming, the SyncFeed's stemming): the fields tally
// counts, as text.
type voteRow struct {
	Name, Party, Soort string // ActorNaam, ActorFractie, Soort
	Persoon            string // Persoon_Id (a vote per member), "" for a fractie
	Seats              string // FractieGrootte
	Deleted, Mistaken  bool   // Verwijderd, Vergissing
}

// tally counts the votes of d from its Stemming rows, reporting whatever
// does not add up in d.Problems. It corrects nothing.
func tally(rows []voteRow, d *Decision) {
	var problems []string
	if len(rows) > maxStemmingRows {
		problems = append(problems, fmt.Sprintf("the answer lists %d votes for this decision, more than the Kamer's %d seats could cast; only the first %d are counted", len(rows), KamerSeats, maxStemmingRows))
		rows = rows[:maxStemmingRows]
	}
	type vote struct {
		name, party, soort, persoon string
		seats                       int
		seatsOK                     bool
	}
	var votes []vote
	for _, r := range rows {
		if r.Deleted {
			continue
		}
		x := vote{name: adapters.Squash(r.Name), party: adapters.Squash(r.Party),
			soort: strings.TrimSpace(r.Soort), persoon: strings.ToLower(r.Persoon)}
		n, err := strconv.Atoi(r.Seats)
		x.seats, x.seatsOK = n, err == nil
		if x.party == "" {
			x.party = x.name
		}
		if r.Mistaken {
			d.Mistaken = append(d.Mistaken, MemberVote{Name: x.name, Party: x.party, Vote: x.soort, Seats: x.seats})
			continue
		}
		votes = append(votes, x)
	}
	if len(d.Mistaken) > 0 {
		d.Note = fmt.Sprintf("%d vote(s) are marked Vergissing (cast by mistake) in the Kamer's data and are not counted in parties or totals; whether the recorded result counted them is not in the data: check the Handelingen", len(d.Mistaken))
	}
	// Per member when the method says so, or when the rows name members.
	perMember := strings.EqualFold(d.Method, "Hoofdelijk")
	for _, x := range votes {
		if x.persoon != "" {
			perMember = true
		}
	}
	d.PerMember = perMember
	t := &d.Totals
	add := func(soort string, n int) {
		switch soort {
		case VoteFor:
			t.Voor += n
		case VoteAgainst:
			t.Tegen += n
		case VoteNone:
			t.NietDeelgenomen += n
		default:
			t.Other += n
		}
	}
	unknown, badSize := map[string]bool{}, map[string]bool{}
	for _, x := range votes {
		if x.soort != VoteFor && x.soort != VoteAgainst && x.soort != VoteNone && !unknown[x.soort] {
			unknown[x.soort] = true
			problems = append(problems, fmt.Sprintf("vote value %q of %s is none of Voor, Tegen, Niet deelgenomen; counted under other", adapters.Cut(x.soort, 40), adapters.Cut(x.party, 40)))
		}
		if (!x.seatsOK || x.seats < 0 || x.seats > KamerSeats) && !badSize[x.party] {
			badSize[x.party] = true
			problems = append(problems, fmt.Sprintf("%s has no valid FractieGrootte; its seats are not counted", adapters.Cut(x.party, 40)))
		}
	}
	if !perMember {
		t.Unit = "seats"
		seen := map[string]int{}
		for _, x := range votes {
			seats := x.seats
			if !x.seatsOK || seats < 0 || seats > KamerSeats {
				seats = 0 // reported above; not counted
			}
			seen[strings.ToLower(x.party)]++
			if seen[strings.ToLower(x.party)] == 2 {
				problems = append(problems, fmt.Sprintf("%s votes more than once in the Kamer's data; each vote is counted", adapters.Cut(x.party, 40)))
			}
			d.Parties = append(d.Parties, PartyVote{Party: x.party, Vote: x.soort, Seats: seats})
			add(x.soort, seats)
			t.Present += seats
		}
	} else {
		t.Unit = "members"
		type group struct {
			pv    PartyVote
			sizes map[int]bool
		}
		groups := map[string]*group{}
		var order []string
		members := map[string]bool{}
		for _, x := range votes {
			key := strings.ToLower(x.party)
			g := groups[key]
			if g == nil {
				g = &group{pv: PartyVote{Party: x.party}, sizes: map[int]bool{}}
				groups[key] = g
				order = append(order, key)
			}
			if x.seatsOK && x.seats >= 0 && x.seats <= KamerSeats {
				g.sizes[x.seats] = true
				g.pv.Seats = max(g.pv.Seats, x.seats)
			}
			who := x.persoon
			if who == "" {
				who = strings.ToLower(x.name)
			}
			if members[who] {
				problems = append(problems, fmt.Sprintf("member %s votes more than once in the Kamer's data; each vote is counted", adapters.Cut(x.name, 60)))
			}
			members[who] = true
			g.pv.Members++
			switch x.soort {
			case VoteFor:
				g.pv.Voor++
			case VoteAgainst:
				g.pv.Tegen++
			case VoteNone:
				g.pv.NietDeelgenomen++
			}
			add(x.soort, 1)
			t.Present++
		}
		for _, key := range order {
			g := groups[key]
			if len(g.sizes) > 1 {
				problems = append(problems, fmt.Sprintf("the members of %s give different sizes for their fractie (FractieGrootte)", adapters.Cut(g.pv.Party, 40)))
			}
			if g.pv.Members > g.pv.Seats {
				problems = append(problems, fmt.Sprintf("%s has %d members voting but %d seats", adapters.Cut(g.pv.Party, 40), g.pv.Members, g.pv.Seats))
			} else {
				g.pv.NotRecorded = g.pv.Seats - g.pv.Members
			}
			g.pv.Vote = majority(g.pv)
		}
		for _, x := range votes {
			g := groups[strings.ToLower(x.party)]
			if g.pv.Vote != "verdeeld" && x.soort != g.pv.Vote {
				d.Dissenters = append(d.Dissenters, MemberVote{Name: x.name, Party: x.party, Vote: x.soort})
			}
		}
		for _, key := range order {
			d.Parties = append(d.Parties, groups[key].pv)
		}
	}
	if sum := t.Voor + t.Tegen + t.NietDeelgenomen; sum != t.Present {
		problems = append(problems, fmt.Sprintf("voor %d + tegen %d + niet deelgenomen %d = %d, but %d %s are present in the data", t.Voor, t.Tegen, t.NietDeelgenomen, sum, t.Present, t.Unit))
	}
	switch {
	case t.Present > KamerSeats:
		problems = append(problems, fmt.Sprintf("%d %s are counted, more than the Kamer's %d seats", t.Present, t.Unit, KamerSeats))
	case t.Present < KamerSeats:
		t.NotInData = KamerSeats - t.Present
	}
	if t.Present == 0 {
		problems = append(problems, "the Kamer's data holds no votes for this decision")
	}
	// The recorded result against the tally: for a vote per fractie when
	// all 150 seats are in the data; for a vote per member whenever the
	// members' votes are all read (who did not vote does not count).
	if (t.Present == KamerSeats || perMember) && t.Present > 0 && t.Other == 0 && len(rows) <= maxStemmingRows {
		res := strings.ToLower(d.Result)
		switch {
		case strings.Contains(res, "aangenomen") && t.Voor <= t.Tegen:
			problems = append(problems, fmt.Sprintf("recorded as %q, but voor %d is not more than tegen %d", d.Result, t.Voor, t.Tegen))
		case strings.Contains(res, "verworpen") && t.Voor > t.Tegen:
			problems = append(problems, fmt.Sprintf("recorded as %q, but voor %d is more than tegen %d", d.Result, t.Voor, t.Tegen))
		}
	}
	sort.SliceStable(d.Dissenters, func(i, j int) bool { return d.Dissenters[i].Party < d.Dissenters[j].Party })
	d.Consistent = len(problems) == 0
	if len(problems) > maxProblems {
		problems = append(problems[:maxProblems], fmt.Sprintf("and %d more problems", len(problems)-maxProblems))
	}
	d.Problems = problems
	d.Summary = summary(d)
}

// majority is a fractie's vote when its members voted: the value most of
// them cast, "verdeeld" when two tie for most.
func majority(p PartyVote) string {
	best, n, tie := "", -1, false
	for _, c := range []struct {
		v string
		n int
	}{{VoteFor, p.Voor}, {VoteAgainst, p.Tegen}, {VoteNone, p.NietDeelgenomen}} {
		switch {
		case c.n > n:
			best, n, tie = c.v, c.n, false
		case c.n == n:
			tie = true
		}
	}
	if tie || n == 0 {
		return "verdeeld"
	}
	return best
}

func summary(d *Decision) string {
	var zs []string
	for _, z := range d.Zaken {
		zs = append(zs, strings.TrimSpace(z.Soort+" "+z.Nummer))
	}
	t := d.Totals
	s := fmt.Sprintf("%s: %s (%s", strings.Join(zs, ", "), cmp.Or(d.ResultText, d.Result), strings.ToLower(cmp.Or(d.Method, "method not given")))
	if d.Date != "" {
		s += ", " + d.Date
	}
	s += fmt.Sprintf("): voor %d, tegen %d, niet deelgenomen %d of %d %s", t.Voor, t.Tegen, t.NietDeelgenomen, t.Present, t.Unit)
	if t.NotInData > 0 {
		s += fmt.Sprintf("; %d of the Kamer's %d seats not in the data", t.NotInData, KamerSeats)
	}
	if !d.Consistent {
		s += "; DOES NOT ADD UP: see problems"
	}
	return s
}

// FilterParty keeps only party's vote in each decision (matched on the
// name the Kamer's data gives, case-insensitively, or on a name the
// Fractie list gives for it: names maps lower-case name or abbreviation
// to the abbreviation), totals kept. found tells whether any decision
// shows it; seen are the names the decisions give, for a message.
func FilterParty(ds []Decision, party string, names map[string]string) (found bool, seen []string) {
	want := map[string]bool{strings.ToLower(strings.TrimSpace(party)): true}
	if ab, ok := names[strings.ToLower(strings.TrimSpace(party))]; ok {
		want[strings.ToLower(ab)] = true
	}
	have := map[string]bool{}
	for i := range ds {
		var keep []PartyVote
		for _, p := range ds[i].Parties {
			if !have[p.Party] {
				have[p.Party] = true
				seen = append(seen, p.Party)
			}
			if want[strings.ToLower(p.Party)] {
				keep = append(keep, p)
			}
		}
		if len(keep) > 0 {
			found = true
		}
		var dis []MemberVote
		for _, m := range ds[i].Dissenters {
			if want[strings.ToLower(m.Party)] {
				dis = append(dis, m)
			}
		}
		ds[i].Parties, ds[i].Dissenters = keep, dis
		if ds[i].Parties == nil {
			ds[i].Parties = []PartyVote{}
		}
	}
	sort.Strings(seen)
	return found, seen
}
