package platforms

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// The table's prices, read by those who tell a caller what a request
// costs (the MCP tools' descriptions and results), so a price is written
// once, in defaults.go. platform_limit charges the same rules.

// CostOf returns the rule that prices a request to p's path (below the
// base URL): the first whose Paths match exactly, by path.Match, or with a
// trailing * as a prefix (the forms the table uses of platform_limit's
// Caddy path matcher). ok is false when none matches: such a request
// costs one unit.
func (p Platform) CostOf(reqPath string) (c Cost, ok bool) {
	if p.Budget == nil {
		return Cost{}, false
	}
	if c, ok = FirstCost(p.Budget.Costs, reqPath); ok {
		c.Paths = append([]string(nil), c.Paths...)
	}
	return c, ok
}

// FirstCost returns the first of costs whose Paths match reqPath (as
// CostOf matches them). The returned rule shares costs' Paths.
func FirstCost(costs []Cost, reqPath string) (Cost, bool) {
	for _, c := range costs {
		for _, pat := range c.Paths {
			if pathMatches(pat, reqPath) {
				return c, true
			}
		}
	}
	return Cost{}, false
}

// ParseParam reads the value of c's priced parameter as the proxy passes
// it on: a whole number written in decimal digits only, from 1 (a priced
// parameter counts results asked for) to ParamMax when set. Anything a
// platform might read otherwise ("100abc", "0x64", "1e2", "+24") is an
// error naming the parameter, so the price is always computed from the
// number the platform receives.
func (c Cost) ParseParam(raw string) (float64, error) {
	bad := func() (float64, error) {
		if c.ParamMax > 0 {
			return 0, fmt.Errorf("parameter %s must be one whole number from 1 to %s, got %q", c.Param, num(c.ParamMax), raw)
		}
		return 0, fmt.Errorf("parameter %s must be one whole number of at least 1, got %q", c.Param, raw)
	}
	if raw == "" || len(raw) > 9 {
		return bad()
	}
	v := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return bad()
		}
		v = v*10 + int(raw[i]-'0')
	}
	if v < 1 || (c.ParamMax > 0 && float64(v) > c.ParamMax) {
		return bad()
	}
	return float64(v), nil
}

func pathMatches(pattern, p string) bool {
	if pattern == p {
		return true
	}
	if ok, _ := path.Match(pattern, p); ok {
		return true
	}
	prefix, wild := strings.CutSuffix(pattern, "*")
	return wild && !strings.ContainsAny(prefix, "*?[") && strings.HasPrefix(p, prefix)
}

// UnitsFor returns what a request priced by c costs when its parameter has
// the value v (ignored by a rule without Param): Units, or Units ×
// ceil(v/Per) with v capped at ParamMax, never less than Units. A NaN,
// infinite or negative v counts as missing (ParamDefault).
func (c Cost) UnitsFor(v float64) float64 {
	if c.Param == "" || !(c.Per > 0) {
		return c.Units
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		v = c.ParamDefault
	}
	if c.ParamMax > 0 {
		v = math.Min(v, c.ParamMax)
	}
	return c.Units * math.Max(1, math.Ceil(v/c.Per))
}

// String renders the rule as a formula, e.g. "ceil(limit/24) units" or
// "0.125 units".
func (c Cost) String() string {
	if c.Param == "" || !(c.Per > 0) {
		return FormatUnits(c.Units)
	}
	f := fmt.Sprintf("ceil(%s/%s)", c.Param, num(c.Per))
	if c.Units != 1 {
		f = num(c.Units) + " × " + f
	}
	return f + " units"
}

// Allowance renders the budget as "60 units a minute" ("2 units a
// second", "300 units per 5m0s").
func (b Budget) Allowance() string {
	switch b.Window {
	case time.Second:
		return FormatUnits(b.Capacity) + " a second"
	case time.Minute:
		return FormatUnits(b.Capacity) + " a minute"
	case time.Hour:
		return FormatUnits(b.Capacity) + " an hour"
	}
	return FormatUnits(b.Capacity) + " per " + b.Window.String()
}

// FormatUnits renders a number of budget units: "1 unit", "0.125 units".
func FormatUnits(n float64) string {
	if n == 1 {
		return "1 unit"
	}
	return num(n) + " units"
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
