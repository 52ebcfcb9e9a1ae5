package ob

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/replica"
)

// Officiële Bekendmakingen' replica: the search records of the official
// publications (identifier, title, kind, publication, issuing body, the
// day it appeared, abstract), kept by BesluitBron from KOOP's SRU by
// modification date (adapters/koopsru/datereplica), so ob_search and the
// fan-out answer words in titles and abstracts, publication, creator and
// dates from it. The texts are still read from the repository through the
// cache. The besluitbron app keeps it when the operator turns it on:
// replica ob { since …; interval …; dir … }.

// replicaSpec names the replica.
var replicaSpec = replica.Spec{
	Name:   "publications",
	Unit:   "publications",
	Source: "BesluitBron's index of Officiële Bekendmakingen' search records",
	// The publications of 2024 on: what most questions ask for, at a
	// fraction of the millions since 1995 (docs/operations.md says how to
	// widen it).
	DefaultScope: "2024",
}

// replicaProvider is the replica as the besluitbron app keeps it.
var replicaProvider = datereplica.Provider{Spec: replicaSpec, What: replicaWhat, Source: replicaSource}

// replicaWhat names the index in its failures.
const replicaWhat = "official publications index"

// replicaSource is the SRU service as the harvest asks it: the official
// publications modified in a window, those that appeared before the
// scope left out by the service itself (dt.available, as ob_search's
// dates).
var replicaSource = datereplica.Source{
	Name: "Officiële Bekendmakingen",
	Request: func(w datereplica.Window, since string, offset, limit int) adapters.Request {
		cql := []string{"c.product-area==officielepublicaties", "dt.modified>=" + w.From, "dt.modified<=" + w.To}
		if since != "" {
			cql = append(cql, "dt.available>="+since)
		}
		return adapters.Get(SRUPath, url.Values{"operation": {"searchRetrieve"}, "version": {"2.0"}, "recordSchema": {"gzd"},
			"query": {strings.Join(cql, " and ")}, "startRecord": {strconv.Itoa(offset + 1)}, "maximumRecords": {strconv.Itoa(limit)}})
	},
	Parse:     parseReplicaPage,
	PageSize:  1000, // the most KOOP's SRU gives a page, as public clients measured
	MaxOffset: 4900, // KOOP's SRU fails around startRecord 5000 (SearchRequest)
	Epoch:     datereplica.Epoch,
}

// parseReplicaPage reads a page of search records as the replica keeps
// them, each as ParseSearch makes its hit.
func parseReplicaPage(body []byte) (datereplica.Page, error) {
	resp, err := koopsru.Parse[gzdRecord](body)
	if err != nil {
		return datereplica.Page{}, err
	}
	page := datereplica.Page{Total: resp.Total}
	for _, g := range resp.Records {
		h := g.record().Hit
		id, err := ValidID(h.ID)
		if err == nil && !isDate(h.Date) {
			err = fmt.Errorf("%s has no day it appeared (%q)", id, adapters.Cut(h.Date, 20))
		}
		if err != nil {
			page.Rejected, page.Why = page.Rejected+1, err
			continue
		}
		m := g.Meta
		page.Records = append(page.Records, datereplica.Record{ID: h.ID, Type: adapters.Squash(m.Kern.Type), Title: h.Title,
			Organisation: adapters.Squash(h.Source), Publication: h.Type, Date: h.Date, Modified: strings.TrimSpace(m.Kern.Modified),
			URL: h.URL, Citation: h.Citation, Snippet: h.Snippet,
			// What the platform's search reads besides the title and the
			// text: the abstract, subject, kind, publication, issuer and id.
			Words: adapters.Squash(strings.Join([]string{m.Mantel.Abstract, m.Mantel.Subject, m.Kern.Type, h.Type, h.Source, id}, " "))})
	}
	return page, nil
}

func isDate(s string) bool {
	d, err := adapters.ParseDate("date", s)
	return err == nil && d != ""
}

// askedPlatform begins the provenance of an answer the platform gave
// where the replica might have.
var askedPlatform = "asked " + tableRow.Name + ": "

// wordsOnlyInMetadata ends the provenance of the replica's answer to
// words: the platform's search also reads the publications' text.
const wordsOnlyInMetadata = "; words are found in titles, abstracts, subjects and kinds, not in the text (full_text asks the platform)"

// fullTextWhy is why a search marked full text goes to the platform.
const fullTextWhy = "full_text asks for words inside the publications, which only the platform reads"

// searchReplica asks the replica for p, newest first as the platform
// answers; why is "" when its answer stands. Words the replica finds
// nothing for go to the platform, which reads the texts too.
func searchReplica(ctx context.Context, local datereplica.Searcher, p SearchParams) (datereplica.Answer, string) {
	q := datereplica.Query{Words: strings.Join(koopsru.Words(p.Query), " "), Organisation: strings.Join(koopsru.Words(p.Creator), " "),
		From: p.DateFrom, To: p.DateTo, Limit: p.Limit, Offset: p.Offset, Order: datereplica.OrderNewest}
	if p.Publication != "" {
		for _, pub := range Publications {
			if strings.EqualFold(pub, p.Publication) {
				q.Publication = pub
			}
		}
	}
	a, ok, why := local.SearchReplica(ctx, q)
	switch {
	case !ok:
		return a, why
	case a.Total == 0 && q.Words != "":
		return a, "the replica holds no match; words of a publication's text are only at the platform"
	}
	if q.Words != "" {
		a.Provenance += wordsOnlyInMetadata
	}
	return a, ""
}

// localPage is the replica's answer as a page of hits, each as
// ParseSearch makes it of a search record (its type: the publication).
func localPage(a datereplica.Answer, offset int) adapters.Page {
	return a.Page(offset, func(hit datereplica.Hit) adapters.Hit {
		h := adapters.Hit{ID: hit.ID, Type: hit.Publication, Title: hit.Title, Date: hit.Date, Source: hit.Organisation,
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
