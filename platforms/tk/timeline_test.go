package tk

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// The real Besluit answer (fixtures/tk/odata-besluit-expand.json) read as
// the timeline reads it: tk_votes' decision, its vote counted, and the
// activity it was taken at with its kind, subject, number and day.
func TestTimelineDecisionsRealFixture(t *testing.T) {
	_, v, _, _ := voteSchema(t, legacyRoot)
	ds, total, err := ParseDecisions(v, fixture.Read(t, "tk", "odata-besluit-expand.json"))
	if err != nil || len(ds) != 1 || total != 1 {
		t.Fatalf("%d decisions (total %d): %v", len(ds), total, err)
	}
	d := ds[0]
	if !d.Vote || d.Date != "2022-10-04" || d.Totals.Present != 5 || d.Zaken[0].Nummer != "2022Z17826" {
		t.Fatalf("decision %+v", d)
	}
	a := d.Activity
	if a.ID != "67a7af98-09b5-4f87-8975-a4f28e722cfe" || a.Nummer != "2022A07659" || a.Date != "2022-10-04" {
		t.Fatalf("activity %+v", a)
	}
	// The emulator's $metadata lists Soort and Onderwerp on Activiteit
	// (its fields are the fixture's), so they are read.
	if a.Soort != "Stemmingen" || a.Onderwerp != "Stemmingen" {
		t.Fatalf("activity kind and subject %+v (names %v)", a, v.activiteit.Names())
	}
	s := decisionStep(d, "35727")
	if s.Kind != adapters.StepVote || s.Result != d.Summary || s.Date != "2022-10-04" ||
		s.URI != "besluitbron://tk/entiteit/6b15c18f-fdc5-4ea4-bee2-a556e94d7682" || s.Citation != "Tweede Kamer, besluit over zaak 2022Z17826 (4 oktober 2022)" ||
		s.SourceURL != "https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Entiteiten/6b15c18f-fdc5-4ea4-bee2-a556e94d7682" ||
		!strings.Contains(s.LinkedBy, "zaak 2022Z17826, a zaak of dossier 35727") || !strings.HasPrefix(s.Title, "Motie 2022Z17826: Gewijzigde motie") {
		t.Fatalf("vote step %+v", s)
	}
	as := activityStep(a, d, "35727")
	if as.Kind != adapters.StepActivity || as.ID != "2022A07659" || !strings.HasPrefix(as.Title, "Stemmingen (agendapunt: Moties ingediend bij het notaoverleg") ||
		as.URI != "besluitbron://tk/entiteit/67a7af98-09b5-4f87-8975-a4f28e722cfe" || as.Citation != "Tweede Kamer, activiteit 2022A07659 (4 oktober 2022)" ||
		as.SourceURL != "https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Entiteiten/67a7af98-09b5-4f87-8975-a4f28e722cfe" {
		t.Fatalf("activity step %+v", as)
	}

	// A decision that was no vote is a decision, with its result as
	// recorded and no tally in it.
	var env map[string]any
	if err := json.Unmarshal(fixture.Read(t, "tk", "odata-besluit-expand.json"), &env); err != nil {
		t.Fatal(err)
	}
	row := env["value"].([]any)[0].(map[string]any)
	row["BesluitSoort"], row["BesluitTekst"], row["Stemming"] = "Aangehouden", "Aangehouden.", []any{}
	b, _ := json.Marshal(env)
	ds, _, err = ParseDecisions(v, b)
	if err != nil || len(ds) != 1 || ds[0].Vote {
		t.Fatalf("%+v %v", ds, err)
	}
	if s := decisionStep(ds[0], "35727"); s.Kind != adapters.StepDecision || s.Result != "Aangehouden: Aangehouden." {
		t.Fatalf("decision step %+v", s)
	}
}

// Answers that are not what the requests ask for fail; nothing of them
// becomes a step.
func TestTimelineParseHostile(t *testing.T) {
	s, v, _, _ := voteSchema(t, legacyRoot)
	for _, body := range []string{``, `{`, `[]`, `{"value":{}}`, `{"value":[{"Id":"not-a-guid"}]}`, `{"value":[{"Titel":"no id"}]}`, `<html>busy</html>`} {
		if _, _, err := ParseDossierDocuments(s, []byte(body)); err == nil {
			t.Errorf("documents %q parsed", body)
		}
		if body == `{"value":{}}` || body == `[]` || body == `` || body == `{` || body == `<html>busy</html>` {
			if _, _, err := ParseDecisions(v, []byte(body)); err == nil {
				t.Errorf("decisions %q parsed", body)
			}
		}
	}
	if _, err := DecisionsRequest(v, nil, 10); err == nil {
		t.Error("a decision request without zaken")
	}
}

// Against the emulator: a dossier with a vote gives its documents (each a
// kamerstuk of the dossier, with its citation and resource URI) and the
// decisions on its zaken, every request with an Id tie-breaker and a
// $top the new version takes.
func TestTimelineAgainstEmulator(t *testing.T) {
	s, v, log, get := voteSchema(t, legacyRoot)
	body, err := get(adaptersGet("/OData/v4/2.0/Besluit?$filter=startswith(BesluitSoort,'Stemmen')&$expand=Zaak($expand=Kamerstukdossier)&$top=50&$orderby=Id"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Value []struct {
			Zaak []struct {
				Nummer           string
				Kamerstukdossier []struct {
					Nummer     int
					Toevoeging *string
				}
			}
		}
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	var d adapters.Dossier
	var zaak string
	for _, b := range env.Value {
		if z := b.Zaak[0]; len(z.Kamerstukdossier) == 1 {
			d.Number, zaak = fmt.Sprint(z.Kamerstukdossier[0].Nummer), z.Nummer
			if tv := z.Kamerstukdossier[0].Toevoeging; tv != nil {
				d.Addition = *tv
			}
			break
		}
	}
	if zaak == "" {
		t.Fatal("no vote on a zaak in a dossier in the emulator")
	}
	*log = nil
	req, err := DossierDocumentsRequest(s, d, timelineDocuments)
	if err != nil {
		t.Fatal(err)
	}
	if body, err = get(req); err != nil {
		t.Fatal(err)
	}
	docs, total, err := ParseDossierDocuments(s, body)
	if err != nil || len(docs) == 0 || total < len(docs) {
		t.Fatalf("%d documents of %s (total %d): %v", len(docs), d, total, err)
	}
	for _, doc := range docs {
		st := documentStep(doc, d.String())
		if !strings.HasPrefix(doc.Kamerstuk, "kst-"+d.String()+"-") || !strings.HasPrefix(st.Citation, "Kamerstukken II") ||
			st.URI != "besluitbron://tk/document/"+doc.Nummer || st.Date == "" || st.SourceURL == "" {
			t.Fatalf("document step %+v (kamerstuk %q)", st, doc.Kamerstuk)
		}
	}
	zreq, err := DossierZakenRequest(s, VotesParams{Dossier: d.Number, Toevoeging: d.Addition, Limit: timelineZaken})
	if err != nil {
		t.Fatal(err)
	}
	if body, err = get(zreq); err != nil {
		t.Fatal(err)
	}
	ids, _, err := ParseDossierZaken(s, body)
	if err != nil || len(ids) == 0 {
		t.Fatalf("zaken %v %v", ids, err)
	}
	breq, err := DecisionsRequest(v, ids, timelineDecisions)
	if err != nil {
		t.Fatal(err)
	}
	if body, err = get(breq); err != nil {
		t.Fatal(err)
	}
	ds, _, err := ParseDecisions(v, body)
	if err != nil || len(ds) == 0 {
		t.Fatalf("decisions %v %v", ds, err)
	}
	found := false
	for _, x := range ds {
		for _, z := range x.Zaken {
			found = found || z.Nummer == zaak
		}
		if x.Vote && (!x.Consistent || x.Activity.ID == "") {
			t.Fatalf("vote %+v", x)
		}
	}
	if !found {
		t.Fatalf("the decisions of dossier %s lack the vote on %s", d, zaak)
	}
	checkRequests(t, *log)
}

// The cost the description states is the requests the part makes.
func TestTimelineDescriptionStatesCost(t *testing.T) {
	src := timelineSource("", nil)
	what, n, cost := src.What, src.Requests, src.Cost
	if n != timelineRequests || !strings.Contains(cost, "three") || !strings.Contains(cost, tableRow.Budget.Allowance()) || strings.Contains(what, "Cost:") {
		t.Fatalf("%q %d %q", what, n, cost)
	}
}
