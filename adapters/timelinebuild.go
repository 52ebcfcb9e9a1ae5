package adapters

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Timeline is a dossier's way as every surface shows it: the steps of all
// sources in date order, the links the data does not give, and what each
// source cost.
type Timeline struct {
	Dossier Dossier
	// Title is the dossier's title, as the first source that gives one
	// has it; "" when none does.
	Title   string
	Steps   []TimelineStep
	Missing []TimelineGap
	Notes   []string
	// Asked are the platforms asked, in the order they were asked.
	Asked []string
	// Requests are the platform requests per platform key.
	Requests map[string]int
	// Provenance says, per platform asked (in Asked's order), where its
	// part was read.
	Provenance map[string]string
}

// TimelineFailure is the failure of the platform that holds the dossier
// itself (a StageParliament source): the timeline is unknown.
type TimelineFailure struct {
	Platform string
	Err      error
}

func (f *TimelineFailure) Error() string { return f.Platform + ": " + f.Err.Error() }
func (f *TimelineFailure) Unwrap() error { return f.Err }

// TimelineSources are the timeline sources among surfaces, in stage
// order, then in order (the platforms table's order of keys).
func TimelineSources(surfaces map[string]Surface, order []string) []TimelineFrom {
	var out []TimelineFrom
	for _, k := range order {
		if s, ok := surfaces[k]; ok && s.Timeline != nil {
			out = append(out, TimelineFrom{Key: k, Source: s.Timeline})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Source.Stage < out[j].Source.Stage })
	return out
}

// TimelineFrom is one platform's timeline source.
type TimelineFrom struct {
	Key    string
	Source *TimelineSource
}

// OffersTimeline tells whether a surface offering the platforms offered
// holds the dossier itself (a source of StageParliament among sources).
func OffersTimeline(sources []TimelineFrom, offered []string) bool {
	for _, s := range sources {
		if s.Source.Stage == StageParliament && slices.Contains(offered, s.Key) {
			return true
		}
	}
	return false
}

// BuildTimeline asks every offered source of q's dossier in the order of
// sources, each seeing the steps the earlier ones found, and puts the
// steps in date order. Every source checks the question first, before
// any platform is asked: a malformed law, or a law no offered source
// reads, is an *InvalidError. The failure of a StageParliament source is
// a *TimelineFailure; any later source's failure is its link missing,
// in q.Explain's words. A stage no offered platform holds is missing too.
func BuildTimeline(ctx context.Context, env Env, sources []TimelineFrom, offered []string, q TimelineQuery) (*Timeline, error) {
	q.Law = strings.TrimSpace(q.Law)
	var asked []TimelineFrom
	stages := map[int]bool{}
	lawTaken := false
	for _, s := range sources {
		on := slices.Contains(offered, s.Key)
		stages[s.Source.Stage] = stages[s.Source.Stage] || on
		if !on {
			continue
		}
		if s.Source.Check != nil {
			mine, err := s.Source.Check(q)
			if err != nil {
				return nil, &InvalidError{Err: err}
			}
			lawTaken = lawTaken || mine
		}
		asked = append(asked, s)
	}
	if q.Law != "" && !lawTaken {
		return nil, &InvalidError{Err: fmt.Errorf("law %q: no platform of laws is offered here to read it (offered: %s)", Cut(q.Law, 40), strings.Join(offered, ", "))}
	}
	t := &Timeline{Dossier: q.Dossier, Steps: []TimelineStep{}, Missing: []TimelineGap{}, Requests: map[string]int{}, Provenance: map[string]string{}}
	for _, s := range asked {
		part, err := s.Source.Read(ctx, env, TimelineQuery{Dossier: q.Dossier, Law: q.Law, Steps: t.Steps, Explain: q.Explain})
		t.Asked = append(t.Asked, s.Key)
		t.Requests[s.Key] += part.Requests
		if err != nil {
			if s.Source.Stage == StageParliament {
				return nil, &TimelineFailure{Platform: s.Key, Err: err}
			}
			part.Missing = append(part.Missing, TimelineGap{Platform: s.Key, Link: StageLink(s.Source.Stage), Why: q.Why(s.Key, err)})
		}
		if t.Title == "" {
			t.Title = part.Title
		}
		t.Steps = append(t.Steps, part.Steps...)
		t.Missing = append(t.Missing, part.Missing...)
		t.Notes = append(t.Notes, part.Notes...)
		if part.Provenance != "" {
			t.Provenance[s.Key] = part.Provenance
		}
	}
	var stageList []int
	for st := range stages {
		stageList = append(stageList, st)
	}
	sort.Ints(stageList)
	for _, st := range stageList {
		if !stages[st] {
			t.Missing = append(t.Missing, TimelineGap{Link: StageLink(st),
				Why: "no platform that holds it is offered here (offered: " + strings.Join(offered, ", ") + ")"})
		}
	}
	// Date order; a step without a date last; the sources' own order
	// within a day (a document before the decision on it).
	sort.SliceStable(t.Steps, func(i, j int) bool {
		a, b := t.Steps[i].Date, t.Steps[j].Date
		if (a == "") != (b == "") {
			return b == ""
		}
		return a < b
	})
	return t, nil
}
