package obv

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// CouncilIndex is the replica as OpenBesluitvorming's surface and tools
// ask it.
type CouncilIndex interface {
	// SearchCouncil answers q from the replica when the replica can
	// answer it whole: it has caught up with every source of its scope,
	// and the sources q asks are in that scope. Otherwise ok is false and
	// why says why, for the provenance of the platform's answer.
	SearchCouncil(ctx context.Context, q localindex.Query) (a LocalAnswer, ok bool, why string)
}

// LocalAnswer is the replica's answer to a search.
type LocalAnswer struct {
	localindex.Result
	// Provenance says which replica answered and how complete it is.
	Provenance string
	// CompleteUpTo is the time up to which the replica holds every
	// change of the feed: the age of the answer.
	CompleteUpTo time.Time
}

// Offer is the replica as the platform's surface asks it
// (replica.Offerer): a CouncilIndex over the index held now.
func (provider) Offer(held replica.Held, clk clock.Clock) any {
	return councilWords{held: held}
}

type councilWords struct {
	held replica.Held
}

var _ CouncilIndex = councilWords{}

func (w councilWords) SearchCouncil(ctx context.Context, q localindex.Query) (LocalAnswer, bool, string) {
	idx, h, why := replica.Opened[*localindex.Index, *harvester](w.held, "a council documents index")
	if why != "" {
		return LocalAnswer{}, false, why
	}
	p := h.overall() // a search needs no count per source
	if why := replica.Unready(p); why != "" {
		return LocalAnswer{}, false, why
	}
	if len(h.scope.Sources) > 0 {
		for _, s := range q.Sources {
			if !slices.Contains(h.scope.Sources, s) {
				return LocalAnswer{}, false, "the source " + s + " is outside the replica's scope"
			}
		}
	}
	// A question reaching before the years kept is answered for the
	// years kept, and the provenance says so; one wholly before them
	// goes to the platform.
	var before string
	if h.scope.Since != 0 {
		first := fmt.Sprintf("%04d-01-01", h.scope.Since)
		if q.To != "" && q.To < first {
			return LocalAnswer{}, false, "the replica keeps " + first + " on, and the question asks before it"
		}
		if q.From < first {
			q.From = first
			before = "; it keeps " + first + " on, so earlier documents are not among these hits"
		}
	}
	// A question that names no source is answered from the sources
	// kept, as one reaching before the years kept is from the years
	// kept: the provenance says so, or the short list would look whole.
	if len(h.scope.Sources) > 0 && len(q.Sources) == 0 {
		before += "; it keeps only the sources " + strings.Join(h.scope.Sources, ", ") + ", so other organisations' documents are not among these hits"
	}
	res, err := idx.Search(ctx, q)
	if err != nil {
		return LocalAnswer{}, false, replica.LookupFailed(w.held, err)
	}
	return LocalAnswer{Result: res, Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), p) + before, CompleteUpTo: p.CompleteUpTo}, true, ""
}
