package emulator

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// What the rulings are about. Each rechtsgebied has a few themes; a theme
// is a handful of sentences in the style of an inhoudsindicatie (the real
// content.xml: "Bpm. Uitsluitend de heffingsrente ..."), with slots filled
// per ruling. A ruling's summary takes one or two of its theme's sentences
// and one of the corpus' general sentences, and its text repeats the
// theme, so a word search over summaries finds rulings about stikstof,
// vergunningen and boerderijen among thousands about other things. The
// wording is ours: no sample holds more than one summary.

// theme is one subject of rulings within a rechtsgebied.
type theme struct {
	lines []string
}

// themeLines per second-level rechtsgebied (leaf id without the prefix).
// Slots: {plaats} a municipality, {bedrag} an amount in euros, {aantal} a
// number, {jaar} a year before the ruling, {onderwerp} a corpus topic.
var themeLines = map[string][][]string{
	"bestuursrecht_ambtenarenrecht": {
		{"Strafontslag van een ambtenaar van de gemeente {plaats} wegens plichtsverzuim.", "Het ontslag wegens een verstoorde arbeidsverhouding is de ambtenaar niet te verwijten; transitievergoeding toegekend.", "Schorsing van een politieambtenaar; het vermoeden van ernstig plichtsverzuim is voldoende onderbouwd."},
		{"Bezoldiging en functiewaardering van een medewerker van de provincie; de indeling in schaal {aantal} is niet onjuist.", "Verzoek om vergoeding van studiekosten afgewezen."},
	},
	"bestuursrecht_belastingrecht": {
		{"Navorderingsaanslag inkomstenbelasting over {jaar}; de inspecteur heeft een nieuw feit aannemelijk gemaakt.", "Vergrijpboete van {bedrag} wegens het niet aangeven van vermogen op een buitenlandse bankrekening.", "Box 3: heffing over het werkelijke rendement; rechtsherstel na het Kerstarrest."},
		{"WOZ-waarde van een woning in {plaats} vastgesteld op {bedrag}; de vergelijkingsobjecten zijn voldoende vergelijkbaar.", "Het taxatierapport onderbouwt de WOZ-waarde niet; de heffingsambtenaar heeft de waarde niet aannemelijk gemaakt.", "Overschrijding van de redelijke termijn; immateriële schadevergoeding van {bedrag}."},
		{"Naheffingsaanslag omzetbelasting; geen recht op aftrek van voorbelasting.", "Bpm bij de registratie van een gebruikte auto uit Duitsland; afschrijving volgens de koerslijst.", "Heffingsrente; het verzoek om teruggaaf is te laat ingediend."},
	},
	"bestuursrecht_bestuursprocesrecht": {
		{"Beroep niet-ontvankelijk; de overschrijding van de beroepstermijn is niet verschoonbaar.", "Vergoeding van de kosten van bezwaar; het bezwaar was kennelijk gegrond.", "Dwangsom wegens niet tijdig beslissen op een Woo-verzoek om informatie over {onderwerp}."},
	},
	"bestuursrecht_bestuursstrafrecht": {
		{"Bestuurlijke boete van {bedrag} wegens overtreding van de Wet arbeid vreemdelingen.", "Boete voor de exploitant van een horecabedrijf in {plaats}; het boetebesluit is onvoldoende gemotiveerd.", "Matiging van de boete wegens verminderde verwijtbaarheid."},
	},
	"bestuursrecht_europeesbestuursrecht": {
		{"Terugvordering van Europese landbouwsubsidie van {bedrag} van een boerderij in {plaats}.", "De randvoorwaarden voor de betalingsrechten zijn niet nageleefd.", "Prejudiciële vragen aan het Hof van Justitie over de uitleg van de verordening."},
	},
	"bestuursrecht_mededingingsrecht": {
		{"Boete van de ACM wegens deelname aan een kartel; prijsafspraken tussen bouwbedrijven.", "Misbruik van een economische machtspositie is niet bewezen.", "De boete van {bedrag} is evenredig; geen matiging."},
	},
	"bestuursrecht_omgevingsrecht": {
		{"Omgevingsvergunning voor het uitbreiden van een melkveehouderij in {plaats}; de boerderij stoot meer stikstof uit.", "De stikstofdepositie van de boerderij op een nabijgelegen Natura 2000-gebied is niet passend beoordeeld.", "Intern salderen met de stikstof van bestaande stallen; de vergunning voor {aantal} melkkoeien blijft in stand.", "De natuurvergunning voor de veehouderij met varkens wordt vernietigd wegens de uitstoot van stikstof."},
		{"Beroep tegen het bestemmingsplan voor de bouw van {aantal} woningen in {plaats}.", "De raad heeft onvoldoende onderzocht of de woningbouw leidt tot parkeeroverlast en geluidhinder.", "Ladder voor duurzame verstedelijking: de behoefte aan de woningen is aannemelijk gemaakt."},
		{"Last onder dwangsom wegens het bouwen van een schuur zonder omgevingsvergunning in {plaats}.", "Het college was bevoegd handhavend op te treden; er is geen concreet zicht op legalisatie.", "De dwangsom van {bedrag} is niet onevenredig hoog."},
		{"Omgevingsvergunning voor een windpark met {aantal} windturbines nabij {plaats}.", "Slagschaduw, geluid en de gevolgen voor vogels en vleermuizen zijn voldoende onderzocht.", "Vergunning voor een zonnepark op landbouwgrond; de ruimtelijke onderbouwing schiet tekort."},
	},
	"bestuursrecht_socialezekerheidsrecht": {
		{"Intrekking en terugvordering van bijstand van {bedrag}; de inlichtingenplicht is geschonden.", "Boete wegens het niet melden van inkomsten uit werk; verminderde verwijtbaarheid.", "Het college van {plaats} heeft de bijstand terecht gekort wegens het niet nakomen van de arbeidsverplichtingen."},
		{"WIA-uitkering geweigerd; de verzekeringsarts heeft de beperkingen voldoende onderzocht.", "Ziektewetuitkering beëindigd; de werknemer is geschikt voor ander werk.", "Het UWV heeft de mate van arbeidsongeschiktheid terecht op minder dan 35% vastgesteld."},
		{"Maatwerkvoorziening op grond van de Wmo 2015 voor huishoudelijke hulp in {plaats}.", "Persoonsgebonden budget voor jeugdhulp te laag vastgesteld.", "Terugvordering van kinderopvangtoeslag; de hersteloperatie toeslagen."},
	},
	"bestuursrecht_vreemdelingenrecht": {
		{"Asielaanvraag afgewezen als ongegrond; de verklaringen over de bekering zijn niet geloofwaardig.", "Overdracht aan Italië op grond van de Dublinverordening; het interstatelijk vertrouwensbeginsel geldt.", "Maatregel van bewaring opgeheven wegens onvoldoende voortvarendheid; schadevergoeding toegekend."},
		{"Aanvraag om een verblijfsvergunning voor verblijf bij partner; niet voldaan aan het inkomensvereiste.", "Nareis van kinderen; de familieband is niet aangetoond met DNA-onderzoek.", "De belangenafweging op grond van artikel 8 EVRM valt in het nadeel van de vreemdeling uit."},
	},
	"bestuursrecht_onderwijsenstudiefinanciering": {
		{"Terugvordering van de uitwonendenbeurs na een huisbezoek van DUO.", "Weigering van toelating tot een masteropleiding; de toelatingseisen zijn niet onredelijk.", "Studieschuld; de draagkracht is juist berekend."},
	},
	"bestuursrecht_energierecht": {
		{"Subsidie voor een zonnepark in {plaats} geweigerd.", "Netcongestie: de netbeheerder mag de aansluiting van een bedrijf niet weigeren.", "Tarieven voor het transport van gas en elektriciteit vastgesteld."},
		{"Schade door aardbevingen als gevolg van de gaswinning in Groningen; vergoeding van {bedrag}.", "Het instemmingsbesluit voor het winningsplan is onvoldoende gemotiveerd."},
	},
	"bestuursrecht_milieurecht": {
		{"Verzoek om handhaving tegen een boerderij in {plaats} die zonder vergunning stikstof uitstoot.", "PAS-melder: de provincie moet beslissen over legalisering van de boerderij.", "Gedeputeerde Staten hebben het verzoek om handhaving wegens stikstofdepositie ten onrechte afgewezen."},
		{"Geurhinder van een varkenshouderij; de geurnorm bij woningen in {plaats} wordt overschreden.", "Bodemsanering van een voormalig bedrijfsterrein; kostenverhaal van {bedrag} op de eigenaar.", "Maatwerkvoorschrift voor het geluid van een bedrijf aan de rand van {plaats}."},
	},
	"civielRecht_aanbestedingsrecht": {
		{"Kort geding over de gunning van een aanbesteding voor leerlingenvervoer door de gemeente {plaats}.", "De inschrijving is terecht ongeldig verklaard; het gunningscriterium is voldoende duidelijk.", "Heraanbesteding bevolen wegens een onjuiste beoordeling van de inschrijvingen."},
	},
	"civielRecht_arbeidsrecht": {
		{"Ontslag op staande voet wegens diefstal is rechtsgeldig.", "Ontbinding van de arbeidsovereenkomst wegens verwijtbaar handelen; geen transitievergoeding.", "Loonvordering van {bedrag}; de werkgever moet het loon doorbetalen tijdens ziekte."},
		{"Het concurrentiebeding wordt geschorst; het belang van de werknemer weegt zwaarder.", "Billijke vergoeding van {bedrag} wegens ernstig verwijtbaar handelen van de werkgever."},
	},
	"civielRecht_burgerlijkProcesrecht": {
		{"Incidentele vordering tot zekerheidstelling voor de proceskosten afgewezen.", "Vordering tot inzage in bescheiden op grond van artikel 843a Rv toegewezen.", "Verzet tegen een verstekvonnis is te laat ingesteld."},
	},
	"civielRecht_goederenrecht": {
		{"Erfdienstbaarheid van weg over het perceel van de buren in {plaats}; verjaring.", "Eigendom van een strook grond door verkrijgende verjaring.", "Burenrecht: overhangende takken en een schutting op de erfgrens."},
	},
	"civielRecht_insolventierecht": {
		{"Faillissement uitgesproken; de schuldenaar verkeert in de toestand dat hij heeft opgehouden te betalen.", "Bestuurdersaansprakelijkheid na faillissement; de curator vordert {bedrag}.", "Toelating tot de schuldsaneringsregeling natuurlijke personen geweigerd."},
	},
	"civielRecht_intellectueelEigendomsrecht": {
		{"Inbreuk op een merk; verbod en schadevergoeding.", "Auteursrecht op foto's die zonder toestemming op een website zijn geplaatst.", "Octrooi nietig wegens gebrek aan inventiviteit."},
	},
	"civielRecht_internationaalPrivaatrecht": {
		{"Teruggeleiding van een kind op grond van het Haags Kinderontvoeringsverdrag.", "Erkenning van een buitenlandse echtscheiding.", "Het Nederlandse recht is van toepassing op de overeenkomst."},
	},
	"civielRecht_ondernemingsrecht": {
		{"Enquêteverzoek: er zijn gegronde redenen om aan een juist beleid te twijfelen.", "Aansprakelijkheid van de bestuurder van een besloten vennootschap.", "Uitkoop van een minderheidsaandeelhouder voor {bedrag}."},
	},
	"civielRecht_personenEnFamilierecht": {
		{"Echtscheiding; kinderalimentatie vastgesteld op {bedrag} per maand.", "Zorgregeling en gezag na de scheiding; het belang van het kind staat voorop.", "Ondertoezichtstelling en uithuisplaatsing van een minderjarige verlengd."},
		{"Verdeling van de nalatenschap; de erfgenamen twisten over de boerderij van de ouders in {plaats}.", "Vaststelling van het ouderschap; DNA-onderzoek gelast."},
	},
	"civielRecht_verbintenissenrecht": {
		{"Wanprestatie bij de koop van een woning in {plaats}; verborgen gebreken aan de fundering.", "Aansprakelijkheid van een aannemer voor lekkage; schadevergoeding van {bedrag}.", "Dwaling bij de koop van een boerderij; de verkoper schond zijn mededelingsplicht."},
		{"Onrechtmatige daad: aansprakelijkheid van de gemeente {plaats} voor een val door een losliggende stoeptegel.", "Schending van de zorgplicht van een bank bij een beleggingshypotheek.", "Buitengerechtelijke incassokosten van {bedrag} toegewezen."},
	},
	"civielRecht_huurrecht": {
		{"Ontbinding van de huurovereenkomst en ontruiming van een woning in {plaats} wegens huurachterstand.", "Gebreken aan de huurwoning: schimmel en vocht; huurprijsvermindering.", "Huurprijsverhoging voor een sociale huurwoning is redelijk."},
		{"Ontruiming wegens onderverhuur via een online platform.", "Opzegging van de huur van bedrijfsruimte wegens dringend eigen gebruik."},
	},
	"civielRecht_vervoersrecht": {
		{"Schade aan lading tijdens wegvervoer; aansprakelijkheid van de vervoerder onder het CMR-verdrag.", "Compensatie voor vertraging van een vlucht; geen buitengewone omstandigheden.", "Aanvaring op de Waal; de schipper voer onvoldoende uit."},
	},
	"civielRecht_europeesCivielRecht": {
		{"Bevoegdheid van de Nederlandse rechter op grond van de Brussel I-bis Verordening.", "Oneerlijk beding in een consumentenkrediet; ambtshalve toetsing."},
	},
	"internationaalPubliekrecht_mensenrechten": {
		{"Klimaatzaak tegen de Staat; de vermindering van broeikasgassen en de artikelen 2 en 8 EVRM.", "Schending van het recht op een eerlijk proces (artikel 6 EVRM).", "De Staat handelt onrechtmatig door de stikstofuitstoot onvoldoende terug te dringen."},
	},
	"internationaalPubliekrecht_volkenrecht": {
		{"Immuniteit van een internationale organisatie; de rechter is onbevoegd.", "Uitvoer van onderdelen van gevechtsvliegtuigen getoetst aan het humanitair oorlogsrecht."},
	},
	"internationaalPubliekrecht_internationaalStrafrecht": {
		{"Overlevering aan Duitsland op grond van een Europees aanhoudingsbevel toegestaan.", "Uitlevering aan Turkije geweigerd wegens het risico op een onmenselijke behandeling."},
	},
	"strafRecht_europeesStrafrecht": {
		{"Overlevering op grond van een Europees aanhoudingsbevel; reëel gevaar voor onmenselijke detentieomstandigheden.", "Erkenning en tenuitvoerlegging van een buitenlandse vrijheidsstraf."},
	},
	"strafRecht_internationaalStrafrecht": {
		{"Uitlevering toelaatbaar verklaard; dubbele strafbaarheid.", "Vervolging in Nederland van oorlogsmisdrijven gepleegd in het buitenland."},
	},
	"strafRecht_materieelStrafrecht": {
		{"Veroordeling voor de invoer van {aantal} kilo cocaïne via de haven van Rotterdam.", "Deelname aan een criminele organisatie die zich bezighield met drugshandel.", "Gevangenisstraf van {aantal} maanden voor het telen van hennep in een woning in {plaats}."},
		{"Poging tot doodslag door met een mes te steken; gevangenisstraf en tbs.", "Zware mishandeling in het uitgaansgebied van {plaats}; schadevergoeding aan het slachtoffer.", "Bedreiging van een boa; taakstraf."},
		{"Witwassen van {bedrag}; de verdachte kan de herkomst van het contante geld niet verklaren.", "Oplichting via valse advertenties op een online marktplaats.", "Ontneming van wederrechtelijk verkregen voordeel van {bedrag}."},
		{"Dood door schuld in het verkeer; de bestuurder reed met hoge snelheid door rood licht in {plaats}.", "Rijden onder invloed van alcohol; ontzegging van de rijbevoegdheid."},
		{"Verwaarlozing van dieren op een boerderij in {plaats}; houdverbod.", "Economisch delict: een veehouder overtrad de Meststoffenwet en de regels voor stikstof en fosfaat.", "Illegale lozing van mest door een loonwerker; geldboete van {bedrag}."},
	},
	"strafRecht_penitentiairStrafrecht": {
		{"Beklag over een disciplinaire straf van opsluiting in een strafcel gegrond.", "Weigering van regimaire verlof; de beklagcommissie.", "Overplaatsing naar een extra beveiligde inrichting."},
	},
	"strafRecht_strafprocesrecht": {
		{"Vormverzuim bij de doorzoeking van een woning in {plaats}; bewijsuitsluiting.", "Beklag over het niet vervolgen (artikel 12 Sv) afgewezen.", "Voorlopige hechtenis: ernstige bezwaren en gronden.", "Niet-ontvankelijkheid van het openbaar ministerie wegens overschrijding van de redelijke termijn."},
	},
}

// themes and themesOfLeaf are themeLines in the order of leaves: the
// same index for the same theme on every run.
var themes, themesOfLeaf = func() ([]theme, [][]uint8) {
	var all []theme
	byLeaf := make([][]uint8, len(leaves))
	for li, l := range leaves {
		for _, lines := range themeLines[strings.TrimPrefix(l.ID, psi+"rechtsgebied#")] {
			byLeaf[li] = append(byLeaf[li], uint8(len(all)))
			all = append(all, theme{lines: lines})
		}
	}
	return all, byLeaf
}()

// pickTheme draws a theme of the ruling's area.
func pickTheme(rnd *rand.Rand, subject int8) uint8 {
	ts := themesOfLeaf[subject]
	return ts[rnd.IntN(len(ts))]
}

// municipalities are the place names of the slots: the corpus'
// gemeenten.
var municipalities = func() []string {
	var out []string
	for _, o := range corpus.Orgs() {
		if o.Type == corpus.Gemeente {
			out = append(out, o.Label)
		}
	}
	return out
}()

// slots are the values a ruling's theme sentences are filled with: the
// same place, amount and numbers in its summary and in its text.
type slots struct {
	place, amount, number, year, topic string
}

func drawSlots(rnd *rand.Rand, r *ruling) slots {
	euros := 250 + rnd.IntN(250000)
	amount := "€ " + strconv.Itoa(euros)
	if euros >= 1000 {
		amount = fmt.Sprintf("€ %d.%03d", euros/1000, euros%1000)
	}
	return slots{
		place:  municipalities[rnd.IntN(len(municipalities))],
		amount: amount,
		number: strconv.Itoa(2 + rnd.IntN(300)),
		year:   strconv.Itoa(int(r.year) - 1 - rnd.IntN(4)),
		topic:  corpus.Topics[rnd.IntN(len(corpus.Topics))],
	}
}

// fill writes line with its {slot}s replaced.
func (s slots) fill(line string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(line, '{')
		end := strings.IndexByte(line, '}')
		if open < 0 || end < open {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:open])
		switch line[open+1 : end] {
		case "plaats":
			b.WriteString(s.place)
		case "bedrag":
			b.WriteString(s.amount)
		case "aantal":
			b.WriteString(s.number)
		case "jaar":
			b.WriteString(s.year)
		case "onderwerp":
			b.WriteString(s.topic)
		}
		line = line[end+1:]
	}
}

// summary writes a ruling's inhoudsindicatie: its area, one or two
// sentences of its theme, and now and then one of the corpus'.
func summary(rnd *rand.Rand, d decision) string {
	lines := themes[d.theme].lines
	var b strings.Builder
	b.WriteString(leaves[d.subject].Naam)
	b.WriteString(".")
	first := rnd.IntN(len(lines))
	b.WriteString(" " + d.slots.fill(lines[first]))
	if len(lines) > 1 && rnd.IntN(2) == 0 {
		b.WriteString(" " + d.slots.fill(lines[(first+1+rnd.IntN(len(lines)-1))%len(lines)]))
	}
	if rnd.IntN(2) == 0 {
		b.WriteString(" " + corpus.Sentence(rnd))
	}
	return b.String()
}

// facts is every sentence of the ruling's theme, filled: what its text
// starts from.
func (d decision) facts() string {
	lines := themes[d.theme].lines
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = d.slots.fill(l)
	}
	return strings.Join(out, " ")
}
