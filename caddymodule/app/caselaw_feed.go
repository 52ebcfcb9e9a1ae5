package app

import (
	"context"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
)

// feedFetcher asks Rechtspraak's feed for one page through its route
// (routeCaller: cache, budget and proxy, as the shared session), so with
// a shared store the platform answers each page once for every instance.
func (a *App) feedFetcher() caselaw.Fetcher {
	route := &a.figures.route
	return func(ctx context.Context, req caselaw.PageRequest) (caselaw.FeedPage, error) {
		p := rechtspraak.FeedParams{ModifiedSince: req.ModifiedSince, ModifiedUntil: req.ModifiedUntil,
			From: req.From, Max: req.Max,
			// After the first pass, the withdrawn decisions (tombstones,
			// which return=DOC leaves out) must reach the index too.
			AllECLIs: req.Incremental}
		if req.DateFrom != "" {
			// The feed reads one date as that day: a range needs both ends.
			// The end is the pass's start, not today: a pass that runs
			// past midnight keeps one window, and every instance
			// following it asks the very same request (replica.Relay).
			until := req.ModifiedUntil
			if until.IsZero() {
				until = a.clock.Now()
			}
			p.DateFrom, p.DateTo = req.DateFrom, until.UTC().Format(time.DateOnly)
		}
		r, err := rechtspraak.FeedRequest(p)
		if err != nil {
			return caselaw.FeedPage{}, err
		}
		ans, err := route.do(ctx, platforms.Rechtspraak, r)
		if err != nil {
			return caselaw.FeedPage{}, err
		}
		feed, err := rechtspraak.ParseFeed(ans.Body)
		if err != nil {
			return caselaw.FeedPage{}, fmt.Errorf("the feed's answer: %w", err)
		}
		page := caselaw.FeedPage{Total: feed.Total, Decisions: make([]caselaw.Decision, 0, len(feed.Entries))}
		for _, e := range feed.Entries {
			page.Decisions = append(page.Decisions, caselaw.Decision{ECLI: e.ECLI, Title: e.Title, Summary: e.Summary,
				Court: e.Court, Date: e.Date, Type: e.Type, Modified: e.Modified, Deleted: e.Deleted})
		}
		return page, nil
	}
}
