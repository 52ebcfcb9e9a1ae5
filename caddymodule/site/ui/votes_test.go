package ui

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
)

func ip(n int) *int { return &n }

// renderVotes renders the reader with charts, in lang.
func renderVotes(t *testing.T, lang string, charts ...adapters.VoteChart) string {
	t.Helper()
	p := Page{Lang: lang, DefaultLang: NL, Title: "Motie"}
	s, err := RenderString("reader", ReaderView{Page: p, Title: "Motie", ID: "x", PlatformName: "P", Text: "t", Votes: VoteViews(p, charts)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	rowRE  = regexp.MustCompile(`(?s)<div class="vrow" data-party="([^"]*)">(.*?)</div>`)
	segRE  = regexp.MustCompile(`<rect class="seg seg-(\w+)" data-count="(\d+)" x="([\d.]+)%" y="0" width="([\d.]+)%"`)
	trRE   = regexp.MustCompile(`(?s)<tr><th scope="row">([^<]*)</th>(.*?)</tr>`)
	tdRE   = regexp.MustCompile(`<td class="n">(\d+)</td>`)
	bodyRE = regexp.MustCompile(`(?s)<tbody>(.*?)</tbody>`)
	footRE = regexp.MustCompile(`(?s)<tfoot>(.*?)</tfoot>`)
)

// kamer is a vote per fractie (seats), one party with a vote per member
// (other and not recorded), a hostile name, and a problem.
func kamer() adapters.VoteChart {
	bars := []adapters.VoteBar{
		adapters.BarOf("VVD", "Voor", 24),
		adapters.BarOf("PVV", "Tegen", 37),
		adapters.BarOf(`<script>alert("x")</script>&"'`, "Niet deelgenomen", 3),
		{Party: "NSC", Vote: "verdeeld", Voor: 8, Tegen: 8, Other: 2, NotRecorded: 2},
	}
	return adapters.VoteChart{Title: "Motie 2024Z00001: over <b>iets</b>", Date: "2024-05-14", Result: "Stemmen - aangenomen",
		Method: "Met handopsteken", Unit: adapters.VoteUnitSeats, OtherKind: adapters.OtherNotTakingPart, Bars: bars,
		Totals: adapters.CountBars(bars), Size: 150, SourceURL: "https://example.org/besluit",
		Problems: []string{"voor 32 + tegen 45 + niet deelgenomen 5 = 82, but 84 seats are present in the data"}}
}

// The chart's bars are proportional to their counts on one scale (the
// largest party fills the track), the segments follow each other, and
// the table gives the same numbers per party and in total.
func TestVoteChartMatchesTable(t *testing.T) {
	c := kamer()
	out := renderVotes(t, NL, c)
	rows := rowRE.FindAllStringSubmatch(out, -1)
	if len(rows) != len(c.Bars) {
		t.Fatalf("%d bars, want %d:\n%s", len(rows), len(c.Bars), out)
	}
	scale := 0
	for _, b := range c.Bars {
		scale = max(scale, b.Sum())
	}
	type counts map[string]int
	chart := map[string]counts{}
	for i, r := range rows {
		party := html.UnescapeString(r[1])
		if party != c.Bars[i].Party {
			t.Errorf("bar %d is %q, want %q", i, party, c.Bars[i].Party)
		}
		chart[party] = counts{}
		at := 0.0
		for _, s := range segRE.FindAllStringSubmatch(r[2], -1) {
			n, _ := strconv.Atoi(s[2])
			x, _ := strconv.ParseFloat(s[3], 64)
			w, _ := strconv.ParseFloat(s[4], 64)
			if want := float64(n) * 100 / float64(scale); w < want-0.006 || w > want+0.006 {
				t.Errorf("%s %s: width %.2f%%, want %.2f%%", party, s[1], w, want)
			}
			if x < at-0.011 || x > at+0.011 {
				t.Errorf("%s %s: at %.2f%%, want %.2f%%", party, s[1], x, at)
			}
			at = x + w
			chart[party][s[1]] = n
		}
	}
	if w := segRE.FindAllStringSubmatch(rowRE.FindStringSubmatch(out)[2], -1)[0][4]; w != "64.86" {
		// VVD: 24 of the largest party's 37 seats.
		t.Errorf("VVD's bar is %s%% wide, want 64.86", w)
	}
	// The table: party, vote, voor, tegen, niet deelgenomen, niet in de
	// gegevens, together; the same numbers as the bars.
	body := bodyRE.FindStringSubmatch(out)
	trs := trRE.FindAllStringSubmatch(body[1], -1)
	if len(trs) != len(c.Bars) {
		t.Fatalf("%d table rows, want %d", len(trs), len(c.Bars))
	}
	for i, tr := range trs {
		party := html.UnescapeString(tr[1])
		var nums []int
		for _, td := range tdRE.FindAllStringSubmatch(tr[2], -1) {
			n, _ := strconv.Atoi(td[1])
			nums = append(nums, n)
		}
		b := c.Bars[i]
		want := []int{b.Voor, b.Tegen, b.Other, b.NotRecorded, b.Sum()}
		if party != b.Party || len(nums) != 5 {
			t.Fatalf("table row %d: %q %v", i, party, nums)
		}
		for j, k := range segKinds {
			if nums[j] != want[j] || nums[j] != chart[party][k] {
				t.Errorf("%s %s: table %d, chart %d, data %d", party, k, nums[j], chart[party][k], want[j])
			}
		}
		if nums[4] != want[4] {
			t.Errorf("%s: table sum %d, want %d", party, nums[4], want[4])
		}
	}
	foot := footRE.FindStringSubmatch(out)
	var tot []int
	for _, td := range tdRE.FindAllStringSubmatch(foot[1], -1) {
		n, _ := strconv.Atoi(td[1])
		tot = append(tot, n)
	}
	if tt := c.Totals; len(tot) != 5 || tot[0] != tt.Voor || tot[1] != tt.Tegen || tot[2] != tt.Other || tot[3] != tt.NotRecorded || tot[4] != tt.Sum() {
		t.Errorf("table totals %v, want %+v", tot, *c.Totals)
	}
	// The totals' bar is out of the Kamer's 150 seats; what the data does
	// not account for is said.
	if !strings.Contains(out, `<div class="vrow vtotal"><span class="vparty">Totaal</span>`) ||
		!strings.Contains(out, `data-count="32" x="0%" y="0" width="21.33%"`) {
		t.Errorf("totals bar:\n%s", out)
	}
	if want := strconv.Itoa(150-c.Totals.Sum()) + " van de 150 zetels staan niet in de gegevens"; !strings.Contains(out, want) {
		t.Errorf("no %q", want)
	}
	// The chart is for the eye; the table (with its caption) for every
	// reader: not colour alone, the numbers are written beside each bar.
	for _, want := range []string{`<div class="votechart" aria-hidden="true">`, `<caption id="vote-1-caption">Stemming per fractie: Motie 2024Z00001: over &lt;b&gt;iets&lt;/b&gt; (zetels)</caption>`,
		`<span class="vnum">voor 24</span>`, `<span class="vnum">voor 8 · tegen 8 · niet deelgenomen 2 · niet in de gegevens 2</span>`,
		`<th scope="col">niet deelgenomen</th>`, `Met handopsteken`, `<h3>Stemming van 2024-05-14</h3>`, `<dd>Stemmen - aangenomen</dd>`} {
		if !strings.Contains(out, want) {
			t.Errorf("the vote lacks %s", want)
		}
	}
}

// A hostile party name is text wherever it appears; a vote that does not
// add up shows its problem, in English, marked so.
func TestVoteChartEscapesAndProblems(t *testing.T) {
	out := renderVotes(t, NL, kamer())
	if strings.Contains(out, "<script>alert") || strings.Contains(out, "<b>iets") {
		t.Fatalf("markup from the platform reached the page:\n%s", out)
	}
	if n := strings.Count(out, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;&#34;&#39;"); n != 3 {
		t.Errorf("the hostile name is shown %d times as text, want 3 (bar, its data attribute, table)", n)
	}
	if !strings.Contains(out, `<div class="vproblems"><p>Dit klopt niet in de gegevens van het platform`) ||
		!strings.Contains(html.UnescapeString(out), `<ul lang="en"><li>voor 32 + tegen 45 + niet deelgenomen 5 = 82, but 84 seats are present in the data</li></ul>`) {
		t.Errorf("the problem is not shown:\n%s", out)
	}
}

// A council that publishes no per-member votes: no bars, the sentence
// that none are published, the tally as published (a bar and a table),
// the council's own text verbatim; a side it does not publish is said so.
func TestVoteChartNoPartyVotes(t *testing.T) {
	c := adapters.VoteChart{Title: "Motie wonen", Result: "aangenomen", Unit: adapters.VoteUnitMembers, OtherKind: adapters.OtherOption,
		NoPartyVotes: true, Tally: &adapters.VoteTally{Voor: ip(20), Tegen: ip(11)}, Summary: "Voor: VVD, D66; tegen: SP"}
	out := renderVotes(t, NL, c)
	if rowRE.MatchString(out) || strings.Contains(out, `<th scope="col">Fractie</th>`) {
		t.Errorf("bars per party where none are published:\n%s", out)
	}
	for _, want := range []string{
		"Er zijn geen stemmen per raadslid gepubliceerd: hoe elke fractie stemde is niet bekend, en BesluitBron raadt het niet.",
		`<div class="vrow vtally"><span class="vparty">Gepubliceerde telling</span>`,
		`data-count="20" x="0%" y="0" width="64.52%"`, `data-count="11" x="64.52%" y="0" width="35.48%"`,
		`<caption id="vote-1-tally">Gepubliceerde telling: Motie wonen</caption>`,
		`<tbody><tr><td class="n">20</td><td class="n">11</td></tr></tbody>`,
		`De raad schreef: <q>Voor: VVD, D66; tegen: SP</q>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %s\n%s", want, out)
		}
	}
	c.Tally = &adapters.VoteTally{Voor: ip(20)}
	out = renderVotes(t, EN, c)
	if strings.Contains(out, "vtally") || !strings.Contains(out, `<td class="n">20</td><td class="n">not published</td>`) ||
		!strings.Contains(out, "No per-member votes are published") {
		t.Errorf("half a tally:\n%s", out)
	}
	c.Tally = nil
	if out = renderVotes(t, NL, c); !strings.Contains(out, "Er is geen telling gepubliceerd.") {
		t.Errorf("no tally:\n%s", out)
	}
}

// Without votes the reader shows no votes section; a failure is said.
func TestVoteSectionOnlyWithVotes(t *testing.T) {
	if out := renderVotes(t, NL); strings.Contains(out, "votes-h") {
		t.Error("a votes section without votes")
	}
	p := Page{Lang: NL, DefaultLang: NL}
	out, err := RenderString("reader", ReaderView{Page: p, Title: "x", VotesError: "De stemming kon niet worden gelezen: boom"})
	if err != nil || !strings.Contains(out, `<p class="error">De stemming kon niet worden gelezen: boom</p>`) {
		t.Errorf("%v\n%s", err, out)
	}
}
