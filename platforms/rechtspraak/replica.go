package rechtspraak

import (
	"context"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	"github.com/besluitbron/besluitbron/replica"
)

// Rechtspraak's replica: BesluitBron's own full-text index of its feed
// (platforms/rechtspraak/caselaw), because the platform has no word
// search. The besluitbron app keeps it when the operator turns it on
// (caselaw { since, interval, dir }, or replica rechtspraak {...}):
// it opens the index, and harvests the feed through the platform's
// route behind the visitors-first gate, sharing the harvest between
// instances (replica). docs/caselaw.md says how it harvests.

// replicaSpec names the replica. Its name was the app's before replicas
// were generic: the index's folder (<cache dir>/caselaw), its keys in
// Redis, the Caddyfile's caselaw block, /status's caselaw member, the
// admin route /besluitbron/caselaw and the metrics
// caddy_besluitbron_caselaw_*.
var replicaSpec = replica.Spec{
	Name:   "caselaw",
	Unit:   "decisions",
	Source: "BesluitBron's index of Rechtspraak's feed",
	// The decisions of the last decade, which hold nearly every summary
	// (older entries mostly carry "-" as inhoudsindicatie, so words find
	// little in them) at about a third of the feed's size
	// (docs/caselaw.md).
	DefaultScope: "2015",
}

// Replica names the replica (replica.Provider).
func (provider) Replica() replica.Spec { return replicaSpec }

// Scope reads a year or a date YYYY-MM-DD as the date from which
// decisions are kept ("" the whole feed). The feed is one, not per
// source.
func (provider) Scope(s replica.ScopeConfig) (string, error) {
	if len(s.Sources) > 0 {
		return "", fmt.Errorf("Rechtspraak's feed has no sources to choose: give since only")
	}
	scope, err := caselaw.ParseScope(s.Since)
	if err != nil {
		return "", fmt.Errorf("give a year, a date YYYY-MM-DD or all")
	}
	return scope, nil
}

// Open opens the case-law index under dir.
func (provider) Open(dir string) (replica.Index, replica.OpenReport, error) {
	idx, report, err := caselaw.Open(dir)
	if err != nil {
		return nil, report, err
	}
	return idx, report, nil
}

// Remove removes the closed case-law index under dir (an operator's
// rebuild).
func (provider) Remove(dir string) error { return caselaw.Remove(dir) }

// Harvester builds the case-law harvester of idx, which reads the feed
// through h.Fetch.
func (provider) Harvester(idx replica.Index, h replica.Harvest) (replica.Harvester, error) {
	ix, ok := idx.(*caselaw.Index)
	if !ok {
		return nil, fmt.Errorf("the case-law harvester needs a case-law index, got %T", idx)
	}
	hc := caselaw.HarvesterConfig{
		Index:    ix,
		Fetch:    feedFetcher(h.Fetch, h.Clock),
		Gate:     h.Gate,
		Clock:    h.Clock,
		Interval: h.Interval,
		Since:    h.Scope,
	}
	if r := h.Relay; r != nil {
		hc.PassStart, hc.Follow, hc.Stored = r.PassStart, r.Follow, r.Stored
	}
	return caselaw.NewHarvester(hc)
}

// feedFetcher asks Rechtspraak's feed for one page through fetch (the
// platform's route: cache, budget and proxy, as the shared session), so
// with a shared store the platform answers each page once for every
// instance.
func feedFetcher(fetch replica.Fetch, clk clock.Clock) caselaw.Fetcher {
	clk = clock.Or(clk)
	return func(ctx context.Context, req caselaw.PageRequest) (caselaw.FeedPage, error) {
		p := FeedParams{ModifiedSince: req.ModifiedSince, ModifiedUntil: req.ModifiedUntil,
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
				until = clk.Now()
			}
			p.DateFrom, p.DateTo = req.DateFrom, until.UTC().Format(time.DateOnly)
		}
		r, err := FeedRequest(p)
		if err != nil {
			return caselaw.FeedPage{}, err
		}
		body, _, err := fetch(ctx, r)
		if err != nil {
			return caselaw.FeedPage{}, err
		}
		feed, err := ParseFeed(body)
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

// Interface guards
var (
	_ replica.Provider = provider{}
	_ replica.Offerer  = provider{}
	_ replica.Remover  = provider{}
)
