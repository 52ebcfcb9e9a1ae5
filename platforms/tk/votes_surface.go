package tk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// The votes of a document for the surfaces (adapters.Surface.Votes,
// issue 37 point 4): the reader shows how a motion or an amendment was
// voted on with the same requests and parser as tk_votes (votes.go,
// votes_request.go). A document is not a zaak, so its zaken are looked
// up first (one request; a lambda inside VotesRequest's would be nested,
// which the Kamer's service may refuse), then their decisions, in one
// request each, both through the Kamer's route, its cache and budget.

// maxVoteCharts is the most decisions one document's votes show: a zaak
// is voted on once, or a few times (an amendment, then the bill).
const maxVoteCharts = 10

// votedKinds are the kinds of document (Document.Soort, lower case) that
// are put to the vote: the reader asks the votes of these only.
var votedKinds = []string{"motie", "amendement"}

// voted tells whether a document of kind (its Soort) is put to the vote.
// An empty kind is no document (adapters.Surface.Votes).
func voted(kind string) bool {
	k := strings.ToLower(strings.TrimSpace(kind))
	for _, v := range votedKinds {
		if strings.Contains(k, v) {
			return true
		}
	}
	return false
}

// votes are the charts of how document id (a number, a GUID) of kind
// (its Soort), or zaak id (a zaak number, any kind) was voted on: none,
// and no request, for a document of a kind that is not voted on. Both are
// answered from parliament (BesluitBron's replica; nil: none) when it
// holds the whole answer, with no request, each chart saying so; a
// document's through the zaken its copy in the feed names
// (votes_document_replica.go). What the replica cannot vouch for goes to
// the platform.
func votes(ctx context.Context, env adapters.Env, root string, parliament ParliamentVotes, id, kind string) ([]adapters.VoteChart, error) {
	id = strings.TrimSpace(id)
	p := VotesParams{Limit: maxVoteCharts}
	var doc DocumentID
	if z := strings.ToUpper(id); zaakNummerRE.MatchString(z) {
		p.Zaak = z
		if parliament != nil {
			if a, ok, _ := parliament.Votes(ctx, p); ok {
				return chartsOf(a.Decisions, a.Total, a.Provenance), nil
			}
		}
	} else {
		if !voted(kind) {
			return nil, nil
		}
		var err error
		if doc, err = ParseDocumentID(id); err != nil {
			return nil, &adapters.InvalidError{Err: err}
		}
		if dv, ok := parliament.(ParliamentDocumentVotes); ok {
			if a, ok, _ := dv.DocumentVotes(ctx, doc, maxVoteCharts); ok {
				return chartsOf(a.Decisions, a.Total, a.Provenance), nil
			}
		}
	}
	get := env.Bind(ctx, platforms.TK)
	s, err := SchemaOf(env.Memo, root, env.Now, get)
	if err != nil {
		return nil, surfaceErr(err)
	}
	v, err := VoteSets(s)
	if err != nil {
		return nil, surfaceErr(err)
	}
	var zaakIDs []string
	if p.Zaak == "" {
		req, err := DocumentZakenRequest(s, doc)
		if err != nil {
			return nil, surfaceErr(err)
		}
		body, err := get(req)
		if err != nil {
			return nil, err
		}
		if zaakIDs, _, err = ParseDossierZaken(s, body); err != nil {
			return nil, &adapters.ParseError{Err: err}
		}
		if len(zaakIDs) == 0 {
			return nil, nil // a document of no zaak: nothing was voted on
		}
	}
	req, err := VotesRequest(v, p, zaakIDs)
	if err != nil {
		return nil, surfaceErr(err)
	}
	body, err := get(req)
	if err != nil {
		return nil, err
	}
	ds, total, err := ParseVotes(v, body)
	if err != nil {
		return nil, &adapters.ParseError{Err: err}
	}
	return chartsOf(ds, total, ""), nil
}

// chartsOf are decisions ds as charts, of total that were votes on the
// same, each with provenance (where they were read; "" from the
// platform).
func chartsOf(ds []Decision, total int, provenance string) []adapters.VoteChart {
	out := make([]adapters.VoteChart, 0, len(ds))
	for _, d := range ds {
		c := Chart(d)
		c.Provenance = provenance
		out = append(out, c)
	}
	if total > len(ds) && len(out) > 0 {
		last := &out[len(out)-1]
		last.Note = strings.TrimSpace(last.Note + fmt.Sprintf(" The Kamer's data holds %d decisions that were votes on this; the newest %d are shown (tk_votes pages through them all).", total, len(ds)))
	}
	return out
}

// surfaceErr is a schema's or a request builder's failure as the
// surfaces tell it apart: a service description that does not parse or
// lacks what the request needs is an answer in an unexpected form.
func surfaceErr(err error) error {
	var bad *MetadataError
	var mis *MismatchError
	switch {
	case errors.As(err, &bad):
		return &adapters.ParseError{Err: bad.Err}
	case errors.As(err, &mis):
		return &adapters.ParseError{Err: mis}
	}
	return err
}

// DocumentZakenRequest asks for the zaken of a document (by its GUID or
// number): their Id and Nummer, newest first.
func DocumentZakenRequest(s *Schema, id DocumentID) (adapters.Request, error) {
	z, err := s.Entity("Zaak")
	if err != nil {
		return adapters.Request{}, err
	}
	d, err := s.Entity("Document")
	if err != nil {
		return adapters.Request{}, err
	}
	if _, ok := z.navs["Document"]; !ok {
		return adapters.Request{}, mismatchf("the Tweede Kamer's OData service at %s has no navigation Zaak/Document in its $metadata; the API has changed", s.root)
	}
	which := "d/" + d.Name(fID) + " eq " + id.GUID
	if id.GUID == "" {
		which = "d/" + d.Name(fNummer) + " eq " + quote(id.Nummer)
	}
	f := fmt.Sprintf("%s eq false and Document/any(d:%s)", z.Name(fVerwijderd), which)
	order := z.Name(fID)
	if g := z.Name(fGestartOp); g != "" {
		order = g + " desc," + z.Name(fID) + " desc"
	}
	q := odataQuery("$filter", f, "$select", z.Name(fID)+","+z.Name(fNummer), "$orderby", order,
		"$top", fmt.Sprint(maxVoteCharts))
	return adapters.Request{Method: "GET", Path: s.root + "/" + z.Set + "?" + q}, nil
}

// Chart is a decision as a chart shows it: per fractie its seats (a
// vote per fractie) or its members' votes (hoofdelijk), the totals, and
// the problems and note as tk_votes gives them.
func Chart(d Decision) adapters.VoteChart {
	c := adapters.VoteChart{Date: d.Date, Result: cmp.Or(d.Result, d.ResultText), Method: d.Method, Unit: adapters.VoteUnitSeats,
		OtherKind: adapters.OtherNotTakingPart, Note: d.Note, Problems: d.Problems, SourceURL: d.SourceURL, Size: KamerSeats}
	var titles []string
	for _, z := range d.Zaken {
		t := strings.TrimSpace(z.Soort + " " + z.Nummer)
		if s := cmp.Or(z.Onderwerp, z.Titel); s != "" {
			t += ": " + s
		}
		titles = append(titles, t)
	}
	c.Title = strings.Join(titles, "; ")
	if d.PerMember {
		c.Unit = adapters.VoteUnitMembers
	}
	for _, p := range d.Parties {
		if !d.PerMember {
			c.Bars = append(c.Bars, adapters.BarOf(p.Party, p.Vote, p.Seats))
			continue
		}
		c.Bars = append(c.Bars, adapters.VoteBar{Party: p.Party, Vote: p.Vote, Voor: p.Voor, Tegen: p.Tegen,
			Other: p.Members - p.Voor - p.Tegen, NotRecorded: p.NotRecorded})
	}
	// The bars' sum: voor, tegen and the rest as tally counted them
	// (Decision.Totals), with the seats of a fractie no member row
	// accounts for; what of the 150 seats the data does not hold at all
	// the page says from Size.
	c.Totals = adapters.CountBars(c.Bars)
	return c
}
