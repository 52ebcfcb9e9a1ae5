package platforms

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestOBVSearchPrice(t *testing.T) {
	obv, _ := Get(OBV)
	for _, p := range []string{"/api/search", "/api/search/"} {
		c, ok := obv.CostOf(p)
		if !ok || c.String() != "ceil(limit/24) units" {
			t.Fatalf("%s: %v %q", p, ok, c)
		}
		for _, tc := range []struct{ limit, want float64 }{
			{1, 1}, {24, 1}, {25, 2}, {48, 2}, {100, 5},
			{1000, 5},        // capped at the platform's maximum
			{0, 1},           // never less than one unit
			{-3, 1},          // missing: the default 24
			{math.NaN(), 1},  // missing
			{math.Inf(1), 1}, // missing
		} {
			if got := c.UnitsFor(tc.limit); got != tc.want {
				t.Errorf("limit %v: %v units, want %v", tc.limit, got, tc.want)
			}
		}
	}
	if c, ok := obv.CostOf("/api/entities/x/pdf/page/3"); !ok || c.UnitsFor(0) != 0.125 || c.String() != "0.125 units" {
		t.Errorf("pdf page: %v %v", ok, c)
	}
	if c, ok := obv.CostOf("/api/sources"); ok {
		t.Errorf("/api/sources priced by %v", c)
	}
	if obv.Budget.Allowance() != "60 units a minute" {
		t.Error(obv.Budget.Allowance())
	}
	tk, _ := Get(TK)
	if _, ok := tk.CostOf("/OData/v5/Zaak"); ok {
		t.Error("a platform without a budget has a price")
	}
}

func TestPriceRendering(t *testing.T) {
	for _, tc := range []struct {
		c    Cost
		want string
	}{
		{Cost{Units: 1}, "1 unit"},
		{Cost{Units: 2, Param: "rows", Per: 10}, "2 × ceil(rows/10) units"},
		{Cost{Units: 1, Param: "rows"}, "1 unit"}, // no Per: a fixed price
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
	if got := (Budget{Capacity: 300, Window: 5 * time.Minute}).Allowance(); got != "300 units per 5m0s" {
		t.Error(got)
	}
	if got := (Budget{Capacity: 1, Window: time.Second}).Allowance(); got != "1 unit a second" {
		t.Error(got)
	}
	if !pathMatches("/a/*", "/a/b/c") || pathMatches("/a/*", "/b") || !pathMatches("/x/*/y", "/x/1/y") {
		t.Error("path patterns")
	}
}

// The price is read from the number the platform receives: only plain
// decimal digits in range are a value of limit.
func TestParseParamIsStrict(t *testing.T) {
	obv, _ := Get(OBV)
	c, _ := obv.CostOf("/api/search")
	for raw, want := range map[string]float64{"1": 1, "24": 24, "100": 100, "0100": 100} {
		if v, err := c.ParseParam(raw); err != nil || v != want {
			t.Errorf("%q: %v %v, want %v", raw, v, err, want)
		}
	}
	for _, raw := range []string{"", "0", "101", "100abc", "0x64", "1e2", "+24", "-1", " 24", "24.0", "%31", "1000000000000"} {
		v, err := c.ParseParam(raw)
		if err == nil {
			t.Errorf("%q: %v, want an error", raw, v)
		} else if !strings.Contains(err.Error(), "limit") || !strings.Contains(err.Error(), "1 to 100") {
			t.Errorf("%q: error %q does not say what to send", raw, err)
		}
	}
}
