package corpus

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Rand returns a random source that depends only on seed and parts: the
// same arguments give the same sequence on every run. Parts are formatted
// with %v and separated, so Rand(1, "doc", 7) and Rand(1, "doc7") differ.
//
// It is math/rand/v2 (PCG): use r.IntN, r.Int64N, r.Float64, r.Perm.
func Rand(seed int64, parts ...any) *rand.Rand {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%T\x00%v", p, p)
	}
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

// Topics are policy topics of Dutch councils.
var Topics = []string{
	"woningbouw", "klimaatadaptatie", "energietransitie", "jeugdzorg", "Wmo", "participatiewet",
	"omgevingsvisie", "bestemmingsplan", "begroting", "jaarrekening", "stikstof", "verkeersveiligheid",
	"openbare ruimte", "duurzaamheid", "armoedebeleid", "onderwijshuisvesting", "sportaccommodaties",
	"cultuurbeleid", "afvalinzameling", "riolering", "wateroverlast", "dijkversterking", "zonnepark",
	"windturbines", "warmtenet", "laadpalen", "parkeerbeleid", "fietspad", "openbaar vervoer",
	"veiligheid", "ondermijning", "asielopvang", "statushouders", "sociaal domein", "schuldhulpverlening",
	"groenbeheer", "biodiversiteit", "erfgoed", "centrumplan", "bedrijventerrein", "recreatie en toerisme",
	"grondbeleid", "waterkwaliteit", "peilbesluit", "belastingtarieven", "inkoop", "digitalisering",
}

// Party is a political party.
type Party struct {
	Abbr string // "VVD"
	Name string // "Volkspartij voor Vrijheid en Democratie"
}

// Parties are real Dutch parties (national ones that also sit in councils).
var Parties = []Party{
	{"VVD", "Volkspartij voor Vrijheid en Democratie"},
	{"GL-PvdA", "GroenLinks-PvdA"},
	{"PvdA", "Partij van de Arbeid"},
	{"GroenLinks", "GroenLinks"},
	{"CDA", "Christen-Democratisch Appèl"},
	{"D66", "Democraten 66"},
	{"SP", "Socialistische Partij"},
	{"CU", "ChristenUnie"},
	{"SGP", "Staatkundig Gereformeerde Partij"},
	{"PVV", "Partij voor de Vrijheid"},
	{"PvdD", "Partij voor de Dieren"},
	{"JA21", "JA21"},
	{"BBB", "BoerBurgerBeweging"},
	{"Volt", "Volt Nederland"},
	{"DENK", "DENK"},
	{"50PLUS", "50PLUS"},
	{"NSC", "Nieuw Sociaal Contract"},
	{"FvD", "Forum voor Democratie"},
}

var firstNames = []string{
	"Jan", "Pieter", "Kees", "Henk", "Willem", "Joost", "Sander", "Bas", "Thijs", "Daan", "Ruud", "Marco",
	"Erik", "Mark", "Frank", "Jeroen", "Bart", "Wouter", "Arjen", "Hans", "Gerrit", "Mohamed", "Ahmet", "Youssef",
	"Anna", "Maria", "Sanne", "Lotte", "Femke", "Inge", "Marieke", "Esther", "Linda", "Karin", "Ingrid", "Petra",
	"Fatima", "Sevda", "Nadia", "Eva", "Sophie", "Iris", "Annemarie", "Mirjam", "Hanneke", "Wilma", "Joke", "Els",
}

var prefixes = []string{"", "", "", "", "van", "de", "van der", "van den", "van de", "ter", "den", "van 't"}

var lastNames = []string{
	"Jansen", "Bakker", "Visser", "Smit", "Meijer", "Mulder", "Bos", "Vos", "Peters", "Hendriks", "Dekker", "Brouwer",
	"Dijkstra", "Kok", "Jacobs", "Vermeulen", "Willems", "Hoekstra", "Koster", "Prins", "Kuipers", "Post", "Huisman",
	"Veenstra", "Schouten", "Boer", "Berg", "Wal", "Linden", "Heuvel", "Laan", "Vliet", "Graaf", "Hoeven", "Kamp",
	"Yilmaz", "Kaya", "El Amrani", "Bouzid", "Şahin", "Çelik", "Wijk", "Haan", "Groot", "Leeuwen", "Sluis", "Beek",
}

// PersonName returns a Dutch-looking full name ("Marieke van der Wal").
func PersonName(r *rand.Rand) string {
	parts := []string{firstNames[r.IntN(len(firstNames))]}
	if p := prefixes[r.IntN(len(prefixes))]; p != "" {
		parts = append(parts, p)
	}
	parts = append(parts, lastNames[r.IntN(len(lastNames))])
	return strings.Join(parts, " ")
}

var vocabulary = strings.Fields(`de het een en van in op met voor aan door over naar bij tot om als dat die
deze dit wordt worden is zijn heeft hebben kan kunnen moet moeten zal zullen niet ook nog wel al meer minder
gemeente raad college wethouder burgemeester fractie motie amendement voorstel besluit raadsvoorstel
raadsinformatiebrief commissie vergadering agenda inwoners ondernemers woningen wijk dorp kern centrum
budget kosten middelen financiën subsidie bijdrage investering dekking reserve voorziening structureel
incidenteel jaarlijks uitvoering beleid kader visie plan programma project maatregelen evaluatie
onderzoek advies rapport zienswijze inspraak participatie bezwaar procedure vergunning regels verordening
locatie gebied terrein perceel bestemming ontwikkeling realisatie bouw sloop renovatie nieuwbouw sociale
huur koop betaalbare starters senioren jongeren zorg ondersteuning voorzieningen welzijn onderwijs sport
cultuur natuur groen water bodem lucht klimaat energie warmte duurzame circulaire verkeer parkeren fiets
wegen bereikbaarheid veiligheid handhaving toezicht overleg afspraken samenwerking regio provincie rijk
waterschap partners maatschappelijke organisaties betrokken partijen voortgang planning fase besluitvorming
vaststellen instemmen kennisnemen verzoeken opdragen toezeggen informeren aanvullend nader uitgewerkt
voorgesteld aangenomen verworpen unaniem meerderheid stemming toelichting bijlage overwegende constaterende
van mening dat draagt op en gaat over tot de orde van de dag`)

// Words returns n space-separated lowercase Dutch words.
func Words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

// Sentence returns one Dutch-looking sentence of 8 to 22 words, capitalised
// and ending in a full stop.
func Sentence(r *rand.Rand) string {
	s := Words(r, 8+r.IntN(15))
	if r.IntN(5) == 0 {
		s += " " + Topics[r.IntN(len(Topics))]
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// Paragraphs returns n paragraphs of 3 to 7 sentences, separated by a blank
// line. About 700 bytes per paragraph: 40 paragraphs make some 28 KB.
func Paragraphs(r *rand.Rand, n int) string {
	ps := make([]string, n)
	for i := range ps {
		k := 3 + r.IntN(5)
		ss := make([]string, k)
		for j := range ss {
			ss[j] = Sentence(r)
		}
		ps[i] = strings.Join(ss, " ")
	}
	return strings.Join(ps, "\n\n")
}

var titleForms = []string{
	"Raadsvoorstel %s",
	"Raadsinformatiebrief over %s",
	"Motie %s",
	"Amendement %s",
	"Beantwoording schriftelijke vragen over %s",
	"Collegebesluit %s",
	"Verordening %s",
	"Startnotitie %s",
	"Evaluatie %s",
	"Kadernota %s",
	"Zienswijze op %s",
	"Uitvoeringsprogramma %s",
}

// Title returns a document title ("Raadsvoorstel woningbouw").
func Title(r *rand.Rand) string {
	return fmt.Sprintf(titleForms[r.IntN(len(titleForms))], Topics[r.IntN(len(Topics))])
}

// Date returns a time in [from, to), truncated to the minute. from must be
// before to; otherwise from is returned.
func Date(r *rand.Rand, from, to time.Time) time.Time {
	d := to.Sub(from)
	if d <= 0 {
		return from
	}
	return from.Add(time.Duration(r.Int64N(int64(d)))).Truncate(time.Minute)
}

// Months are the Dutch month names, January first.
var Months = []string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
	"september", "oktober", "november", "december"}

// DutchDate formats t as "7 november 2024".
func DutchDate(t time.Time) string {
	return fmt.Sprintf("%d %s %d", t.Day(), Months[t.Month()-1], t.Year())
}

// Fold prepares text for the emulators' word matching: lower case, and
// diacritics removed (so "Privé" matches "prive"). Plain ASCII, the usual
// case, is only lowered.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
