// Package fanout asks one question of every enabled platform's search at
// once, through BesluitBron's own platform routes (so through the same
// cache, budgets and proxy as every app and tool call), with one deadline,
// and merges the answers: hits ranked by relevance (reciprocal rank
// fusion over each platform's own order) or by date, duplicates under a
// shared identifier folded into one hit with links to the others, and each
// platform's outcome named (answered, cache, timeout, over_budget, failed,
// skipped). A partial answer is an answer.
//
// The package knows nothing of Caddy: it reaches the platforms through a
// Doer (in BesluitBron, subrequest.Do on the running server), so it tests
// with fakes and a fake clock. The MCP tool search_all, the JSON API
// GET /search and the search page all use it.
package fanout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/subcall"
)

// Doer runs one request against /platforms/<platform>/...; it must return
// when ctx ends. A non-2xx answer is an answer (nil error).
type Doer = subcall.Doer

// DefaultDeadline is how long a search waits for the platforms: long
// enough for a platform that answers a first question within its budget,
// short enough for a person at a search box.
const DefaultDeadline = 8 * time.Second

// DefaultGrace is how long a platform call may go on after the deadline.
const DefaultGrace = time.Minute

// MaxDeadline bounds Options.Deadline and Options.Grace.
const MaxDeadline = 2 * time.Minute

// ErrDeadline is the cause of a platform's context when the search's
// deadline passed.
var ErrDeadline = errors.New("the search deadline passed")

// DefaultPlatforms are the platforms searched when Options names none:
// the live ones whose tools come on by default (ORI and Open Archivaris
// need an operator's opt-in).
func DefaultPlatforms() []string { return platforms.DefaultTools() }

// Options configure an Engine.
type Options struct {
	// Do reaches the platforms. Required.
	Do Doer
	// Platforms are the platforms this engine offers, in the order the
	// outcomes list them; default DefaultPlatforms().
	Platforms []string
	// Deadline is the one deadline for all platforms of a search;
	// default DefaultDeadline, at most MaxDeadline.
	Deadline time.Duration
	// Grace is how long a platform's call may go on after the deadline
	// (the search has returned without it), so that its answer lands in
	// the cache and the next search for the same question finds it there;
	// default DefaultGrace, at most MaxDeadline; negative: cancel it at the
	// deadline. A caller that goes away does not cut it short either: the
	// work was asked for, and its answer serves whoever asks next.
	Grace time.Duration
	// Clock is the time source; default the system clock.
	Clock clock.Clock
	// Adapters are the operator's per-platform adapter settings (the
	// Tweede Kamer's OData root, Open Archivaris' endpoints), as the
	// besluitbron app's platform blocks set them.
	Adapters registry.Settings
}

// Engine runs fan-out searches. It is safe for concurrent use.
type Engine struct {
	do        Doer
	platforms []string
	deadline  time.Duration
	grace     time.Duration
	clock     clock.Clock
	surfaces  map[string]adapters.Surface
	memo      adapters.Memo // the TK schema, Rechtspraak's court list, ORI names, for an hour
}

// New checks o and returns an Engine.
func New(o Options) (*Engine, error) {
	if o.Do == nil {
		return nil, errors.New("fanout: no Doer to reach the platforms")
	}
	e := &Engine{do: o.Do, deadline: o.Deadline, grace: o.Grace, clock: o.Clock, surfaces: registry.Surfaces(o.Adapters)}
	switch {
	case e.grace == 0:
		e.grace = DefaultGrace
	case e.grace < 0:
		e.grace = 0
	case e.grace > MaxDeadline:
		return nil, fmt.Errorf("fanout: grace %v is out of range: use at most %v", o.Grace, MaxDeadline)
	}
	if e.deadline == 0 {
		e.deadline = DefaultDeadline
	}
	if e.deadline < 0 || e.deadline > MaxDeadline {
		return nil, fmt.Errorf("fanout: deadline %v is out of range: use more than 0 and at most %v", o.Deadline, MaxDeadline)
	}
	e.clock = clock.Or(e.clock)
	ps := o.Platforms
	if len(ps) == 0 {
		ps = DefaultPlatforms()
	}
	for _, k := range ps {
		if _, ok := platforms.Get(k); !ok {
			return nil, fmt.Errorf("fanout: platform %q is unknown: use %s", k, strings.Join(platforms.Keys(), ", "))
		}
		if e.surfaces[k].Search == nil {
			return nil, fmt.Errorf("fanout: platform %q has no search", k)
		}
		if slices.Contains(e.platforms, k) {
			return nil, fmt.Errorf("fanout: platform %q is named twice", k)
		}
		e.platforms = append(e.platforms, k)
	}
	return e, nil
}

// Platforms are the platforms the engine offers, in order.
func (e *Engine) Platforms() []string { return slices.Clone(e.platforms) }

// Deadline is the engine's one deadline per search.
func (e *Engine) Deadline() time.Duration { return e.deadline }

// Check validates q against this engine: q.Validate, and every platform it
// names must be one the engine offers. Its errors are *QueryErrors (see
// QueryErrors).
func (e *Engine) Check(q Query) error {
	if err := q.Validate(); err != nil {
		return err
	}
	for _, k := range q.Platforms {
		if !slices.Contains(e.platforms, k) {
			return queryError(CodePlatformNotOffered, ParamPlatforms, k, 0,
				fmt.Sprintf("platform %q is not offered here: use %s", k, strings.Join(e.platforms, ", ")))
		}
	}
	return nil
}

// asked are the platforms q asks, in the engine's order.
func (e *Engine) asked(q Query) []string {
	if len(q.Platforms) == 0 {
		return e.platforms
	}
	var out []string
	for _, k := range e.platforms {
		if slices.Contains(q.Platforms, k) {
			out = append(out, k)
		}
	}
	return out
}

// done is one platform's finished part.
type done struct {
	i       int
	outcome Outcome
	hits    []Hit
}

// Search asks every platform q names (every offered one when it names
// none) at once and merges their answers. It returns at the deadline at
// the latest: a platform still busy then is "timeout", and what the others
// answered is the result. progress, when not nil, is called (from Search's
// own goroutine, one call at a time) with each platform's outcome and hits
// as it finishes, skipped platforms first. A query Check refuses asks no
// platform: every outcome is skipped with the reason.
func (e *Engine) Search(ctx context.Context, q Query, progress func(Outcome, []Hit)) Result {
	start := e.clock.Now()
	keys := e.asked(q)
	res := Result{Query: q, Hits: []Hit{}, Outcomes: make([]Outcome, len(keys))}
	report := func(o Outcome, hs []Hit) {
		if progress != nil {
			progress(o, hs)
		}
	}
	if err := e.Check(q); err != nil {
		for i, k := range keys {
			res.Outcomes[i] = outcomeOf(k, StateSkipped)
			res.Outcomes[i].Error, res.Outcomes[i].Reason = err.Error(), ReasonQueryRefused
			report(res.Outcomes[i], nil)
		}
		return res
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := e.clock.AfterFunc(e.deadline, func() { cancel(ErrDeadline) })
	defer timer.Stop()
	// The platform calls run on their own context: Search stops waiting
	// at the deadline (or when its caller goes), the calls end at the
	// deadline plus the grace, so a late answer still fills the cache.
	runCtx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	graceTimer := e.clock.AfterFunc(e.deadline+e.grace, func() { stop(ErrDeadline) })
	var running sync.WaitGroup
	defer func() {
		go func() {
			running.Wait()
			graceTimer.Stop()
			stop(nil)
		}()
	}()

	// Buffered for every platform: a platform that finishes after the
	// deadline never blocks, and Search never waits for it.
	results := make(chan done, len(keys))
	perPlatform := make([][]Hit, len(keys))
	pending := 0
	for i, k := range keys {
		if why, code := e.skipReason(k, q); why != "" {
			res.Outcomes[i] = outcomeOf(k, StateSkipped)
			res.Outcomes[i].Error, res.Outcomes[i].Reason = why, code
			report(res.Outcomes[i], nil)
			continue
		}
		pending++
		running.Add(1)
		go func() {
			defer running.Done()
			results <- e.run(runCtx, i, k, q, start)
		}()
	}
	finish := func(d done) {
		res.Outcomes[d.i], perPlatform[d.i] = d.outcome, d.hits
		pending--
		report(d.outcome, d.hits)
	}
	for pending > 0 {
		select {
		case d := <-results:
			finish(d)
			continue
		case <-ctx.Done():
		}
		// Platforms that answered in the same instant still count.
		for drained := false; !drained && pending > 0; {
			select {
			case d := <-results:
				finish(d)
			default:
				drained = true
			}
		}
		for i, k := range keys {
			if res.Outcomes[i].Platform == "" {
				res.Outcomes[i] = e.timedOut(ctx, k, start)
				pending--
				report(res.Outcomes[i], nil)
			}
		}
	}
	res.Sort = q.Order()
	res.Hits = Merge(keys, perPlatform, res.Sort)
	for _, o := range res.Outcomes {
		if o.State == StateTimeout || o.State == StateOverBudget || o.State == StateFailed {
			res.Partial = true
		}
	}
	res.TookMS = e.clock.Now().Sub(start).Milliseconds()
	return res
}

// timedOut is the outcome of a platform still busy when the search ended.
func (e *Engine) timedOut(ctx context.Context, k string, start time.Time) Outcome {
	o := outcomeOf(k, StateTimeout)
	o.TookMS = e.clock.Now().Sub(start).Milliseconds()
	if errors.Is(context.Cause(ctx), ErrDeadline) {
		o.Reason = ReasonDeadline
		o.Error = fmt.Sprintf("no answer within the search's deadline of %v", e.deadline)
		if e.grace > 0 {
			o.Error += fmt.Sprintf("; the request goes on for up to %v more, so asking again soon may come from the cache", e.grace)
		}
	} else {
		o.Error, o.Reason = "the search was cancelled before the platform answered", ReasonCancelled
	}
	return o
}

func outcomeOf(k, state string) Outcome {
	p, _ := platforms.Get(k)
	return Outcome{Platform: k, PlatformName: p.Name, State: state}
}

// run asks one platform and names its outcome.
func (e *Engine) run(ctx context.Context, i int, k string, q Query, start time.Time) done {
	c := e.calls(k)
	pg, err := e.search(ctx, c, k, q)
	o := c.outcome(ctx, err)
	if err == nil {
		o.Hits, o.Total, o.Provenance = len(pg.Hits), pg.Total, pg.Provenance
	}
	o.TookMS = e.clock.Now().Sub(start).Milliseconds()
	hits := make([]Hit, 0, len(pg.Hits))
	for _, h := range pg.Hits {
		hits = append(hits, hitOf(k, o.PlatformName, h))
	}
	return done{i: i, outcome: o, hits: hits}
}
