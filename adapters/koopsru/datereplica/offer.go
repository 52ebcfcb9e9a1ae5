package datereplica

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/replica"
)

// Searcher is a KOOP replica as its platform's surface and tools ask it
// (what the platform's Offer returns).
type Searcher interface {
	// SearchReplica answers q from the replica when it can answer it
	// whole: it has completed a pass and q asks within its scope.
	// Otherwise ok is false and why says why, for the provenance of the
	// platform's answer ("asked <platform>: <why>").
	SearchReplica(ctx context.Context, q Query) (a Answer, ok bool, why string)
}

// Answer is the replica's answer to a search.
type Answer struct {
	Result
	// Provenance says which replica answered and how complete it is.
	Provenance string
	// CompleteUpTo is the time up to which the replica holds every
	// change: the age of the answer.
	CompleteUpTo time.Time
}

// Page is the answer as a page of hits from offset, each made by hit as
// the platform's own search parser makes it of a search record.
func (a Answer) Page(offset int, hit func(Hit) adapters.Hit) adapters.Page {
	page := adapters.Page{Total: int(a.Total), HasMore: offset+len(a.Hits) < int(a.Total), Hits: []adapters.Hit{}, Provenance: a.Provenance}
	for _, h := range a.Hits {
		page.Hits = append(page.Hits, hit(h))
	}
	return page
}

// Offer is the Searcher over the replica held (replica.Offerer's
// answer): spec names it in the provenance.
func Offer(held replica.Held, spec replica.Spec) Searcher { return offered{held: held, spec: spec} }

type offered struct {
	held replica.Held
	spec replica.Spec
}

func (o offered) SearchReplica(ctx context.Context, q Query) (Answer, bool, string) {
	idx, h, why := replica.Opened[*Index, *Harvester](o.held, "a KOOP index")
	if why != "" {
		return Answer{}, false, why
	}
	p := h.Progress()
	if why := replica.Unready(p); why != "" {
		return Answer{}, false, why
	}
	// A question reaching before the days kept is answered for the days
	// kept, and the provenance says so; one wholly before them goes to
	// the platform.
	var before string
	if first := h.Since(); first != "" {
		switch {
		case q.InForceOn != "" && q.InForceOn < first:
			return Answer{}, false, "the replica keeps what is in force from " + first + " on, and the question asks " + q.InForceOn
		case q.To != "" && q.To < first:
			return Answer{}, false, "the replica keeps " + first + " on, and the question asks before it"
		case q.InForceOn == "" && q.From < first:
			q.From = first
			before = "; it keeps " + first + " on, so earlier records are not among these hits"
		}
	}
	res, err := idx.Search(ctx, q)
	if err != nil {
		return Answer{}, false, replica.LookupFailed(o.held, err)
	}
	return Answer{Result: res, Provenance: replica.Provenance(o.spec.Source, o.spec.Units(), p) + before, CompleteUpTo: p.CompleteUpTo}, true, ""
}
