package tk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/yosida95/uritemplate/v3"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/refcheck"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// The Kamer's records as resources (besluitbron://tk/entiteit/{guid},
// entity_resource.go): read from the SyncFeed through the route, or from
// a replica through a pass with no request; refused before any request
// when the URI names no GUID; and bounded whatever the feed answers.

// routeEnv is an Env whose calls go to h as the platform's route answers
// them: a non-2xx answer is a classified *RouteError (a 404 is
// KindNotFound), every request logged.
func routeEnv(h http.Handler, log *[]string) adapters.Env {
	return adapters.Env{Memo: &adapters.Memo{}, Now: emuNow,
		Get: func(_ context.Context, platform string, r adapters.Request) ([]byte, error) {
			*log = append(*log, r.Path)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(r.Method, "http://gegevensmagazijn.test"+r.Path, nil))
			if rec.Code != http.StatusOK {
				return nil, adapters.Classify(platform, rec.Code, false, 0, false, rec.Body.Bytes())
			}
			return rec.Body.Bytes(), nil
		}}
}

// answering is an Env whose every call gets body, logged.
func answering(body string, log *[]string) adapters.Env {
	return adapters.Env{Memo: &adapters.Memo{}, Now: emuNow,
		Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) {
			*log = append(*log, r.Path)
			return []byte(body), nil
		}}
}

// readURI reads uri as the MCP layer routes a resources/read: by the
// surface's template that matches it, with the variables it matched.
func readURI(t *testing.T, s adapters.Surface, env adapters.Env, uri string) (adapters.Document, error) {
	t.Helper()
	for _, k := range s.Resources {
		tpl := uritemplate.MustNew(k.Template)
		m := tpl.Match(uri)
		if m == nil {
			continue
		}
		vars := map[string]string{}
		for _, name := range tpl.Varnames() {
			if v := m.Get(name).String(); v != "" {
				vars[name] = v
			}
		}
		return k.Read(context.Background(), env, vars)
	}
	t.Fatalf("%q matches no template of the surface", uri)
	return adapters.Document{}, nil
}

// firstEntities are the first live entities of the feed's first page of
// each category, by category.
func firstEntities(t *testing.T, h http.Handler, categories ...string) map[string]feed.Entity {
	t.Helper()
	out := map[string]feed.Entity{}
	for _, c := range categories {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, feed.Request(feedCategories[c], 0).Path, nil))
		p, err := feed.ParsePage(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entities {
			if !e.Deleted {
				out[c] = e
				break
			}
		}
		if out[c].ID == "" {
			t.Fatalf("the emulator's feed has no live %s on its first page", c)
		}
	}
	return out
}

// linkOf is the first URI a record's text links under element name.
func linkOf(t *testing.T, d adapters.Document, name string) string {
	t.Helper()
	for line := range strings.Lines(d.Text) {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "- "+name+": besluitbron://"); ok {
			return "besluitbron://" + u
		}
	}
	t.Fatalf("%s %s links no %s:\n%s", d.Type, d.ID, name, d.Text)
	return ""
}

// From the platform: each record in one request, with its kind, title,
// day, citation and links; a besluit's links lead, one read each, to its
// zaak and through its agendapunt to the activiteit it was taken at.
func TestEntityResourceFromThePlatform(t *testing.T) {
	s := Surface("")
	ents := firstEntities(t, emuHandler, "activiteit", "besluit", "zaak")
	read := func(uri string) adapters.Document {
		t.Helper()
		var log []string
		d, err := readURI(t, s, routeEnv(emuHandler, &log), uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(log) != 1 || log[0] != FeedRoot+"/Entiteiten/"+d.ID {
			t.Fatalf("%s: requests %v", uri, log)
		}
		if d.URI != uri || d.URL != entityURL(d.ID) || d.Meta["provenance"] != "asked the Tweede Kamer's SyncFeed through the cache" ||
			!strings.Contains(d.Text, "Read from: asked the Tweede Kamer's SyncFeed") || d.Meta["guid"] != d.ID {
			t.Fatalf("%s: %+v", uri, d)
		}
		return d
	}
	for c, e := range ents {
		d := read(entityURI(e.ID))
		if d.ID != e.ID || d.Type != c || !strings.HasPrefix(d.Title, capitalized(c)) {
			t.Fatalf("%s: %+v", c, d)
		}
		for name, v := range e.Fields {
			if v != "" && !strings.Contains(d.Text, "- "+name+": ") {
				t.Errorf("%s: the text lacks its field %s:\n%s", c, name, d.Text)
			}
		}
	}
	a := read(entityURI(ents["activiteit"].ID))
	if a.Date == "" || a.Citation != recordCitation("activiteit", feedField(localindex.Entity{Fields: ents["activiteit"].Fields}, "nummer"), a.Date) ||
		!strings.HasPrefix(a.Citation, "Tweede Kamer, activiteit ") {
		t.Fatalf("activiteit: date %q, citation %q", a.Date, a.Citation)
	}
	if z := read(entityURI(ents["zaak"].ID)); z.Date == "" || !strings.HasPrefix(z.Citation, "Tweede Kamer, zaak ") || !strings.Contains(z.Title, ": ") {
		t.Fatalf("zaak: %+v", z)
	}
	b := read(entityURI(ents["besluit"].ID))
	if !strings.Contains(b.Title, "("+ents["besluit"].Fields["besluitSoort"]+")") || b.Citation != "" {
		t.Fatalf("besluit: %+v", b)
	}
	// Besluit→Zaak, Besluit→Agendapunt→Activiteit.
	if z := read(linkOf(t, b, "zaak")); z.Type != "zaak" {
		t.Fatalf("the besluit's zaak is a %s", z.Type)
	}
	ap := read(linkOf(t, b, "agendapunt"))
	if act := read(linkOf(t, ap, "activiteit")); ap.Type != "agendapunt" || act.Type != "activiteit" || act.Date == "" {
		t.Fatalf("the besluit's agendapunt %s, its activiteit %+v", ap.Type, act)
	}
}

// caughtUp is a held replica of idx keeping scope, through a pass at
// emuNow when passed.
func caughtUp(idx *localindex.Index, scope harvestScope, passed bool) parliamentWords {
	h := newHarvester(idx, replica.Harvest{}, scope)
	if passed {
		h.rounds.Update(func(p *replica.Progress) { p.CompleteUpTo = emuNow })
	}
	return parliamentWords{held: fakeHeld{idx: idx, h: h}}
}

// From a replica through a pass: no request, the platform's document
// but for where it was read; a replica still being built, or one without
// the record, sends the read to the platform and says why.
func TestEntityResourceFromTheReplica(t *testing.T) {
	ents := firstEntities(t, emuHandler, "activiteit", "besluit", "zaak", "stemming")
	idx, _, err := localindex.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var held []feed.Entity
	for _, c := range []string{"activiteit", "besluit", "zaak"} {
		held = append(held, ents[c])
	}
	if _, err := idx.Apply(held, nil, []byte("1")); err != nil {
		t.Fatal(err)
	}
	platform := Surface("")
	for _, tc := range []struct {
		name  string
		pw    parliamentWords
		local bool
		why   string
	}{
		{"being built", caughtUp(idx, harvestScope{}, false), false, "the replica is still being built"},
		{"through a pass", caughtUp(idx, harvestScope{}, true), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SurfaceWith("", tc.pw)
			for _, e := range held {
				var log []string
				got, err := readURI(t, s, routeEnv(emuHandler, &log), entityURI(e.ID))
				if err != nil {
					t.Fatal(err)
				}
				prov := got.Meta["provenance"]
				if tc.local {
					if len(log) != 0 || !strings.HasPrefix(prov, "BesluitBron's index of the Tweede Kamer's SyncFeed, complete up to 2026-11-29T12:00:00Z (") ||
						!strings.Contains(prov, "; the entity as the feed published it at ") {
						t.Fatalf("%s: %d requests, provenance %q", e.ID, len(log), prov)
					}
				} else if len(log) != 1 || prov != "asked the Tweede Kamer's SyncFeed through the cache: "+tc.why {
					t.Fatalf("%s: %d requests, provenance %q", e.ID, len(log), prov)
				}
				var plog []string
				want, err := readURI(t, platform, routeEnv(emuHandler, &plog), entityURI(e.ID))
				if err != nil {
					t.Fatal(err)
				}
				delete(got.Meta, "provenance")
				delete(want.Meta, "provenance")
				if got.ID != want.ID || got.Type != want.Type || got.Title != want.Title || got.Date != want.Date || got.Citation != want.Citation ||
					got.URI != want.URI || got.URL != want.URL || fmt.Sprint(got.Meta) != fmt.Sprint(want.Meta) {
					t.Fatalf("%s:\nreplica  %+v\nplatform %+v", e.ID, got, want)
				}
				if linksOf(got.Text) != linksOf(want.Text) {
					t.Fatalf("%s: links\nreplica  %s\nplatform %s", e.ID, linksOf(got.Text), linksOf(want.Text))
				}
			}
		})
	}
	// A record the replica does not hold: the platform, saying why.
	vote := ents["stemming"].ID
	for _, tc := range []struct {
		scope harvestScope
		why   string
	}{
		{harvestScope{}, "the replica holds no entity " + vote},
		{harvestScope{Categories: []string{"besluit", "zaak"}}, "the replica holds no entity " + vote + " (it keeps besluit, zaak only)"},
	} {
		var log []string
		d, err := readURI(t, SurfaceWith("", caughtUp(idx, tc.scope, true)), routeEnv(emuHandler, &log), entityURI(vote))
		if err != nil || len(log) != 1 || d.Type != "stemming" || d.Meta["provenance"] != "asked the Tweede Kamer's SyncFeed through the cache: "+tc.why {
			t.Fatalf("scope %v: %v, %d requests, %+v", tc.scope, err, len(log), d.Meta)
		}
	}
}

// linksOf is the links section of a record's text.
func linksOf(text string) string {
	_, links, _ := strings.Cut(text, "## Links")
	return links
}

// A URI that names no GUID is refused before any request; a GUID the
// Kamer does not know, or a record it removed, is no document; an
// answer that is not the record asked is a parse error; a record of
// thousands of fields and links gives a text of bounded size.
func TestEntityResourceRefusesAndBounds(t *testing.T) {
	s := Surface("")
	const guid = "6b15c18f-fdc5-4ea4-bee2-a556e94d7682"
	refcheck.Refuses(t, func(id string) error { _, err := ParseEntityID(id); return err }, guid)
	if id, err := ParseEntityID(" 6B15C18F-FDC5-4EA4-BEE2-A556E94D7682 "); err != nil || id != guid {
		t.Fatalf("upper case: %q %v", id, err)
	}
	kind := s.Resources[len(s.Resources)-1]
	if kind.Name != "tk-entity" || kind.Template != entityTemplate {
		t.Fatalf("the last kind is %+v", kind)
	}
	for _, id := range []string{"", "not-a-guid", "2023D41173", "6b15c18f-fdc5-4ea4-bee2-a556e94d768", "../" + guid, guid + "/../x", "6b15c18f_fdc5_4ea4_bee2_a556e94d7682"} {
		var log []string
		_, err := kind.Read(context.Background(), routeEnv(emuHandler, &log), map[string]string{"guid": id})
		var bad *adapters.InvalidError
		if !errors.As(err, &bad) || len(log) != 0 {
			t.Errorf("%q: %v, %d requests", id, err, len(log))
		}
	}

	var log []string
	if _, err := readURI(t, s, routeEnv(emuHandler, &log), entityURI("00000000-0000-4000-8000-000000000000")); !errors.Is(err, adapters.ErrNoDocument) || len(log) != 1 {
		t.Fatalf("an unknown GUID: %v, %d requests", err, len(log))
	}

	entity := func(id, attrs, inner string) string {
		return `<?xml version="1.0" encoding="utf-8"?><besluit xmlns="http://www.tweedekamer.nl/xsd/tkData/v1-0" xmlns:tk="http://www.tweedekamer.nl/xsd/tkData/v1-0" id="` +
			id + `" ` + attrs + `>` + inner + `</besluit>`
	}
	for name, tc := range map[string]struct {
		body string
		want func(error) bool
	}{
		"removed":        {entity(guid, `tk:verwijderd="true"`, ""), func(err error) bool { return errors.Is(err, adapters.ErrNoDocument) }},
		"broken XML":     {entity(guid, "", "<besluitSoort>Stemmen")[:120], parseErr},
		"an HTML page":   {"<html><body>Onderhoud</body></html>", parseErr},
		"another record": {entity("6b15c18f-fdc5-4ea4-bee2-a556e94d7683", "", ""), parseErr},
		"over the cap":   {entity(guid, "", "<besluitTekst>"+strings.Repeat("x", feed.MaxEntityBytes)+"</besluitTekst>"), parseErr},
	} {
		var log []string
		if _, err := readURI(t, s, answering(tc.body, &log), entityURI(guid)); !tc.want(err) || len(log) != 1 {
			t.Errorf("%s: %v, %d requests", name, err, len(log))
		}
	}

	// Thousands of fields and links (50 not GUIDs), a long value: under the cap, so
	// read, and the text stays tens of kilobytes.
	var inner strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&inner, "<veld%04d>%s</veld%04d>", i, strings.Repeat("w ", 5), i)
		fmt.Fprintf(&inner, `<zaak ref="%08x-0000-4000-8000-000000000000"/>`, i)
	}
	inner.WriteString("<besluitTekst>" + strings.Repeat("lang ", 4000) + "</besluitTekst><besluitSoort>Stemmen - aangenomen</besluitSoort>")
	for i := range 50 {
		fmt.Fprintf(&inner, `<agendapunt ref="../x%d"/>`, i)
	}
	body := entity(guid, `tk:verwijderd="false"`, inner.String())
	if len(body) > feed.MaxEntityBytes {
		t.Fatalf("the hostile record is %d bytes, over the cap", len(body))
	}
	log = nil
	d, err := readURI(t, s, answering(body, &log), entityURI(guid))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Text) > 64<<10 || len(d.Meta) > maxMetaFields+3 || len([]rune(d.Title)) > 300 ||
		!strings.Contains(d.Text, "more fields left out)") || !strings.Contains(d.Text, "(1950 more links left out)") ||
		strings.Contains(d.Text, "../x") || strings.Count(d.Text, "besluitbron://tk/entiteit/") != maxEntityLinks {
		t.Fatalf("%d bytes of text, %d meta, title %q:\n%.2000s", len(d.Text), len(d.Meta), d.Title, d.Text)
	}
	for k, v := range d.Meta {
		if len([]rune(v)) > 600 || len([]rune(k)) > maxNameRunes {
			t.Fatalf("meta %q: %d runes", k, len([]rune(v)))
		}
	}
}

func parseErr(err error) bool {
	var pe *adapters.ParseError
	return errors.As(err, &pe)
}

// The description states the cost.
func TestEntityResourceStatesCost(t *testing.T) {
	d := entityKind(nil).Description
	for _, want := range []string{"no platform request", "one request", "cache", tableRow.Budget.Allowance()} {
		if !strings.Contains(d, want) {
			t.Errorf("the description lacks %q: %s", want, d)
		}
	}
}

// Every activity, decision and vote of a dossier's timeline names its
// record by a URI the surface reads back, one request each, and is
// cited by the Kamer's numbers.
func TestTimelineStepsReadBackAsRecords(t *testing.T) {
	h := votesEmulator()
	var log []string
	get := emuGetter(h, &log)
	body, err := get(adaptersGet(legacyRoot + "/Besluit?$filter=startswith(BesluitSoort,'Stemmen')&$expand=Zaak($expand=Kamerstukdossier)&$top=50&$orderby=Id"))
	if err != nil {
		t.Fatal(err)
	}
	ds := dossiersOfVotes(t, body)
	s := Surface("")
	ctx := context.Background()
	kinds := map[string]int{}
	for _, d := range ds[:min(len(ds), 3)] {
		log = nil
		part, err := s.Timeline.Read(ctx, routeEnv(h, &log), adapters.TimelineQuery{Dossier: d})
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		for _, st := range part.Steps {
			want := map[string]string{adapters.StepActivity: "activiteit", adapters.StepDecision: "besluit", adapters.StepVote: "besluit"}[st.Kind]
			if want == "" {
				continue
			}
			kinds[st.Kind]++
			cite := map[string]string{adapters.StepActivity: "Tweede Kamer, activiteit ", adapters.StepDecision: "Tweede Kamer, besluit over zaak",
				adapters.StepVote: "Tweede Kamer, besluit over zaak"}[st.Kind]
			if st.URI == "" || !strings.HasPrefix(st.Citation, cite) || (st.Kind == adapters.StepActivity && !strings.Contains(st.Citation, st.ID)) {
				t.Fatalf("%s: step %+v", d, st)
			}
			var rlog []string
			rec, err := readURI(t, s, routeEnv(h, &rlog), st.URI)
			if err != nil || len(rlog) != 1 || rec.Type != want || rec.URI != st.URI || rec.URL != st.SourceURL {
				t.Fatalf("%s: %s read back as %+v (%v, %d requests)", d, st.URI, rec, err, len(rlog))
			}
			if st.Kind == adapters.StepActivity && rec.Citation != st.Citation {
				t.Fatalf("%s: the activity's step cites %q, its record %q", d, st.Citation, rec.Citation)
			}
			if st.Kind != adapters.StepActivity && !strings.Contains(rec.Text, "- zaak: besluitbron://tk/entiteit/") {
				t.Fatalf("%s: the decision's record links no zaak:\n%s", d, rec.Text)
			}
		}
	}
	if kinds[adapters.StepActivity] == 0 || kinds[adapters.StepVote] == 0 {
		t.Fatalf("steps read back: %v", kinds)
	}
	t.Logf("steps read back: %v", kinds)
}

// dossiersOfVotes are the dossiers of the zaken voted on in a Besluit
// answer with Zaak($expand=Kamerstukdossier), each once.
func dossiersOfVotes(t *testing.T, body []byte) []adapters.Dossier {
	t.Helper()
	rows, _, err := parseCounted(body)
	if err != nil {
		t.Fatal(err)
	}
	var out []adapters.Dossier
	seen := map[adapters.Dossier]bool{}
	for _, b := range rows {
		zaken, err := nested(b, "Zaak")
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range zaken {
			ks, err := nested(z, "Kamerstukdossier")
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range ks {
				var d adapters.Dossier
				d.Number = strings.Trim(string(k["Nummer"]), `"`)
				if tv := strings.Trim(string(k["Toevoeging"]), `"`); tv != "null" {
					d.Addition = strings.ToUpper(tv)
				}
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no vote on a zaak in a dossier in the emulator")
	}
	return out
}

// A step is cited by the Kamer's numbers only: none without a number of
// its form; a decision's zaken each once, a few of many; its day where
// it has one.
func TestStepCitations(t *testing.T) {
	zaken := func(ns ...string) []VoteZaak {
		var out []VoteZaak
		for _, n := range ns {
			out = append(out, VoteZaak{Nummer: n})
		}
		return out
	}
	for _, tc := range []struct {
		d    Decision
		want string
	}{
		{Decision{Zaken: zaken("2022Z17826"), Date: "2024-03-12"}, "Tweede Kamer, besluit over zaak 2022Z17826 (12 maart 2024)"},
		{Decision{Zaken: zaken("2022Z17826", "2022Z17827", "2022Z17826")}, "Tweede Kamer, besluit over zaken 2022Z17826, 2022Z17827"},
		{Decision{Zaken: zaken("2022Z00001", "2022Z00002", "2022Z00003", "2022Z00004", "2022Z00005"), Date: "x"}, "Tweede Kamer, besluit over zaken 2022Z00001, 2022Z00002, 2022Z00003 e.a."},
		{Decision{Zaken: zaken("", "zaak"), Date: "2024-03-12"}, ""},
		{Decision{}, ""},
	} {
		if got := decisionCitation(tc.d); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d.Zaken, got, tc.want)
		}
	}
	for in, want := range map[[2]string]string{
		{"2024A01234", "2024-03-12"}: "Tweede Kamer, activiteit 2024A01234 (12 maart 2024)",
		{"2024A01234", ""}:           "Tweede Kamer, activiteit 2024A01234",
		{"", "2024-03-12"}:           "",
		{"A01234 (x)", "2024-03-12"}: "",
	} {
		if got := recordCitation("activiteit", in[0], in[1]); got != want {
			t.Errorf("%v: %q, want %q", in, got, want)
		}
	}
}
