package rechtspraak

import (
	"context"
	"errors"
	"fmt"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	"github.com/besluitbron/besluitbron/replica"
)

// Offer is the replica as the platform's surface asks it: a WordIndex
// over the index held now (replica.Offerer).
func (provider) Offer(held replica.Held, clk clock.Clock) any {
	return caseLawWords{held: held, clock: clock.Or(clk)}
}

// caseLawWords is the case-law index as Rechtspraak's surface asks it
// (WordIndex): the index its host holds when asked.
type caseLawWords struct {
	held  replica.Held
	clock clock.Clock
}

var _ WordIndex = caseLawWords{}

// SearchWords asks the index. An index that cannot answer (not open
// yet, corrupt, stopped by a failed write) is ErrIndexUnavailable with
// the kind of failure only: the surfaces show this text to anyone, so it
// never names the directory or the system's words for the cause (the
// log and the admin API have those). A question it refuses is its
// *caselaw.QueryError.
func (w caseLawWords) SearchWords(ctx context.Context, q WordQuery) (WordPage, error) {
	ix, h, err := w.held.Current()
	if err != nil {
		return WordPage{}, unavailable(err)
	}
	idx, ok := ix.(*caselaw.Index)
	if !ok {
		return WordPage{}, fmt.Errorf("%w: not a case-law index", ErrIndexUnavailable)
	}
	progress := h.Progress()
	if progress.Stopped != nil {
		return WordPage{}, unavailable(progress.Stopped)
	}
	res, err := idx.Search(ctx, caselaw.Query{Words: q.Words, Court: q.Court, DateFrom: q.From, DateTo: q.To,
		Type: q.Type, Sort: q.Sort, Limit: q.Limit, Offset: q.Offset, After: q.After, Now: w.clock.Now()})
	var down *caselaw.UnavailableError
	if errors.As(err, &down) {
		w.held.Broken(err)
		return WordPage{}, unavailable(err)
	}
	if err != nil {
		return WordPage{}, err
	}
	page := WordPage{Total: int(res.Total), Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), progress), Next: res.Next}
	for _, hit := range res.Hits {
		page.Hits = append(page.Hits, WordHit{ECLI: hit.ECLI, Title: hit.Title, Summary: hit.Snippet,
			Court: hit.Court, Date: hit.Date, Type: hit.Type})
	}
	return page, nil
}

// unavailable is the index's failure as the surfaces show it: the kind
// only (replica.PublicReason).
func unavailable(err error) error {
	return fmt.Errorf("%w: %s", ErrIndexUnavailable, replica.PublicReason(err))
}
