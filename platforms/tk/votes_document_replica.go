package tk

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// A document's votes from the replica (issue 37, point 5): the reader
// shows how a motion or an amendment was voted on. A document is not a
// zaak; the SyncFeed writes a document's zaken on the document
// (<zaak ref="…"/>, as tkconv's tkconv.cc reads them), so the replica
// reads them from its copy of the document and then joins their votes as
// tk_votes' zaak question does (votes_replica.go). OData asks the same in
// two requests (votes_surface.go: DocumentZakenRequest, VotesRequest).
//
// Besides what any vote question needs (votes_replica.go), the replica
// answers only when it holds the document, by its GUID or its number (a
// document stored before the index kept documents' numbers has none, see
// localindex's format), holds every zaak the document names, and the
// document names at least one and at most maxVoteCharts of them (OData's
// request reads that many). A motion that names no zaak is unusual
// enough that the platform is asked rather than "no vote" said.

// ParliamentDocumentVotes is the replica as the reader asks a document's
// votes.
type ParliamentDocumentVotes interface {
	// DocumentVotes answers how document doc was voted on, newest voting
	// day first, at most limit decisions, when the replica holds the
	// answer whole; otherwise ok is false and why says why.
	DocumentVotes(ctx context.Context, doc DocumentID, limit int) (a VotesAnswer, ok bool, why string)
}

var _ ParliamentDocumentVotes = parliamentWords{}

// documentVoteCategories are the categories a document's votes join.
var documentVoteCategories = append(slices.Clone(voteCategories), "document")

// DocumentVotes answers a document's votes from the replica held now
// (ParliamentDocumentVotes).
func (w parliamentWords) DocumentVotes(ctx context.Context, doc DocumentID, limit int) (VotesAnswer, bool, string) {
	idx, h, prog, why := w.ready()
	if why != "" {
		return VotesAnswer{}, false, why
	}
	if missing := h.scope.lacks(documentVoteCategories); len(missing) > 0 {
		return VotesAnswer{}, false, "the replica keeps no " + strings.Join(missing, ", ") + ", which a document's votes join"
	}
	found, why, err := (voteJoin{idx: idx, asOf: prog.CompleteUpTo}).documentVotes(ctx, doc, limit)
	if err != nil {
		return VotesAnswer{}, false, replica.LookupFailed(w.held, err)
	}
	if why != "" {
		return VotesAnswer{}, false, why
	}
	return VotesAnswer{VotesFound: found, CompleteUpTo: prog.CompleteUpTo,
		Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), prog)}, true, ""
}

// documentVotes joins the votes on the zaken document doc names: why is
// not "" when the replica cannot answer whole.
func (j voteJoin) documentVotes(ctx context.Context, doc DocumentID, limit int) (VotesFound, string, error) {
	if why, err := j.partial(ctx); why != "" || err != nil {
		return VotesFound{}, why, err
	}
	d, why, err := j.document(ctx, doc)
	if why != "" || err != nil {
		return VotesFound{}, why, err
	}
	ids := refs(d, "zaak")
	switch {
	case len(ids) == 0:
		return VotesFound{}, "the replica's copy of document " + docName(doc) + " names no zaak", nil
	case len(ids) > maxVoteCharts:
		return VotesFound{}, fmt.Sprintf("document %s names %d zaken, more than the reader shows the votes of (%d)", docName(doc), len(ids), maxVoteCharts), nil
	}
	held, err := j.idx.Get(ctx, ids)
	if err != nil {
		return VotesFound{}, "", err
	}
	zaken := make([]localindex.Entity, 0, len(ids))
	for _, id := range ids {
		z, ok := held[id]
		if !ok || z.Category != "zaak" {
			return VotesFound{}, "document " + docName(doc) + " names zaak " + id + ", which the replica does not hold", nil
		}
		zaken = append(zaken, z)
	}
	return j.decisionsOn(ctx, VotesParams{Limit: limit}, zaken, VotesFound{})
}

// document is the replica's copy of doc, when it holds exactly one.
func (j voteJoin) document(ctx context.Context, doc DocumentID) (localindex.Entity, string, error) {
	var found localindex.Found
	if doc.GUID != "" {
		held, err := j.idx.Get(ctx, []string{doc.GUID})
		if err != nil {
			return localindex.Entity{}, "", err
		}
		if e, ok := held[doc.GUID]; ok && e.Category == "document" {
			found = localindex.Found{Entities: []localindex.Entity{e}, Total: 1}
		}
	} else {
		var err error
		if found, err = j.idx.ByNummer(ctx, "document", doc.Nummer, 2); err != nil {
			return localindex.Entity{}, "", err
		}
	}
	switch {
	case found.Total == 0:
		return localindex.Entity{}, "the replica holds no document " + docName(doc), nil
	case found.Total > 1 || len(found.Entities) != 1:
		return localindex.Entity{}, fmt.Sprintf("the replica holds %d documents numbered %s", found.Total, docName(doc)), nil
	}
	d := found.Entities[0]
	if why := j.newer("document", d); why != "" {
		return localindex.Entity{}, why, nil
	}
	return d, "", nil
}

// docName is doc as the user gave it.
func docName(doc DocumentID) string {
	return strings.TrimSpace(doc.Nummer + " " + doc.GUID)
}
