package tk

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// ParliamentIndex is the replica as the Tweede Kamer's surface and tools
// ask it.
type ParliamentIndex interface {
	// SearchDocuments answers q from the replica when it can answer it
	// whole: it has caught up with the feed, and keeps the documents and
	// the years q asks. Otherwise ok is false and why says why, for the
	// provenance of the platform's answer.
	SearchDocuments(ctx context.Context, q localindex.Query) (a LocalAnswer, ok bool, why string)
}

// LocalAnswer is the replica's answer to a search, as a page of hits.
type LocalAnswer struct {
	Page adapters.Page
	// CompleteUpTo is the time up to which the replica holds every
	// change of the feed: the age of the answer.
	CompleteUpTo time.Time
}

// Offer is the replica as the platform's surface asks it
// (replica.Offerer): a ParliamentIndex over the index held now.
func (provider) Offer(held replica.Held, _ clock.Clock) any { return parliamentWords{held: held} }

type parliamentWords struct {
	held replica.Held
}

var _ ParliamentIndex = parliamentWords{}

// open is the parliament index and harvester held now, or why they
// cannot be asked.
func (w parliamentWords) open() (*localindex.Index, *harvester, string) {
	return replica.Opened[*localindex.Index, *harvester](w.held, "a parliament index")
}

// ready is the index and harvester held now and the harvest's progress,
// when the replica can answer (it has completed a pass, read the feed
// whole and not stopped); otherwise why it cannot.
func (w parliamentWords) ready() (*localindex.Index, *harvester, replica.Progress, string) {
	idx, h, why := w.open()
	if why != "" {
		return nil, nil, replica.Progress{}, why
	}
	p := h.overall()
	if why := replica.Unready(p); why != "" {
		return nil, nil, p, why
	}
	return idx, h, p, ""
}

func (w parliamentWords) SearchDocuments(ctx context.Context, q localindex.Query) (LocalAnswer, bool, string) {
	idx, h, p, why := w.ready()
	if why != "" {
		return LocalAnswer{}, false, why
	}
	if !h.scope.holdsDocuments() {
		return LocalAnswer{}, false, "the replica keeps no documents"
	}
	// A question reaching before the years kept is answered for the
	// years kept, and the provenance says so; one wholly before them
	// goes to the platform.
	var before string
	if h.scope.Since != 0 {
		first := fmt.Sprintf("%04d-01-01", h.scope.Since)
		if q.To != "" && q.To < first {
			return LocalAnswer{}, false, "the replica keeps documents from " + first + " on, and the question asks before it"
		}
		if q.From < first {
			q.From = first
			before = "; it keeps documents from " + first + " on, so earlier ones are not among these hits"
		}
	}
	res, err := idx.SearchDocuments(ctx, q)
	if err != nil {
		return LocalAnswer{}, false, replica.LookupFailed(w.held, err)
	}
	if res.Total == 0 {
		return LocalAnswer{}, false, "the replica holds no match; the platform matches parts of words too"
	}
	page := adapters.Page{Total: int(res.Total), HasMore: q.Offset+len(res.Hits) < int(res.Total), Hits: []adapters.Hit{},
		Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), p) + before}
	page.Hits = append(page.Hits, hitsOf(ctx, idx, res.Hits)...)
	return LocalAnswer{Page: page, CompleteUpTo: p.CompleteUpTo}, true, ""
}

// hitsOf are the documents docs as hits, as OData's search gives them:
// each in exactly one dossier the replica holds has its kamerstuk number
// (kamerstukOf's rule: a document in two dossiers has its volgnummer in
// one of them, unsaid, and gets none). The number lets the fan-out fold
// the document with Officiële Bekendmakingen' copy of it and the page link
// its dossier; without it (a feed that gives no Document→Kamerstukdossier
// link, a replica that keeps no dossiers, a lookup that fails) the hits
// carry none, as before.
func hitsOf(ctx context.Context, idx *localindex.Index, docs []localindex.Entity) []adapters.Hit {
	var ids []string
	for _, e := range docs {
		if ks := refs(e, "kamerstukdossier"); len(ks) == 1 && !slices.Contains(ids, ks[0]) {
			ids = append(ids, ks[0])
		}
	}
	dossiers, err := idx.Get(ctx, ids)
	if err != nil {
		dossiers = nil
	}
	out := make([]adapters.Hit, 0, len(docs))
	for _, e := range docs {
		d := documentOfFeed(e.ID, e.Fields)
		if ks := refs(e, "kamerstukdossier"); len(ks) == 1 {
			if k, ok := dossiers[ks[0]]; ok {
				d.Kamerstuk = kamerstukID(feedField(k, "nummer"), feedField(k, "toevoeging"), d.Ondernummer)
			}
		}
		out = append(out, d.hit())
	}
	return out
}

// askedPlatform begins the provenance of an answer the platform gave
// where the replica might have.
const askedPlatform = "asked the Tweede Kamer: "
