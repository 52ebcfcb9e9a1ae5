package canonical

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/besluitbron/besluitbron/platforms"
)

// normalizeQuery returns the query with its parameters ordered by name,
// keeping the order of repeated values (Rechtspraak's date=from&date=to
// is a range) and each parameter's encoding as sent.
func normalizeQuery(raw string) string {
	if raw == "" {
		return raw
	}
	// Fast path: already in order (what BesluitBron's own tools send),
	// returned as it is.
	sorted := true
	prev := ""
	// Every pair counts, the empty one after a trailing "&" too: the slow
	// path sorts it first, so "a=1&" must not pass as sorted (found by
	// FuzzKey: "0&" and "&0" had different keys).
	for rest, more := raw, true; more; {
		var pair string
		pair, rest, more = strings.Cut(rest, "&")
		name, _, _ := strings.Cut(pair, "=")
		if name < prev {
			sorted = false
			break
		}
		prev = name
	}
	if sorted {
		return raw
	}
	pairs := strings.Split(raw, "&")
	sort.SliceStable(pairs, func(i, j int) bool {
		a, _, _ := strings.Cut(pairs[i], "=")
		c, _, _ := strings.Cut(pairs[j], "=")
		return a < c
	})
	return strings.Join(pairs, "&")
}

// check refuses a request to a priced path whose priced parameter is not
// given at most once, by its plain name, as one plain number in range: a
// platform that reads the last of two values, or parses "100abc" or
// "0x64" leniently, would otherwise answer more than was charged.
func (rs Rules) check(path, query string) error {
	c, ok := platforms.FirstCost(rs.Costs, path)
	if !ok || c.Param == "" {
		return nil
	}
	n, val := 0, ""
	for rest, more := query, query != ""; more; {
		var pair string
		pair, rest, more = strings.Cut(rest, "&")
		name, v, hasValue := strings.Cut(pair, "=")
		if name != c.Param {
			decoded, err := url.QueryUnescape(name)
			if err != nil || decoded != c.Param {
				continue
			}
			return badParam(c.Param, fmt.Sprintf("parameter %s is spelled %q: write its name plainly, as %s=<number>", c.Param, name, c.Param))
		}
		if !hasValue {
			return badParam(c.Param, fmt.Sprintf("parameter %s has no value: give %s=<number>, or leave it out for %v", c.Param, c.Param, c.ParamDefault))
		}
		n++
		val = v
	}
	if n > 1 {
		return badParam(c.Param, fmt.Sprintf("parameter %s is given %d times: give it once (it sets the price of the request)", c.Param, n))
	}
	if n == 1 {
		if _, err := c.ParseParam(val); err != nil {
			return badParam(c.Param, err.Error())
		}
	}
	return nil
}

func badParam(param, msg string) error {
	return &Error{Code: "bad_parameter", Param: param, Message: msg}
}
