package obv

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/platforms"
)

// The real motion (the operator's documented example, an iBabs council)
// gives its name, type, status, result, tally and its one listed vote,
// grouped; the example lists one vote against a tally of 20 and 11, and
// that is reported as found, not corrected.
func TestVotesRealFixture(t *testing.T) {
	mv, err := ParseMotionVotes("motion:x:gemeente:y:1", fixture.Read(t, "obv", "entity-motion.json"))
	if err != nil {
		t.Fatal(err)
	}
	if mv.ID != "motion:ibabs:gemeente:houten:..." || mv.Organization != "houten" || mv.Name != "045-2022 M Essenkade verhogen duurzaamheid" ||
		mv.MotionType != "Moties" || mv.Status != "Motie aangenomen" || mv.Result != "aangenomen" ||
		mv.MeetingID != "meeting:ibabs:gemeente:houten:..." || mv.URL != "" {
		t.Fatalf("motion %+v", mv)
	}
	if mv.Tally == nil || *mv.Tally.InFavour != 20 || *mv.Tally.Against != 11 || mv.Tally.Other != nil {
		t.Fatalf("tally %+v", mv.Tally)
	}
	if !mv.PerMember || len(mv.Groups) != 1 || mv.Note != "" {
		t.Fatalf("per member %v, groups %+v, note %q", mv.PerMember, mv.Groups, mv.Note)
	}
	g := mv.Groups[0]
	if g.Group != "Partij ITH" || g.Vote != "tegen" || g.Members != 1 || g.Tegen != 1 || g.Voor != 0 || fmt.Sprint(g.AgBy) != "[Kasius, S.]" {
		t.Fatalf("group %+v", g)
	}
	if *mv.Totals != (MemberTotals{Members: 1, Tegen: 1}) || len(mv.Dissenters) != 0 {
		t.Fatalf("totals %+v dissenters %+v", mv.Totals, mv.Dissenters)
	}
	want := []string{"the tally gives 20 voor, but 0 members voted voor in the data", "the tally gives 11 tegen, but 1 members voted tegen in the data"}
	if mv.Consistent || fmt.Sprint(mv.Problems) != fmt.Sprint(want) {
		t.Fatalf("consistent %v problems %q", mv.Consistent, mv.Problems)
	}
	if !strings.Contains(mv.Summary, "045-2022 M Essenkade verhogen duurzaamheid: aangenomen; tally 20 voor, 11 tegen; 1 member votes: voor 0, tegen 1; DOES NOT ADD UP") {
		t.Fatalf("summary %q", mv.Summary)
	}
}

// motionWith is the real motion with motion's fields set (nil deletes).
func motionWith(t *testing.T, set map[string]any) []byte {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(fixture.Read(t, "obv", "entity-motion.json"), &e); err != nil {
		t.Fatal(err)
	}
	m := e["motion"].(map[string]any)
	for k, v := range set {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, _ := json.Marshal(e)
	return b
}

func v(option, name, group string) map[string]any {
	return map[string]any{"option": option, "voter": "person:ibabs:gemeente:houten:" + name, "voter_name": name, "group": "party:" + group, "group_name": group}
}

func parseMotion(t *testing.T, body []byte) MotionVotes {
	t.Helper()
	mv, err := ParseMotionVotes("motion:ibabs:gemeente:houten:1", body)
	if err != nil {
		t.Fatal(err)
	}
	return mv
}

// Votes that agree with the tally and result: groups with their
// majority, the members who voted apart, a tied group verdeeld with no
// one apart from it.
func TestVotesGroupsAndDissenters(t *testing.T) {
	mv := parseMotion(t, motionWith(t, map[string]any{
		"tally": map[string]any{"in_favour": 3, "against": 2},
		"votes": []any{v("voor", "A1", "VVD"), v("voor", "A2", "VVD"), v("tegen", "A3", "VVD"), v("tegen", "B1", "D66"), v("Voor", "B2", "D66")},
	}))
	if !mv.Consistent || len(mv.Problems) != 0 {
		t.Fatalf("problems %q", mv.Problems)
	}
	if len(mv.Groups) != 2 || mv.Groups[0].Vote != "voor" || mv.Groups[0].Voor != 2 || mv.Groups[1].Vote != "verdeeld" {
		t.Fatalf("groups %+v", mv.Groups)
	}
	if fmt.Sprint(mv.Dissenters) != fmt.Sprint([]MemberVote{{Name: "A3", Group: "VVD", Vote: "tegen"}}) {
		t.Fatalf("dissenters %+v", mv.Dissenters)
	}
	if *mv.Totals != (MemberTotals{Members: 5, Voor: 3, Tegen: 2}) {
		t.Fatalf("totals %+v", mv.Totals)
	}

	// With a party, only that group; the tally and result stay.
	ms := []MotionVotes{mv}
	if found, seen := FilterGroup(ms, " vvd "); !found || len(ms[0].Groups) != 1 || ms[0].Groups[0].Group != "VVD" ||
		len(ms[0].Dissenters) != 1 || *ms[0].Tally.InFavour != 3 || fmt.Sprint(seen) != "[D66 VVD]" {
		t.Fatalf("filter %v %+v", found, ms[0])
	}
	ms = []MotionVotes{parseMotion(t, motionWith(t, map[string]any{"votes": []any{v("voor", "A1", "VVD")}}))}
	if found, seen := FilterGroup(ms, "PvdA"); found || len(ms[0].Groups) != 0 || fmt.Sprint(seen) != "[VVD]" {
		t.Fatalf("absent group %v %v", found, ms)
	}
}

// Hostile and inconsistent answers are reported as found: a tally the
// votes contradict, options other than voor and tegen, a huge votes list,
// fields missing or of the wrong type, a voter twice, a result the counts
// contradict. Nothing is corrected and nothing is guessed.
func TestVotesHostileReported(t *testing.T) {
	has := func(t *testing.T, mv MotionVotes, want ...string) {
		t.Helper()
		if mv.Consistent && len(want) > 0 {
			t.Errorf("consistent, want problems %q", want)
		}
		all := strings.Join(mv.Problems, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("problems %q lack %q", mv.Problems, w)
			}
		}
	}
	t.Run("tally against votes", func(t *testing.T) {
		mv := parseMotion(t, motionWith(t, map[string]any{"tally": map[string]any{"in_favour": 2, "against": 0},
			"votes": []any{v("voor", "A1", "VVD"), v("tegen", "A2", "VVD")}}))
		has(t, mv, "the tally gives 2 voor, but 1 members voted voor", "the tally gives 0 tegen, but 1 members voted tegen")
		if *mv.Tally.InFavour != 2 || mv.Totals.Voor != 1 { // neither corrected
			t.Fatalf("%+v %+v", mv.Tally, mv.Totals)
		}
	})
	t.Run("unknown options", func(t *testing.T) {
		mv := parseMotion(t, motionWith(t, map[string]any{"tally": map[string]any{"in_favour": 1, "against": 0},
			"votes": []any{v("voor", "A1", "VVD"), v("onthouden", "A2", "VVD"), v("afwezig", "A3", "VVD"), v("", "A4", "VVD")}}))
		has(t, mv, `vote option "onthouden" (of A2) is neither voor nor tegen`, `"afwezig"`, `""`)
		g := mv.Groups[0]
		if g.Other != 3 || g.Voor != 1 || g.Vote != "voor" || len(g.OtherBy) != 3 || g.OtherBy[0].Vote != "onthouden" || g.OtherBy[1].Vote != "afwezig" ||
			mv.Totals.Other != 3 || len(mv.Dissenters) != 0 {
			t.Fatalf("group %+v totals %+v dissenters %+v", g, mv.Totals, mv.Dissenters)
		}
	})
	t.Run("huge votes list", func(t *testing.T) {
		var votes []any
		for i := range 20000 {
			votes = append(votes, v("voor", fmt.Sprint("M", i), fmt.Sprint("G", i%7)))
		}
		mv := parseMotion(t, motionWith(t, map[string]any{"votes": votes}))
		has(t, mv, "the answer lists 20000 votes, more than any council has members; only the first 500 are counted")
		if mv.Totals.Members != maxVoteRows || len(mv.Groups) != 7 || len(mv.Problems) > maxVoteProblems+1 {
			t.Fatalf("totals %+v groups %d problems %d", mv.Totals, len(mv.Groups), len(mv.Problems))
		}
	})
	t.Run("many problems are capped", func(t *testing.T) {
		var votes []any
		for i := range 100 {
			votes = append(votes, v(fmt.Sprint("optie", i), "M", "G"))
		}
		mv := parseMotion(t, motionWith(t, map[string]any{"votes": votes}))
		if len(mv.Problems) != maxVoteProblems+1 || !strings.HasPrefix(mv.Problems[maxVoteProblems], "and ") {
			t.Fatalf("%d problems: %q", len(mv.Problems), mv.Problems)
		}
	})
	t.Run("missing and mistyped fields", func(t *testing.T) {
		mv := parseMotion(t, motionWith(t, map[string]any{"result": nil, "tally": nil, "status": 7,
			"votes": []any{map[string]any{"option": 5}, map[string]any{"option": "tegen", "voter": "person:p1"}, map[string]any{}}}))
		has(t, mv, "motion.status is not text", "some votes hold a field that is not text", "3 vote(s) name no group")
		if mv.Result != "" || mv.Tally != nil || mv.Status != "" || !strings.Contains(mv.Summary, "no result published") {
			t.Fatalf("%+v", mv)
		}
		g := mv.Groups[0]
		if g.Group != "(no group in the data)" || g.Members != 3 || g.Tegen != 1 || g.AgBy[0] != "person:p1" || g.OtherBy[0].Name != "(vote 1: no voter named)" {
			t.Fatalf("group %+v", g)
		}
	})
	t.Run("tally of other types and other counts", func(t *testing.T) {
		mv := parseMotion(t, motionWith(t, map[string]any{"votes": []any{}, "tally": map[string]any{"in_favour": "20", "against": -1, "abstain": 2, "blanco": 1.5}}))
		has(t, mv, `tally.in_favour is "20", not a count`, "tally.against is -1, not a count", "tally.blanco is 1.5")
		if mv.Tally == nil || mv.Tally.InFavour != nil || mv.Tally.Other["abstain"] != 2 || !strings.Contains(mv.Summary, "tally ? voor, ? tegen, 2 abstain") {
			t.Fatalf("%+v %q", mv.Tally, mv.Summary)
		}
	})
	t.Run("votes not a list", func(t *testing.T) {
		mv := parseMotion(t, motionWith(t, map[string]any{"votes": "voor"}))
		has(t, mv, "motion.votes is not a list of votes")
		if mv.PerMember || mv.Note != NoMemberVotes {
			t.Fatalf("%+v", mv)
		}
	})
	t.Run("a voter twice", func(t *testing.T) {
		mv := parseMotion(t, motionWith(t, map[string]any{"tally": map[string]any{"in_favour": 2, "against": 0},
			"votes": []any{v("voor", "A1", "VVD"), v("voor", "A1", "VVD")}}))
		has(t, mv, "member A1 votes more than once in the data; each vote is counted")
	})
	t.Run("result against the counts", func(t *testing.T) {
		for _, tc := range []struct {
			result string
			tally  map[string]any
			votes  []any
			want   string
		}{
			{"aangenomen", map[string]any{"in_favour": 10, "against": 10}, []any{}, "published as aangenomen, but the tally gives voor 10, not more than tegen 10"},
			{"verworpen", map[string]any{"in_favour": 11, "against": 10}, []any{}, "published as verworpen, but the tally gives voor 11"},
			{"verworpen", nil, []any{v("voor", "A1", "VVD")}, "published as verworpen, but the member votes give voor 1"},
			{"ingetrokken", map[string]any{"in_favour": 3, "against": 0}, []any{}, "published as ingetrokken (not put to the vote), but the tally gives voor 3 and tegen 0"},
		} {
			mv := parseMotion(t, motionWith(t, map[string]any{"result": tc.result, "tally": tc.tally, "votes": tc.votes}))
			has(t, mv, tc.want)
		}
		// A tie rejected is no problem.
		mv := parseMotion(t, motionWith(t, map[string]any{"result": "verworpen", "tally": map[string]any{"in_favour": 10, "against": 10}, "votes": []any{}}))
		if !mv.Consistent {
			t.Fatalf("tie: %q", mv.Problems)
		}
	})
	t.Run("no motion object", func(t *testing.T) {
		mv := parseMotion(t, []byte(`{"entityId":"motion:ibabs:gemeente:houten:9","entityType":"Motion","title":"M9"}`))
		has(t, mv, "holds no motion")
		if mv.Name != "M9" || mv.PerMember || mv.Note != NoMemberVotes {
			t.Fatalf("%+v", mv)
		}
		if _, err := ParseMotionVotes("x", []byte(`{"entityId":"document:a:b:c:1","entityType":"Document"}`)); err == nil || !strings.Contains(err.Error(), "is a Document, not a motion") {
			t.Fatalf("a document: %v", err)
		}
		for _, bad := range []string{``, `[]`, `{"motion": []}`, `{"motion":{"tally": [1,2]}}`} {
			if _, err := ParseMotionVotes("x", []byte(bad)); err == nil {
				t.Errorf("%q parsed", bad)
			}
		}
	})
}

// Where the council publishes no per-member votes, the motion says so
// and shows the council's own summary verbatim; it shows no group.
func TestVotesNoPerMemberVotes(t *testing.T) {
	mv := parseMotion(t, motionWith(t, map[string]any{"votes": []any{}, "tally": map[string]any{"in_favour": 20, "against": 11},
		"vote_summary": "  Voor: 20 stemmen (VVD, D66), tegen: 11.  "}))
	if mv.PerMember || len(mv.Groups) != 0 || mv.Totals != nil || !mv.Consistent ||
		!strings.HasPrefix(mv.Note, NoMemberVotes) || !strings.Contains(mv.Note, "vote_summary is given verbatim") ||
		mv.VoteSummary != "Voor: 20 stemmen (VVD, D66), tegen: 11." || !strings.Contains(mv.Summary, "no per-member votes published") {
		t.Fatalf("%+v", mv)
	}
	b, _ := json.Marshal(mv)
	if !strings.Contains(string(b), `"groups":[]`) || strings.Contains(string(b), "member_totals") {
		t.Fatalf("%s", b)
	}
}

// Bad arguments are refused before anything is asked, saying what to fix.
func TestVotesParamsCheck(t *testing.T) {
	for _, tc := range []struct {
		p    VotesParams
		want string
	}{
		{VotesParams{}, "give a motion's id"},
		{VotesParams{Query: "..."}, "holds no word"},
		{VotesParams{ID: "motion:ibabs:gemeente:houten:1", Query: "zon"}, "give either id"},
		{VotesParams{ID: "motion:ibabs:gemeente:houten:1", DateFrom: "2024-01-01"}, "give either id"},
		{VotesParams{ID: "document:notubiz:gemeente:soest:1"}, "is a document, not a motion"},
		{VotesParams{ID: "motion:houten"}, "is not an OpenBesluitvorming id"},
		{VotesParams{ID: "motion:a:b:c:d/../../x"}, "motion"},
		{VotesParams{Query: "zon", Limit: 11}, "limit 11 is out of range: use 1 to 10"},
		{VotesParams{Query: "zon", Limit: -1}, "limit -1 is out of range"},
		{VotesParams{Query: "zon", Offset: 1001}, "offset 1001 is out of range"},
		{VotesParams{Query: "zon", Party: strings.Repeat("x", 61)}, "party must be"},
		{VotesParams{Query: "zon", Party: "VVD\x00"}, "party must be"},
		{VotesParams{Query: "zon", DateFrom: "2025-02-30"}, "date_from"},
		{VotesParams{Query: "zon", DateFrom: "2025-03-01", DateTo: "2025-02-01"}, "date"},
	} {
		err := tc.p.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
	p := VotesParams{Organization: " houten ", Party: "  Partij   ITH "}
	if err := p.Check(); err != nil || p.Limit != DefaultVotesLimit || p.Organization != "houten" || p.Party != "Partij ITH" {
		t.Fatalf("%+v %v", p, err)
	}
	if s := p.search(); s.EntityType != "Motion" || s.Limit != DefaultVotesLimit || s.Sort != "date_desc" {
		t.Fatalf("search %+v", s)
	}
	if r, err := SearchRequest(p.search()); err != nil || !strings.Contains(r.Path, "entityType=Motion") || !strings.Contains(r.Path, "limit=3") {
		t.Fatalf("%+v %v", r, err)
	}
}

// obv_votes' Cost sentence comes from the platforms row: the allowance,
// a search's price and a detail's price, worked out for the default and
// the largest limit.
func TestVotesPriceFromTable(t *testing.T) {
	p, _ := platforms.Get(platforms.OBV)
	var desc string
	for _, tl := range (provider{}).Tools() {
		if tl.Name == "obv_votes" {
			desc = tl.Desc
		}
	}
	if desc == "" || desc != toolVotesDescFor(*p.Budget, SearchCost(), EntityCost()) {
		t.Fatal("obv_votes' description is not the one written from the table")
	}
	if e := EntityCost(); e.UnitsFor(0) != 1 {
		t.Fatalf("an entity detail costs %v", e)
	}
	for _, want := range []string{"allows 60 units a minute", "With id: one motion detail, 1 unit.", "one search for limit motions (ceil(limit/24) units, so 1 unit up to limit 10)",
		"at most 4 units at the default limit 3, 11 units at limit 10"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
	other := toolVotesDescFor(platforms.Budget{Capacity: 30, Window: time.Second}, platforms.Cost{Units: 1, Param: "limit", Per: 5, ParamDefault: 5}, platforms.Cost{Units: 2})
	for _, want := range []string{"allows 30 units a second", "one motion detail, 2 units", "so 2 units up to limit 10", "at most 7 units at the default limit 3, 22 units at limit 10"} {
		if !strings.Contains(other, want) {
			t.Errorf("another price lacks %q:\n%s", want, other)
		}
	}
}

// A motion withdrawn or held over was not put to the vote: it says so,
// not that votes went unpublished.
func TestVotesNotPutToTheVote(t *testing.T) {
	for _, r := range []string{"ingetrokken", "aangehouden"} {
		mv := parseMotion(t, motionWith(t, map[string]any{"result": r, "votes": []any{}, "tally": map[string]any{"in_favour": 0, "against": 0}}))
		if !mv.Consistent || mv.Note != "published as "+r+": not put to the vote, so there are no votes to show" || strings.Contains(mv.Summary, "no per-member") {
			t.Fatalf("%s: %+v", r, mv)
		}
	}
}
