package bwb

import (
	"context"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/platforms"
)

// ProbeID is the regulation whose manifest the live check asks for: one
// the emulator holds (Regeling belastingcapaciteit), whose real manifest
// is as small as the sample's.
const ProbeID = "BWBR0008326"

// Surface is the laws for the fan-out, the reader and the live check
// (adapters.Surface), asking the platform for every search.
func Surface() adapters.Surface { return SurfaceWith(nil) }

// SurfaceWith is the surface that answers searches from local,
// BesluitBron's replica of the BWB's search records, where it can (nil:
// never).
func SurfaceWith(local datereplica.Searcher) adapters.Surface {
	return adapters.Surface{
		Unfit: unfit,
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			return search(ctx, env, local, q)
		},
		Fetch: func(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
			law, err := Fetch(env.Bind(ctx, platforms.BWB), FetchParams{ID: id}, env.Now.Format(time.DateOnly))
			return law.Document, err
		},
		Probe:    probe,
		Timeline: timelineSource,
		Resources: []adapters.ResourceKind{{
			Template: resourceTemplate, Name: "bwb-law", Title: "Law or national regulation (BWB)",
			Description: "A law or national regulation by its BWB identifier (e.g. BWBR0005537), as in force on date (YYYY-MM-DD, default today), whole or one article.",
			Read: func(ctx context.Context, env adapters.Env, vars map[string]string) (adapters.Document, error) {
				id, err := adapters.Var(vars, "id")
				if err != nil {
					return adapters.Document{}, err
				}
				law, err := Fetch(env.Bind(ctx, platforms.BWB), FetchParams{ID: id, Date: strings.TrimSpace(vars["date"]),
					Article: strings.TrimSpace(vars["article"])}, env.Now.Format(time.DateOnly))
				return law.Document, err
			},
		}},
		URI:       func(id, _ string) string { return ResourceURI(id, "", "") },
		Recognize: adapters.Recognizes(ValidID),
	}
}

// resourceTemplate is the URI template of a law as a resource.
const resourceTemplate = "besluitbron://bwb/{id}{?date,article,page}"

// ResourceURI is regulation id as a resource: as in force on date (empty:
// today), whole or one article.
func ResourceURI(id, date, article string) string {
	u, _ := adapters.ExpandURI(resourceTemplate, map[string]string{"id": id, "date": date, "article": article})
	return u
}

// unfit: the laws are searched by words in their title, and are no
// organisation's.
func unfit(q adapters.Question) *adapters.UnfitError {
	if strings.TrimSpace(q.Organisation) != "" {
		return &adapters.UnfitError{Why: "the laws have no organisation filter (they are the State's): search without organisation to include them",
			Reason: adapters.UnfitNoOrganisationFilter}
	}
	return adapters.NeedWords("the laws", q)
}

// search finds the regulations in force on the question's last day
// (today when it names none) whose title holds the words: from the
// replica when it can answer, else from the platform, saying why.
func search(ctx context.Context, env adapters.Env, local datereplica.Searcher, q adapters.Question) (adapters.Page, error) {
	on := q.To
	if on == "" {
		on = env.Now.Format(time.DateOnly)
	}
	p := SearchParams{Words: q.Words, InForceOn: on, Limit: q.Limit}
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
	body, err := env.Get(ctx, platforms.BWB, r)
	if err != nil {
		return adapters.Page{}, err
	}
	page, err := adapters.Parsed(ParseSearch(body))
	if err == nil && why != "" {
		page.Provenance = askedPlatform + why
	}
	return page, err
}

func probe(adapters.ProbeConfig) (adapters.Probe, error) {
	r, err := ManifestRequest(ProbeID)
	// Options as in platforms/bwb/emulator's shape test of manifests.
	return adapters.Probe{Name: "manifest", Request: r, Ext: "xml",
		Samples: []adapters.Sample{{File: "manifest-BWBR0045754.xml"}}}, err
}
