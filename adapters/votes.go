package adapters

import "strings"

// Votes as every surface but the MCP tools shows them (issue 37, point
// 4): a platform that publishes how a document was voted on fills
// Surface.Votes from its own votes code (the Tweede Kamer's decisions,
// a council's motions), and the site's reader draws each VoteChart as a
// chart with a table of the same numbers. Nothing here is inferred: a
// count the platform does not publish is absent, never guessed.

// Units a vote is counted in (VoteChart.Unit).
const (
	VoteUnitSeats   = "seats"   // a vote per party, weighed by its seats
	VoteUnitMembers = "members" // a vote per member, counted per party
)

// What VoteBar.Other counts (VoteChart.OtherKind).
const (
	// OtherNotTakingPart: recorded as not taking part in the vote (the
	// Kamer's "Niet deelgenomen"), and any value that is neither for nor
	// against (the chart's problems say which).
	OtherNotTakingPart = "not_taking_part"
	// OtherOption: a vote cast with an option other than for or against
	// (an abstention where a council records one); never absence.
	OtherOption = "other_option"
)

// VoteChart is one vote: what was voted on, the result as recorded, and
// per party its votes for and against, in seats or members.
type VoteChart struct {
	Title  string // what was voted on (the zaak or motion, as the platform names it)
	Date   string // the voting day, YYYY-MM-DD; "" when the platform gives none
	Result string // as the platform recorded it (Stemmen - aangenomen, verworpen)
	Method string // as recorded (Met handopsteken, Hoofdelijk); "" when none is
	// Unit is VoteUnitSeats or VoteUnitMembers.
	Unit string
	// OtherKind says what the bars' Other counts (Other*).
	OtherKind string
	// Bars are the parties in the platform's order; none when the
	// platform publishes no vote per party (see NoPartyVotes).
	Bars []VoteBar
	// Totals are the bars counted together, as the platform's votes code
	// counted them; nil without bars.
	Totals *VoteCount
	// Size is what the totals are out of where the platform says
	// (the Kamer's 150 seats); 0 when it does not.
	Size int
	// Tally is the count the platform publishes apart from the votes per
	// party (a council's tally); nil when it publishes none.
	Tally *VoteTally
	// Summary is the platform's own free-text account of the vote,
	// verbatim (some councils publish only that).
	Summary string
	// NoPartyVotes: the platform publishes no vote per member or party
	// for this vote; how each party voted is not known.
	NoPartyVotes bool
	// NotVoted: the item was not put to the vote (withdrawn, held over).
	NotVoted bool
	// Provenance says where the vote was read when not from the platform
	// now (BesluitBron's replica, complete up to when); "" otherwise.
	Provenance string
	// Note says, in English, what was left out of the count and why.
	Note string
	// Problems say, in English, what in the platform's data does not add
	// up; reported as found, never corrected.
	Problems []string
	// SourceURL is the vote (or the voted document) at the platform.
	SourceURL string
}

// VoteBar is one party's votes on a VoteChart.
type VoteBar struct {
	Party string // as the platform names it
	// Vote is the party's vote as the platform gives it (Voor, Tegen,
	// Niet deelgenomen), or for votes per member its members' majority
	// ("verdeeld" when tied).
	Vote        string
	Voor, Tegen int
	// Other counts what is neither for nor against (VoteChart.OtherKind).
	Other int
	// NotRecorded are the party's seats with no vote in the data: not
	// shown as absent, because the data does not say so.
	NotRecorded int
}

// Sum is all the bar counts: its length on the chart.
func (b VoteBar) Sum() int { return b.Voor + b.Tegen + b.Other + b.NotRecorded }

// VoteCount are counts for and against, and the rest.
type VoteCount struct {
	Voor, Tegen, Other, NotRecorded int
}

// Sum is all the counts.
func (c VoteCount) Sum() int { return c.Voor + c.Tegen + c.Other + c.NotRecorded }

// VoteTally is a count as the platform publishes it: a side it does not
// give is nil.
type VoteTally struct {
	Voor, Tegen *int
	// Other are other counts it gives, under their own names, sorted.
	Other []NamedCount
}

// NamedCount is a count under the platform's own name for it.
type NamedCount struct {
	Name  string
	Count int
}

// CountBars adds the bars up (nil for none).
func CountBars(bars []VoteBar) *VoteCount {
	if len(bars) == 0 {
		return nil
	}
	var c VoteCount
	for _, b := range bars {
		c.Voor += b.Voor
		c.Tegen += b.Tegen
		c.Other += b.Other
		c.NotRecorded += b.NotRecorded
	}
	return &c
}

// BarOf is a party whose whole weight (its seats) voted one way: for
// votes per party. A vote that is neither for nor against counts under
// Other.
func BarOf(party, vote string, weight int) VoteBar {
	b := VoteBar{Party: party, Vote: vote}
	switch strings.ToLower(strings.TrimSpace(vote)) {
	case "voor":
		b.Voor = weight
	case "tegen":
		b.Tegen = weight
	default:
		b.Other = weight
	}
	return b
}
