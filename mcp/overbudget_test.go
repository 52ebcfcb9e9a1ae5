package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/subcall"
)

// TestStaleAnswersAreFromCache: a stale-if-error answer is the cache's last
// good copy (RFC 9211 fwd=stale with detail=stale-if-error): from_cache is
// true. A stale entry replaced by the platform's new answer is not.
func TestStaleAnswersAreFromCache(t *testing.T) {
	for cs, want := range map[string]bool{
		"BesluitBron; hit; ttl=3541":                                               true,
		"BesluitBron; hit; ttl=-60; detail=stale-while-revalidate":                 true,
		"BesluitBron; fwd=stale; fwd-status=502; ttl=-7200; detail=stale-if-error": true,
		"BesluitBron; fwd=stale; fwd-status=503; ttl=-7200; detail=stale-if-error": true,
		"BesluitBron; fwd=stale; fwd-status=200; stored":                           false,
		"BesluitBron; fwd=miss; fwd-status=200; collapsed; stored":                 false,
		"BesluitBron; fwd=miss; detail=over-budget":                                false,
		"BesluitBron; fwd=bypass; detail=method":                                   false,
		"":                                                                         false,
		"BesluitBron; fwd=miss; detail=hit":                                        false, // a detail that merely says "hit"
		"BesluitBron; fwd=miss; hitch; stored":                                     false,
		"BesluitBron; fwd=miss; stale-if-error":                                    false,
	} {
		a := &subcall.Answer{Cache: cs}
		if a.FromCache() != want {
			t.Errorf("fromCache(%q) = %v, want %v", cs, !want, want)
		}
		if got := meta(time.Now(), "obv", a).FromCache; got != want {
			t.Errorf("meta(%q) from_cache = %v, want %v", cs, got, want)
		}
	}
}

// budgetChain is chainSite with an OpenBesluitvorming budget of one unit
// an hour and no patience: the second call is turned away at once.
func budgetChain(t *testing.T) int {
	site, port := chainSite(t, t.TempDir())
	site = strings.Replace(site, "capacity 60\n\t\t\twindow   1m", "capacity 1\n\t\t\twindow 1h\n\t\t\tmax_wait 1ns", 1)
	if !strings.Contains(site, "max_wait 1ns") {
		t.Fatal("chainSite changed: budget not set")
	}
	testcaddy.Load(t, site)
	return port
}

// TestOverBudgetNamesThePlatform: a tool call the budget turns away
// (through platform_cache, as in production) is an isError result that
// names the platform and says when to retry, from the budget's own
// Retry-After; the health says over_budget. Other sessions asking the
// same question are not handed that refusal (see the cache's tests).
func TestOverBudgetNamesThePlatform(t *testing.T) {
	port := budgetChain(t)
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port), true, nil)
	mustTool(t, c, "obv_sources", nil) // spends the one unit
	text, isErr := callTool(t, c, "obv_search", map[string]any{"query": "stikstof"})
	m := regexp.MustCompile(`^OpenBesluitvorming is over budget, retry in (\d+) s\b`).FindStringSubmatch(text)
	if !isErr || m == nil {
		t.Fatalf("isError=%v %q; want \"OpenBesluitvorming is over budget, retry in N s\"", isErr, text)
	}
	if n, _ := strconv.Atoi(m[1]); n < 60 || n > 7200 {
		t.Fatalf("retry in %d s; the budget refills one unit an hour", n)
	}
	if strings.Contains(text, "unreachable") {
		t.Fatalf("a budget refusal called the platform unreachable: %q", text)
	}
	var h struct {
		Platforms []struct {
			Key    string
			Health struct {
				State       string `json:"state"`
				RetryAfterS int    `json:"retry_after_seconds"`
			}
		}
	}
	if err := json.Unmarshal([]byte(mustTool(t, c, "besluitbron_platforms", nil)), &h); err != nil {
		t.Fatal(err)
	}
	for _, p := range h.Platforms {
		if p.Key == "obv" && (p.Health.State != "over_budget" || p.Health.RetryAfterS < 60) {
			t.Fatalf("obv health %+v", p.Health)
		}
	}
}
