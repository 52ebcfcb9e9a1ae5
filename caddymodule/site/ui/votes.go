package ui

import (
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Votes on the reader view (issue 37, point 4): each adapters.VoteChart
// is drawn as one horizontal bar per party, its for, against and other
// segments in proportion to their seats or members, with the numbers
// written beside it (never colour alone), and a <table> of the same
// numbers as its accessible equivalent (the chart itself is hidden from
// assistive technology). The bars are inline SVG whose rectangles take
// their widths as attributes: the page's Content-Security-Policy allows
// no inline style, and no script is needed.

// VoteView is one vote on a page.
type VoteView struct {
	Page
	Chart adapters.VoteChart
	// N numbers the vote on its page, for its ids.
	N int
}

// VoteViews are charts on page p.
func VoteViews(p Page, charts []adapters.VoteChart) []VoteView {
	out := make([]VoteView, len(charts))
	for i, c := range charts {
		out[i] = VoteView{Page: p, Chart: c, N: i + 1}
	}
	return out
}

// VoteSeg is one segment of a bar: its kind (voor, tegen, other,
// notrecorded), count, and place as percentages of the bar's track.
type VoteSeg struct {
	Kind  string
	Count int
	X, W  string
}

// VoteRow is one bar of the chart: a party, or the totals.
type VoteRow struct {
	Label, Vote string
	Segs        []VoteSeg
	// Text is the numbers as words ("voor 24 · tegen 3").
	Text string
	Sum  int
}

// segKinds are the segments in the order they are drawn and written.
var segKinds = []string{"voor", "tegen", "other", "notrecorded"}

func countsOf(c adapters.VoteCount) []int { return []int{c.Voor, c.Tegen, c.Other, c.NotRecorded} }

func barCounts(b adapters.VoteBar) adapters.VoteCount {
	return adapters.VoteCount{Voor: b.Voor, Tegen: b.Tegen, Other: b.Other, NotRecorded: b.NotRecorded}
}

// pct is n of scale as an SVG percentage, two decimals.
func pct(n, scale int) string {
	if scale <= 0 || n <= 0 {
		return "0%"
	}
	return strconv.FormatFloat(float64(n)*100/float64(scale), 'f', 2, 64) + "%"
}

// row lays out counts on a track of scale.
func (v VoteView) row(label, vote string, c adapters.VoteCount, scale int) VoteRow {
	r := VoteRow{Label: label, Vote: vote, Sum: c.Sum()}
	at := 0
	var words []string
	for i, n := range countsOf(c) {
		if n <= 0 {
			continue
		}
		r.Segs = append(r.Segs, VoteSeg{Kind: segKinds[i], Count: n, X: pct(at, scale), W: pct(n, scale)})
		at += n
		words = append(words, v.KindText(segKinds[i])+" "+strconv.Itoa(n))
	}
	r.Text = strings.Join(words, " · ")
	if r.Text == "" {
		r.Text = "0"
	}
	return r
}

// Rows are the parties' bars, on one scale: the largest party fills the
// track, so the bars compare as the parties' sizes do.
func (v VoteView) Rows() []VoteRow {
	scale := 0
	for _, b := range v.Chart.Bars {
		scale = max(scale, b.Sum())
	}
	out := make([]VoteRow, 0, len(v.Chart.Bars))
	for _, b := range v.Chart.Bars {
		out = append(out, v.row(b.Party, b.Vote, barCounts(b), scale))
	}
	return out
}

// TotalRow is the totals' bar, out of the vote's size where the
// platform gives one (the Kamer's 150 seats).
func (v VoteView) TotalRow() VoteRow {
	if v.Chart.Totals == nil {
		return VoteRow{}
	}
	return v.row(v.T("votes.total"), "", *v.Chart.Totals, max(v.Chart.Size, v.Chart.Totals.Sum()))
}

// Outside is what of the vote's size the data does not account for (0
// when the platform gives no size).
func (v VoteView) Outside() int {
	if v.Chart.Totals == nil || v.Chart.Size <= 0 {
		return 0
	}
	return max(0, v.Chart.Size-v.Chart.Totals.Sum())
}

// HasTallyBar: the published tally gives both sides, so it can be drawn.
func (v VoteView) HasTallyBar() bool {
	return v.Chart.Tally != nil && v.Chart.Tally.Voor != nil && v.Chart.Tally.Tegen != nil
}

// TallyRow is the published tally's bar.
func (v VoteView) TallyRow() VoteRow {
	if !v.HasTallyBar() {
		return VoteRow{}
	}
	c := adapters.VoteCount{Voor: *v.Chart.Tally.Voor, Tegen: *v.Chart.Tally.Tegen}
	return v.row(v.T("votes.tally"), "", c, c.Sum())
}

// TallySide writes one side of the published tally; "–" when it is not
// published.
func (v VoteView) TallySide(n *int) string {
	if n == nil {
		return v.T("votes.notpublished")
	}
	return strconv.Itoa(*n)
}

// KindText names a segment's kind in the page's language.
func (v VoteView) KindText(kind string) string {
	if kind == "other" {
		if s, ok := messages[v.Lang]["votes.other."+v.Chart.OtherKind]; ok {
			return s
		}
		return v.T("votes.other.other_option")
	}
	return v.T("votes." + kind)
}

// UnitText is the unit's plural in the page's language.
func (v VoteView) UnitText() string {
	if v.Chart.Unit == adapters.VoteUnitSeats {
		return v.T("votes.unit.seats")
	}
	return v.T("votes.unit.members")
}

// HasOther and HasNotRecorded say which columns the table needs.
func (v VoteView) HasOther() bool { return v.Chart.Totals != nil && v.Chart.Totals.Other > 0 }

func (v VoteView) HasNotRecorded() bool {
	return v.Chart.Totals != nil && v.Chart.Totals.NotRecorded > 0
}

// Heading is the vote's heading: its day (the result follows in its
// details).
func (v VoteView) Heading() string {
	if v.Chart.Date == "" {
		return v.T("votes.heading.one")
	}
	return v.F("votes.heading.day", v.Chart.Date)
}

// Caption is the table's caption.
func (v VoteView) Caption() string {
	if v.Chart.Title != "" {
		return v.F("votes.caption", v.Chart.Title)
	}
	return v.T("votes.caption.plain")
}

func init() {
	for lang, m := range voteMessages {
		for k, s := range m {
			messages[lang][k] = s
		}
	}
}

// voteMessages are the votes' texts, added to the page's messages.
var voteMessages = map[string]map[string]string{
	NL: {
		"votes.heading":               "Stemming",
		"votes.heading.one":           "Stemming",
		"votes.heading.day":           "Stemming van %s",
		"votes.result":                "Uitslag",
		"votes.method":                "Wijze van stemmen",
		"votes.voor":                  "voor",
		"votes.tegen":                 "tegen",
		"votes.other.not_taking_part": "niet deelgenomen",
		"votes.other.other_option":    "anders",
		"votes.notrecorded":           "niet in de gegevens",
		"votes.unit.seats":            "zetels",
		"votes.unit.members":          "leden",
		"votes.party":                 "Fractie",
		"votes.vote":                  "Stem",
		"votes.total":                 "Totaal",
		"votes.size":                  "Samen",
		"votes.caption":               "Stemming per fractie: %s",
		"votes.caption.plain":         "Stemming per fractie",
		"votes.legend":                "Legenda",
		"votes.outside":               "%d van de %d zetels staan niet in de gegevens van deze stemming.",
		"votes.nopartyvotes":          "Er zijn geen stemmen per raadslid gepubliceerd: hoe elke fractie stemde is niet bekend, en BesluitBron raadt het niet.",
		"votes.tally":                 "Gepubliceerde telling",
		"votes.tally.caption":         "Gepubliceerde telling: %s",
		"votes.tally.none":            "Er is geen telling gepubliceerd.",
		"votes.notpublished":          "niet gepubliceerd",
		"votes.summary":               "De raad schreef",
		"votes.notvoted":              "Niet in stemming gebracht.",
		"votes.problems":              "Dit klopt niet in de gegevens van het platform (zoals gevonden, niet verbeterd):",
		"votes.note":                  "Opmerking",
		"votes.source":                "De stemming bij de bron",
		"votes.provenance":            "Gelezen uit",
		"votes.error":                 "De stemming kon niet worden gelezen: %s",
	},
	EN: {
		"votes.heading":               "Vote",
		"votes.heading.one":           "Vote",
		"votes.heading.day":           "Vote of %s",
		"votes.result":                "Result",
		"votes.method":                "Method",
		"votes.voor":                  "for",
		"votes.tegen":                 "against",
		"votes.other.not_taking_part": "did not take part",
		"votes.other.other_option":    "other",
		"votes.notrecorded":           "not in the data",
		"votes.unit.seats":            "seats",
		"votes.unit.members":          "members",
		"votes.party":                 "Party",
		"votes.vote":                  "Vote",
		"votes.total":                 "Total",
		"votes.size":                  "In all",
		"votes.caption":               "Votes per party: %s",
		"votes.caption.plain":         "Votes per party",
		"votes.legend":                "Legend",
		"votes.outside":               "%d of the %d seats are not in the data of this vote.",
		"votes.nopartyvotes":          "No per-member votes are published: how each party voted is not known, and BesluitBron does not guess it.",
		"votes.tally":                 "Published tally",
		"votes.tally.caption":         "Published tally: %s",
		"votes.tally.none":            "No tally is published.",
		"votes.notpublished":          "not published",
		"votes.summary":               "The council wrote",
		"votes.notvoted":              "Not put to the vote.",
		"votes.problems":              "What does not add up in the platform's data (as found, not corrected):",
		"votes.note":                  "Note",
		"votes.source":                "The vote at the source",
		"votes.provenance":            "Read from",
		"votes.error":                 "The vote could not be read: %s",
	},
}

// LegendKinds are the kinds of segment the chart draws, for its legend.
func (v VoteView) LegendKinds() []string {
	out := []string{"voor", "tegen"}
	if v.HasOther() {
		out = append(out, "other")
	}
	if v.HasNotRecorded() {
		out = append(out, "notrecorded")
	}
	return out
}
