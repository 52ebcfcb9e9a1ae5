package fanout

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// question is q as every platform's surface takes it.
func (q Query) question() adapters.Question {
	return adapters.Question{Words: strings.TrimSpace(q.Words), Organisation: strings.TrimSpace(q.Organisation),
		From: q.From, To: q.To, Limit: q.limit(), Sort: q.Order(), FullText: q.FullText}
}

// skipReason says why q does not fit platform k, before asking it, in
// English and as a reason code; "" when it fits.
func (e *Engine) skipReason(k string, q Query) (why, reason string) {
	if u := e.surfaces[k].Unfit(q.question()); u != nil {
		return u.Why, u.Reason
	}
	return "", ""
}

// search asks platform k the question through its surface, with the
// calls' getter, the engine's memo and the time; each hit gets its
// resource URI (Surface.Link).
func (e *Engine) search(ctx context.Context, c *calls, k string, q Query) (adapters.Page, error) {
	env := adapters.Env{Get: c.Get, Memo: &e.memo, Now: e.clock.Now()}
	s := e.surfaces[k]
	pg, err := s.Search(ctx, env, q.question())
	if err == nil {
		s.Link(pg.Hits)
	}
	return pg, err
}
