package mcp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// The completions' memo is shared by every session: a list the platform
// failed to give is not asked for again within completionRetry, but a
// failure of one caller's own (its hang-up, its deadline, its budget
// share) is not remembered, so the next session still gets the list.
func TestCompletionsRememberOnlyPlatformFailures(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		remember bool
	}{
		{"the caller hung up", cancelled, fmt.Errorf("asking: %w", context.Canceled), false},
		{"the caller's context ended, whatever the error says", cancelled, &adapters.RouteError{Kind: adapters.KindUnavailable, Status: 502}, false},
		{"the request's deadline", live, &adapters.UnreachedError{Err: context.DeadlineExceeded}, false},
		{"this caller's budget share", live, &adapters.RouteError{Kind: adapters.KindOverBudget, Status: 429, RetryAfter: 30, RetryKnown: true}, false},
		{"no Caddy server to ask", live, errNoOrigin, false},
		{"the platform failed", live, &adapters.RouteError{Kind: adapters.KindUnavailable, Status: 503}, true},
		{"the platform limited us", live, &adapters.RouteError{Kind: adapters.KindRateLimited, Status: 429}, true},
		{"the list is not there", live, &adapters.RouteError{Kind: adapters.KindNotFound, Status: 404}, true},
		{"the answer did not parse", live, &adapters.ParseError{Err: errors.New("not JSON")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &connector{}
			c.setClock(clock.Now)
			loads := 0
			failing := func() (any, error) { loads++; return nil, tc.err }
			if _, ok := c.memoised(tc.ctx, "list", failing); ok {
				t.Fatal("a failed load gave a list")
			}
			// The next session, a moment later, asks again.
			clock.Advance(time.Second)
			v, ok := c.memoised(live, "list", func() (any, error) { loads++; return "the list", nil })
			if tc.remember {
				if ok || loads != 1 {
					t.Errorf("the platform's failure was not remembered: %v %v, %d loads", v, ok, loads)
				}
				// After completionRetry the list is tried again.
				clock.Advance(completionRetry)
				if v, ok := c.memoised(live, "list", func() (any, error) { loads++; return "the list", nil }); !ok || v != "the list" {
					t.Errorf("after %v the list was not tried again: %v %v", completionRetry, v, ok)
				}
				return
			}
			if !ok || v != "the list" || loads != 2 {
				t.Errorf("one caller's failure emptied the list for the next: %v %v, %d loads", v, ok, loads)
			}
		})
	}
}
