package cvdr

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/replica"
)

// The local regulations' replica: the CVDR's search records (every
// version: identifier, title, organisation, period in force, subject),
// kept by BesluitBron from KOOP's SRU by modification date
// (adapters/koopsru/datereplica), so cvdr_search and the fan-out answer
// words, organisation and in force from it. The texts are still read
// from the repository through the cache. The besluitbron app keeps it
// when the operator turns it on: replica cvdr { since …; interval …;
// dir … }.

// replicaSpec names the replica.
var replicaSpec = replica.Spec{
	Name:   "local-regulations",
	Unit:   "regulation versions",
	Source: "BesluitBron's index of the CVDR's search records",
	// The versions in force from 2024 on: what most questions ask for,
	// at a fraction of the CVDR's history (docs/operations.md says how
	// to widen it).
	DefaultScope: "2024",
}

// replicaProvider is the replica as the besluitbron app keeps it.
var replicaProvider = datereplica.Provider{Spec: replicaSpec, What: replicaWhat, Source: replicaSource}

// replicaWhat names the index in its failures.
const replicaWhat = "local regulations index"

// replicaSource is the cvdr connection as the harvest asks it.
var replicaSource = datereplica.Source{
	Name: "the CVDR",
	Request: func(w datereplica.Window, _ string, offset, limit int) adapters.Request {
		cql := "dcterms.modified>=" + w.From + " and dcterms.modified<=" + w.To
		return adapters.Get(SearchPath, koopsru.SearchRetrieve("cvdr", cql, offset, limit))
	},
	Parse:     parseReplicaPage,
	PageSize:  1000, // the most KOOP's SRU is asked for by public clients; one reports the CVDR cuts at 100
	MaxOffset: MaxOffset,
	Epoch:     datereplica.Epoch,
}

// parseReplicaPage reads a page of search records as the replica keeps
// them: one per version, as ParseSearch makes its hit.
func parseReplicaPage(body []byte) (datereplica.Page, error) {
	resp, err := koopsru.Parse[record](body)
	if err != nil {
		return datereplica.Page{}, err
	}
	page := datereplica.Page{Total: resp.Total}
	for _, r := range resp.Records {
		h, d, err := r.hit()
		if err != nil {
			page.Rejected, page.Why = page.Rejected+1, err
			continue
		}
		rec := datereplica.Record{ID: h.ID, Type: h.Type, Title: h.Title, Organisation: h.Source, Date: h.Date,
			InForceFrom: d.Meta["in_force_from"], Modified: d.Meta["modified"], URL: h.URL, Citation: h.Citation, Snippet: h.Snippet,
			Words: strings.Join([]string{h.Source, d.Meta["subject"], d.Meta["concerns"]}, " ")}
		if until := d.Meta["in_force_until"]; until != "" {
			// The CVDR's end is the day its successor takes over
			// (InForce); the replica's is the last day in force.
			if t, err := time.Parse(time.DateOnly, until); err == nil {
				rec.InForceUntil = t.AddDate(0, 0, -1).Format(time.DateOnly)
			}
		}
		if rec.InForceFrom == "" {
			page.Rejected, page.Why = page.Rejected+1, fmt.Errorf("%s has no day it came in force", h.ID)
			continue
		}
		page.Records = append(page.Records, rec)
	}
	return page, nil
}

// askedPlatform begins the provenance of an answer the platform gave
// where the replica might have.
var askedPlatform = "asked " + tableRow.Name + ": "

// searchReplica asks the replica for p's regulation versions (p names
// the day in force); why is "" when its answer stands. A search the
// replica finds nothing for goes to the platform: its keyword index may
// read words the search records do not hold.
func searchReplica(ctx context.Context, local datereplica.Searcher, p SearchParams) (datereplica.Answer, string) {
	q := datereplica.Query{Words: strings.Join(koopsru.Words(p.Words), " "), Organisation: strings.Join(koopsru.Words(p.Organisation), " "),
		InForceOn: p.InForceOn, Limit: p.Limit, Offset: p.Offset}
	a, ok, why := local.SearchReplica(ctx, q)
	switch {
	case !ok:
		return a, why
	case a.Total == 0:
		return a, "the replica holds no match; words of a regulation's text are only at the platform"
	}
	return a, ""
}

// localPage is the replica's answer as a page of hits, each as
// ParseSearch makes it of a search record.
func localPage(a datereplica.Answer, offset int) adapters.Page {
	return a.Page(offset, func(hit datereplica.Hit) adapters.Hit {
		h := adapters.Hit{ID: hit.ID, Type: hit.Type, Title: hit.Title, Date: hit.Date, Source: hit.Organisation,
			Snippet: hit.Snippet, Citation: hit.Citation}
		h.SetURL(hit.URL)
		return h
	})
}

// Interface guards
var (
	_ replica.Provider = provider{}
	_ replica.Offerer  = provider{}
	_ replica.Remover  = provider{}
)
