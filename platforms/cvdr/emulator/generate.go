package emulator

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The generated regulations: a deterministic corpus beside the real
// samples, so the replica's harvest by modification date pages through a
// realistic number of records (the CVDR's latest versions are about 5.6
// GB of XML, well over a hundred thousand regulations:
// docs/emulators.md). Each is the real CVDR100394_2 under another
// identifier, title, organisation and dates (its shape and text are the
// real one's); its keyword index holds its metadata's words (title,
// organisation, subject), not the template's text.

// RealisticRegulations is about the CVDR's regulations (the figures test
// harvests that many); OfflineRegulations is what the offline build's
// emulator holds: enough to split windows and page busy days, while a
// search over them stays a few milliseconds.
const (
	RealisticRegulations = 150000
	OfflineRegulations   = 2000
)

// generatedBase is the first generated regulation number: far above the
// real ones, so none collides.
const generatedBase = 9000000

// The template and what a generated regulation replaces in it.
const (
	templateFile     = "data/CVDR100394_2.xml"
	templateID       = "CVDR100394_2"
	templateTitle    = "Beleidsregels verkeersveiligheid en parkeren"
	templateCreator  = `scheme="overheid:Gemeente">Kampen<` // dcterms:creator and dcterms:spatial
	templateModified = "<dcterms:modified>2016-10-26</dcterms:modified>"
	templateFrom     = "<overheidrg:inwerkingtredingDatum>2016-10-27</overheidrg:inwerkingtredingDatum>"
	templateIssued   = "<dcterms:issued>2016-10-11</dcterms:issued>"
	templateSubject  = "ruimtelijke ordening, verkeer en vervoer"
)

// generatedOrgs are organisations of each kind (their scheme).
var generatedOrgs = []struct{ name, scheme string }{
	{"Kampen", "Gemeente"}, {"Utrecht", "Gemeente"}, {"Amsterdam", "Gemeente"}, {"Rotterdam", "Gemeente"},
	{"Zwolle", "Gemeente"}, {"Soest", "Gemeente"}, {"Groningen", "Gemeente"}, {"Maastricht", "Gemeente"},
	{"Tilburg", "Gemeente"}, {"Eindhoven", "Gemeente"}, {"Leiden", "Gemeente"}, {"Deventer", "Gemeente"},
	{"Zeeland", "Provincie"}, {"Gelderland", "Provincie"}, {"Drenthe", "Provincie"},
	{"Rijnland", "Waterschap"}, {"Vallei en Veluwe", "Waterschap"},
}

var (
	generatedHeads    = []string{"Verordening", "Beleidsregels", "Subsidieregeling", "Mandaatbesluit", "Legesverordening", "Reglement"}
	generatedSubjects = []string{"parkeren", "afvalstoffen", "jeugdhulp", "maatschappelijke ondersteuning", "evenementen",
		"standplaatsen", "ligplaatsen", "kinderopvang", "sport", "cultuur", "monumenten", "precariobelasting",
		"onroerendezaakbelastingen", "rioolheffing", "toeristenbelasting", "bijstand", "re-integratie", "inburgering",
		"wegen", "grondwater", "dijken", "natuur", "verkeer", "bouwen"}
)

// TitleVocabulary is what the generated regulations' titles name besides
// their heads: every subject and every organisation, once each. Figures
// draw from it the questions a generated CVDR can answer.
func TitleVocabulary() []string {
	out := slices.Clone(generatedSubjects)
	for _, o := range generatedOrgs {
		out = append(out, o.name)
	}
	return out
}

func draw(n int, part string) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d/%s", n, part)
	return int(h.Sum32() & 0x7fffffff)
}

// generate makes versions of n regulations: one in three has an earlier
// version, ended (uitwerkingtredingDatum) the day the newer came in force. A version is
// modified (published in the CVDR) a few days before it comes in force,
// from the CVDR's start in 2006 on; many come in force on 1 January, so
// those days hold hundreds of records.
func generate(n int, template []byte) []*regulation {
	epoch := time.Date(2006, 1, 1, 0, 0, 0, 0, time.UTC)
	// The last version comes in force a month before the tests' now
	// (2026-12-01), so no record is modified after it.
	span := int(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Sub(epoch).Hours() / 24)
	var out []*regulation
	for i := range n {
		org := generatedOrgs[draw(i, "org")%len(generatedOrgs)]
		subject := generatedSubjects[draw(i, "subject")%len(generatedSubjects)]
		title := generatedHeads[draw(i, "head")%len(generatedHeads)] + " " + subject + " " + org.name + " " + strconv.Itoa(2006+draw(i, "year")%21)
		start := func(part string) time.Time {
			d := epoch.AddDate(0, 0, 7+draw(i, part)%span)
			if draw(i, part+"/day")%4 == 0 {
				d = time.Date(d.Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
			}
			return d
		}
		froms := []time.Time{start("from")}
		if later := start("from2"); draw(i, "versions")%3 == 0 && !later.Equal(froms[0]) {
			froms = append(froms, later)
			if later.Before(froms[0]) {
				froms[0], froms[1] = later, froms[0]
			}
		}
		number := strconv.Itoa(generatedBase + i)
		for k, from := range froms {
			reg := &regulation{number: number, version: strconv.Itoa(k + 1), title: title, creator: org.name, orgType: org.scheme,
				from: from.Format(time.DateOnly), modified: from.AddDate(0, 0, -1-draw(i, "lead")%6).Format(time.DateOnly)}
			if k+1 < len(froms) {
				reg.until = froms[k+1].Format(time.DateOnly) // the day its successor takes over, as the CVDR writes it
			}
			reg.words = title + " " + org.name + " " + subject
			reg.remake = func() []byte { return generatedFile(template, reg, subject) }
			out = append(out, reg)
		}
	}
	return out
}

// generatedFile is the template regulation as reg's.
func generatedFile(template []byte, reg *regulation, subject string) []byte {
	ipm := "<overheidrg:inwerkingtredingDatum>" + reg.from + "</overheidrg:inwerkingtredingDatum>"
	if reg.until != "" {
		ipm += "<overheidrg:uitwerkingtredingDatum>" + reg.until + "</overheidrg:uitwerkingtredingDatum>"
	}
	r := strings.NewReplacer(templateID, reg.id(), templateTitle, reg.title,
		templateCreator, `scheme="overheid:`+reg.orgType+`">`+reg.creator+`<`,
		templateModified, "<dcterms:modified>"+reg.modified+"</dcterms:modified>", templateFrom, ipm,
		templateIssued, "<dcterms:issued>"+reg.modified+"</dcterms:issued>", templateSubject, subject)
	return []byte(r.Replace(string(template)))
}
