package fanout

import (
	"context"
	"errors"
	"fmt"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/subcall"
)

// calls runs one platform's requests for a search (subcall.Calls, on
// the engine's Doer and clock) and keeps their answers, to name the
// outcome (from cache, queue wait, over budget).
type calls struct {
	subcall.Calls
	e        *Engine
	platform string
}

func (e *Engine) calls(platform string) *calls {
	return &calls{Calls: subcall.Calls{Do: e.do, Clock: e.clock}, e: e, platform: platform}
}

// outcome names what became of the platform's part, from err (nil when
// it answered) and the answers seen.
func (c *calls) outcome(ctx context.Context, err error) Outcome {
	o := outcomeOf(c.platform, StateAnswered)
	answers := c.Answers()
	for _, a := range answers {
		o.QueueWaitMS += a.QueueWaitMS
	}
	if refused := c.Refused(); refused != nil {
		o.QueueWaitMS += refused.QueueWaitMS
	}
	var re *adapters.RouteError
	var pe *adapters.ParseError
	var unfit *adapters.UnfitError
	switch {
	case err == nil:
		if len(answers) > 0 && allFromCache(answers) {
			o.State = StateCache
		}
	case errors.As(err, &unfit):
		o.State, o.Error, o.Reason = StateSkipped, unfit.Why, unfit.Reason
	case ctx.Err() != nil && !errors.As(err, &re):
		// The deadline (or the caller) ended it while it waited.
		o.State, o.Reason = StateTimeout, ReasonDeadline
		o.Error = "no answer within the search's deadline of " + c.e.deadline.String()
		if !errors.Is(context.Cause(ctx), ErrDeadline) {
			o.Error, o.Reason = "the search was cancelled before the platform answered", ReasonCancelled
		}
	case errors.As(err, &re) && (re.Kind == adapters.KindOverBudget || re.Kind == adapters.KindRateLimited):
		o.State = StateOverBudget
		retry := re.RetryAfter
		if !re.RetryKnown {
			retry = 60
		}
		o.RetryAfterSeconds = retry
		if re.Kind == adapters.KindOverBudget {
			o.Reason = ReasonBudget
			o.Error = fmt.Sprintf("BesluitBron's request budget for %s has no room now; retry in %d s", o.PlatformName, retry)
		} else {
			o.Reason = ReasonRateLimited
			o.Error = fmt.Sprintf("%s itself answered HTTP 429; retry in %d s", o.PlatformName, retry)
		}
	case errors.As(err, &re):
		o.State, o.Reason = StateFailed, ReasonPlatformError
		o.Error = fmt.Sprintf("%s answered HTTP %d", o.PlatformName, re.Status)
		if re.Kind == adapters.KindUnavailable && re.RetryKnown {
			o.RetryAfterSeconds = re.RetryAfter
		}
		if re.Detail != "" {
			o.Error += ": " + re.Detail
		}
	case errors.Is(err, subcall.ErrAnswerTooLarge):
		// Its answer was not held, so not read: an answer of a size no
		// search should bring, for this call only.
		o.State, o.Reason = StateFailed, ReasonUnexpectedAnswer
		o.Error = fmt.Sprintf("%s answered more than the %d MiB BesluitBron holds for one call", o.PlatformName, subcall.MaxAnswerBytes>>20)
	case errors.As(err, &pe):
		o.State, o.Reason = StateFailed, ReasonUnexpectedAnswer
		o.Error = adapters.Cut(o.PlatformName+" "+pe.Error(), 300)
	default:
		o.State, o.Reason = StateFailed, ReasonUnreachable
		o.Error = adapters.Cut(o.PlatformName+" could not be asked: "+err.Error(), 300)
	}
	return o
}

func allFromCache(as []*subcall.Answer) bool {
	for _, a := range as {
		if !a.FromCache() {
			return false
		}
	}
	return true
}

// platformName is a platform's name, or its key when unknown.
func platformName(k string) string {
	if p, ok := platforms.Get(k); ok {
		return p.Name
	}
	return k
}
