package bwb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/platforms"
	emu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
)

// The real toestand's brondata (fixtures/bwb): each change with the
// publication that made it, the one that set it in force and its day.
// Stcrt. 2006, 73 made and set in force the change of 2006-04-14; a
// dossier it does not name is not found in it.
func TestTimelineBrondataRealFixture(t *testing.T) {
	tt, err := ParseToestand(fixture.Read(t, "bwb", "toestand-BWBR0008326_2011-01-01.xml"))
	if err != nil {
		t.Fatal(err)
	}
	sources := tt.BrondataSources()
	if len(sources) < 3 {
		t.Fatalf("%d sources", len(sources))
	}
	ms := MatchSources(sources, map[string]bool{"stcrt-2006-73-p10-sc74601": true}, adapters.Dossier{Number: "33581"})
	if len(ms) != 1 || ms[0].Source.Date != "2006-04-14" ||
		strings.Join(ms[0].Why, "; ") != "Stcrt. 2006, 73 (made the change); Stcrt. 2006, 73 (set it in force)" {
		t.Fatalf("%+v", ms)
	}
	if ms := MatchSources(sources, nil, adapters.Dossier{Number: "33581"}); len(ms) != 0 {
		t.Fatalf("a dossier the brondata does not name: %+v", ms)
	}
}

// realDossierref is real BWB brondata that names a dossier: the history
// of Vreemdelingenbesluit 2000 art. 3.116 as a public copy of it holds
// it (historische-brondata; the Staatsblad publication that set the
// change in force carries <dossierref dossier="33581">), in a toestand
// around it.
const realDossierref = `<toestand bwb-id="BWBR0011825" inwerkingtreding="2014-03-29"><wetgeving soort="AMvB"><citeertitel>Vreemdelingenbesluit 2000</citeertitel><artikel label="Artikel 3.116"><kop><label>Artikel</label><nr>3.116</nr></kop><al>Tekst.</al><meta-data>
<historische-brondata>
  <brondata>
     <oorspronkelijk>
        <publicatie soort="Stb" pskey="STB16077" effect="wijziging">
           <publicatiejaar>2014</publicatiejaar>
           <publicatienr>111</publicatienr>
           <uitgiftedatum isodatum="2014-03-28">28-03-2014</uitgiftedatum>
           <ondertekeningsdatum isodatum="2014-03-04">04-03-2014</ondertekeningsdatum>
        </publicatie>
     </oorspronkelijk>
     <inwerkingtreding>
        <publicatie soort="Stb" pskey="STB15924">
           <publicatiejaar>2014</publicatiejaar>
           <publicatienr>110</publicatienr>
           <uitgiftedatum isodatum="2014-03-28">28-03-2014</uitgiftedatum>
           <ondertekeningsdatum isodatum="2013-12-18">18-12-2013</ondertekeningsdatum>
           <dossierref dossier="33581">33581</dossierref>
        </publicatie>
        <inwerkingtreding.datum isodatum="2014-03-29">29-03-2014</inwerkingtreding.datum>
     </inwerkingtreding>
  </brondata>
  <brondata>
     <oorspronkelijk>
        <publicatie soort="Stb" pskey="STB13133" effect="wijziging">
           <publicatiejaar>2010</publicatiejaar>
           <publicatienr>244</publicatienr>
           <uitgiftedatum isodatum="2010-06-29">29-06-2010</uitgiftedatum>
           <ondertekeningsdatum isodatum="2010-06-23">23-06-2010</ondertekeningsdatum>
        </publicatie>
     </oorspronkelijk>
     <inwerkingtreding>
        <publicatie soort="Stb" pskey="STB13133">
           <publicatiejaar>2010</publicatiejaar>
           <publicatienr>244</publicatienr>
           <uitgiftedatum isodatum="2010-06-29">29-06-2010</uitgiftedatum>
           <ondertekeningsdatum isodatum="2010-06-23">23-06-2010</ondertekeningsdatum>
        </publicatie>
        <inwerkingtreding.datum isodatum="2010-07-01">01-07-2010</inwerkingtreding.datum>
     </inwerkingtreding>
  </brondata>
</historische-brondata></meta-data></artikel></wetgeving></toestand>`

// A dossierref names the dossier; the Staatsblad publications are found
// by their identifiers; a title that holds the number is no link.
func TestTimelineDossierref(t *testing.T) {
	tt, err := ParseToestand([]byte(realDossierref))
	if err != nil {
		t.Fatal(err)
	}
	sources := tt.BrondataSources()
	if len(sources) != 2 || sources[0].Date != "2014-03-29" || len(sources[0].InForce) != 1 || sources[0].InForce[0].OBID != "stb-2014-110" ||
		strings.Join(sources[0].InForce[0].Dossiers, ",") != "33581" || sources[1].Date != "2010-07-01" {
		t.Fatalf("%+v", sources)
	}
	ms := MatchSources(sources, nil, adapters.Dossier{Number: "33581"})
	if len(ms) != 1 || ms[0].Source.Date != "2014-03-29" || ms[0].Why[0] != "dossier 33581 (dossierref of Stb. 2014, 110, which set it in force)" {
		t.Fatalf("%+v", ms)
	}
	ms = MatchSources(sources, map[string]bool{"stb-2014-111": true}, adapters.Dossier{Number: "99999"})
	if len(ms) != 1 || ms[0].Why[0] != "Stb. 2014, 111 (made the change)" {
		t.Fatalf("%+v", ms)
	}
	for _, d := range []adapters.Dossier{{Number: "33581", Addition: "A"}, {Number: "3358"}, {Number: "2014"}} {
		if ms := MatchSources(sources, nil, d); len(ms) != 0 {
			t.Fatalf("%s: %+v", d, ms)
		}
	}
	titled := strings.Replace(realDossierref, "<citeertitel>Vreemdelingenbesluit 2000</citeertitel>", "<citeertitel>Wet 34775 (Kamerstukken 34775)</citeertitel>", 1)
	tt, _ = ParseToestand([]byte(titled))
	if ms := MatchSources(tt.BrondataSources(), nil, adapters.Dossier{Number: "34775"}); len(ms) != 0 {
		t.Fatalf("matched by title: %+v", ms)
	}
}

// timelineEnv is the Env a source is given: a getter, and (in the
// query's Explain) the failure text of a failed request.
func timelineEnv(get func(adapters.Request) ([]byte, error)) adapters.Env {
	return adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) }}
}

func explain(_ string, err error) string { return "failed: " + err.Error() }

// chainLaw is a law the emulator made by stb-2018-84 of dossier 34775.
var chainLaw = emu.Law{ID: "BWBR9100001", Title: "Wet herziening tijdelijke regels", InForce: "2019-01-01",
	Year: 2018, Number: 84, Issued: "2018-03-14", Signed: "2018-03-09", Dossier: "34775"}

func stbStep(id, date string) adapters.TimelineStep {
	return adapters.TimelineStep{Platform: platforms.OB, Kind: adapters.StepPublication, ID: id, Date: date}
}

// The law's part through the emulator: the version the Staatsblad
// publication set in force, in two requests; without law, or with a law
// whose brondata names neither the publication nor the dossier, the link
// is missing, never guessed; failures and answers that do not read say
// so in missing.
func TestTimelineThroughEmulator(t *testing.T) {
	var log []string
	env := timelineEnv(emuGet(emu.New(emu.Config{Laws: []emu.Law{chainLaw}}), &log))
	p := timelineSource
	d := adapters.Dossier{Number: "34775"}
	q := adapters.TimelineQuery{Explain: explain, Dossier: d, Law: "bwbr9100001", Steps: []adapters.TimelineStep{stbStep("stb-2018-84", "2018-03-14")}}
	if mine, err := p.Check(q); !mine || err != nil {
		t.Fatal(mine, err)
	}
	part, fail := p.Read(context.Background(), env, q)
	if fail != nil || len(part.Steps) != 1 || len(part.Missing) != 0 || part.Requests != 2 || len(log) != 2 {
		t.Fatalf("%+v %v %v", part, fail, log)
	}
	s := part.Steps[0]
	if s.Kind != adapters.StepLawVersion || s.Date != "2019-01-01" || s.InForce != "2019-01-01" || s.ID != "BWBR9100001" ||
		s.URI != "besluitbron://bwb/BWBR9100001?date=2019-01-01" || s.SourceURL != "https://wetten.overheid.nl/BWBR9100001/2019-01-01" ||
		s.Citation != "Wet herziening tijdelijke regels (geldend op 1 januari 2019)" || s.Result != "version 2019-01-01_0, in force from 2019-01-01 until further notice" ||
		!strings.Contains(s.LinkedBy, "Stb. 2018, 84 (made the change)") || !strings.Contains(s.LinkedBy, "dossier 34775 (dossierref of Stb. 2018, 84") {
		t.Fatalf("%+v", s)
	}
	// By the dossierref alone, without the Staatsblad step.
	part, _ = p.Read(context.Background(), env, adapters.TimelineQuery{Dossier: d, Law: "BWBR9100001"})
	if len(part.Steps) != 1 || strings.Contains(part.Steps[0].LinkedBy, "Stb. 2018, 84 (made") || !strings.Contains(part.Steps[0].LinkedBy, "dossier 34775 (dossierref") {
		t.Fatalf("%+v", part)
	}

	// No law: missing, no request.
	log = nil
	part, fail = p.Read(context.Background(), env, adapters.TimelineQuery{Dossier: d, Steps: q.Steps})
	if fail != nil || len(part.Steps) != 0 || len(part.Missing) != 1 || part.Requests != 0 || len(log) != 0 ||
		!strings.Contains(part.Missing[0].Why, "give law") || !strings.Contains(part.Missing[0].Why, "stb-2018-84 or dossier 34775") {
		t.Fatalf("%+v %v", part, log)
	}
	// A law whose brondata names neither: both versions tried (the newest,
	// then the one in force after the publication), then missing.
	part, _ = p.Read(context.Background(), env, adapters.TimelineQuery{Dossier: d, Law: "BWBR0008326", Steps: []adapters.TimelineStep{stbStep("stb-2006-1", "2006-01-01")}})
	if len(part.Steps) != 0 || part.Requests != 3 || len(part.Missing) != 1 ||
		!strings.Contains(part.Missing[0].Why, "the brondata of BWBR0008326 (versions 2011-01-01_0, 2006-03-08_0) names neither stb-2006-1 or dossier 34775") {
		t.Fatalf("%+v", part)
	}
	// An unknown law, a malformed one.
	part, _ = p.Read(context.Background(), env, adapters.TimelineQuery{Dossier: d, Law: "BWBR0000001"})
	if len(part.Missing) != 1 || !strings.Contains(part.Missing[0].Why, "holds no regulation BWBR0000001") {
		t.Fatalf("%+v", part)
	}
	if mine, err := p.Check(adapters.TimelineQuery{Law: "Gemeentewet"}); !mine || err == nil {
		t.Fatal("a law that is no BWB id passed")
	}

	// Hostile answers: broken XML, another regulation's manifest, a
	// failing route; each is missing with what happened.
	for _, tc := range []struct {
		body string
		err  error
		want string
	}{
		{body: "<work label=", want: "the manifest of BWBR9100001 did not read"},
		{body: `<work label="BWBR0000002"/>`, want: "did not read"},
		{body: strings.Repeat("<a>", 300), want: "did not read"},
		{err: &adapters.RouteError{Status: 503, Kind: adapters.KindUnavailable}, want: "could not be read: failed:"},
		{err: errors.New("connection reset"), want: "could not be read: failed: connection reset"},
	} {
		env := timelineEnv(func(adapters.Request) ([]byte, error) { return []byte(tc.body), tc.err })
		part, fail := p.Read(context.Background(), env, q)
		if fail != nil || len(part.Steps) != 0 || len(part.Missing) != 1 || !strings.Contains(part.Missing[0].Why, tc.want) {
			t.Errorf("%q %v: %+v %v", tc.body, tc.err, part, fail)
		}
	}
	// A toestand that does not parse, after a good manifest.
	good := emuGet(emu.New(emu.Config{Laws: []emu.Law{chainLaw}}), &log)
	n := 0
	env = timelineEnv(func(r adapters.Request) ([]byte, error) {
		if n++; n == 1 {
			return good(r)
		}
		return []byte("<toestand><wetgeving>"), nil
	})
	part, _ = p.Read(context.Background(), env, q)
	if len(part.Steps) != 0 || len(part.Missing) != 1 || !strings.Contains(part.Missing[0].Why, "version 2019-01-01_0 of BWBR9100001 did not read") {
		t.Fatalf("%+v", part)
	}
}
