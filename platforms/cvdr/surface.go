package cvdr

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/platforms"
)

// ProbeID is the regulation the live check reads: the real sample's
// (fixtures/cvdr), so the live one is held against it element by element.
const ProbeID = "CVDR100394_2"

// Surface is the local regulations for the fan-out, the reader and the
// live check (adapters.Surface), asking the platform for every search.
func Surface() adapters.Surface { return SurfaceWith(nil) }

// SurfaceWith is the surface that answers searches from local,
// BesluitBron's replica of the CVDR's search records, where it can (nil:
// never).
func SurfaceWith(local datereplica.Searcher) adapters.Surface {
	s := adapters.Surface{
		Unfit: func(q adapters.Question) *adapters.UnfitError {
			if strings.TrimSpace(q.Organisation) != "" {
				return nil // it lists an organisation's regulations without words too
			}
			return adapters.NeedWords("the local regulations", q)
		},
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			return search(ctx, env, local, q)
		},
		Fetch: func(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
			return Fetch(env.Bind(ctx, platforms.CVDR), id)
		},
		Probe:     probe,
		Recognize: recognize,
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://cvdr/{id}{?page}", Name: "cvdr-regulation", Title: "Local regulation (CVDR)",
		Description: "One version of a local regulation of a municipality, province or water board by its CVDR identifier: CVDR101010_2, or CVDR101010/2 as its citation writes it (cvdr_search gives the version in force).",
	}, "id", s.Fetch)
	return s
}

// search finds the regulations in force on the question's last day
// (today when it names none): from the replica when it can answer, else
// from the platform, saying why.
func search(ctx context.Context, env adapters.Env, local datereplica.Searcher, q adapters.Question) (adapters.Page, error) {
	on := q.To
	if on == "" {
		on = env.Now.Format(time.DateOnly)
	}
	p := SearchParams{Words: q.Words, Organisation: q.Organisation, InForceOn: on, Limit: q.Limit}
	r, err := SearchRequest(p)
	if err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	var why string
	if local != nil {
		var a datereplica.Answer
		if a, why = searchReplica(ctx, local, p); why == "" {
			return localPage(a, 0), nil
		}
	}
	body, err := env.Get(ctx, platforms.CVDR, r)
	if err != nil {
		return adapters.Page{}, err
	}
	page, err := adapters.Parsed(ParseSearch(body, on))
	if err == nil && why != "" {
		page.Provenance = askedPlatform + why
	}
	return page, err
}

// Fetch reads one version of a regulation. A malformed identifier is an
// *adapters.InvalidError before any call; one the repository does not
// hold is adapters.ErrNoDocument (wrapped).
func Fetch(get func(adapters.Request) ([]byte, error), id string) (adapters.Document, error) {
	r, err := DocumentRequest(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := get(r)
	if adapters.KindOf(err) == adapters.KindNotFound {
		p, _ := ParseID(id)
		return adapters.Document{}, fmt.Errorf("%w: the CVDR holds no regulation version %s; take an identifier from cvdr_search", adapters.ErrNoDocument, p)
	}
	if err != nil {
		return adapters.Document{}, err
	}
	return adapters.Parsed(ParseRegulation(body))
}

func probe(adapters.ProbeConfig) (adapters.Probe, error) {
	r, err := DocumentRequest(ProbeID)
	// Options as in platforms/cvdr/emulator's shape test.
	return adapters.Probe{Name: "regulation", Request: r, Ext: "xml",
		Samples: []adapters.Sample{{File: "CVDR100394_2.xml"}}}, err
}
