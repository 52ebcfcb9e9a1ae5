package tk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// A dossier's timeline from the replica (issue 37, point 5): where
// BesluitBron keeps the Tweede Kamer's SyncFeed (replica.go), the Kamer's
// part of dossier_timeline joins the entities it holds as the three OData
// requests of timeline.go join them on the platform: the dossier
// (Kamerstukdossier by its number and addition), the documents that link
// to it, its zaken (Zaak→Kamerstukdossier), every besluit on the newest
// of them (Besluit→Zaak) with its agendapunt, activiteit and stemmingen.
// The decisions are built and counted by tk_votes' replica code
// (votes_replica.go: newDecision, tally), the steps by timeline.go's
// timelineRead.steps, and the lists are cut and ordered as the OData
// requests' $top and $orderby cut and order them, so an answer from the
// replica is the part OData gives for the same data.
//
// The replica answers only what it holds whole as of its last complete
// pass; otherwise the platform is asked, and the part's provenance says
// why, as tk_votes does (votes_replica.go), and besides:
//   - it keeps documents of some years only (a dossier's older documents
//     would be missing), or part of the feed could not be read whole;
//   - none of the documents it holds links to a dossier. The SyncFeed's
//     Document→Kamerstukdossier link (<kamerstukdossier ref="…"/> in a
//     <document>) is read by a third-party client of the real feed
//     (tkconv's tkgetxml.cc) but shown by no recorded sample, and the
//     emulator does not write it (docs/emulators.md). Without it a
//     dossier's documents cannot be found, and "none" would be a guess;
//   - it holds neither a document nor a zaak of the dossier: the platform
//     says whether the dossier exists.

// ParliamentTimeline is the replica as the Kamer's part of a dossier's
// timeline asks it.
type ParliamentTimeline interface {
	// Timeline answers the Kamer's part of dossier d's timeline from the
	// replica when it holds the answer whole; otherwise ok is false and
	// why says why, for the provenance of the platform's answer.
	Timeline(ctx context.Context, d adapters.Dossier) (a TimelineAnswer, ok bool, why string)
}

// TimelineAnswer is the replica's part of a timeline.
type TimelineAnswer struct {
	// Part is the part, its provenance saying how complete the replica
	// is; it made no platform request.
	Part adapters.TimelinePart
	// CompleteUpTo is the time up to which the replica holds every change
	// of the feed: the age of the answer.
	CompleteUpTo time.Time
}

// timelineCategories are the categories a timeline joins.
var timelineCategories = append(slices.Clone(voteCategories), "document", "kamerstukdossier")

var _ ParliamentTimeline = parliamentWords{}

// votesOf is the votes of the replica the surface is offered, nil when
// it has none.
func votesOf(parliament ParliamentIndex) ParliamentVotes {
	v, _ := parliament.(ParliamentVotes)
	return v
}

// timelineOf is the replica's timeline of the replica the surface is
// offered, nil when it has none.
func timelineOf(parliament ParliamentIndex) ParliamentTimeline {
	t, _ := parliament.(ParliamentTimeline)
	return t
}

// Timeline answers dossier d's part from the replica held now
// (ParliamentTimeline).
func (w parliamentWords) Timeline(ctx context.Context, d adapters.Dossier) (TimelineAnswer, bool, string) {
	idx, h, why := w.open()
	if why != "" {
		return TimelineAnswer{}, false, why
	}
	prog := h.overall()
	if why := timelineUnfit(h.scope, prog); why != "" {
		return TimelineAnswer{}, false, why
	}
	a, why, err := timelineFromReplica(ctx, voteJoin{idx: idx, asOf: prog.CompleteUpTo}, d, prog)
	if err != nil {
		return TimelineAnswer{}, false, replica.LookupFailed(w.held, err)
	}
	if why != "" {
		return TimelineAnswer{}, false, why
	}
	return a, true, ""
}

// timelineUnfit is why a replica keeping scope, at prog, cannot answer
// any timeline; "" when it may.
func timelineUnfit(scope harvestScope, prog replica.Progress) string {
	switch {
	case prog.Stopped != nil:
		return "the replica stopped (" + replica.PublicReason(prog.Stopped) + ")"
	case prog.CompleteUpTo.IsZero():
		return "the replica is still being built"
	case len(prog.Unread) > 0:
		return fmt.Sprintf("the replica could not read %d part(s) of the feed whole, so a dossier's steps may be missing from it", len(prog.Unread))
	case scope.Since != 0:
		return fmt.Sprintf("the replica keeps documents from %04d on, so a dossier's older documents are not in it", scope.Since)
	}
	if missing := scope.lacks(timelineCategories); len(missing) > 0 {
		slices.Sort(missing)
		return "the replica keeps no " + strings.Join(missing, ", ") + ", which a dossier's timeline joins"
	}
	return ""
}

// timelineFromReplica is dossier d's part read by j, with the provenance
// of prog; why is not "" when the replica cannot answer it whole.
func timelineFromReplica(ctx context.Context, j voteJoin, d adapters.Dossier, prog replica.Progress) (TimelineAnswer, string, error) {
	r, why, err := j.timeline(ctx, d)
	if why != "" || err != nil {
		return TimelineAnswer{}, why, err
	}
	part := adapters.TimelinePart{Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), prog)}
	r.steps(&part, d.String())
	return TimelineAnswer{Part: part, CompleteUpTo: prog.CompleteUpTo}, "", nil
}

// timeline reads dossier d's part from the index as of j.asOf: why is
// not "" when the replica cannot answer it whole.
func (j voteJoin) timeline(ctx context.Context, d adapters.Dossier) (timelineRead, string, error) {
	var r timelineRead
	name := d.String()
	if why, err := j.partial(ctx); why != "" || err != nil {
		return r, why, err
	}
	linked, err := j.idx.Links(ctx, "document", "kamerstukdossier")
	if err != nil {
		return r, "", err
	}
	if !linked {
		return r, "no document the replica holds names its dossier (the SyncFeed gave no Document→Kamerstukdossier link), so a dossier's documents cannot be read from it", nil
	}
	dossiers, why, err := j.dossiers(ctx, d)
	if why != "" || err != nil {
		return r, why, err
	}
	ids := make([]string, 0, len(dossiers))
	for id := range dossiers {
		ids = append(ids, id)
	}
	slices.Sort(ids)

	// The documents, as DossierDocumentsRequest asks them: newest Datum
	// first, then by GUID descending, a page of timelineDocuments.
	docs, err := j.idx.Linking(ctx, "document", "kamerstukdossier", ids, localindex.MaxJoin)
	if err != nil {
		return r, "", err
	}
	if !docs.Whole() {
		return r, fmt.Sprintf("dossier %s has %d documents in the replica, more than it joins at once", name, docs.Total), nil
	}
	for _, e := range docs.Entities {
		if why := j.newerStep("document", e); why != "" {
			return r, why, nil
		}
	}
	sortNewestFirst(docs.Entities, "datum")
	r.docTotal = len(docs.Entities)
	var titles []string
	for _, e := range docs.Entities[:min(timelineDocuments, len(docs.Entities))] {
		doc := documentOfFeed(e.ID, e.Fields)
		// The dossier's title as OData's page gives it: from the dossiers
		// named d that its documents link to (dossierTitleOf).
		for _, ref := range refs(e, "kamerstukdossier") {
			if k, ok := dossiers[ref]; ok {
				titles = append(titles, adapters.Squash(feedField(k, "titel")))
			}
		}
		// The kamerstuk number, as kamerstukOf reads it from OData's
		// expanded dossiers: only a document in exactly one dossier.
		if ks := refs(e, "kamerstukdossier"); len(ks) == 1 {
			k := dossiers[ks[0]]
			doc.Kamerstuk = kamerstukID(feedField(k, "nummer"), feedField(k, "toevoeging"), doc.Ondernummer)
		}
		r.docs = append(r.docs, doc)
	}
	r.title = oneTitle(titles)

	// Its zaken, as DossierZakenRequest asks them: newest GestartOp
	// first, then by GUID descending, a page of timelineZaken.
	zs, err := j.idx.Linking(ctx, "zaak", "kamerstukdossier", ids, localindex.MaxJoin)
	if err != nil {
		return r, "", err
	}
	if !zs.Whole() {
		return r, fmt.Sprintf("dossier %s has %d zaken in the replica, more than it joins at once", name, zs.Total), nil
	}
	for _, z := range zs.Entities {
		if why := j.newerStep("zaak", z); why != "" {
			return r, why, nil
		}
	}
	if len(zs.Entities) == 0 && len(docs.Entities) == 0 {
		return r, "the replica holds no document and no zaak in dossier " + name, nil
	}
	sortNewestFirst(zs.Entities, "gestartOp")
	page := zs.Entities[:min(timelineZaken, len(zs.Entities))]
	r.zaken, r.zaakTotal = len(page), len(zs.Entities)
	if len(page) == 0 {
		return r, "", nil
	}

	// Every decision on those zaken (not only votes: a bill may pass
	// without one), as DecisionsRequest asks them: newest voting day
	// first, then by GUID descending, a page of timelineDecisions.
	var zaakIDs []string
	for _, z := range page {
		zaakIDs = append(zaakIDs, z.ID)
	}
	besluiten, err := j.idx.Linking(ctx, "besluit", "zaak", zaakIDs, localindex.MaxJoin)
	if err != nil {
		return r, "", err
	}
	if !besluiten.Whole() {
		return r, fmt.Sprintf("these zaken have %d decisions in the replica, more than it joins at once (%d)", besluiten.Total, localindex.MaxJoin), nil
	}
	drafts := make([]decisionDraft, 0, len(besluiten.Entities))
	for _, b := range besluiten.Entities {
		if why := j.newerStep("besluit", b); why != "" {
			return r, why, nil
		}
		drafts = append(drafts, decisionDraft{besluit: b})
	}
	if why, err := j.votingDays(ctx, drafts); why != "" || err != nil {
		return r, why, err
	}
	slices.SortFunc(drafts, func(a, b decisionDraft) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		return strings.Compare(b.besluit.ID, a.besluit.ID)
	})
	r.decTotal = len(drafts)
	drafts = drafts[:min(timelineDecisions, len(drafts))]
	ds, why, err := j.decisions(ctx, drafts)
	if why != "" || err != nil {
		return r, why, err
	}
	for i, dec := range ds {
		td := TimelineDecision{Decision: dec, Vote: strings.HasPrefix(strings.TrimSpace(dec.Result), "Stemmen")}
		// As ParseDecisions: the activity of the decision's agendapunt.
		if dr := drafts[i]; dr.agendapunt.ID != "" && dr.activiteit.ID != "" {
			a := dr.activiteit
			td.Activity = TimelineActivity{Nummer: feedField(a, "nummer"), Date: day(feedField(a, "datum")),
				Soort: adapters.Squash(feedField(a, "soort")), Onderwerp: adapters.Squash(feedField(a, "onderwerp"))}
			if id := strings.ToLower(a.ID); guidRE.MatchString(id) {
				td.Activity.ID = id
			}
		}
		r.decisions = append(r.decisions, td)
	}
	return r, "", nil
}

// dossiers are the Kamerstukdossier entities named d, by id: its number,
// and its addition or none.
func (j voteJoin) dossiers(ctx context.Context, d adapters.Dossier) (map[string]localindex.Entity, string, error) {
	ks, err := j.idx.ByNummer(ctx, "kamerstukdossier", d.Number, 100)
	if err != nil {
		return nil, "", err
	}
	if !ks.Whole() {
		return nil, fmt.Sprintf("the replica holds %d dossiers numbered %s", ks.Total, d.Number), nil
	}
	out := map[string]localindex.Entity{}
	for _, k := range ks.Entities {
		if !strings.EqualFold(feedField(k, "toevoeging"), d.Addition) {
			continue
		}
		if why := j.newerStep("dossier", k); why != "" {
			return nil, why, nil
		}
		out[strings.ToLower(k.ID)] = k
	}
	if len(out) == 0 {
		return nil, "the replica holds no dossier " + d.String(), nil
	}
	return out, "", nil
}

// newerStep is the reason a timeline is not answered when e was published
// after the replica's last complete pass: the pass that reads it may not
// have read the dossier's other entities of that change yet.
func (j voteJoin) newerStep(what string, e localindex.Entity) string {
	if !localindex.PublishedAfter(e, j.asOf) {
		return ""
	}
	return fmt.Sprintf("the Kamer changed %s %s after the replica's last complete pass (%s); the pass that reads it may not have read the rest of the dossier yet",
		what, e.ID, j.asOf.UTC().Format(time.RFC3339))
}
