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
	for _, c := range p.Budget.Costs {
		for _, pat := range c.Paths {
			if pathMatches(pat, reqPath) {
				c.Paths = append([]string(nil), c.Paths...)
				return c, true
			}
		}
	}
	return Cost{}, false
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
