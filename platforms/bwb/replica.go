package bwb

import (
	"context"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/replica"
)

// The laws' replica: the BWB's search records (every version of every
// regulation: identifier, title, kind, ministry, period in force), kept
// by BesluitBron from KOOP's SRU by modification date
// (adapters/koopsru/datereplica), so bwb_search and the fan-out answer
// words, kind and in force from it. The texts are still read from the
// repository through the cache. The besluitbron app keeps it when the
// operator turns it on: replica bwb { since …; interval …; dir … }.

// replicaSpec names the replica.
var replicaSpec = replica.Spec{
	Name:   "laws",
	Unit:   "regulation versions",
	Source: "BesluitBron's index of the BWB's search records",
	// Every version: the BWB's search records are small (about 22,000
	// regulations in force, a few versions each), and a question may ask
	// what was in force on any day.
	DefaultScope: "",
}

// replicaProvider is the replica as the besluitbron app keeps it.
var replicaProvider = datereplica.Provider{Spec: replicaSpec, What: replicaWhat, Source: replicaSource}

// replicaWhat names the index in its failures.
const replicaWhat = "laws index"

// replicaSource is the BWB connection as the harvest asks it.
var replicaSource = datereplica.Source{
	Name: "the BWB",
	Request: func(w datereplica.Window, _ string, offset, limit int) adapters.Request {
		cql := "dcterms.modified>=" + w.From + " and dcterms.modified<=" + w.To
		return adapters.Get(SearchPath, koopsru.SearchRetrieve("BWB", cql, offset, limit))
	},
	Parse:     parseReplicaPage,
	PageSize:  1000, // the most KOOP's SRU is asked for by public clients
	MaxOffset: MaxOffset,
	Epoch:     datereplica.Epoch,
}

// parseReplicaPage reads a page of search records as the replica keeps
// them: one per version, keyed by the identifier and the day the version
// came in force (its manifest label's date).
func parseReplicaPage(body []byte) (datereplica.Page, error) {
	resp, err := koopsru.Parse[record](body)
	if err != nil {
		return datereplica.Page{}, err
	}
	page := datereplica.Page{Total: resp.Total}
	for _, r := range resp.Records {
		k, ipm := r.Meta.Kern, r.Meta.IPM
		id, err := ValidID(k.Identifier)
		from := strings.TrimSpace(ipm.From)
		if err == nil {
			if d, derr := adapters.ParseDate("geldigheidsperiode_startdatum", from); derr != nil || d == "" {
				err = fmt.Errorf("a version of %s without a start date in force (%q)", id, adapters.Cut(from, 20))
			}
		}
		if err != nil {
			page.Rejected, page.Why = page.Rejected+1, err
			continue
		}
		until := strings.TrimSpace(ipm.Until)
		if until == OpenEnd {
			until = ""
		}
		page.Records = append(page.Records, datereplica.Record{
			ID: id + "_" + from, Group: id, Type: strings.TrimSpace(k.Type), Title: adapters.Cut(adapters.Squash(k.Title), 500),
			Organisation: adapters.Squash(k.Authority), Date: from, InForceFrom: from, InForceUntil: until,
			Modified: strings.TrimSpace(k.Modified), URL: PageURL(id, ""), Snippet: snippet(from, until, ipm.Areas),
			Words: strings.Join(ipm.Areas, " "),
		})
	}
	return page, nil
}

// askedPlatform begins the provenance of an answer the platform gave
// where the replica might have.
var askedPlatform = "asked " + tableRow.Name + ": "

// searchReplica asks the replica for p's regulations in force on the
// day p names (it must name one); why is "" when its answer stands.
func searchReplica(ctx context.Context, local datereplica.Searcher, p SearchParams) (datereplica.Answer, string) {
	q := datereplica.Query{Words: p.Words, InForceOn: p.InForceOn, Limit: p.Limit, Offset: p.Offset}
	if p.Type != "" {
		kind, ok := canonicalType(p.Type)
		if !ok {
			return datereplica.Answer{}, "the type is not one the replica knows"
		}
		q.Types = []string{kind}
	}
	a, ok, why := local.SearchReplica(ctx, q)
	if !ok {
		return a, why
	}
	return a, ""
}

// localPage is the replica's answer as a page of hits, each as
// ParseSearch makes it of a search record: one per regulation.
func localPage(a datereplica.Answer, offset int) adapters.Page {
	return a.Page(offset, func(hit datereplica.Hit) adapters.Hit {
		h := adapters.Hit{ID: hit.Group, Type: hit.Type, Title: hit.Title, Date: hit.InForceFrom, Source: hit.Organisation, Snippet: hit.Snippet}
		h.SetURL(hit.URL)
		h.Citation = Citation(h.Title, "", "", "")
		return h
	})
}

// Interface guards
var (
	_ replica.Provider = provider{}
	_ replica.Offerer  = provider{}
	_ replica.Remover  = provider{}
)
