package tk

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// The Kamer's part in a dossier's timeline (issue 37, point 3;
// adapters.TimelineSource): the dossier's documents, and the decisions on
// its zaken with their votes and the activities they were taken at. All
// of it is read from the Gegevensmagazijn's own links, never from
// titles:
//
//	Document?$filter=… and Kamerstukdossier/any(k:k/Nummer eq 36200 and k/Toevoeging eq 'VII')
//	Zaak?$filter=… and Kamerstukdossier/any(…)                       (DossierZakenRequest, tk_votes')
//	Besluit?$filter=… and Zaak/any(z:… and (z/Id eq … or …))&$expand=Zaak,Stemming,Agendapunt($expand=Activiteit)
//
// three requests (and the $metadata about once a day), each through the
// cache and the Kamer's budget. The Besluit answer is the one tk_votes
// reads, in the shape of fixtures/tk/odata-besluit-expand.json, and each
// of its decisions is read by tk_votes' own parser (decisionOf): a vote's
// totals and problems are tk_votes'. Where BesluitBron keeps the
// SyncFeed (issue 37, point 5), the same entities are joined in the
// replica instead, when it holds the whole answer (timeline_replica.go).
// An activity, a decision or a vote has no document behind it: its step
// names the Kamer's record of it (besluitbron://tk/entiteit/{guid},
// entity_resource.go) and is cited by the Kamer's numbers.

// Timeline's bounds: the documents and decisions one call reads (one
// page each, newest first), and the zaken whose decisions it asks for
// (their GUIDs go into one filter, as tk_votes' dossier page does).
const (
	timelineDocuments = PageSize
	timelineDecisions = PageSize
	timelineZaken     = MaxVotesLimit
)

// timelineRequests is the most requests the Kamer's part makes: the
// $metadata (about once a day), the documents, the zaken, the decisions.
const timelineRequests = 4

// timelineSource is the Kamer's part in a dossier's way
// (Surface.Timeline), its field names read from the $metadata of root.
// Where parliament (BesluitBron's replica of the SyncFeed; nil: none)
// holds the whole answer, it answers with no platform request; otherwise
// the platform is asked, and the part's provenance says why.
func timelineSource(root string, parliament ParliamentTimeline) *adapters.TimelineSource {
	return &adapters.TimelineSource{
		Stage: adapters.StageParliament,
		Read: func(ctx context.Context, env adapters.Env, q adapters.TimelineQuery) (adapters.TimelinePart, error) {
			why := ""
			if parliament != nil {
				a, ok, reason := parliament.Timeline(ctx, q.Dossier)
				if ok {
					return a.Part, nil
				}
				why = reason
			}
			part, err := readTimeline(ctx, env, root, q)
			if why != "" {
				part.Provenance += ": " + why
			}
			return part, surfaceErr(err)
		},
		What: fmt.Sprintf(`From the Tweede Kamer (tk): the dossier's documents (its kamerstukken, by the Document→Kamerstukdossier link; the newest %d), and the decisions on its zaken (Zaak→Kamerstukdossier; the newest %d zaken) with the activity each was taken at and, for a vote, the result and totals as tk_votes reads them (the newest %d decisions); a debate at which no decision on a zaak of the dossier was taken is not listed. Where BesluitBron keeps the Kamer's SyncFeed and its replica holds the whole answer, the part is read from it with no platform request, and its provenance says how complete it is.`,
			timelineDocuments, timelineZaken, timelineDecisions),
		Requests: timelineRequests,
		Cost:     "tk three (documents, zaken, decisions) plus its $metadata about once a day, through the Kamer's budget of " + tableRow.Budget.Allowance(),
	}
}

// timelineRead is what the Kamer's part is made of, however it was read
// (OData here, the replica in timeline_replica.go): both make their steps
// with steps, so a step from the replica is the step OData gives for the
// same data.
type timelineRead struct {
	title     string     // the dossier's, where its entities agree on one
	docs      []document // the newest timelineDocuments, newest first
	docTotal  int        // the dossier's documents in all
	zaken     int        // the dossier's zaken whose decisions were read
	zaakTotal int        // its zaken in all
	decisions []TimelineDecision
	decTotal  int // the decisions on those zaken in all
}

// steps fills part with r's steps, and the notes and missing link that
// say what r leaves out, for dossier name.
func (r timelineRead) steps(part *adapters.TimelinePart, name string) {
	part.Title = r.title
	for _, doc := range r.docs {
		part.Steps = append(part.Steps, documentStep(doc, name))
	}
	if r.docTotal > len(r.docs) {
		part.Notes = append(part.Notes, fmt.Sprintf("The Tweede Kamer counts %d documents in dossier %s; the newest %d are listed.", r.docTotal, name, len(r.docs)))
	}
	if r.zaken == 0 {
		part.Missing = append(part.Missing, adapters.TimelineGap{Platform: platforms.TK, Link: "decisions and votes",
			Why: "the Tweede Kamer's data links no zaak to dossier " + name + ", so no decision on it can be read"})
		return
	}
	if r.zaakTotal > r.zaken {
		part.Notes = append(part.Notes, fmt.Sprintf("Dossier %s has %d zaken in the Tweede Kamer's data; the decisions on the newest %d are read (tk_votes with dossier and offset reads the others' votes).", name, r.zaakTotal, r.zaken))
	}
	if r.decTotal > len(r.decisions) {
		part.Notes = append(part.Notes, fmt.Sprintf("Those zaken have %d decisions; the newest %d are listed.", r.decTotal, len(r.decisions)))
	}
	seen := map[string]bool{}
	for _, dec := range r.decisions {
		if a := dec.Activity; a.ID != "" && !seen[a.ID] {
			seen[a.ID] = true
			part.Steps = append(part.Steps, activityStep(a, dec, name))
		}
		part.Steps = append(part.Steps, decisionStep(dec, name))
	}
	if len(r.decisions) == 0 {
		part.Notes = append(part.Notes, fmt.Sprintf("No decision is recorded on the zaken of dossier %s that were read.", name))
	}
}

// noDossier is the answer that the Kamer's data holds nothing of dossier
// name.
func noDossier(name string) error {
	return &adapters.NoDossierError{Why: "The Tweede Kamer's data has no document and no zaak in dossier " + name +
		": check the number and its addition (36200-VII is another dossier than 36200)."}
}

// readTimeline reads the Kamer's steps of q's dossier from the platform.
func readTimeline(ctx context.Context, env adapters.Env, root string, q adapters.TimelineQuery) (adapters.TimelinePart, error) {
	part := adapters.TimelinePart{Provenance: "asked the Tweede Kamer through the cache"}
	get := env.Bind(ctx, platforms.TK)
	counted := func(r adapters.Request) ([]byte, error) {
		part.Requests++
		return get(r)
	}
	s, err := SchemaOf(env.Memo, root, env.Now, counted)
	if err != nil {
		return part, err
	}
	v, err := VoteSets(s)
	if err != nil {
		return part, err
	}
	d := q.Dossier
	name := d.String()
	var r timelineRead

	// The dossier's documents.
	req, err := DossierDocumentsRequest(s, d, timelineDocuments)
	if err != nil {
		return part, err
	}
	body, err := counted(req)
	if err != nil {
		return part, err
	}
	if r.docs, r.docTotal, err = ParseDossierDocuments(s, body); err != nil {
		return part, err
	}
	r.title = dossierTitleOf(s, body, d)

	// Its zaken, then the decisions on them.
	zreq, err := DossierZakenRequest(s, VotesParams{Dossier: d.Number, Toevoeging: d.Addition, Limit: timelineZaken})
	if err != nil {
		return part, err
	}
	if body, err = counted(zreq); err != nil {
		return part, err
	}
	zaakIDs, zaken, err := ParseDossierZaken(s, body)
	if err != nil {
		return part, err
	}
	r.zaken, r.zaakTotal = len(zaakIDs), zaken
	if len(zaakIDs) == 0 && len(r.docs) == 0 {
		return part, noDossier(name)
	}
	if len(zaakIDs) > 0 {
		breq, err := DecisionsRequest(v, zaakIDs, timelineDecisions)
		if err != nil {
			return part, err
		}
		if body, err = counted(breq); err != nil {
			return part, err
		}
		if r.decisions, r.decTotal, err = ParseDecisions(v, body); err != nil {
			return part, err
		}
	}
	r.steps(&part, name)
	return part, nil
}

// DossierDocumentsRequest asks for the documents of dossier d (newest
// first), with their dossier expanded so each kamerstuk's number is read
// (kamerstuk.go), a page of limit.
func DossierDocumentsRequest(s *Schema, d adapters.Dossier, limit int) (adapters.Request, error) {
	e, err := s.Entity("Document")
	if err != nil {
		return adapters.Request{}, err
	}
	k, err := s.Entity("Kamerstukdossier")
	if err != nil {
		return adapters.Request{}, err
	}
	if _, ok := e.navs[dossierNav]; !ok {
		return adapters.Request{}, mismatchf("the Tweede Kamer's OData service at %s has no navigation Document/Kamerstukdossier in its $metadata; the API has changed", s.root)
	}
	f := fmt.Sprintf("%s eq false and Kamerstukdossier/any(k:%s)", e.Name(fVerwijderd), dossierClause(k, d))
	opts := []string{"$filter", f, "$select", e.selectList()}
	if e.dossier != "" {
		// The kamerstuk's number (kamerstuk.go), and the dossier's title
		// where the service has one.
		sel := dossierNummer + "," + dossierToevoeging
		if t := k.Name(fTitel); t != "" {
			sel += "," + t
		}
		opts = append(opts, "$expand", e.dossier+"($select="+sel+")")
	}
	opts = append(opts, "$orderby", e.Name(fDatum)+" desc,"+e.Name(fID)+" desc",
		"$top", strconv.Itoa(limit), "$skip", "0", "$count", "true")
	return adapters.Request{Method: "GET", Path: s.root + "/" + e.Set + "?" + odataQuery(opts...)}, nil
}

// dossierClause is the lambda body that names dossier d, in the form
// DossierZakenRequest writes it: an addition, or none (null or empty,
// whichever the service writes).
func dossierClause(k *Entity, d adapters.Dossier) string {
	tv := "k/" + k.Name(fToevoeging)
	toev := "(" + tv + " eq null or " + tv + " eq '')"
	if d.Addition != "" {
		toev = tv + " eq " + quote(d.Addition)
	}
	return fmt.Sprintf("k/%s eq %s and %s", k.Name(fNummer), d.Number, toev)
}

// ParseDossierDocuments reads the answer to DossierDocumentsRequest: the
// documents, and how many the dossier holds.
func ParseDossierDocuments(s *Schema, body []byte) ([]document, int, error) {
	e, err := s.Entity("Document")
	if err != nil {
		return nil, 0, err
	}
	rows, total, err := parseCounted(body)
	if err != nil {
		return nil, 0, err
	}
	var out []document
	for _, r := range rows {
		d := docFromRow(e, r)
		if !guidRE.MatchString(strings.ToLower(d.ID)) {
			return nil, 0, fmt.Errorf("Tweede Kamer document has no valid %s", e.Name(fID))
		}
		out = append(out, d)
	}
	return out, total, nil
}

// dossierTitleOf is dossier d's title in the answer to
// DossierDocumentsRequest: the one title its expanded dossiers named d
// give, "" when they give none or disagree (the replica reads its
// dossier entities by the same rule, timeline_replica.go).
func dossierTitleOf(s *Schema, body []byte, d adapters.Dossier) string {
	k, err := s.Entity("Kamerstukdossier")
	if err != nil || k.Name(fTitel) == "" {
		return ""
	}
	rows, _, err := parseCounted(body)
	if err != nil {
		return ""
	}
	var titles []string
	for _, r := range rows {
		raw, ok := r[dossierNav]
		if !ok {
			continue
		}
		var ks []map[string]any
		if json.Unmarshal(raw, &ks) != nil {
			continue
		}
		for _, x := range ks {
			if str(x[dossierNummer]) == d.Number && strings.EqualFold(str(x[dossierToevoeging]), d.Addition) {
				titles = append(titles, adapters.Squash(str(x[k.Name(fTitel)])))
			}
		}
	}
	return oneTitle(titles)
}

// oneTitle is the title all of titles agree on, "" when they name none or
// more than one.
func oneTitle(titles []string) string {
	one := ""
	for _, t := range titles {
		switch {
		case t == "":
		case one == "":
			one = t
		case one != t:
			return ""
		}
	}
	return one
}

// DecisionsRequest asks for every decision on the zaken zaakIDs (not
// only the votes: a bill may pass without one), with the expansions
// VotesRequest asks, newest day first, a page of limit.
func DecisionsRequest(v *voteSets, zaakIDs []string, limit int) (adapters.Request, error) {
	if len(zaakIDs) == 0 {
		return adapters.Request{}, fmt.Errorf("no zaak to ask the decisions of")
	}
	b, z, st := v.besluit, v.zaak, v.stemming
	var or []string
	for _, id := range zaakIDs {
		or = append(or, "z/"+z.Name(fID)+" eq "+id)
	}
	filter := fmt.Sprintf("%s eq false and Zaak/any(z:z/%s eq false and (%s))", b.Name(fVerwijderd), z.Name(fVerwijderd), strings.Join(or, " or "))
	day := "Agendapunt/Activiteit/" + v.activiteit.Name(fDatum)
	expand := "Zaak($select=" + z.selectList() + ")," +
		"Stemming($filter=" + st.Name(fVerwijderd) + " eq false;$select=" + st.selectList() + ")," +
		"Agendapunt($select=" + v.agendapunt.selectList() + ";$expand=Activiteit($select=" + v.activiteit.selectList() + "))"
	q := odataQuery("$filter", filter, "$select", b.selectList(), "$expand", expand,
		"$orderby", day+" desc,"+b.Name(fID)+" desc", "$top", strconv.Itoa(limit), "$skip", "0", "$count", "true")
	return adapters.Request{Method: "GET", Path: b.root + "/" + b.Set + "?" + q}, nil
}

// TimelineDecision is a decision of the timeline: tk_votes' Decision
// (its votes counted when it was put to the vote) and the activity it
// was taken at.
type TimelineDecision struct {
	Decision
	// Vote: its BesluitSoort starts with "Stemmen", so its votes count.
	Vote     bool
	Activity TimelineActivity
}

// TimelineActivity is the activity a decision was taken at.
type TimelineActivity struct {
	ID, Nummer, Soort, Onderwerp, Date string
}

// ParseDecisions reads the answer to DecisionsRequest, each decision by
// tk_votes' parser, and the total the service counted.
func ParseDecisions(v *voteSets, body []byte) ([]TimelineDecision, int, error) {
	rows, total, err := parseCounted(body)
	if err != nil {
		return nil, 0, err
	}
	out := make([]TimelineDecision, 0, len(rows))
	for _, r := range rows {
		d, err := decisionOf(v, r)
		if err != nil {
			return nil, 0, err
		}
		td := TimelineDecision{Decision: d, Vote: strings.HasPrefix(strings.TrimSpace(d.Result), "Stemmen")}
		aps, err := nested(r, "Agendapunt")
		if err != nil {
			return nil, 0, err
		}
		if len(aps) > 0 {
			acts, err := nested(aps[0], "Activiteit")
			if err != nil {
				return nil, 0, err
			}
			if len(acts) > 0 {
				a := acts[0]
				ae := v.activiteit
				td.Activity = TimelineActivity{Nummer: a.str(ae, fNummer), Date: day(a.str(ae, fDatum)),
					Soort: adapters.Squash(a.str(ae, fSoort)), Onderwerp: adapters.Squash(a.str(ae, fOnderwerp))}
				if id := strings.ToLower(a.str(ae, fID)); guidRE.MatchString(id) {
					td.Activity.ID = id
				}
			}
		}
		out = append(out, td)
	}
	return out, total, nil
}

// documentURI is a document's resource URI (surface.go's template).
func documentURI(nummer string) string {
	if !IsNumber(nummer) {
		return ""
	}
	u, _ := adapters.ExpandURI("besluitbron://tk/document/{nummer}", map[string]string{"nummer": nummer})
	return u
}

func documentStep(d document, dossier string) adapters.TimelineStep {
	h := d.hit()
	title := h.Title
	if s := adapters.Squash(d.Soort); s != "" && !strings.HasPrefix(strings.ToLower(title), strings.ToLower(s)) {
		title = s + ": " + title
	}
	link := "the Tweede Kamer's Document→Kamerstukdossier link names dossier " + dossier
	if d.Kamerstuk != "" {
		link += " (kamerstuk " + d.Kamerstuk + ")"
	}
	return adapters.TimelineStep{Date: h.Date, Kind: adapters.StepDocument, Platform: platforms.TK, Chamber: "Tweede Kamer",
		Title: adapters.Cut(title, 300), ID: h.ID, Citation: h.Citation, URI: documentURI(d.Nummer), SourceURL: h.URL, LinkedBy: link}
}

func activityStep(a TimelineActivity, d TimelineDecision, dossier string) adapters.TimelineStep {
	title := cmp.Or(a.Soort, "Activiteit")
	if a.Onderwerp != "" && !strings.EqualFold(a.Onderwerp, a.Soort) {
		title += ": " + a.Onderwerp
	}
	if d.Agendapunt != "" {
		title += " (agendapunt: " + d.Agendapunt + ")"
	}
	return adapters.TimelineStep{Date: a.Date, Kind: adapters.StepActivity, Platform: platforms.TK, Chamber: "Tweede Kamer",
		Title: adapters.Cut(title, 300), ID: a.Nummer, Citation: recordCitation("activiteit", a.Nummer, a.Date),
		URI: entityURI(a.ID), SourceURL: entityURL(a.ID),
		LinkedBy: "a decision on " + zakenOf(d.Decision) + ", a zaak of dossier " + dossier + ", was taken at it (Besluit→Agendapunt→Activiteit)"}
}

func decisionStep(d TimelineDecision, dossier string) adapters.TimelineStep {
	var zs []string
	for _, z := range d.Zaken {
		zs = append(zs, strings.TrimSpace(z.Soort+" "+z.Nummer+": "+cmp.Or(z.Onderwerp, z.Titel)))
	}
	s := adapters.TimelineStep{Date: d.Date, Kind: adapters.StepDecision, Platform: platforms.TK, Chamber: "Tweede Kamer",
		Title: adapters.Cut(strings.Join(zs, "; "), 300), ID: d.ID, Citation: decisionCitation(d.Decision),
		URI: entityURI(d.ID), SourceURL: d.SourceURL,
		LinkedBy: "the Besluit→Zaak link names " + zakenOf(d.Decision) + ", a zaak of dossier " + dossier + " (Zaak→Kamerstukdossier)"}
	if d.Vote {
		s.Kind, s.Result = adapters.StepVote, d.Summary
		if len(d.Zaken) > 0 && zaakNummerRE.MatchString(d.Zaken[0].Nummer) {
			// tk_votes' zaak, and the reader's page of its votes.
			s.Votes = d.Zaken[0].Nummer
		}
	} else {
		s.Result = strings.TrimSpace(strings.TrimSuffix(d.Result+": "+d.ResultText, ": "))
	}
	return s
}

// decisionCitation cites a decision (a vote too: its record is the
// besluit) by the Kamer's numbers of the zaken it decides on and its
// day: "Tweede Kamer, besluit over zaak 2022Z17826 (4 oktober 2022)".
// The data gives no Handelingen reference of it; without a zaak number
// there is none.
func decisionCitation(d Decision) string {
	const maxCitedZaken = 3
	var ns []string
	for _, z := range d.Zaken {
		if zaakNummerRE.MatchString(z.Nummer) && !slices.Contains(ns, z.Nummer) {
			if ns = append(ns, z.Nummer); len(ns) > maxCitedZaken {
				break // enough to say there are more
			}
		}
	}
	if len(ns) == 0 {
		return ""
	}
	c := "Tweede Kamer, besluit over zaak " + ns[0]
	switch {
	case len(ns) > maxCitedZaken:
		// A citation names a few; the step's title and the record name
		// all.
		c = "Tweede Kamer, besluit over zaken " + strings.Join(ns[:maxCitedZaken], ", ") + " e.a."
	case len(ns) > 1:
		c = "Tweede Kamer, besluit over zaken " + strings.Join(ns, ", ")
	}
	if day := adapters.DutchDate(d.Date); day != "" {
		c += " (" + day + ")"
	}
	return c
}

func zakenOf(d Decision) string {
	var ns []string
	for _, z := range d.Zaken {
		ns = append(ns, z.Nummer)
	}
	if len(ns) == 0 {
		return "a zaak"
	}
	return "zaak " + strings.Join(ns, ", ")
}
