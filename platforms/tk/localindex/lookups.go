package localindex

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/besluitbron/besluitbron/replica/bleveindex"

	"github.com/besluitbron/besluitbron/platforms/tk/feed"
)

// The lookups that join entities, as tk_votes reads them from the
// replica (platforms/tk/votes_replica.go): a zaak or a dossier by its
// number, the entities that link to others (a zaak's besluiten, a
// besluit's stemmingen, a dossier's zaken), a zaak's title words, and
// what the feed published after a moment. The SyncFeed writes a link as
// an element with a ref (<zaak ref="…"/>) on one side only; an entity's
// links are indexed as "<element>:<guid>" terms, so either side can be
// found from the other.

// numbered are the categories whose number is indexed, by the element
// that holds it: a zaak (2022Z17826), a dossier (36200) and a document
// (2023D41173; the feed writes documentNummer, as tkconv reads it, and a
// newer version may write nummer).
var numbered = map[string][]string{"zaak": {"nummer"}, "kamerstukdossier": {"nummer"}, "document": {"documentNummer", "nummer"}}

// numberOf is e's number as the index keeps it; "" when its category is
// not numbered or it gives none.
func numberOf(e feed.Entity) string {
	for _, name := range numbered[e.Category] {
		for k, v := range e.Fields {
			if strings.EqualFold(k, name) && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}

// refTerms are the terms of an entity's links, lower case.
func refTerms(refs map[string][]string) []string {
	var out []string
	for name, ids := range refs {
		for _, id := range ids {
			if id != "" {
				out = append(out, RefTerm(name, id))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RefTerm is the term of a link to id by an element named name.
func RefTerm(name, id string) string { return strings.ToLower(name + ":" + id) }

// updatedTerm is when the feed published an entity, as a term that sorts
// by time (UTC, RFC 3339, whole seconds); "" when it does not read.
func updatedTerm(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// MaxJoin is the most entities one lookup reads; a lookup that matches
// more says so (Found.Total), and its caller does not answer from part of
// them.
const MaxJoin = 20000

// Found are the entities a lookup read, by id, and how many matched.
type Found struct {
	Total    uint64
	Entities []Entity // sorted by id
}

// Whole tells whether every match was read.
func (f Found) Whole() bool { return uint64(len(f.Entities)) == f.Total }

// find reads up to max entities that q matches.
func (i *Index) find(ctx context.Context, q query.Query, max int) (Found, error) {
	if max < 1 || max > MaxJoin {
		return Found{}, fmt.Errorf("%w: a lookup of %d entities", ErrBadQuery, max)
	}
	req := bleve.NewSearchRequestOptions(q, max, 0, false)
	req.Fields = []string{fieldEntity}
	req.Score = "none"
	req.SortBy([]string{"_id"})
	res, err := i.store.Search(ctx, req)
	if err != nil {
		return Found{}, err
	}
	out := Found{Total: res.Total}
	for _, h := range res.Hits {
		e, err := entityOf(h.ID, h.Fields)
		if err != nil {
			return Found{}, err
		}
		out.Entities = append(out.Entities, e)
	}
	return out, nil
}

func term(field, value string) query.Query {
	q := query.NewTermQuery(strings.ToLower(value))
	q.SetField(field)
	return q
}

// ByNummer reads the entities of category (zaak, kamerstukdossier,
// document) whose number is nummer.
func (i *Index) ByNummer(ctx context.Context, category, nummer string, max int) (Found, error) {
	if numbered[category] == nil {
		return Found{}, fmt.Errorf("%w: %s has no number the index keeps", ErrBadQuery, category)
	}
	return i.find(ctx, query.NewConjunctionQuery([]query.Query{categoryIs(category), term(fieldNummer, nummer)}), max)
}

// refChunk is the most link terms one search ORs.
const refChunk = 512

// Linking reads the entities of category that link to any of ids by an
// element named link: a zaak's besluiten are Linking("besluit", "zaak",
// zaakIDs), a besluit's stemmingen Linking("stemming", "besluit", …).
func (i *Index) Linking(ctx context.Context, category, link string, ids []string, max int) (Found, error) {
	var out Found
	seen := map[string]bool{}
	for start := 0; start < len(ids); start += refChunk {
		var or []query.Query
		for _, id := range ids[start:min(start+refChunk, len(ids))] {
			or = append(or, term(fieldRefs, RefTerm(link, id)))
		}
		f, err := i.find(ctx, query.NewConjunctionQuery([]query.Query{categoryIs(category), query.NewDisjunctionQuery(or)}), max)
		if err != nil {
			return Found{}, err
		}
		// An entity linking to ids of two chunks is found twice.
		out.Total += f.Total
		for _, e := range f.Entities {
			if seen[e.ID] {
				out.Total--
				continue
			}
			seen[e.ID] = true
			out.Entities = append(out.Entities, e)
		}
		if len(out.Entities) > max {
			out.Entities = out.Entities[:max]
		}
	}
	slices.SortFunc(out.Entities, func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// WithWords reads the entities of category (zaak) whose title or subject
// holds every word of words, as SearchDocuments matches them (Dutch
// stemming).
func (i *Index) WithWords(ctx context.Context, category, words string, max int) (Found, error) {
	return i.find(ctx, query.NewConjunctionQuery([]query.Query{categoryIs(category), bleveindex.EveryWord(fieldText, words)}), max)
}

// ChangedAfter reads the entities of category the feed published after
// t (those the index holds). The feed gives whole seconds, so one
// published in t's second counts as after it (PublishedAfter).
func (i *Index) ChangedAfter(ctx context.Context, category string, t time.Time, max int) (Found, error) {
	incl, excl := true, false
	r := query.NewTermRangeInclusiveQuery(t.UTC().Truncate(time.Second).Format(time.RFC3339), "", &incl, &excl)
	r.SetField(fieldUpdated)
	return i.find(ctx, query.NewConjunctionQuery([]query.Query{categoryIs(category), r}), max)
}

// PublishedAfter tells whether the feed published e after t, as
// ChangedAfter finds it; an entity whose time does not read is not.
func PublishedAfter(e Entity, t time.Time) bool {
	u := updatedTerm(e.Updated)
	return u != "" && u >= t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// Links tells whether any entity of category that the index holds links
// to another by an element named link: whether the feed writes that link
// at all. A lookup by a link the feed never writes finds nothing, which
// must not read as "none links" (platforms/tk/timeline_replica.go).
func (i *Index) Links(ctx context.Context, category, link string) (bool, error) {
	p := query.NewPrefixQuery(RefTerm(link, ""))
	p.SetField(fieldRefs)
	res, err := i.store.Search(ctx, bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{categoryIs(category), p}), 0, 0, false))
	if err != nil {
		return false, err
	}
	return res.Total > 0, nil
}
