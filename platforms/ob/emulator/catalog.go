package emulator

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// kind is one publication series of officielepublicaties.
type kind struct {
	code      string // "stb"
	name      string // w.publicatienaam: "Staatsblad"
	root      string // element below officiele-publicatie: "staatsblad"
	perYear   int    // publications generated per year (before jitter)
	maxNum    int    // highest publication number in a year (numbers have gaps)
	firstYear int    // the series exists from this year on (0 = whole range)
	decentral bool   // published by a municipality, province or water board
}

var kinds = []kind{
	{code: "stb", name: "Staatsblad", root: "staatsblad", perYear: 40, maxNum: 550},
	{code: "stcrt", name: "Staatscourant", root: "staatscourant", perYear: 250, maxNum: 70000},
	{code: "kst", name: "Kamerstuk", root: "kamerstuk", perYear: 200},
	{code: "trb", name: "Tractatenblad", root: "tractatenblad", perYear: 15, maxNum: 220},
	{code: "gmb", name: "Gemeenteblad", root: "gemeenteblad", perYear: 300, maxNum: 600000, firstYear: 2014, decentral: true},
	{code: "prb", name: "Provinciaal blad", root: "provinciaalblad", perYear: 60, maxNum: 12000, firstYear: 2014, decentral: true},
	{code: "wsb", name: "Waterschapsblad", root: "waterschapsblad", perYear: 40, maxNum: 9000, firstYear: 2014, decentral: true},
}

// years is how many calendar years the catalogue spans, ending with the
// current year.
const years = 20

var ministries = []string{
	"Algemene Zaken", "Binnenlandse Zaken en Koninkrijksrelaties", "Buitenlandse Zaken", "Defensie",
	"Economische Zaken", "Financiën", "Infrastructuur en Waterstaat", "Justitie en Veiligheid",
	"Landbouw, Visserij, Voedselzekerheid en Natuur", "Onderwijs, Cultuur en Wetenschap",
	"Sociale Zaken en Werkgelegenheid", "Volksgezondheid, Welzijn en Sport",
	"Volkshuisvesting en Ruimtelijke Ordening", "Klimaat en Groene Groei",
}

var chapters = []string{"IV", "VI", "VII", "VIII", "IX", "XII", "XV", "XVI"}

var kstDocTitles = []string{
	"Voorstel van wet", "Memorie van toelichting", "Advies Afdeling advisering Raad van State en Nader rapport",
	"Verslag", "Nota naar aanleiding van het verslag", "Nota van wijziging", "Amendement", "Motie",
	"Brief van de minister", "Lijst van vragen en antwoorden", "Verslag van een schriftelijk overleg",
}

var decentralTypes = []string{
	"omgevingsvergunning", "omgevingsvergunning", "omgevingsvergunning", "verkeersbesluit",
	"Algemeen verbindend voorschrift (verordening)", "Beleidsregel", "Andere beschikking",
	"Bestemmingsplan", "Delegatie, mandaat en volmacht",
}

var activities = []struct{ code, text string }{
	{"bouwen", "bouwen van een woning"},
	{"bouwen", "plaatsen van een dakkapel"},
	{"slopen", "verwijderen van asbest van het dak"},
	{"kappen", "kappen van een boom"},
	{"gebruik", "gebruiken van gronden in strijd met het bestemmingsplan"},
	{"uitweg", "aanleggen van een uitweg"},
	{"bouwen", "uitbreiden van een bedrijfspand"},
}

var streets = []string{
	"Dorpsstraat", "Kerkstraat", "Molenweg", "Schoolstraat", "Stationsweg", "Julianastraat", "Beatrixlaan",
	"Hoofdstraat", "Nieuwstraat", "Industrieweg", "Frater Romboutsstraat", "Wilhelminalaan", "Eikenlaan",
	"Kastanjelaan", "Markt", "Havenweg", "Dijkweg", "Burgemeester de Kockstraat",
}

var subjects = []string{
	"Ruimte en infrastructuur", "Organisatie en beleid", "Verkeer", "Wonen", "Economie", "Financiën",
	"Natuur en milieu", "Openbare orde en veiligheid", "Zorg en gezondheid", "Onderwijs en wetenschap",
	"Bestuur", "Recht", "Werk", "Sociale zekerheid", "Cultuur en recreatie",
}

// pub is the metadata of one publication: everything the search needs.
// Full texts are generated on demand from the publication's own random
// source.
type pub struct {
	ID         string
	Kind       *kind
	Year       int
	Number     string // publicatienummer ("174296"); for kst the ondernummer
	Dossier    string // kst only: "36200" or "36200-VII"
	Vergader   string // kst only: "2024-2025"
	Behandeld  string // stb only: the dossier a law came from (Config.Laws, timeline.go)
	Title      string
	Type       string
	TypeScheme string
	Creator    string
	Scheme     string // scheme of creator/authority/publisher
	OrgType    string // w.organisatietype
	Subject    string
	Abstract   string
	Status     string // w.documentstatus
	Date       string // dcterms:date (document date)
	Issued     string // dcterms:issued = available (publication date)
	Modified   string // dcterms:modified
	Stamp      string // enrichedData timestamp (RFC 3339, +01:00/+02:00)
	Activity   [2]string
	Points     int // gebiedsmarkering points (omgevingsvergunning)
	Street     string

	text string // lowercased text for cql.serverChoice
}

// contentArea is c.content-area.
func (p *pub) contentArea() string {
	return "officielepublicaties/" + p.Kind.code + "/" + p.sub()
}

// sub is the FRBR subarea: the year, or the dossier number for Kamerstukken.
func (p *pub) sub() string {
	if p.Kind.code == "kst" {
		return strings.SplitN(p.Dossier, "-", 2)[0]
	}
	return strconv.Itoa(p.Year)
}

// catalog is the whole generated index, sorted by issue date then id.
type catalog struct {
	pubs []*pub
	byID map[string]*pub
	from time.Time
	now  time.Time // the day (midnight UTC) the catalogue was built for

	modified modifiedOrder // narrow.go
}

// RealisticScale makes about 300,000 publications over the twenty years
// (50,000 since 2024), for the figures' paging: the platform holds
// millions, more than an emulator should keep in memory.
const RealisticScale = 20

func buildCatalog(seed int64, now time.Time, scale int) *catalog {
	c := &catalog{byID: map[string]*pub{}, now: now}
	last := now.Year()
	first := last - years + 1
	c.from = time.Date(first, 1, 1, 0, 0, 0, 0, time.UTC)
	orgs := corpus.Orgs()
	byType := map[string][]corpus.Org{}
	for _, o := range orgs {
		byType[o.Type] = append(byType[o.Type], o)
	}
	for ki := range kinds {
		// The real record first: a generated one of the same id gives way.
		if k := &kinds[ki]; k.code == "gmb" && first <= 2023 && 2023 <= last {
			c.add(sampleRecord(k))
		}
	}
	for ki := range kinds {
		k := &kinds[ki]
		for y := first; y <= last; y++ {
			if k.firstYear != 0 && y < k.firstYear {
				continue
			}
			r := corpus.Rand(seed, "ob", k.code, y)
			n := (k.perYear*4/5 + r.IntN(k.perYear*2/5+1)) * scale
			dates := make([]time.Time, n)
			start := time.Date(y, 1, 2, 0, 0, 0, 0, time.UTC)
			end := time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC)
			for i := range dates {
				dates[i] = corpus.Date(r, start, end)
			}
			sort.Slice(dates, func(a, b int) bool { return dates[a].Before(dates[b]) })
			if k.code == "kst" {
				c.addKamerstukken(r, k, y, dates)
				continue
			}
			num := 0
			step := max(k.maxNum/n, 1) // a scaled catalogue numbers past the real maximum
			for _, d := range dates {
				num += 1 + r.IntN(2*step)
				p := &pub{Kind: k, Year: y, Number: strconv.Itoa(num)}
				p.ID = k.code + "-" + strconv.Itoa(y) + "-" + p.Number
				if k.decentral && r.IntN(150) == 0 {
					// Republished corrections get odd suffixes; never build a
					// URL from an identifier.
					p.ID += "-v1"
				}
				c.fill(r, p, d, byType)
				c.add(p)
			}
		}
	}
	sort.SliceStable(c.pubs, func(a, b int) bool {
		if c.pubs[a].Issued != c.pubs[b].Issued {
			return c.pubs[a].Issued < c.pubs[b].Issued
		}
		return c.pubs[a].ID < c.pubs[b].ID
	})
	return c
}

func (c *catalog) add(p *pub) {
	if _, dup := c.byID[p.ID]; dup {
		return
	}
	p.text = strings.ToLower(strings.Join([]string{p.ID, p.Title, p.Abstract, p.Subject, p.Creator, p.Kind.name, p.Type}, " "))
	c.pubs = append(c.pubs, p)
	c.byID[p.ID] = p
}

// addKamerstukken spreads a year's Kamerstukken over a dozen dossiers, one of
// them a budget with chapters ("kst-36200-VII-3").
func (c *catalog) addKamerstukken(r *rand.Rand, k *kind, y int, dates []time.Time) {
	base := 30000 + (y-2005)*365
	type dossier struct {
		nr    string
		title string
		next  int
	}
	ds := make([]*dossier, 12)
	for i := range ds {
		nr := strconv.Itoa(base + i*17 + r.IntN(15))
		title := "Wijziging van de " + lawName(r)
		if i == 0 {
			nr += "-" + chapters[r.IntN(len(chapters))]
			title = fmt.Sprintf("Vaststelling van de begrotingsstaten van het Ministerie van %s voor het jaar %d", ministries[r.IntN(len(ministries))], y+1)
		}
		ds[i] = &dossier{nr: nr, title: title, next: 1}
	}
	for _, d := range dates {
		dos := ds[r.IntN(len(ds))]
		p := &pub{Kind: k, Year: y, Dossier: dos.nr}
		p.Number = strconv.Itoa(dos.next)
		dos.next += 1 + boolInt(r.IntN(8) == 0) // a withdrawn number now and then
		p.ID = "kst-" + dos.nr + "-" + p.Number
		if d.Month() >= 9 {
			p.Vergader = fmt.Sprintf("%d-%d", y, y+1)
		} else {
			p.Vergader = fmt.Sprintf("%d-%d", y-1, y)
		}
		doc := kstDocTitles[r.IntN(len(kstDocTitles))]
		if p.Number == "1" {
			doc = "Koninklijke boodschap"
		} else if p.Number == "2" {
			doc = "Voorstel van wet"
		} else if p.Number == "3" {
			doc = "Memorie van toelichting"
		}
		if doc == "Amendement" || doc == "Motie" {
			doc += " van het lid " + corpus.PersonName(r)
		}
		p.Title = dos.title + "; " + doc
		p.Type, p.TypeScheme = "Kamerstuk", "OVERHEIDop.Parlementair"
		p.Creator, p.Scheme, p.OrgType = "Tweede Kamer der Staten-Generaal", "OVERHEID.StatenGeneraal", "staten-generaal"
		p.Subject = subjects[r.IntN(len(subjects))]
		p.Abstract = doc
		c.dates(r, p, d)
		c.add(p)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var lawNames = []string{
	"Wet op de zorgtoeslag", "Omgevingswet", "Participatiewet", "Wet maatschappelijke ondersteuning 2015",
	"Wet inkomstenbelasting 2001", "Wegenverkeerswet 1994", "Woningwet", "Wet milieubeheer",
	"Gemeentewet", "Provinciewet", "Waterschapswet", "Vreemdelingenwet 2000", "Wet op het primair onderwijs",
	"Algemene wet bestuursrecht", "Wetboek van Strafrecht", "Burgerlijk Wetboek Boek 7", "Wet open overheid",
	"Kieswet", "Opiumwet", "Arbeidsomstandighedenwet",
}

func lawName(r *rand.Rand) string { return lawNames[r.IntN(len(lawNames))] }

// fill sets the descriptive fields of a non-Kamerstuk publication.
func (c *catalog) fill(r *rand.Rand, p *pub, d time.Time, byType map[string][]corpus.Org) {
	k := p.Kind
	topic := corpus.Topics[r.IntN(len(corpus.Topics))]
	p.Subject = subjects[r.IntN(len(subjects))]
	if r.IntN(3) == 0 {
		p.Subject += " | " + subjects[r.IntN(len(subjects))]
	}
	switch {
	case k.decentral:
		orgType := map[string]string{"gmb": corpus.Gemeente, "prb": corpus.Provincie, "wsb": corpus.Waterschap}[k.code]
		list := byType[orgType]
		o := list[r.IntN(len(list))]
		p.Creator, p.OrgType = o.Label, orgType
		p.Scheme = map[string]string{"gmb": "OVERHEID.Gemeente", "prb": "OVERHEID.Provincie", "wsb": "OVERHEID.Waterschap"}[k.code]
		p.Type, p.TypeScheme = decentralTypes[r.IntN(len(decentralTypes))], "OVERHEIDop.Rubriek"
		switch p.Type {
		case "omgevingsvergunning":
			a := activities[r.IntN(len(activities))]
			p.Activity = [2]string{a.code, a.text}
			p.Street = fmt.Sprintf("%s %d %04d%c%c %s", streets[r.IntN(len(streets))], 1+r.IntN(140),
				1000+r.IntN(9000), 'A'+rune(r.IntN(26)), 'A'+rune(r.IntN(26)), o.Label)
			verb := []string{"Ingekomen melding", "Verleende omgevingsvergunning", "Aanvraag omgevingsvergunning", "Geweigerde omgevingsvergunning"}[r.IntN(4)]
			p.Title = verb + ", " + p.Street + ", " + a.text
			p.Abstract = a.text
			p.Points = 1 + r.IntN(2)
		case "verkeersbesluit":
			p.Title = fmt.Sprintf("Verkeersbesluit %s %s, %s", []string{"instellen parkeerverbod", "aanwijzen gehandicaptenparkeerplaats", "instellen eenrichtingsverkeer", "instellen 30 km-zone"}[r.IntN(4)], streets[r.IntN(len(streets))], o.Label)
			p.Abstract = p.Title
		default:
			p.Title = fmt.Sprintf("%s %s %s %d", []string{"Verordening", "Beleidsregels", "Besluit", "Regeling"}[r.IntN(4)], topic, o.Label, p.Year)
			p.Abstract = corpus.Sentence(r)
		}
	case k.code == "stb":
		p.Creator, p.Scheme, p.OrgType = "Ministerie van "+ministries[r.IntN(len(ministries))], "OVERHEID.Ministerie", "ministerie"
		p.Type, p.TypeScheme = []string{"Wet", "AMvB", "AMvB", "Koninklijk besluit", "Rijkswet"}[r.IntN(5)], "OVERHEIDop.Staatsblad"
		if p.Type == "Wet" || p.Type == "Rijkswet" {
			p.Title = fmt.Sprintf("Wet van %s tot wijziging van de %s in verband met %s", corpus.DutchDate(d.AddDate(0, 0, -5)), lawName(r), topic)
		} else {
			p.Title = fmt.Sprintf("Besluit van %s, houdende regels over %s", corpus.DutchDate(d.AddDate(0, 0, -12)), topic)
		}
		p.Abstract = p.Title
	case k.code == "trb":
		p.Creator, p.Scheme, p.OrgType = "Ministerie van Buitenlandse Zaken", "OVERHEID.Ministerie", "ministerie"
		p.Type, p.TypeScheme = "Verdrag", "OVERHEIDop.Tractatenblad"
		p.Title = fmt.Sprintf("Verdrag tussen het Koninkrijk der Nederlanden en %s inzake %s", []string{"de Bondsrepubliek Duitsland", "het Koninkrijk België", "de Franse Republiek", "Japan", "de Verenigde Staten van Amerika", "Canada"}[r.IntN(6)], topic)
		p.Abstract = p.Title
	default: // stcrt
		if r.IntN(4) == 0 {
			list := byType[corpus.Gemeente]
			o := list[r.IntN(len(list))]
			p.Creator, p.Scheme, p.OrgType = o.Label, "OVERHEID.Gemeente", corpus.Gemeente
			p.Type, p.TypeScheme = "omgevingsvergunning", "OVERHEIDop.Rubriek"
			p.Title = "Ter inzage: omgevingsvergunning"
			p.Abstract = activities[r.IntN(len(activities))].text
		} else {
			m := ministries[r.IntN(len(ministries))]
			p.Creator, p.Scheme, p.OrgType = "Ministerie van "+m, "OVERHEID.Ministerie", "ministerie"
			p.Type, p.TypeScheme = []string{"Ministeriële regeling", "Beleidsregel", "Besluit", "Mededeling", "Benoeming"}[r.IntN(5)], "OVERHEIDop.Rubriek"
			p.Title = fmt.Sprintf("%s van de Minister van %s van %s, nr. %d, houdende %s", regelingWord(p.Type), m, corpus.DutchDate(d.AddDate(0, 0, -3)), 1000000+r.IntN(9000000), topic)
			p.Abstract = p.Title
		}
	}
	c.dates(r, p, d)
}

func regelingWord(t string) string {
	switch t {
	case "Ministeriële regeling":
		return "Regeling"
	case "Benoeming", "Besluit":
		return "Besluit"
	}
	return t
}

// dates sets the document, issue and modification dates of p, issued on d.
func (c *catalog) dates(r *rand.Rand, p *pub, d time.Time) {
	p.Status = "Opgemaakt"
	if r.IntN(25) == 0 {
		p.Status = "Niet opgemaakt"
	}
	p.Issued = d.Format(time.DateOnly)
	p.Date = d.AddDate(0, 0, -r.IntN(10)).Format(time.DateOnly)
	mod := d
	if r.IntN(10) == 0 {
		mod = d.AddDate(0, 0, 1+r.IntN(300)) // corrected metadata later on
		if mod.After(c.now) {
			mod = d // not corrected yet
		}
	}
	p.Modified = mod.Format(time.DateOnly)
	ts := mod.Add(time.Duration(7*3600+r.IntN(10*3600))*time.Second + time.Duration(r.IntN(1e6))*time.Microsecond)
	p.Stamp = amsterdam(ts)
}

// amsterdam formats a wall-clock time of the Netherlands with its offset
// (+01:00 in winter, +02:00 in summer; EU rules, no tzdata needed).
func amsterdam(wall time.Time) string {
	off := "+01:00"
	if summer(wall) {
		off = "+02:00"
	}
	return wall.Format("2006-01-02T15:04:05.999999") + off
}

// summer tells whether EU summer time applies on the given date.
func summer(t time.Time) bool {
	y := t.Year()
	startDay := lastSunday(y, time.March)
	endDay := lastSunday(y, time.October)
	return !t.Before(startDay) && t.Before(endDay)
}

func lastSunday(y int, m time.Month) time.Time {
	d := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC) // last day of m
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}
