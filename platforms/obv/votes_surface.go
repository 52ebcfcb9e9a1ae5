package obv

import (
	"context"
	"sort"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// The votes of a motion for the surfaces (adapters.Surface.Votes, issue
// 37 point 4): the reader shows how a council voted on a motion it reads,
// from the same detail request its fetch sends (so the second ask is a
// cache hit) and the parser of obv_votes (votes.go).

// votes are the charts of motion id: one, or none (and no request) for
// an entity that is no motion, or for no entity the fetch read (kind "":
// a motion is read as a document first).
func votes(ctx context.Context, env adapters.Env, id, kind string) ([]adapters.VoteChart, error) {
	id = strings.TrimSpace(id)
	if prefix, _, _ := strings.Cut(id, ":"); prefix != "motion" || kind == "" {
		return nil, nil
	}
	r, err := EntityRequest(id)
	if err != nil {
		return nil, &adapters.InvalidError{Err: err}
	}
	body, err := env.Get(ctx, platforms.OBV, r)
	if err != nil {
		return nil, err
	}
	mv, err := ParseMotionVotes(id, body)
	if err != nil {
		return nil, &adapters.ParseError{Err: err}
	}
	return []adapters.VoteChart{Chart(mv)}, nil
}

// Chart is a motion's votes as a chart shows them: per group its
// members' votes where the council publishes them, else the published
// tally alone, saying that no per-member votes are published.
func Chart(mv MotionVotes) adapters.VoteChart {
	c := adapters.VoteChart{Title: mv.Name, Date: mv.Date, Result: mv.Result, Unit: adapters.VoteUnitMembers,
		OtherKind: adapters.OtherOption, Summary: mv.VoteSummary, Problems: mv.Problems, SourceURL: mv.URL,
		NotVoted: notVoted(mv.Result) && !mv.PerMember}
	for _, g := range mv.Groups {
		c.Bars = append(c.Bars, adapters.VoteBar{Party: g.Group, Vote: g.Vote, Voor: g.Voor, Tegen: g.Tegen, Other: g.Other})
	}
	c.Totals = adapters.CountBars(c.Bars)
	if t := mv.Tally; t != nil {
		c.Tally = &adapters.VoteTally{Voor: t.InFavour, Tegen: t.Against}
		names := make([]string, 0, len(t.Other))
		for k := range t.Other {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			c.Tally.Other = append(c.Tally.Other, adapters.NamedCount{Name: k, Count: t.Other[k]})
		}
	}
	switch {
	case mv.PerMember:
		c.Note = mv.Note
	case c.NotVoted:
		c.Note = mv.Note
	default:
		// The page says this in its own words (NoPartyVotes).
		c.NoPartyVotes = true
	}
	return c
}
