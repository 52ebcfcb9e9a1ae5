package tk

import (
	"context"
	"errors"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
)

// Surface is the Tweede Kamer's Gegevensmagazijn for the fan-out, the
// reader and the live check (adapters.Surface), its field names read from
// the $metadata of root (default DefaultRoot), asking the platform for
// every search.
func Surface(root string) adapters.Surface { return SurfaceWith(root, nil) }

// SurfaceWith is the surface that answers word searches from parliament,
// BesluitBron's replica of the SyncFeed, where it can (nil: never).
func SurfaceWith(root string, parliament ParliamentIndex) adapters.Surface {
	if root == "" {
		root = DefaultRoot
	}
	s := adapters.Surface{
		Unfit: func(q adapters.Question) *adapters.UnfitError {
			return adapters.NoOrganisationFilter("Tweede Kamer", q)
		},
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			return searchParliament(ctx, env, root, parliament, q)
		},
		Fetch: func(ctx context.Context, env adapters.Env, raw, _ string) (adapters.Document, error) {
			id, err := ParseDocumentID(raw)
			if err != nil {
				return adapters.Document{}, &adapters.InvalidError{Err: err}
			}
			get := env.Bind(ctx, platforms.TK)
			return Fetch(id, func() (*Schema, error) { return SchemaOf(env.Memo, root, env.Now, get) }, get)
		},
		Probe:     func(adapters.ProbeConfig) (adapters.Probe, error) { return probe(root) },
		Recognize: recognize,
		Timeline:  timelineSource(root, timelineOf(parliament)),
		Votes: func(ctx context.Context, env adapters.Env, id, kind string) ([]adapters.VoteChart, error) {
			return votes(ctx, env, root, votesOf(parliament), id, kind)
		},
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://tk/document/{nummer}{?page}", Name: "tk-document", Title: "Parliamentary document (Tweede Kamer)",
		Description: "A Tweede Kamer document by its number (e.g. 2023D41173) or its GUID: metadata, and its text where OpenTK serves it.",
	}, "nummer", s.Fetch)
	// The records a document is not: an activity, a decision, a vote, a
	// zaak (entity_resource.go), which a timeline's steps name. s.URI
	// stays the documents': a hit is always one.
	s.Resources = append(s.Resources, entityKind(entitiesOf(parliament)))
	return s
}

// searchParliament answers a word search from the replica when it can
// answer it whole and holds a match; otherwise it asks the platform, and
// says why in the provenance.
func searchParliament(ctx context.Context, env adapters.Env, root string, parliament ParliamentIndex, q adapters.Question) (adapters.Page, error) {
	if parliament == nil || strings.TrimSpace(q.Words) == "" {
		return search(ctx, env, root, q)
	}
	if err := (SearchParams{Query: strings.TrimSpace(q.Words), DateFrom: q.From, DateTo: q.To, Limit: q.Limit}).Check(); err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	from, to, _ := adapters.ParseDates(q.From, q.To)
	a, ok, why := parliament.SearchDocuments(ctx, localindex.Query{Words: q.Words, From: from, To: to, Limit: q.Limit})
	if ok {
		return a.Page, nil
	}
	page, err := search(ctx, env, root, q)
	if err != nil {
		return page, err
	}
	page.Provenance = askedPlatform + why
	return page, nil
}

func search(ctx context.Context, env adapters.Env, root string, q adapters.Question) (adapters.Page, error) {
	p := SearchParams{Query: strings.TrimSpace(q.Words), DateFrom: q.From, DateTo: q.To, Limit: q.Limit}
	if err := p.Check(); err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	get := env.Bind(ctx, platforms.TK)
	e, err := documentEntity(env, root, get)
	if err != nil {
		return adapters.Page{}, err
	}
	// Search names a failed call in its own words: the call's own error
	// is what the surface classifies.
	var callErr error
	pg, err := Search(e, p, func(r adapters.Request) ([]byte, error) {
		b, err := get(r)
		if err != nil {
			callErr = err
		}
		return b, err
	})
	if callErr != nil {
		return adapters.Page{}, callErr
	}
	return adapters.Parsed(pg, err)
}

// documentEntity is the Document entity of the OData root, its field
// names read from $metadata (memoised).
func documentEntity(env adapters.Env, root string, get Getter) (*Entity, error) {
	s, err := SchemaOf(env.Memo, root, env.Now, get)
	var bad *MetadataError
	if errors.As(err, &bad) {
		return nil, &adapters.ParseError{Err: bad.Err}
	}
	if err != nil {
		return nil, err
	}
	e, err := s.Entity("Document")
	if err != nil {
		return nil, &adapters.ParseError{Err: err}
	}
	return e, nil
}

// probe asks one Fractie below root: the smallest entity set, whose real answer we
// hold.
func probe(root string) (adapters.Probe, error) {
	return adapters.Probe{Name: "fractie", Ext: "json",
		Request: adapters.Get(root+"/Fractie", map[string][]string{"$top": {"1"}}),
		// As in platforms/tk/emulator's fixture test: the sample's
		// AantalZetels is null.
		Samples: []adapters.Sample{{File: "odata-fractie.json", NullOK: true}}}, nil
}
