package fanout

import (
	"fmt"
	"strings"
	"testing"
)

// order lists merged hits as platform/id.
func order(hits []Hit) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Platform+"/"+h.ID)
	}
	return strings.Join(out, " ")
}

// TestRelevanceOrder: reciprocal rank fusion over each platform's own
// order. The TK document both TK and OpenTK put first (1/61 + 1/61) beats
// the hits only one platform put first (1/61); a document both put second
// (2/62) still beats them. Equal scores go newest first. Asked by date,
// the same answers keep the old order.
func TestRelevanceOrder(t *testing.T) {
	keys := []string{"obv", "tk", "opentk"}
	per := [][]Hit{
		{{Platform: "obv", ID: "raad-1", Date: "2025-01-01"}, {Platform: "obv", ID: "raad-2", Date: "2026-02-01"}},
		{{Platform: "tk", ID: "2023D41173", Date: "2023-10-01"}, {Platform: "tk", ID: "2024D00002", Date: "2024-01-01"}, {Platform: "tk", ID: "2026D00003", Date: "2026-01-01"}},
		{{Platform: "opentk", ID: "2023D41173", Date: "2023-10-01"}, {Platform: "opentk", ID: "2024D00002", Date: "2024-01-01"}, {Platform: "opentk", ID: "2022D00004", Date: "2022-01-01"}},
	}
	got := Merge(keys, per, SortRelevance)
	// 2023D41173: 2/61; 2024D00002: 2/62; raad-1: 1/61; raad-2: 1/62;
	// 2026D00003 and 2022D00004 tie at 1/63: newest first.
	want := "tk/2023D41173 tk/2024D00002 obv/raad-1 obv/raad-2 tk/2026D00003 opentk/2022D00004"
	if order(got) != want {
		t.Errorf("by relevance:\n got %s\nwant %s", order(got), want)
	}
	if len(got[0].Also) != 1 || got[0].Also[0].Platform != "opentk" {
		t.Errorf("the document found twice is one hit with OpenTK in also: %+v", got[0])
	}
	byDate := "obv/raad-2 tk/2026D00003 obv/raad-1 tk/2024D00002 tk/2023D41173 opentk/2022D00004"
	if got := order(Merge(keys, per, SortDate)); got != byDate {
		t.Errorf("by date:\n got %s\nwant %s", got, byDate)
	}
}

// TestFusedScoreTies: the same ranks give the same score whatever order
// the platforms came in, so such documents tie and go newest first; more
// platforms, or better ranks, score higher.
func TestFusedScoreTies(t *testing.T) {
	if fusedScore([]int{1, 7, 3}) != fusedScore([]int{3, 1, 7}) || fusedScore([]int{7, 3, 1}) != fusedScore([]int{1, 3, 7}) {
		t.Error("the same ranks in another order score differently")
	}
	for _, c := range []struct{ better, worse []int }{
		{[]int{1, 1}, []int{1}},
		{[]int{50, 50}, []int{1}}, // agreement outweighs one platform's first place, even at the end of both lists
		{[]int{1}, []int{2}},
		{[]int{1, 2}, []int{1, 3}},
	} {
		if fusedScore(c.better) <= fusedScore(c.worse) {
			t.Errorf("%v scores %v, not above %v's %v", c.better, fusedScore(c.better), c.worse, fusedScore(c.worse))
		}
	}
	if got := fmt.Sprintf("%.6f", fusedScore([]int{1})); got != fmt.Sprintf("%.6f", 1.0/61) {
		t.Errorf("k is not 60: the first rank scores %s", got)
	}
}

// TestOrderDefault: relevance when there are words, date without; sort
// overrides either.
func TestOrderDefault(t *testing.T) {
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{Words: "stikstof"}, SortRelevance},
		{Query{Words: "  ", Organisation: "utrecht"}, SortDate},
		{Query{Organisation: "HR"}, SortDate},
		{Query{Words: "stikstof", Sort: SortDate}, SortDate},
		{Query{Organisation: "HR", Sort: SortRelevance}, SortRelevance},
	} {
		if got := c.q.Order(); got != c.want {
			t.Errorf("%+v: order %s, want %s", c.q, got, c.want)
		}
	}
}
