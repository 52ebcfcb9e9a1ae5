package caselaw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// The generated corpus of the benchmarks: decisions that look like
// Rechtspraak's feed to an index. Titles carry an ECLI, a court, a date and
// case numbers (unique tokens, as real titles have); summaries start with
// an area of law and run 15 to 90 words: stop words, and content words
// drawn Zipf-distributed from a vocabulary of about 30,000 (common legal
// words first, then compounds, then a long tail of rare made-up words),
// with now and then one of the fixed phrases real summaries repeat. The
// most common content word is in about half the summaries; the words of
// the typical queries in 1 to 15 percent. Everything follows from the
// decision's number, so a corpus is the same on every run.

// genVersion names the generator in cached benchmark indexes; raise it
// when the generator changes. 3: days drawn with a bounded density
// (laterUnit); 2's last day held 1 % of every corpus.
const genVersion = 3

var genAreas = []string{
	"Bestuursrecht", "Strafrecht", "Civiel recht", "Arbeidsrecht", "Huurrecht", "Familierecht",
	"Omgevingsrecht", "Vreemdelingenrecht", "Belastingrecht", "Socialezekerheidsrecht",
	"Ondernemingsrecht", "Verbintenissenrecht", "Insolventierecht", "Ambtenarenrecht", "Personen- en familierecht",
}

// genCommon is in rough order of frequency: the Zipf draw favours the start.
var genCommon = strings.Fields(`
rechtbank beroep hof uitspraak verzoek besluit verweerder eiser appellant verdachte
oordeel zaak vordering grond gronden termijn partijen beslissing college minister
overeenkomst schade vergoeding kosten proceskosten vergunning aanvraag bezwaar handhaving
ontslag werkgever werknemer huurder verhuurder woning huur arbeidsovereenkomst loon
straf gevangenisstraf taakstraf feit feiten bewijs getuige verklaring aangifte diefstal
mishandeling opiumwet witwassen oplichting fraude belasting aanslag navorderingsaanslag boete
vergrijpboete inspecteur ontvanger uitkering bijstand wet artikel lid bepaling toepassing
bestemmingsplan omgevingsvergunning bouwen perceel gemeente provincie raad staat
dwangsom last ontbinding opzegging huurovereenkomst aansprakelijkheid onrechtmatige daad
wanprestatie koopovereenkomst levering betaling rente incasso faillissement curator schuldeiser
vennootschap bestuurder aandeelhouder jaarrekening voogdij gezag omgang kind ouder
alimentatie echtscheiding partneralimentatie kinderalimentatie ondertoezichtstelling
uithuisplaatsing asiel verblijfsvergunning vreemdeling inreisverbod bewaring
onderzoek deskundige rapport advies motivering zorgvuldigheid evenredigheid vertrouwensbeginsel
rechtszekerheid belangenafweging proportionaliteit ontvankelijkheid niet-ontvankelijk gegrond ongegrond
vernietiging herroeping hoger cassatie verwijzing terugverwijzing conclusie advocaat-generaal
voorzieningenrechter voorlopige voorziening spoedeisend belang kort geding executie
beslag conservatoir derdenbeslag hypotheek pandrecht borgtocht erfrecht nalatenschap testament
legitieme portie verdeling gemeenschap huwelijksgoederen pensioen verevening
letselschade smartengeld verkeersongeval verzekeraar verzekering polis dekking uitsluiting
medische zorgplicht tuchtrecht arts beroepsfout klachtplicht verjaring stuiting
milieu natuur stikstof depositie natura passende beoordeling habitat soortenbescherming
geluid geur luchtkwaliteit windturbine zonnepark veehouderij melkveehouderij varkenshouderij
drugs cocaïne heroïne hennep hennepkwekerij wapen vuurwapen munitie poging doodslag moord
zware verkeersdelict rijbewijs alcohol snelheid verkeerswet ontzegging rijbevoegdheid
jeugd jeugdzorg wmo maatwerkvoorziening zorg indicatie pgb persoonsgebonden budget
privacy avg persoonsgegevens openbaarmaking woo wob informatieverzoek weigering
subsidie vaststelling terugvordering inkomstenbelasting vennootschapsbelasting btw omzetbelasting
overdrachtsbelasting erfbelasting schenkbelasting douane invoerrechten accijns`)

// genStop are Dutch stop words, frequent in real text and dropped by the
// analyzer: they cost tokenizing, not postings.
var genStop = strings.Fields("de het een van in op te voor met dat is niet aan door bij als om naar zijn er ook dan of tot")

// genPhrases are the fixed phrases of real summaries, for phrase queries,
// the common ones first.
var genPhrases = []string{
	"in strijd met", "het beroep is ongegrond", "naar het oordeel van de rechtbank", "het beroep is gegrond",
	"redelijke termijn", "last onder dwangsom", "dringende reden", "ontslag op staande voet",
	"passende beoordeling", "schending van de zorgplicht", "artikel 6:162 BW", "artikel 8 EVRM",
}

// genPrefixes × genHeads make the long tail: compound words, each rare.
var genHeads = strings.Fields(`vergunning overeenkomst besluit regeling verplichting procedure aanvraag
voorziening beschikking uitkering heffing plan verbod ontheffing toeslag vordering aansprakelijkheid
schade beslissing verklaring maatregel`)

var genPrefixes = strings.Fields(`stikstof omgevings milieu natuur bouw sloop kap exploitatie horeca
evenementen drank standplaats terras huur koop arbeids zorg jeugd bijstands werkloosheids
arbeidsongeschiktheids kinderopvang huur zorg woon reis verblijfs gezins naturalisatie belasting
invorderings verzuim vergrijp bestuurs straf toezicht handhavings gedoog sanctie herstel schade
geluid geur water grond lucht energie wind zon mest dier pluimvee varkens rundvee visserij
jacht faunabeheer verkeers parkeer taxi vervoer bus spoor haven luchtvaart`)

var genCourts = []struct{ name, code string }{
	{"Rechtbank Amsterdam", "RBAMS"}, {"Rechtbank Den Haag", "RBDHA"}, {"Rechtbank Rotterdam", "RBROT"},
	{"Rechtbank Midden-Nederland", "RBMNE"}, {"Rechtbank Gelderland", "RBGEL"}, {"Rechtbank Oost-Brabant", "RBOBR"},
	{"Rechtbank Zeeland-West-Brabant", "RBZWB"}, {"Rechtbank Limburg", "RBLIM"}, {"Rechtbank Noord-Holland", "RBNHO"},
	{"Rechtbank Noord-Nederland", "RBNNE"}, {"Rechtbank Overijssel", "RBOVE"},
	{"Gerechtshof Amsterdam", "GHAMS"}, {"Gerechtshof Den Haag", "GHDHA"},
	{"Gerechtshof Arnhem-Leeuwarden", "GHARL"}, {"Gerechtshof 's-Hertogenbosch", "GHSHE"},
	{"Raad van State", "RVS"}, {"Centrale Raad van Beroep", "CRVB"}, {"College van Beroep voor het bedrijfsleven", "CBB"},
	{"Hoge Raad", "HR"}, {"Parket bij de Hoge Raad", "PHR"},
}

// genSyllables make the rare words of the long tail.
var genSyllables = strings.Fields("ka ver bo lin de mar sto wen gel ri pa ton hu zel bra mo ster fin ga lo ker dam sel tu vro nel pi jan wer ost")

var genVocab = func() []string {
	v := append([]string(nil), genCommon...)
	for _, p := range genPrefixes {
		for _, h := range genHeads {
			v = append(v, p+h)
		}
	}
	for _, a := range genSyllables {
		for _, b := range genSyllables {
			for _, c := range genSyllables {
				v = append(v, a+b+c+"ing")
			}
		}
	}
	return v
}()

// genDecision is decision n of the generated corpus.
func genDecision(n int) Decision {
	r := rand.New(rand.NewPCG(uint64(n), 0x5ec1a1))
	zipf := rand.NewZipf(r, 1.05, 8, uint64(len(genVocab)-1))
	court := genCourts[min(int(r.ExpFloat64()*4), len(genCourts)-1)]
	// 25 years, more decisions published in later years.
	day := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(9131*laterUnit(r)))
	typ := TypeRuling
	if court.code == "PHR" || r.IntN(50) == 0 {
		typ = TypeOpinion
	}
	ecli := fmt.Sprintf("ECLI:NL:%s:%d:%d", court.code, day.Year(), 1000+n)
	title := fmt.Sprintf("%s, %s, %s, %s/%02d/%d / %s %d-%d", ecli, court.name, day.Format("02-01-2006"),
		[]string{"C", "AWB", "ROT", "SGR", "HAR"}[r.IntN(5)], r.IntN(20), 100000+r.IntN(900000),
		[]string{"HA ZA", "KG ZA", "BESLU", "EXPL"}[r.IntN(4)], day.Year()%100, r.IntN(2000))

	var b strings.Builder
	b.WriteString(genAreas[r.IntN(len(genAreas))])
	b.WriteString(". ")
	words := 15 + r.IntN(76)
	for w := 0; w < words; w++ {
		switch k := r.IntN(60); {
		case k < 18:
			b.WriteString(genStop[r.IntN(len(genStop))])
		case k == 18:
			b.WriteString(genPhrases[min(int(r.ExpFloat64()*3), len(genPhrases)-1)])
		default:
			b.WriteString(genVocab[zipf.Uint64()])
		}
		if r.IntN(12) == 0 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return Decision{
		ECLI: ecli, Title: title, Summary: strings.TrimSpace(b.String()),
		Court: court.name, Date: day.Format(dateLayout), Type: typ,
		Modified: day.AddDate(0, 0, r.IntN(30)).Add(time.Duration(n) * time.Millisecond),
	}
}

// laterUnit is a number in [0, 1) weighted toward 1: its density grows
// linearly from 0 to 2, so the last of 9,131 days holds about 0.02 % of
// the decisions, as a busy day of Rechtspraak's publications does. (The
// 1-(1-x)² of genVersion 2 has an unbounded density at 1: its last day
// held 1 %, 31,299 decisions at 3,000,000.)
func laterUnit(r *rand.Rand) float64 {
	return math.Sqrt(r.Float64())
}

// genQueries are typical word queries: common and rare words, two and
// three words, phrases, with and without filters and in date order.
var genQueries = []Query{
	{Words: "vergunning"},
	{Words: "ontslag"},
	{Words: "stikstofvergunning"},
	{Words: "huurovereenkomst ontbinding"},
	{Words: "schade aansprakelijkheid verzekeraar"},
	{Words: "bestemmingsplan omgevingsvergunning perceel"},
	{Words: "verdachte diefstal gevangenisstraf"},
	{Words: `"ontslag op staande voet"`},
	{Words: `"last onder dwangsom" handhaving`},
	{Words: "asiel verblijfsvergunning", Court: "Rechtbank Den Haag"},
	{Words: "belasting boete", DateFrom: "2015-01-01", DateTo: "2020-12-31"},
	{Words: "beroep ongegrond"},
	{Words: "rechtbank uitspraak", Sort: SortDate},
	{Words: "melkveehouderij stikstof depositie"},
	{Words: "kinderalimentatie", Type: TypeRuling, Sort: SortDate},
	{Words: "zorgplicht arts"},
}
