package ob

import (
	"context"
	"errors"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/platforms"
)

// DefaultProbeID is the publication the live check looks up: the one real
// search record we hold, so the live record can be set beside it field by
// field.
const DefaultProbeID = "gmb-2023-174296"

// Surface is Officiële Bekendmakingen for the fan-out, the reader and the
// live check (adapters.Surface); linkBases gives the base URLs its
// full-text links may point into (nil: none). It asks the platform for
// every search.
func Surface(linkBases func() []string) adapters.Surface { return SurfaceWith(linkBases, nil) }

// SurfaceWith is Surface answering searches from local, BesluitBron's
// replica of the search records, where it can (nil: never).
func SurfaceWith(linkBases func() []string, local datereplica.Searcher) adapters.Surface {
	s := adapters.Surface{
		Unfit: func(adapters.Question) *adapters.UnfitError { return nil }, // it lists without words too
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			return search(ctx, env, local, q)
		},
		Fetch: func(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
			return fetch(ctx, env, linkBases, id)
		},
		Probe:     probe,
		Recognize: recognize,
		Timeline:  timelineSource,
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://ob/{id}{?page}", Name: "ob-publication", Title: "Official publication (Officiële Bekendmakingen)",
		Description: "A publication by its identifier, e.g. stb-2018-84, kst-36410-5, gmb-2016-146361: metadata and full text.",
	}, "id", s.Fetch)
	return s
}

// search asks the replica when it can answer, else the platform, saying
// why.
func search(ctx context.Context, env adapters.Env, local datereplica.Searcher, q adapters.Question) (adapters.Page, error) {
	p := SearchParams{Query: strings.TrimSpace(q.Words), Creator: strings.TrimSpace(q.Organisation), DateFrom: q.From, DateTo: q.To, Limit: q.Limit}
	r, err := SearchRequest(p)
	if err != nil {
		return adapters.Page{}, adapters.Unfit(err)
	}
	var why string
	switch {
	case local != nil && q.FullText:
		why = fullTextWhy
	case local != nil:
		var a datereplica.Answer
		if a, why = searchReplica(ctx, local, p); why == "" {
			return localPage(a, 0), nil
		}
	}
	body, err := env.Get(ctx, platforms.OB, r)
	if err != nil {
		return adapters.Page{}, err
	}
	pg, _, err := ParseSearch(body)
	page, err := adapters.Parsed(pg, err)
	if err == nil && why != "" {
		page.Provenance = askedPlatform + why
	}
	return page, err
}

// fetch looks the publication up and reads its XML file, the one with
// the text; a scanned publication has only its PDF, and no text.
func fetch(ctx context.Context, env adapters.Env, linkBases func() []string, id string) (adapters.Document, error) {
	look, err := LookupRequest(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := env.Get(ctx, platforms.OB, look)
	if err != nil {
		return adapters.Document{}, err
	}
	rec, err := ParseLookup(body, id)
	if errors.Is(err, ErrNoPublication) {
		return adapters.Document{}, adapters.ErrNoDocument
	}
	if err != nil {
		return adapters.Document{}, err
	}
	d := adapters.Document{ID: rec.Hit.ID, Type: rec.Hit.Type, Title: rec.Hit.Title, Date: rec.Hit.Date,
		Source: rec.Hit.Source, URL: rec.Hit.URL, URLDropped: rec.Hit.URLDropped, Citation: rec.Hit.Citation, Meta: map[string]string{}}
	for k, v := range rec.Items {
		if k != "pdf" && k != "html" {
			continue
		}
		if link, dropped := adapters.CheckLink(v); link != "" {
			d.Meta[k] = link
		} else if dropped != "" {
			d.Meta[k+"_dropped"] = dropped
		}
	}
	xmlURL := rec.Items["xml"]
	if xmlURL == "" {
		return d, nil
	}
	var bases []string
	if linkBases != nil {
		bases = linkBases()
	}
	fr, err := FileRequest(bases, xmlURL)
	if err != nil {
		return adapters.Document{}, err
	}
	file, err := env.Get(ctx, platforms.OB, fr)
	if err != nil {
		return adapters.Document{}, err
	}
	if d.Text, err = ParseXML(file); err != nil {
		return adapters.Document{}, err
	}
	return d, nil
}

func probe(cfg adapters.ProbeConfig) (adapters.Probe, error) {
	id := cfg.ID
	if id == "" {
		id = DefaultProbeID
	}
	r, err := LookupRequest(id)
	// As in platforms/ob/emulator's TestSearchRecordShape: the samples
	// were saved without namespaces and without the searchRetrieveResponse
	// envelope.
	return adapters.Probe{Name: "record", Request: r, Ext: "xml", Samples: []adapters.Sample{
		{File: "sru-record-gmb.fragment.xml", IgnoreNamespaces: true, Anywhere: true},
		{File: "sru-enricheddata.fragment.xml", IgnoreNamespaces: true, Anywhere: true},
	}, Absent: func(body []byte) bool {
		page, _, err := ParseSearch(body)
		return err == nil && page.Total == 0
	}, AbsentHint: "pick another publication with -id ob=<id>"}, err
}
