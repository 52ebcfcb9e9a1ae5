package emulator

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Laws made by a Staatsblad publication of a bill, for a dossier's
// timeline (Config.Laws). Each is the real toestand the generated
// regulations copy (generate.go), as a law (soort wet) whose brondata
// names its Staatsblad publication instead of the template's
// Staatscourant one, in the form of real BWB brondata: <publicatie
// soort="Stb"> with publicatiejaar, publicatienr, uitgiftedatum,
// ondertekeningsdatum and <dossierref dossier="33581">33581</dossierref>,
// the Kamerstuk dossier it came from (a public copy of BWB brondata;
// docs/emulators.md), and the in-force date in inwerkingtreding.datum.
// The generated regulations name no dossier: which law came from which
// dossier is not the emulator's to make up, so a chain test names it.

// Law is a law the emulator holds, made by a Staatsblad publication.
type Law struct {
	ID      string // its BWB id: BWBR9100000
	Title   string // its citeertitel
	InForce string // the day it came in force, YYYY-MM-DD: its one version's first day
	Year    int    // the Staatsblad publication's year: 2018
	Number  int    // its number: 84
	Issued  string // its issue day, YYYY-MM-DD
	Signed  string // its signing day, YYYY-MM-DD; Issued when empty
	Dossier string // the dossier its brondata names (dossierref); "" names none
}

var (
	lawIDRE          = regexp.MustCompile(`^BWBR[0-9]{7}$`)
	templatePubRE    = regexp.MustCompile(`(?s)<publicatie effect="nieuwe-regeling" soort="Stcrt" urlidentifier="">.*?</publicatie>`)
	templateInForce  = `<inwerkingtreding.datum isodatum="` + templateDate + `">26-06-1986</inwerkingtreding.datum>`
	templateBron     = `bron="Stcrt.1986-120"`
	templateSigned   = `ondertekening_bron="1986-06-03"`
	templatePubDay   = `publicatie_bron="` + templateDate + `"`
	templateIWTDay   = `publicatie_iwt="` + templateDate + `"`
	dutchDayTemplate = "02-01-2006"
)

// lawRegulation is law as a regulation of one version.
func lawRegulation(template []byte, law Law) (*regulation, error) {
	in, err := time.Parse(time.DateOnly, law.InForce)
	if err != nil || !lawIDRE.MatchString(law.ID) || law.Year <= 0 || law.Number <= 0 {
		return nil, fmt.Errorf("bwb emulator: law %+v needs a BWBR id, an in-force day, a year and a number", law)
	}
	issued, err := time.Parse(time.DateOnly, law.Issued)
	if err != nil {
		return nil, fmt.Errorf("bwb emulator: law %s has no issue day: %v", law.ID, err)
	}
	signed := issued
	if law.Signed != "" {
		if signed, err = time.Parse(time.DateOnly, law.Signed); err != nil {
			return nil, fmt.Errorf("bwb emulator: law %s has a bad signing day: %v", law.ID, err)
		}
	}
	year, number := strconv.Itoa(law.Year), strconv.Itoa(law.Number)
	pub := `<publicatie effect="nieuwe-regeling" soort="Stb" urlidentifier=""><publicatiejaar>` + year + `</publicatiejaar><publicatienr>` + number +
		`</publicatienr><uitgiftedatum isodatum="` + issued.Format(time.DateOnly) + `">` + issued.Format(dutchDayTemplate) +
		`</uitgiftedatum><ondertekeningsdatum isodatum="` + signed.Format(time.DateOnly) + `">` + signed.Format(dutchDayTemplate) + `</ondertekeningsdatum>`
	if law.Dossier != "" {
		pub += `<dossierref dossier="` + law.Dossier + `">` + law.Dossier + `</dossierref>`
	}
	pub += `</publicatie>`
	text := templatePubRE.ReplaceAllLiteral(template, []byte(pub))
	text = []byte(strings.NewReplacer(
		templateInForce, `<inwerkingtreding.datum isodatum="`+law.InForce+`">`+in.Format(dutchDayTemplate)+`</inwerkingtreding.datum>`,
		templateBron, `bron="Stb.`+year+"-"+number+`"`,
		templateSigned, `ondertekening_bron="`+signed.Format(time.DateOnly)+`"`,
		templatePubDay, `publicatie_bron="`+issued.Format(time.DateOnly)+`"`,
		templateIWTDay, `publicatie_iwt="`+issued.Format(time.DateOnly)+`"`,
	).Replace(string(text)))
	body := generatedText(text, law.ID, law.Title, "wet", law.InForce)
	reg := &regulation{id: law.ID, title: law.Title, kind: "wet"}
	reg.versions = []*version{{label: law.InForce + "_0", from: law.InForce, item: law.ID + "_" + law.InForce + "_0.xml",
		modified: in.AddDate(0, 0, -7).Format(time.DateOnly), body: body}}
	endVersions(reg)
	return reg, nil
}
