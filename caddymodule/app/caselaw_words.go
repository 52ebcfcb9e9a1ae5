package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
)

// caseLawWords is the case-law index as Rechtspraak's surface asks it
// (rechtspraak.WordIndex): the index of the config in force when asked.
type caseLawWords struct{ a *App }

var _ rechtspraak.WordIndex = caseLawWords{}

// SearchWords asks the index. An index that cannot answer (not open
// yet, corrupt, stopped by a failed write) is rechtspraak.ErrIndexUnavailable
// with the kind of failure only: the surfaces show this text to anyone,
// so it never names the directory or the system's words for the cause
// (the log and the admin API have those). A question it refuses is its
// *caselaw.QueryError.
func (w caseLawWords) SearchWords(ctx context.Context, q rechtspraak.WordQuery) (rechtspraak.WordPage, error) {
	k := w.a.caseLaw()
	if k == nil {
		return rechtspraak.WordPage{}, fmt.Errorf("%w: this configuration has not started it", rechtspraak.ErrIndexUnavailable)
	}
	idx, h, err := k.state()
	if err != nil {
		return rechtspraak.WordPage{}, unavailable(err)
	}
	progress := h.Progress()
	if progress.Stopped != nil {
		return rechtspraak.WordPage{}, unavailable(progress.Stopped)
	}
	res, err := idx.Search(ctx, caselaw.Query{Words: q.Words, Court: q.Court, DateFrom: q.From, DateTo: q.To,
		Type: q.Type, Sort: q.Sort, Limit: q.Limit, Offset: q.Offset, After: q.After, Now: w.a.clock.Now()})
	var down *caselaw.UnavailableError
	if errors.As(err, &down) {
		k.noteBroken(err)
		return rechtspraak.WordPage{}, unavailable(err)
	}
	if err != nil {
		return rechtspraak.WordPage{}, err
	}
	page := rechtspraak.WordPage{Total: int(res.Total), Provenance: provenance(progress), Next: res.Next}
	for _, hit := range res.Hits {
		page.Hits = append(page.Hits, rechtspraak.WordHit{ECLI: hit.ECLI, Title: hit.Title, Summary: hit.Snippet,
			Court: hit.Court, Date: hit.Date, Type: hit.Type})
	}
	return page, nil
}

// unavailable is the index's failure as the surfaces show it: the kind
// only (caselaw.PublicReason).
func unavailable(err error) error {
	reason := caselaw.PublicReason(err)
	if errors.Is(err, errOpening) {
		reason = errOpening.Error()
	}
	return fmt.Errorf("%w: %s", rechtspraak.ErrIndexUnavailable, reason)
}

// provenance says where the hits came from and how far the index got.
func provenance(p caselaw.Progress) string {
	const source = "BesluitBron's index of Rechtspraak's feed"
	if !p.CompleteUpTo.IsZero() {
		return fmt.Sprintf("%s, complete up to %s (%d decisions)", source, p.CompleteUpTo.UTC().Format(time.RFC3339), p.Records)
	}
	s := fmt.Sprintf("%s, still being built: %d decisions so far", source, p.Records)
	if p.PagesLeft >= 0 && p.PagesDone > 0 {
		s += fmt.Sprintf(", %d of about %d pages read", p.PagesDone, p.PagesDone+p.PagesLeft)
	}
	if p.TimeLeft > 0 {
		s += ", about " + p.TimeLeft.Round(time.Minute).String() + " to go"
	}
	return s + "; hits from the part not yet read are missing"
}

// Replicas are what this config keeps of platforms itself, by key, as
// their surfaces ask it (adapters.Config.Replica); nil when it keeps none.
func (a *App) Replicas() map[string]any {
	if idx := a.CaseLawIndex(); idx != nil {
		return map[string]any{platforms.Rechtspraak: idx}
	}
	return nil
}
