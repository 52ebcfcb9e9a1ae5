package replica

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A year scope is the canonical scope of a feed kept from a year on and
// in named parts (a council's sources, the Kamer's categories):
// "since=<year>|all <parts>=<a>,<b>|all". Instances that share a harvest
// meet under it (Provider.Scope), so one scope is always spelt one way.

// ReadYearScope reads an operator's scope: since a year from 1990 to 2200
// ("" or 0 keeps every year; example is the year an error suggests), each
// part lower-cased and passed by check (an error says what to give),
// sorted and each once.
func ReadYearScope(s ScopeConfig, example string, check func(part string) error) (since int, parts []string, err error) {
	if s.Since != "" {
		y, err := strconv.Atoi(s.Since)
		if err != nil || y < 1990 || y > 2200 {
			return 0, nil, fmt.Errorf("since %q: give a year such as %s, or all", s.Since, example)
		}
		since = y
	}
	for _, p := range s.Sources {
		p = strings.ToLower(strings.TrimSpace(p))
		if err := check(p); err != nil {
			return 0, nil, err
		}
		parts = append(parts, p)
	}
	slices.Sort(parts)
	return since, slices.Compact(parts), nil
}

// FormatYearScope writes a year scope: since 0 and no parts are "all";
// partsKey names the parts ("sources").
func FormatYearScope(since int, partsKey string, parts []string) string {
	y, p := "all", "all"
	if since != 0 {
		y = strconv.Itoa(since)
	}
	if len(parts) > 0 {
		p = strings.Join(parts, ",")
	}
	return "since=" + y + " " + partsKey + "=" + p
}

// ParseYearScope reads what FormatYearScope wrote ("" is every year and
// every part).
func ParseYearScope(canonical, partsKey string) (since int, parts []string, err error) {
	for _, part := range strings.Fields(canonical) {
		k, v, _ := strings.Cut(part, "=")
		switch {
		case k == "since" && v != "all":
			y, err := strconv.Atoi(v)
			if err != nil {
				return 0, nil, fmt.Errorf("scope %q: since %q", canonical, v)
			}
			since = y
		case k == partsKey && v != "all":
			parts = strings.Split(v, ",")
		case k != "since" && k != partsKey:
			return 0, nil, fmt.Errorf("scope %q: unknown part %q", canonical, part)
		}
	}
	return since, parts, nil
}
