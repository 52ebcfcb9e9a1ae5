package obv

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms"
)

// obv_search's Cost sentence and its budget_units come from the platforms
// row (platform.go), where OBV's price is written
// once: the description names the table's divisor and allowance, and a
// different price gives a different description.
func TestOBVSearchPriceFromTable(t *testing.T) {
	p, ok := platforms.Get(platforms.OBV)
	if !ok || p.Budget == nil {
		t.Fatal("no obv budget in the table")
	}
	rule, ok := p.CostOf(SearchPath)
	if !ok || rule.Param != "limit" {
		t.Fatalf("the table prices no obv search by limit: %+v", rule)
	}
	var desc string
	for _, tl := range (provider{}).Tools() {
		if tl.Name == "obv_search" {
			desc = tl.Desc
		}
	}
	if desc != toolSearchDescFor(*p.Budget, rule) {
		t.Fatal("obv_search's description is not the one written from the table")
	}
	for _, want := range []string{
		"allows " + p.Budget.Allowance() + " for all BesluitBron users", // 60 units a minute
		"a search costs " + rule.String(),                               // ceil(limit/24) units
		"(limit 24 = 1 unit, 100 = 5 units)",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}

	// Another price in the table, another sentence.
	other := toolSearchDescFor(platforms.Budget{Capacity: 30, Window: time.Second},
		platforms.Cost{Units: 2, Param: "limit", Per: 10, ParamDefault: 10, ParamMax: 100})
	for _, want := range []string{"allows 30 units a second", "a search costs 2 × ceil(limit/10) units (limit 10 = 2 units, 100 = 20 units)"} {
		if !strings.Contains(other, want) {
			t.Errorf("description for another price lacks %q:\n%s", want, other)
		}
	}
	if strings.Contains(other, "24") || strings.Contains(other, "60 units") {
		t.Errorf("description for another price still names the table's:\n%s", other)
	}
	// A flat price has no worked examples.
	if flat := toolSearchDescFor(*p.Budget, platforms.Cost{Units: 1}); !strings.Contains(flat, "a search costs 1 unit. ") {
		t.Errorf("flat price:\n%s", flat)
	}

	// budget_units and the adapter's out-of-range message by the same rule.
	for _, tc := range []struct{ limit, want int }{{1, 1}, {24, 1}, {25, 2}, {100, 5}} {
		if got := Cost(tc.limit); got != tc.want || float64(got) != rule.UnitsFor(float64(tc.limit)) {
			t.Errorf("Cost(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
	if _, err := SearchRequest(SearchParams{Query: "x", Limit: 101}); err == nil || !strings.Contains(err.Error(), rule.String()) {
		t.Errorf("out-of-range limit: %v", err)
	}
}
