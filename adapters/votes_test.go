package adapters

import "testing"

// A party's whole weight goes to its vote; a vote that is neither for
// nor against (not taking part, an abstention, a value no one knows)
// counts under other, never as absence; the bars add up.
func TestVoteBars(t *testing.T) {
	bars := []VoteBar{BarOf("VVD", "Voor", 24), BarOf("PVV", " tegen ", 37), BarOf("SP", "Niet deelgenomen", 5),
		BarOf("X", "onthouden", 2), {Party: "NSC", Vote: "verdeeld", Voor: 8, Tegen: 8, Other: 2, NotRecorded: 2}}
	want := []VoteCount{{Voor: 24}, {Tegen: 37}, {Other: 5}, {Other: 2}, {Voor: 8, Tegen: 8, Other: 2, NotRecorded: 2}}
	for i, b := range bars {
		got := VoteCount{Voor: b.Voor, Tegen: b.Tegen, Other: b.Other, NotRecorded: b.NotRecorded}
		if got != want[i] || b.Sum() != want[i].Sum() {
			t.Errorf("%s: %+v, want %+v", b.Party, got, want[i])
		}
	}
	c := CountBars(bars)
	if *c != (VoteCount{Voor: 32, Tegen: 45, Other: 9, NotRecorded: 2}) || c.Sum() != 88 {
		t.Errorf("totals %+v", *c)
	}
	if CountBars(nil) != nil {
		t.Error("no bars count as totals")
	}
}
