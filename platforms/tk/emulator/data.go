package emulator

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// prop is one property of an entity type, in the order the API writes it.
type prop struct {
	name string
	kind kind
}

// entityType is an OData entity type (= entity set of the same name).
type entityType struct {
	name  string
	props []prop
	pos   map[string]int
	// col maps a prop to its column in the set's rows and conv turns the
	// stored value into the prop's; both nil for a set's own type. Another
	// API version's view of the same rows uses them (version.go).
	col  []int
	conv []func(any) any
}

func newType(name string, props ...prop) *entityType {
	t := &entityType{name: name, props: props, pos: map[string]int{}}
	for i, p := range props {
		t.pos[p.name] = i
	}
	return t
}

func (t *entityType) kindOf(name string) (kind, bool) {
	i, ok := t.pos[name]
	if !ok {
		return 0, false
	}
	return t.props[i].kind, true
}

func (t *entityType) position(name string) int { return t.pos[name] }

// value is prop i of row r as this type shows it.
func (t *entityType) value(r row, i int) any {
	if t.col == nil {
		return r[i]
	}
	v := r[t.col[i]]
	if t.conv[i] != nil {
		v = t.conv[i](v)
	}
	return v
}

func (t *entityType) typeName() string { return "TK.DA.GGM.OData." + t.name }

// row holds the values of one entity, aligned with its type's props:
// nil, string, int, bool.
type row []any

// set is one entity set with its rows.
type set struct {
	typ  *entityType
	rows []row
	byID map[string]int
	// hasResource tells whether /<Set>(<id>)/resource serves bytes.
	hasResource bool
}

func (s *set) get(i int, name string) any { return s.rows[i][s.typ.pos[name]] }

// marshalRow writes the row's JSON object with props in type order; sel
// limits the props (nil = all). prefix is written first (already-encoded
// "key":value pairs followed by a comma, or empty).
func marshalRow(buf *bytes.Buffer, t *entityType, r row, sel []int, prefix string) {
	buf.WriteByte('{')
	buf.WriteString(prefix)
	first := true
	write := func(i int) {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(t.props[i].name)
		buf.Write(k)
		buf.WriteByte(':')
		v, _ := json.Marshal(t.value(r, i))
		buf.Write(v)
	}
	if sel == nil {
		for i := range t.props {
			write(i)
		}
	} else {
		for _, i := range sel {
			write(i)
		}
	}
	buf.WriteByte('}')
}

// ---- entity types, field names and types as in the real API ----

var (
	tFractie = newType("Fractie",
		prop{"Id", kGUID}, prop{"Nummer", kInt}, prop{"Afkorting", kString}, prop{"NaamNL", kString},
		prop{"NaamEN", kString}, prop{"AantalZetels", kInt}, prop{"AantalStemmen", kInt},
		prop{"DatumActief", kDate}, prop{"DatumInactief", kDate}, prop{"ContentType", kString},
		prop{"ContentLength", kInt}, prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tFractieZetel = newType("FractieZetel",
		prop{"Id", kGUID}, prop{"Gewicht", kInt}, prop{"Fractie_Id", kGUID},
		prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tFractieZetelPersoon = newType("FractieZetelPersoon",
		prop{"Id", kGUID}, prop{"FractieZetel_Id", kGUID}, prop{"Persoon_Id", kGUID}, prop{"Functie", kString},
		prop{"Van", kDate}, prop{"TotEnMet", kDate}, prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tPersoon = newType("Persoon",
		prop{"Id", kGUID}, prop{"Nummer", kInt}, prop{"Titels", kString}, prop{"Initialen", kString},
		prop{"Tussenvoegsel", kString}, prop{"Achternaam", kString}, prop{"Voornamen", kString},
		prop{"Roepnaam", kString}, prop{"Geslacht", kString}, prop{"Functie", kString},
		prop{"Geboortedatum", kDate}, prop{"Geboorteplaats", kString}, prop{"Geboorteland", kString},
		prop{"Overlijdensdatum", kDate}, prop{"Overlijdensplaats", kString}, prop{"Woonplaats", kString},
		prop{"Land", kString}, prop{"Fractielabel", kString}, prop{"ContentType", kString},
		prop{"ContentLength", kInt}, prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tCommissie = newType("Commissie",
		prop{"Id", kGUID}, prop{"Nummer", kInt}, prop{"Soort", kString}, prop{"Afkorting", kString},
		prop{"NaamNL", kString}, prop{"NaamEN", kString}, prop{"NaamWebNL", kString}, prop{"NaamWebEN", kString},
		prop{"Inhoudsopgave", kString}, prop{"DatumActief", kDate}, prop{"DatumInactief", kDate},
		prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tKamerstukdossier = newType("Kamerstukdossier",
		prop{"Id", kGUID}, prop{"Titel", kString}, prop{"Citeertitel", kString}, prop{"Alias", kString},
		prop{"Nummer", kInt}, prop{"Toevoeging", kString}, prop{"HoogsteVolgnummer", kInt},
		prop{"Afgesloten", kBool}, prop{"Kamer", kString}, prop{"GewijzigdOp", kDate},
		prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tDocument = newType("Document",
		prop{"Id", kGUID}, prop{"Soort", kString}, prop{"DocumentNummer", kString}, prop{"Titel", kString},
		prop{"Onderwerp", kString}, prop{"Datum", kDate}, prop{"Vergaderjaar", kString}, prop{"Kamer", kInt},
		prop{"Volgnummer", kInt}, prop{"Citeertitel", kString}, prop{"Alias", kString},
		prop{"DatumRegistratie", kDate}, prop{"DatumOntvangst", kDate}, prop{"Aanhangselnummer", kString},
		prop{"KenmerkAfzender", kString}, prop{"Organisatie", kString}, prop{"ContentType", kString},
		prop{"ContentLength", kInt}, prop{"HuidigeDocumentVersie_Id", kGUID},
		prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tZaak = newType("Zaak",
		prop{"Id", kGUID}, prop{"Nummer", kString}, prop{"Soort", kString}, prop{"Titel", kString},
		prop{"Citeertitel", kString}, prop{"Alias", kString}, prop{"Status", kString}, prop{"Onderwerp", kString},
		prop{"GestartOp", kDate}, prop{"Organisatie", kString}, prop{"Grondslagvoorhang", kString},
		prop{"Termijn", kString}, prop{"Vergaderjaar", kString}, prop{"Volgnummer", kInt},
		prop{"HuidigeBehandelstatus", kString}, prop{"Afgedaan", kBool}, prop{"GrootProject", kBool},
		prop{"Kabinetsappreciatie", kString},
		prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tBesluit = newType("Besluit",
		prop{"Id", kGUID}, prop{"Agendapunt_Id", kGUID}, prop{"StemmingsSoort", kString},
		prop{"BesluitSoort", kString}, prop{"BesluitTekst", kString}, prop{"Opmerking", kString},
		prop{"Status", kString}, prop{"AgendapuntZaakBesluitVolgorde", kInt},
		prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
)

// setOrder is the order of the entity sets in the service document and the
// SyncFeed category list.
var setOrder = []*entityType{tDocument, tZaak, tZaakActor, tBesluit, tStemming, tAgendapunt, tActiviteit,
	tKamerstukdossier, tFractie, tFractieZetel, tFractieZetelPersoon, tPersoon, tCommissie}

// ---- time formats ----

var (
	cet  = time.FixedZone("CET", 3600)
	cest = time.FixedZone("CEST", 7200)
)

func lastSunday(y int, m time.Month) time.Time {
	t := time.Date(y, m+1, 1, 1, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	for t.Weekday() != time.Sunday {
		t = t.AddDate(0, 0, -1)
	}
	return t
}

// amsterdam returns t in Dutch local time (CET/CEST).
func amsterdam(t time.Time) time.Time {
	u := t.UTC()
	if !u.Before(lastSunday(u.Year(), time.March)) && u.Before(lastSunday(u.Year(), time.October)) {
		return u.In(cest)
	}
	return u.In(cet)
}

// dayLocal is midnight of the given day in Dutch local time.
func dayLocal(t time.Time) string {
	noon := time.Date(t.Year(), t.Month(), t.Day(), 12, 0, 0, 0, time.UTC)
	loc := amsterdam(noon).Location()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc).Format("2006-01-02T15:04:05-07:00")
}

// localStamp is GewijzigdOp: local time with milliseconds trimmed.
func localStamp(t time.Time) string { return amsterdam(t).Format("2006-01-02T15:04:05.999-07:00") }

// apiStamp is ApiGewijzigdOp: UTC with 7 fractional digits trimmed.
func apiStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.9999999Z") }

func vergaderjaar(t time.Time) string {
	y := t.Year()
	if t.Month() < time.September {
		y--
	}
	return fmt.Sprintf("%d-%d", y, y+1)
}

// guid derives a stable version-4 GUID.
func guid(seed int64, parts ...any) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d", seed)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%v", p)
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ---- the data ----

// Data is the deterministic content of the emulated Gegevensmagazijn. It is
// built on first use (some 30 000 rows, well under a second) and shared by
// the OData and SyncFeed handlers and by the OpenTK emulator.
type Data struct {
	seed      int64
	end       time.Time
	documents int

	once sync.Once
	sets map[string]*set
	// docs holds what the API does not show about each document.
	docs []DocInfo
	// feed is every entity in SyncFeed order (by ApiGewijzigdOp).
	feed   []feedItem
	byGUID map[string]feedItem
	// members of each commissie (indexes into Persoon).
	commissieLeden map[int][]int
	persoonFractie map[int]int // persoon index → fractie index (latest seat)
	besluitDoc     []int       // besluit index → document (= zaak) index
	dossierDocs    [][]int     // kamerstukdossier index → document indexes

	nummerOnce sync.Once
	byNummer   map[string]int

	revMu       sync.Mutex
	rev         map[string]map[string][]int
	zaakBesluit map[int][]int
}

type feedItem struct {
	set   *set
	idx   int
	token int64
	at    int64 // ApiGewijzigdOp in Unix nanoseconds (feedplan.go merges by it)
}

// DocInfo is the hidden side of one Document.
type DocInfo struct {
	Index     int
	Dossier   int // -1 when not in a kamerstukdossier
	Persoon   int // indiener index into Persoon, -1 when none
	Commissie int // voortouwcommissie index, -1 when none
	Topic     string
}

// NewData returns the data for seed; documents dated up to end (a day).
// documents ≤ 0 means the default of 8000.
func NewData(seed int64, end time.Time, documents int) *Data {
	if documents <= 0 {
		documents = 8000
	}
	end = time.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, 0, time.UTC)
	return &Data{seed: seed, end: end, documents: documents}
}

func (d *Data) build() { d.once.Do(d.generate) }

type sharedKey struct {
	seed      int64
	end       time.Time
	documents int
}

// sharedData is bounded: a long-running server that is reloaded on another
// day gets a new key.
var sharedData corpus.Shared[sharedKey, *Data]

// SharedData returns one Data per (seed, day, documents) for the whole
// process, so the TK and OpenTK emulators of one seed hold the same
// documents in one copy. It is still generated only on first use.
func SharedData(seed int64, end time.Time, documents int) *Data {
	d := NewData(seed, end, documents)
	return sharedData.Get(sharedKey{seed, d.end, d.documents}, func() *Data { return d })
}

// Set returns the rows of an entity set by name (for other emulators).
func (d *Data) set(name string) *set {
	d.build()
	return d.sets[name]
}

type fractieDef struct {
	abbr, nl, en     string
	seats, stemmen   int
	actief, inactief string
}

// fracties: the 15 groups of the chamber elected in October 2025 and five
// earlier, inactive groups.
var fracties = []fractieDef{
	{"D66", "Democraten 66", "Democrats 66", 26, 2254456, "1967-02-23", ""},
	{"PVV", "Partij voor de Vrijheid", "Party for Freedom", 26, 1760966, "2006-11-30", ""},
	{"VVD", "Volkspartij voor Vrijheid en Democratie", "People's Party for Freedom and Democracy", 22, 1505829, "1948-01-24", ""},
	{"GroenLinks-PvdA", "GroenLinks-PvdA", "GreenLeft-Labour", 20, 1352163, "2023-12-06", ""},
	{"CDA", "Christen-Democratisch Appèl", "Christian Democratic Appeal", 18, 1246874, "1980-10-11", ""},
	{"JA21", "JA21", "JA21", 9, 628510, "2021-03-31", ""},
	{"FVD", "Forum voor Democratie", "Forum for Democracy", 7, 480393, "2017-03-23", ""},
	{"BBB", "BoerBurgerBeweging", "Farmer-Citizen Movement", 4, 279916, "2021-03-31", ""},
	{"DENK", "DENK", "DENK", 3, 250378, "2014-11-13", ""},
	{"SGP", "Staatkundig Gereformeerde Partij", "Reformed Political Party", 3, 215115, "1922-07-04", ""},
	{"PvdD", "Partij voor de Dieren", "Party for the Animals", 3, 219371, "2006-11-30", ""},
	{"ChristenUnie", "ChristenUnie", "Christian Union", 3, 201361, "2001-03-15", ""},
	{"SP", "Socialistische Partij", "Socialist Party", 3, 199585, "1994-05-17", ""},
	{"50PLUS", "50PLUS", "50PLUS", 2, 153540, "2012-09-20", ""},
	{"Volt", "Volt", "Volt", 1, 116560, "2021-03-31", ""},
	{"NSC", "Nieuw Sociaal Contract", "New Social Contract", 0, 0, "2023-12-06", "2025-11-11"},
	{"BRINK", "Brinkman", "Brinkman", 0, 0, "2012-03-20", "2012-09-19"},
	{"Omtzigt", "Omtzigt", "Omtzigt", 0, 0, "2021-06-15", "2023-12-05"},
	{"GL", "GroenLinks", "GreenLeft", 0, 0, "1990-11-24", "2023-12-05"},
	{"PvdA", "Partij van de Arbeid", "Labour Party", 0, 0, "1946-02-09", "2023-12-05"},
}

type commissieDef struct{ afk, naam, en, soort string }

var commissies = []commissieDef{
	{"BiZa", "Binnenlandse Zaken", "Interior", "Vaste commissie"},
	{"BuZa", "Buitenlandse Zaken", "Foreign Affairs", "Vaste commissie"},
	{"BHO", "Buitenlandse Handel en Ontwikkelingshulp", "Foreign Trade and Development Cooperation", "Vaste commissie"},
	{"DEF", "Defensie", "Defence", "Vaste commissie"},
	{"DiZa", "Digitale Zaken", "Digital Affairs", "Vaste commissie"},
	{"EZ", "Economische Zaken", "Economic Affairs", "Vaste commissie"},
	{"KGG", "Klimaat en Groene Groei", "Climate Policy and Green Growth", "Vaste commissie"},
	{"FIN", "Financiën", "Finance", "Vaste commissie"},
	{"IenW", "Infrastructuur en Waterstaat", "Infrastructure and Water Management", "Vaste commissie"},
	{"JenV", "Justitie en Veiligheid", "Justice and Security", "Vaste commissie"},
	{"LVVN", "Landbouw, Visserij, Voedselzekerheid en Natuur", "Agriculture, Fisheries, Food Security and Nature", "Vaste commissie"},
	{"OCW", "Onderwijs, Cultuur en Wetenschap", "Education, Culture and Science", "Vaste commissie"},
	{"SZW", "Sociale Zaken en Werkgelegenheid", "Social Affairs and Employment", "Vaste commissie"},
	{"VWS", "Volksgezondheid, Welzijn en Sport", "Health, Welfare and Sport", "Vaste commissie"},
	{"VRO", "Volkshuisvesting en Ruimtelijke Ordening", "Housing and Spatial Planning", "Vaste commissie"},
	{"AenM", "Asiel en Migratie", "Asylum and Migration", "Vaste commissie"},
	{"KR", "Koninkrijksrelaties", "Kingdom Relations", "Vaste commissie"},
	{"EU", "Europese Zaken", "European Affairs", "Vaste commissie"},
	{"RU", "Rijksuitgaven", "Public Expenditure", "Vaste commissie"},
	{"ALG", "Algemene Zaken", "General Affairs", "Vaste commissie"},
	{"WERKW", "Werkwijze", "Procedure", "Overig"},
	{"CIVD", "Inlichtingen- en Veiligheidsdiensten", "Intelligence and Security Services", "Overig"},
	{"VERZ", "Verzoekschriften en de Burgerinitiatieven", "Petitions and Citizens' Initiatives", "Overig"},
	{"PRES", "Presidium", "Presidium", "Presidium"},
	{"HUISH", "Huishoudelijke commissie", "Housekeeping Committee", "Overig"},
	{"BOUW", "Bouwbegeleidingscommissie", "Building Committee", "Overig"},
	{"CG-D", "Contactgroep Duitsland", "Contact group Germany", "Contactgroep"},
	{"CG-B", "Contactgroep België", "Contact group Belgium", "Contactgroep"},
	{"CG-F", "Contactgroep Frankrijk", "Contact group France", "Contactgroep"},
	{"CG-VK", "Contactgroep Verenigd Koninkrijk", "Contact group United Kingdom", "Contactgroep"},
	{"CG-VS", "Contactgroep Verenigde Staten", "Contact group United States", "Contactgroep"},
	{"NPA", "Delegatie NAVO Parlementaire Assemblee", "Delegation NATO Parliamentary Assembly", "Delegatie"},
	{"RvE", "Delegatie Raad van Europa", "Delegation Council of Europe", "Delegatie"},
	{"OVSE", "Delegatie OVSE", "Delegation OSCE", "Delegatie"},
	{"BNL", "Delegatie Beneluxparlement", "Delegation Benelux Parliament", "Delegatie"},
	{"PEFB", "Parlementaire enquêtecommissie Fraudebeleid en Dienstverlening", "Parliamentary inquiry Fraud Policy", "Parlementaire enquêtecommissie"},
	{"PEAG", "Parlementaire enquêtecommissie Aardgaswinning Groningen", "Parliamentary inquiry Groningen Gas", "Parlementaire enquêtecommissie"},
	{"PEC", "Parlementaire enquêtecommissie Corona", "Parliamentary inquiry Corona", "Parlementaire enquêtecommissie"},
	{"TCG", "Tijdelijke commissie Grondrechten en constitutionele toetsing", "Temporary committee Fundamental Rights", "Tijdelijke commissie"},
	{"EZK", "Economische Zaken en Klimaat", "Economic Affairs and Climate Policy", "Vaste commissie"},
	{"LNV", "Landbouw, Natuur en Voedselkwaliteit", "Agriculture, Nature and Food Quality", "Vaste commissie"},
}

// inactive commissies (replaced in 2024).
var commissieInactief = map[string]string{"EZK": "2024-07-02", "LNV": "2024-07-02", "PEAG": "2023-02-24", "PEFB": "2024-02-26"}

type docSoort struct {
	soort     string
	weight    int
	inDossier bool
	zaakSoort string
	indiener  bool
}

var docSoorten = []docSoort{
	{"Motie", 26, true, "Motie", true},
	{"Motie (gewijzigd/nader)", 3, true, "Motie", true},
	{"Amendement", 6, true, "Amendement", true},
	{"Brief regering", 20, true, "Brief regering", false},
	{"Schriftelijke vragen", 9, false, "Schriftelijke vragen", true},
	{"Antwoord schriftelijke vragen", 8, false, "Schriftelijke vragen", false},
	{"Brief commissie", 5, false, "Brief commissie", false},
	{"Verslag van een schriftelijk overleg", 5, true, "Verslag van een schriftelijk overleg", false},
	{"Lijst met feitelijke vragen", 3, true, "Lijst met feitelijke vragen", false},
	{"Voorstel van wet", 2, true, "Wetgeving", false},
	{"Memorie van toelichting", 2, true, "Wetgeving", false},
	{"Nota naar aanleiding van het verslag", 2, true, "Wetgeving", false},
	{"Verslag van een commissiedebat", 5, true, "Verslag", false},
	{"Brief Kamer", 4, false, "Brief Kamer", false},
}

var nationalTopics = []string{"stikstof", "woningmarkt", "asielopvang", "energietransitie", "toeslagenaffaire",
	"jeugdzorg", "pensioenen", "defensie-uitgaven", "Oekraïne", "Groningen", "klimaatbeleid", "onderwijsachterstanden",
	"zorgkosten", "arbeidsmigratie", "cybersecurity", "politiecapaciteit", "landbouw", "netcongestie", "kinderopvang",
	"huurbevriezing", "gaswinning", "openbaar vervoer", "wolf", "studiefinanciering", "digitale overheid",
	"koopkracht", "inburgering", "ggz", "Schiphol", "waterveiligheid"}

func topicOf(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return corpus.Topics[r.IntN(len(corpus.Topics))]
	}
	return nationalTopics[r.IntN(len(nationalTopics))]
}

var ministers = []string{"minister van Binnenlandse Zaken en Koninkrijksrelaties", "minister van Financiën",
	"minister van Volksgezondheid, Welzijn en Sport", "minister van Justitie en Veiligheid",
	"minister van Infrastructuur en Waterstaat", "minister van Onderwijs, Cultuur en Wetenschap",
	"staatssecretaris van Financiën", "minister van Sociale Zaken en Werkgelegenheid",
	"minister van Klimaat en Groene Groei", "minister van Asiel en Migratie"}

var plaatsen = []string{"Amsterdam", "Rotterdam", "'s-Gravenhage", "Utrecht", "Eindhoven", "Groningen", "Tilburg",
	"Almere", "Breda", "Nijmegen", "Apeldoorn", "Haarlem", "Arnhem", "Zwolle", "Leiden", "Maastricht", "Dordrecht",
	"Purmerend", "Leeuwarden", "Delft", "Amersfoort", "Enschede", "Deventer", "Den Bosch", "Heerlen"}

const electionDay = "2025-11-12"

func mustDate(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// stamps returns GewijzigdOp and ApiGewijzigdOp for a change at t.
func stamps(r *rand.Rand, t time.Time) (string, string, time.Time) {
	api := t.Add(time.Duration(1+r.IntN(60)) * time.Minute).Add(time.Duration(r.IntN(10_000_000)) * 100)
	return localStamp(t), apiStamp(api), api
}

func (d *Data) generate() {
	seed := d.seed
	d.sets = map[string]*set{}
	mk := func(t *entityType) *set {
		s := &set{typ: t, byID: map[string]int{}}
		d.sets[t.name] = s
		return s
	}
	apiTimes := map[*set][]time.Time{}
	add := func(s *set, r row, api time.Time) int {
		s.rows = append(s.rows, r)
		s.byID[r[0].(string)] = len(s.rows) - 1
		apiTimes[s] = append(apiTimes[s], api)
		return len(s.rows) - 1
	}
	nz := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}

	// Fracties.
	sF := mk(tFractie)
	sFZ := mk(tFractieZetel)
	sFZP := mk(tFractieZetelPersoon)
	sP := mk(tPersoon)
	sC := mk(tCommissie)
	sK := mk(tKamerstukdossier)
	sD := mk(tDocument)
	sZ := mk(tZaak)
	sB := mk(tBesluit)
	vc := &voteContext{d: d, add: add, sZA: mk(tZaakActor), sS: mk(tStemming), sAP: mk(tAgendapunt),
		sAC: mk(tActiviteit), actByDay: map[string]int{}}
	sD.hasResource = true
	sF.hasResource = true
	sP.hasResource = true

	election := mustDate(electionDay)
	for i, f := range fracties {
		r := corpus.Rand(seed, "tk-fractie", i)
		gew, api, at := stamps(r, corpus.Date(r, election.AddDate(0, -2, 0), election.AddDate(0, 6, 0)))
		var seats, stemmen, ct, cl any
		if f.inactief == "" {
			seats, stemmen = f.seats, f.stemmen
			ct, cl = []string{"image/png", "image/gif", "image/jpeg"}[r.IntN(3)], 2000+r.IntN(4000)
		}
		add(sF, row{guid(seed, "Fractie", i), 2700 + i*3 + r.IntN(3), f.abbr, f.nl, f.en, seats, stemmen,
			dayLocal(mustDate(f.actief)), nzDate(f.inactief), ct, cl, gew, api, false}, at)
	}

	// Persons: current members fill the seats of active fracties; former
	// members sat in earlier periods.
	d.persoonFractie = map[int]int{}
	newPersoon := func(n int, functie string, current bool) int {
		r := corpus.Rand(seed, "tk-persoon", n)
		name := strings.Fields(corpus.PersonName(r))
		voornaam := name[0]
		achternaam := name[len(name)-1]
		tussen := strings.Join(name[1:len(name)-1], " ")
		if len(name) > 2 && !isLower(name[1]) { // "El Amrani" style
			tussen = ""
			achternaam = strings.Join(name[1:], " ")
		}
		gesl := "man"
		if isFemale(voornaam) {
			gesl = "vrouw"
		}
		geb := corpus.Date(r, mustDate("1950-01-01"), mustDate("1998-01-01"))
		var titels any
		if r.IntN(3) == 0 {
			titels = []string{"MA", "MSc", "mr.", "dr.", "drs.", "ir.", "LLM"}[r.IntN(7)]
		}
		var overl, overlPlaats any
		if !current && geb.Year() < 1956 && r.IntN(5) == 0 {
			od := corpus.Date(r, mustDate("2015-01-01"), mustDate("2025-01-01"))
			overl, overlPlaats = dayLocal(od), plaatsen[r.IntN(len(plaatsen))]
		}
		var ct, cl any
		if current || r.IntN(2) == 0 {
			ct, cl = "image/jpeg", 40000+r.IntN(400000)
		}
		upd := election.AddDate(0, 0, r.IntN(300))
		if !current {
			upd = corpus.Date(r, mustDate("2019-01-01"), election)
		}
		gew, api, at := stamps(r, upd.Add(time.Duration(r.IntN(36000))*time.Second))
		return add(sP, row{guid(seed, "Persoon", n), 1000 + n*7 + r.IntN(7), titels, voornaam[:1] + ".", nz(tussen),
			achternaam, voornaam, voornaam, gesl, functie, dayLocal(geb), plaatsen[r.IntN(len(plaatsen))], "Nederland",
			overl, overlPlaats, plaatsen[r.IntN(len(plaatsen))], "NL", nil, ct, cl, gew, api, false}, at)
	}
	pn := 0
	zetelFor := func(fi, gewicht int) int {
		r := corpus.Rand(seed, "tk-zetel", fi, gewicht)
		base := mustDate(fracties[fi].actief)
		if base.Before(mustDate("2008-01-01")) {
			base = mustDate("2008-01-01")
		}
		gew, api, at := stamps(r, corpus.Date(r, base, base.AddDate(0, 3, 0)).Add(time.Hour))
		return add(sFZ, row{guid(seed, "FractieZetel", fi, gewicht), gewicht, guid(seed, "Fractie", fi), gew, api, false}, at)
	}
	addFZP := func(zetel, persoon int, functie string, van time.Time, tot string) {
		r := corpus.Rand(seed, "tk-fzp", zetel, persoon)
		ts := van
		if tot != "" {
			ts = mustDate(tot)
		}
		gew, api, at := stamps(r, ts.Add(time.Duration(8+r.IntN(10))*time.Hour))
		add(sFZP, row{guid(seed, "FractieZetelPersoon", zetel, persoon), sFZ.rows[zetel][0], sP.rows[persoon][0],
			functie, dayLocal(van), nzDate(tot), gew, api, false}, at)
	}
	var current []int
	for fi, f := range fracties {
		if f.inactief != "" {
			continue
		}
		for g := 1; g <= f.seats; g++ {
			z := zetelFor(fi, g)
			p := newPersoon(pn, "Tweede Kamerlid", true)
			pn++
			current = append(current, p)
			d.persoonFractie[p] = fi
			functie := "Lid"
			if g == 1 {
				functie = "Fractievoorzitter"
			}
			addFZP(z, p, functie, election, "")
			// earlier occupants of the same seat
			r := corpus.Rand(seed, "tk-earlier", fi, g)
			for k := 0; k < r.IntN(3); k++ {
				op := newPersoon(pn, "Oud Kamerlid", false)
				pn++
				d.persoonFractie[op] = fi
				van := corpus.Date(r, mustDate("2012-09-20"), mustDate("2021-03-31"))
				tot := van.AddDate(1+r.IntN(4), r.IntN(12), 0)
				if !tot.Before(election) {
					tot = election.AddDate(0, 0, -1)
				}
				addFZP(z, op, "Lid", van, tot.Format("2006-01-02"))
			}
		}
	}
	for fi, f := range fracties {
		if f.inactief == "" {
			continue
		}
		r := corpus.Rand(seed, "tk-inactief", fi)
		n := 1 + r.IntN(20)
		if f.abbr == "BRINK" || f.abbr == "Omtzigt" {
			n = 1
		}
		for g := 1; g <= n; g++ {
			z := zetelFor(fi, g)
			op := newPersoon(pn, "Oud Kamerlid", false)
			pn++
			d.persoonFractie[op] = fi
			addFZP(z, op, "Lid", mustDate(f.actief).AddDate(0, 0, 1), f.inactief)
		}
	}

	// Commissies with their current members.
	d.commissieLeden = map[int][]int{}
	for i, c := range commissies {
		r := corpus.Rand(seed, "tk-commissie", i)
		gew, api, at := stamps(r, corpus.Date(r, election, election.AddDate(0, 8, 0)))
		actief := "2008-01-01"
		if c.soort == "Parlementaire enquêtecommissie" || c.soort == "Tijdelijke commissie" {
			actief = corpus.Date(r, mustDate("2019-01-01"), mustDate("2023-01-01")).Format("2006-01-02")
		}
		naam := c.naam
		if c.soort == "Vaste commissie" {
			naam = "Vaste commissie voor " + c.naam
		}
		add(sC, row{guid(seed, "Commissie", i), 2010000 + i*13, c.soort, c.afk, naam, "Committee for " + c.en,
			c.naam, c.en, "Commissie " + c.naam, dayLocal(mustDate(actief)), nzDate(commissieInactief[c.afk]), gew, api, false}, at)
		if commissieInactief[c.afk] == "" {
			n := 13 + r.IntN(14)
			perm := r.Perm(len(current))
			for _, k := range perm[:n] {
				d.commissieLeden[i] = append(d.commissieLeden[i], current[k])
			}
		}
	}

	vc.current = current
	for fi, f := range fracties {
		if f.inactief == "" {
			vc.active = append(vc.active, fi)
		}
	}

	// Kamerstukdossiers.
	start := d.end.AddDate(-4, 0, 0)
	nDossiers := d.documents / 14
	dossierTopic := make([]string, nDossiers)
	dossierCount := make([]int, nDossiers)
	d.dossierDocs = make([][]int, nDossiers)
	for k := 0; k < nDossiers; k++ {
		r := corpus.Rand(seed, "tk-dossier", k)
		topic := topicOf(r)
		dossierTopic[k] = topic
		titel := []string{
			"Wijziging van de Wet %s in verband met de modernisering van de regels",
			"Regels over %s (Wet %s)",
			"Beleid inzake %s",
			"Initiatiefnota over %s",
			"Vaststelling van de begrotingsstaten voor het jaar %d",
		}[r.IntN(5)]
		switch strings.Count(titel, "%") {
		case 1:
			if strings.Contains(titel, "%d") {
				titel = fmt.Sprintf(titel, start.Year()+r.IntN(5))
			} else {
				titel = fmt.Sprintf(titel, topic)
			}
		case 2:
			titel = fmt.Sprintf(titel, topic, topic)
		}
		toev := ""
		if strings.HasPrefix(titel, "Vaststelling") {
			toev = []string{"VII", "VIII", "IX", "X", "XII", "XV", "XVI", "XVII"}[r.IntN(8)]
		}
		// HoogsteVolgnummer is filled in below.
		add(sK, row{guid(seed, "Kamerstukdossier", k), titel, nil, nil, 35800 + k*2 + r.IntN(2), toev, 0,
			false, "Tweede Kamer", nil, nil, false}, time.Time{})
	}

	// Documents, one Zaak each, and a Besluit for motions and amendments.
	total := 0
	for _, s := range docSoorten {
		total += s.weight
	}
	span := d.end.Sub(start)
	d.docs = make([]DocInfo, d.documents)
	for i := 0; i < d.documents; i++ {
		r := corpus.Rand(seed, "tk-doc", i)
		day := start.Add(time.Duration(float64(span) * float64(i) / float64(d.documents)))
		day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		w := r.IntN(total)
		var ds docSoort
		for _, s := range docSoorten {
			if w < s.weight {
				ds = s
				break
			}
			w -= s.weight
		}
		info := DocInfo{Index: i, Dossier: -1, Persoon: -1, Commissie: r.IntN(20)}
		var volg any
		titel := ""
		topic := topicOf(r)
		if ds.inDossier && nDossiers > 0 {
			k := r.IntN(nDossiers)
			info.Dossier = k
			dossierCount[k]++
			volg = dossierCount[k]
			d.dossierDocs[k] = append(d.dossierDocs[k], i)
			titel = sK.rows[k][1].(string)
			topic = dossierTopic[k]
		}
		info.Topic = topic
		var indiener string
		if ds.indiener {
			var p int
			if day.After(election) || len(sP.rows) == len(current) {
				p = current[r.IntN(len(current))]
			} else {
				p = r.IntN(len(sP.rows))
			}
			info.Persoon = p
			row := sP.rows[p]
			indiener = row[5].(string)
			if tv, ok := row[4].(string); ok {
				indiener = tv + " " + indiener
			}
		}
		onderwerp := ""
		switch ds.soort {
		case "Motie", "Motie (gewijzigd/nader)":
			onderwerp = fmt.Sprintf("Motie van het lid %s over %s", indiener, lowerPhrase(r, topic))
			if ds.soort != "Motie" {
				onderwerp = "Gewijzigde motie van het lid " + indiener + " over " + lowerPhrase(r, topic)
			}
		case "Amendement":
			onderwerp = fmt.Sprintf("Amendement van het lid %s over %s", indiener, lowerPhrase(r, topic))
		case "Schriftelijke vragen":
			onderwerp = fmt.Sprintf("Vragen van het lid %s aan de %s over %s", indiener, ministers[r.IntN(len(ministers))], lowerPhrase(r, topic))
		case "Antwoord schriftelijke vragen":
			onderwerp = fmt.Sprintf("Antwoord op vragen van het lid %s over %s", sP.rows[current[r.IntN(len(current))]][5], lowerPhrase(r, topic))
		case "Brief regering":
			onderwerp = fmt.Sprintf("Brief van de %s over %s", ministers[r.IntN(len(ministers))], lowerPhrase(r, topic))
		default:
			onderwerp = fmt.Sprintf("%s over %s", ds.soort, lowerPhrase(r, topic))
		}
		if titel == "" {
			titel = onderwerp
		}
		num := fmt.Sprintf("%dD%05d", day.Year(), 1000+i*5+r.IntN(5))
		reg := day
		gew, api, at := stamps(r, day.Add(time.Duration(7*3600+r.IntN(9*3600))*time.Second))
		var ontvangst any
		if ds.soort == "Antwoord schriftelijke vragen" || ds.soort == "Brief regering" {
			ontvangst = dayLocal(day)
		}
		var kenmerk any
		if ds.soort == "Brief regering" {
			kenmerk = fmt.Sprintf("%d-%07d", day.Year(), r.IntN(10_000_000))
		}
		cl := 18000 + r.IntN(70000)
		add(sD, row{guid(seed, "Document", i), ds.soort, num, titel, onderwerp, dayLocal(day), vergaderjaar(day), 2,
			volg, nil, nil, dayLocal(reg), ontvangst, nil, kenmerk, "Tweede Kamer", "application/pdf", cl,
			guid(seed, "DocumentVersie", i), gew, api, false}, at)
		d.docs[i] = info

		zr := corpus.Rand(seed, "tk-zaak", i)
		apprec := "Niet van toepassing"
		afgedaan := day.Before(d.end.AddDate(0, -1, 0))
		if ds.zaakSoort == "Motie" || ds.zaakSoort == "Amendement" {
			apprec = []string{"Ontraden", "Oordeel Kamer", "Overgenomen", "Ontraden", "Oordeel Kamer", "Niet beschikbaar bij gewijzigde moties en/of amendementen"}[zr.IntN(6)]
		}
		zgew, zapi, zat := stamps(zr, day.Add(time.Duration(8*3600+zr.IntN(3600*8))*time.Second))
		zaakID := guid(seed, "Zaak", i)
		add(sZ, row{zaakID, fmt.Sprintf("%dZ%05d", day.Year(), 1000+i*5+zr.IntN(5)), ds.zaakSoort, titel, nil, nil,
			"Vrijgegeven", onderwerp, dayLocal(day), "Tweede Kamer", nil, nil, vergaderjaar(day), volg, nil,
			afgedaan, false, apprec, zgew, zapi, false}, zat)
		vc.zaakActors(i, zaakID, day)
		if (ds.zaakSoort == "Motie" || ds.zaakSoort == "Amendement") && day.Before(d.end.AddDate(0, 0, -7)) {
			br := corpus.Rand(seed, "tk-besluit", i)
			vote := nextTuesday(day)
			soort, tekst := "Stemmen - aangenomen", "Aangenomen."
			if br.IntN(5) < 3 {
				soort, tekst = "Stemmen - verworpen", "Verworpen."
			}
			if br.IntN(15) == 0 {
				soort, tekst = "Ingediend", "Ingediend."
			}
			stem := "Met handopsteken"
			if br.IntN(30) == 0 {
				stem = "Hoofdelijk"
			}
			bgew, bapi, bat := stamps(br, vote.Add(16*time.Hour))
			d.besluitDoc = append(d.besluitDoc, i)
			apID := vc.vote(i, vote, soort, stem, topic)
			add(sB, row{guid(seed, "Besluit", i), apID,
				stem, soort, tekst, nil, "Besluit", 1 + br.IntN(30), bgew, bapi, false}, bat)
		}
	}
	// dossier counters and stamps
	for k := range sK.rows {
		r := corpus.Rand(seed, "tk-dossier-stamp", k)
		sK.rows[k][6] = dossierCount[k]
		t := corpus.Date(r, start, d.end)
		gew, api, at := stamps(r, t)
		sK.rows[k][9], sK.rows[k][10] = gew, api
		apiTimes[sK][k] = at
		if r.IntN(8) == 0 {
			sK.rows[k][7] = true
		}
	}

	// SyncFeed order: every entity by ApiGewijzigdOp, then a global token.
	type stamped struct {
		feedItem
		at int64
	}
	var all []stamped
	for _, t := range setOrder {
		s := d.sets[t.name]
		times := apiTimes[s]
		for i := range s.rows {
			all = append(all, stamped{feedItem{set: s, idx: i}, times[i].UnixNano()})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].at < all[b].at })
	d.feed = make([]feedItem, len(all))
	for p := range all {
		d.feed[p] = all[p].feedItem
		d.feed[p].at = all[p].at
	}
	d.byGUID = make(map[string]feedItem, len(d.feed))
	for p := range d.feed {
		d.feed[p].token = 15_000_000 + int64(p)*3 + 1
		f := d.feed[p]
		d.byGUID[f.set.rows[f.idx][0].(string)] = f
	}
}

func nzDate(s string) any {
	if s == "" {
		return nil
	}
	return dayLocal(mustDate(s))
}

func isLower(s string) bool { return s != "" && strings.ToLower(s[:1]) == s[:1] }

func isFemale(first string) bool {
	switch first {
	case "Anna", "Maria", "Sanne", "Lotte", "Femke", "Inge", "Marieke", "Esther", "Linda", "Karin", "Ingrid", "Petra",
		"Fatima", "Sevda", "Nadia", "Eva", "Sophie", "Iris", "Annemarie", "Mirjam", "Hanneke", "Wilma", "Joke", "Els":
		return true
	}
	return false
}

var phraseForms = []string{"%s", "de aanpak van %s", "extra middelen voor %s", "een onderzoek naar %s",
	"het kabinetsbeleid inzake %s", "de gevolgen van %s voor gemeenten", "een plan van aanpak voor %s",
	"het tegengaan van vertraging bij %s"}

func lowerPhrase(r *rand.Rand, topic string) string {
	return fmt.Sprintf(phraseForms[r.IntN(len(phraseForms))], topic)
}

// ---- exported accessors for the OpenTK emulator ----

// Doc is a document as other emulators see it.
type Doc struct {
	DocInfo
	ID, Soort, Nummer, Titel, Onderwerp string
	Datum                               time.Time
	Bijgewerkt                          string // ApiGewijzigdOp
	ContentType                         string
	Volgnummer                          int
	PersoonNummer                       int // 0 when none
}

// Documents returns the number of documents.
func (d *Data) Documents() int { d.build(); return len(d.docs) }

// Document returns document i.
func (d *Data) Document(i int) Doc {
	d.build()
	s := d.sets["Document"]
	r := s.rows[i]
	dt, _ := time.Parse(time.RFC3339, r[5].(string))
	doc := Doc{DocInfo: d.docs[i], ID: r[0].(string), Soort: r[1].(string), Nummer: r[2].(string),
		Titel: r[3].(string), Onderwerp: r[4].(string), Datum: dt, Bijgewerkt: r[20].(string), ContentType: r[16].(string)}
	if v, ok := r[8].(int); ok {
		doc.Volgnummer = v
	}
	if doc.Persoon >= 0 {
		doc.PersoonNummer = d.sets["Persoon"].rows[doc.Persoon][1].(int)
	}
	return doc
}

// DocumentByNummer finds a document by DocumentNummer or by GUID.
func (d *Data) DocumentByNummer(key string) (int, bool) {
	d.build()
	s := d.sets["Document"]
	if i, ok := s.byID[strings.ToLower(key)]; ok {
		return i, true
	}
	d.nummerOnce.Do(func() {
		d.byNummer = make(map[string]int, len(s.rows))
		for i, r := range s.rows {
			d.byNummer[r[2].(string)] = i
		}
	})
	i, ok := d.byNummer[key]
	return i, ok
}

// Row returns the named property of row i of an entity set.
func (d *Data) Row(setName string, i int, prop string) any {
	s := d.set(setName)
	if s == nil || i < 0 || i >= len(s.rows) {
		return nil
	}
	p, ok := s.typ.pos[prop]
	if !ok {
		return nil
	}
	return s.rows[i][p]
}

// Len returns the number of rows of an entity set.
func (d *Data) Len(setName string) int {
	s := d.set(setName)
	if s == nil {
		return 0
	}
	return len(s.rows)
}

// CommissieLeden returns the Persoon indexes of a commissie's members.
func (d *Data) CommissieLeden(c int) []int { d.build(); return d.commissieLeden[c] }

// PersoonFractie returns the Fractie index of a person's latest seat.
func (d *Data) PersoonFractie(p int) (int, bool) {
	d.build()
	f, ok := d.persoonFractie[p]
	return f, ok
}

// End is the last day of the data.
func (d *Data) End() time.Time { return d.end }

// DossierDocuments returns the document indexes of kamerstukdossier k, in
// order of Volgnummer.
func (d *Data) DossierDocuments(k int) []int {
	d.build()
	if k < 0 || k >= len(d.dossierDocs) {
		return nil
	}
	return d.dossierDocs[k]
}

// Seed is the seed the data was generated from.
func (d *Data) Seed() int64 { return d.seed }
