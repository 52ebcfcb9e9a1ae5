package emulator

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

// The generated regulations: a deterministic corpus beside the real
// samples, so the replica's harvest by modification date pages through a
// realistic number of records (KOOP's BWB holds about 22,000
// regulations in force: docs/emulators.md). Each is the real toestand
// BWBR0003984 under another identifier, title, kind and date (its text
// and shape are the real one's); its search record is the real
// regulations' (record, sru.go), with the same fields.

// RealisticRegulations is about the BWB's regulations in force (the
// figures test harvests that many). OfflineRegulations is what the
// offline build's emulator holds: enough for the harvest to split its
// windows and page its busiest days, while a search over them stays a
// few milliseconds (every search reads every version), which the tests
// that search the offline emulators many times need.
const (
	RealisticRegulations = 22000
	OfflineRegulations   = 2000
)

// generatedBase is the first generated identifier's number: far above
// the real ones (BWBR0051xxx in 2026), so none collides.
const generatedBase = 9000000

// template is the real toestand the generated ones copy, and what they
// replace in it.
const (
	templateFile  = "data/toestand-BWBR0003984_1986-06-26.xml"
	templateID    = "BWBR0003984"
	templateTitle = "Vaststelling nummers kandidatenlijsten centrales van overheidspersoneel"
	templateKind  = `soort="ministeriele-regeling"`
	templateDate  = "1986-06-26"
)

// generatedKinds are the kinds drawn, each as often as it stands here:
// ministerial regulations are most of the BWB, then orders in council
// and acts.
var generatedKinds = []string{
	"ministeriele-regeling", "ministeriele-regeling", "ministeriele-regeling", "ministeriele-regeling",
	"ministeriele-regeling", "AMvB", "AMvB", "wet", "beleidsregel", "beleidsregel", "KB", "zbo", "verdrag", "circulaire",
}

var (
	generatedHeads    = []string{"Regeling", "Besluit", "Wet", "Beleidsregel", "Uitvoeringsregeling", "Tijdelijke regeling"}
	generatedSubjects = []string{"subsidies", "woningbouw", "waterbeheer", "luchtvaart", "onderwijs", "zorgverzekering",
		"kinderopvang", "jeugdzorg", "belastingen", "douane", "pensioenen", "arbeidsomstandigheden", "natuurbescherming",
		"visserij", "landbouw", "spoorwegen", "scheepvaart", "energie", "telecommunicatie", "archieven", "politie",
		"defensie", "rijbewijzen", "kentekens", "studiefinanciering", "huurtoeslag", "omgevingsrecht", "bodembescherming",
		"geluidhinder", "erfgoed", "gezondheidszorg", "geneesmiddelen", "voedselveiligheid", "dierenwelzijn", "asiel",
		"nationaliteit", "verkiezingen", "gemeentefonds", "provinciefonds", "rechtsbijstand"}
)

// draw is a deterministic number for part of regulation n.
func draw(n int, part string) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d/%s", n, part)
	return int(h.Sum32() & 0x7fffffff)
}

// generate makes n regulations. Two in five have an earlier version,
// ended the day before the newer one came in force. A version is
// modified (added to the BWB) the week before it comes in force, and no
// earlier than the BWB's first load of 2002, spread over the next four
// years; many come in force on 1 January or 1 July, as Dutch rules do,
// so those days hold hundreds of records.
func generate(n int, template []byte) []*regulation {
	epoch := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	firstLoad := time.Date(2002, 1, 1, 0, 0, 0, 0, time.UTC)
	lastDay := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	span := int(lastDay.Sub(epoch).Hours() / 24)
	out := make([]*regulation, 0, n)
	for i := range n {
		id := fmt.Sprintf("BWBR%07d", generatedBase+i)
		kind := generatedKinds[draw(i, "kind")%len(generatedKinds)]
		title := fmt.Sprintf("%s %s %d", generatedHeads[draw(i, "head")%len(generatedHeads)],
			generatedSubjects[draw(i, "subject")%len(generatedSubjects)], 1990+draw(i, "year")%37)
		start := func(part string) time.Time {
			d := epoch.AddDate(0, 0, draw(i, part)%span)
			switch draw(i, part+"/day") % 5 {
			case 0:
				d = time.Date(d.Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
			case 1:
				d = time.Date(d.Year(), time.July, 1, 0, 0, 0, 0, time.UTC)
			}
			return d
		}
		froms := []time.Time{start("from")}
		if draw(i, "versions")%5 < 2 {
			later := start("from2")
			switch {
			case later.After(froms[0]):
				froms = append(froms, later)
			case later.Before(froms[0]):
				froms = []time.Time{later, froms[0]}
			}
		}
		reg := &regulation{id: id, title: title, kind: kind}
		for k, from := range froms {
			modified := from.AddDate(0, 0, -7)
			if modified.Before(firstLoad) {
				modified = firstLoad.AddDate(0, 0, draw(i, fmt.Sprintf("load%d", k))%(4*365))
			}
			d := from.Format(time.DateOnly)
			v := &version{label: d + "_0", from: d, item: id + "_" + d + "_0.xml", modified: modified.Format(time.DateOnly)}
			v.render = func() []byte { return generatedText(template, id, title, kind, d) }
			reg.versions = append(reg.versions, v)
		}
		endVersions(reg)
		out = append(out, reg)
	}
	return out
}

// generatedText is the template toestand as the generated regulation's.
func generatedText(template []byte, id, title, kind, from string) []byte {
	r := strings.NewReplacer(templateID, id, templateTitle, title, templateKind, `soort="`+kind+`"`, templateDate, from)
	var b bytes.Buffer
	_, _ = r.WriteString(&b, string(template))
	return b.Bytes()
}
