// Package corpus holds the deterministic data helpers the platform emulators
// share: the organisations behind the Dutch council-information platforms, a
// stable random source per item, and Dutch-looking text, names and dates.
//
// Everything here is a pure function of its inputs: the same seed and the same
// parts give the same item on every run and every machine, so an emulator can
// generate document i on demand instead of holding a corpus in memory.
package corpus

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Organisation types.
const (
	Gemeente   = "gemeente"
	Provincie  = "provincie"
	Waterschap = "waterschap"
)

// Suppliers of council-information systems.
const (
	IBabs               = "ibabs"
	Notubiz             = "notubiz"
	GemeenteOplossingen = "gemeenteoplossingen"
	Parlaeus            = "parlaeus"
)

// Org is one organisation whose council or board publishes its decisions.
type Org struct {
	// Key is a lowercase slug ("soest", "noord-holland", "hhnk").
	Key string
	// Label is the display name ("Soest", "Noord-Holland",
	// "Hoogheemraadschap Hollands Noorderkwartier").
	Label string
	// Type is Gemeente, Provincie or Waterschap.
	Type string
	// Supplier is IBabs, Notubiz, GemeenteOplossingen or Parlaeus.
	Supplier string
	// Discontinued is true for a municipality that merged into another.
	Discontinued bool
	// SucceededBy is the key of the successor of a discontinued org.
	SucceededBy string
	// DiscontinuedAt is the merger date (YYYY-MM-DD) of a discontinued org.
	DiscontinuedAt string
	// CBSID is the statistics-office code ("GM0342", "PV27", "WS0155").
	// Codes of well-known municipalities are the real ones; the rest are
	// stable, plausible codes in the same format.
	CBSID string
}

// SupplierLabel returns the display name of a supplier key.
func SupplierLabel(s string) string {
	switch s {
	case IBabs:
		return "iBabs"
	case Notubiz:
		return "NotuBiz"
	case GemeenteOplossingen:
		return "GemeenteOplossingen"
	case Parlaeus:
		return "Parlaeus"
	}
	return s
}

// Suppliers lists the supplier keys in a fixed order.
var Suppliers = []string{IBabs, Notubiz, GemeenteOplossingen, Parlaeus}

// supplierCounts is how many organisations each supplier serves (330 total).
var supplierCounts = map[string]int{IBabs: 166, Notubiz: 128, GemeenteOplossingen: 33, Parlaeus: 3}

// municipalities are real Dutch municipalities (current ones; the merged
// ones are in mergers). Those in notOnboarded are left out, which leaves 299.
var municipalities = []string{
	"Aa en Hunze", "Aalsmeer", "Aalten", "Achtkarspelen", "Alblasserdam", "Albrandswaard", "Alkmaar", "Almelo",
	"Almere", "Alphen aan den Rijn", "Alphen-Chaam", "Altena", "Ameland", "Amersfoort", "Amstelveen", "Amsterdam",
	"Apeldoorn", "Arnhem", "Assen", "Asten", "Baarle-Nassau", "Baarn", "Barendrecht", "Barneveld",
	"Beek", "Beekdaelen", "Beesel", "Berg en Dal", "Bergeijk", "Bergen op Zoom", "Berkelland", "Bernheze",
	"Best", "Beuningen", "Beverwijk", "De Bilt", "Bladel", "Blaricum", "Bloemendaal", "Bodegraven-Reeuwijk",
	"Boekel", "Borger-Odoorn", "Borne", "Borsele", "Boxtel", "Breda", "Bronckhorst", "Brummen",
	"Brunssum", "Bunnik", "Bunschoten", "Buren", "Capelle aan den IJssel", "Castricum", "Coevorden", "Cranendonck",
	"Culemborg", "Dalfsen", "Dantumadiel", "Delft", "Den Haag", "Deurne", "Deventer", "Diemen", "Dijk en Waard",
	"Dinkelland", "Doesburg", "Doetinchem", "Dongen", "Dordrecht", "Drechterland", "Drimmelen", "Dronten",
	"Druten", "Duiven", "Echt-Susteren", "Edam-Volendam", "Ede", "Eemnes", "Eemsdelta", "Eersel",
	"Eijsden-Margraten", "Eindhoven", "Elburg", "Emmen", "Enkhuizen", "Enschede", "Epe", "Ermelo",
	"Etten-Leur", "De Fryske Marren", "Geertruidenberg", "Geldrop-Mierlo", "Gemert-Bakel", "Gennep", "Gilze en Rijen", "Goeree-Overflakkee",
	"Goes", "Goirle", "Gooise Meren", "Gorinchem", "Gouda", "Groningen", "Gulpen-Wittem", "Haaksbergen",
	"Haarlem", "Haarlemmermeer", "Halderberge", "Hardenberg", "Harderwijk", "Hardinxveld-Giessendam", "Harlingen", "Hattem",
	"Heemskerk", "Heemstede", "Heerde", "Heerenveen", "Heerlen", "Heeze-Leende", "Heiloo", "Den Helder",
	"Hellendoorn", "Helmond", "Hendrik-Ido-Ambacht", "Hengelo", "'s-Hertogenbosch", "Het Hogeland", "Heumen", "Heusden",
	"Hillegom", "Hilvarenbeek", "Hilversum", "Hoeksche Waard", "Hof van Twente", "Hollands Kroon", "Hoogeveen", "Hoorn",
	"Horst aan de Maas", "Houten", "Huizen", "Hulst", "IJsselstein", "Kaag en Braassem", "Kampen", "Kapelle",
	"Katwijk", "Kerkrade", "Koggenland", "Krimpen aan den IJssel", "Krimpenerwaard", "Laarbeek", "Land van Cuijk", "Landgraaf",
	"Landsmeer", "Lansingerland", "Laren", "Leeuwarden", "Leiden", "Leiderdorp", "Leidschendam-Voorburg", "Lelystad",
	"Leudal", "Leusden", "Lingewaard", "Lisse", "Lochem", "Loon op Zand", "Lopik", "Losser",
	"Maasdriel", "Maasgouw", "Maashorst", "Maassluis", "Maastricht", "Medemblik", "Meerssen", "Meierijstad",
	"Meppel", "Middelburg", "Midden-Delfland", "Midden-Drenthe", "Midden-Groningen", "Moerdijk", "Molenlanden", "Montferland",
	"Montfoort", "Mook en Middelaar", "Neder-Betuwe", "Nederweert", "Nieuwegein", "Nieuwkoop", "Nijkerk", "Nijmegen",
	"Nissewaard", "Noardeast-Fryslân", "Noord-Beveland", "Noordenveld", "Noordoostpolder", "Noordwijk", "Nuenen", "Nunspeet",
	"Oegstgeest", "Oirschot", "Oisterwijk", "Oldambt", "Oldebroek", "Oldenzaal", "Olst-Wijhe", "Ommen",
	"Oost Gelre", "Oosterhout", "Ooststellingwerf", "Oostzaan", "Opmeer", "Opsterland", "Oss", "Oude IJsselstreek",
	"Ouder-Amstel", "Oudewater", "Overbetuwe", "Papendrecht", "Peel en Maas", "Pekela", "Pijnacker-Nootdorp", "Purmerend",
	"Putten", "Raalte", "Reimerswaal", "Renkum", "Renswoude", "Reusel-De Mierden", "Rheden", "Rhenen",
	"Ridderkerk", "Rijssen-Holten", "Rijswijk", "Roerdalen", "Roermond", "De Ronde Venen", "Roosendaal", "Rotterdam",
	"Rozendaal", "Rucphen", "Schagen", "Scherpenzeel", "Schiedam", "Schiermonnikoog", "Schouwen-Duiveland", "Simpelveld",
	"Sint-Michielsgestel", "Sittard-Geleen", "Sliedrecht", "Sluis", "Smallingerland", "Soest", "Someren", "Son en Breugel",
	"Stadskanaal", "Staphorst", "Stede Broec", "Steenbergen", "Steenwijkerland", "Stein", "Stichtse Vecht", "Súdwest-Fryslân",
	"Terneuzen", "Terschelling", "Texel", "Teylingen", "Tholen", "Tiel", "Tilburg", "Tubbergen",
	"Twenterand", "Tynaarlo", "Tytsjerksteradiel", "Uitgeest", "Uithoorn", "Urk", "Utrecht", "Utrechtse Heuvelrug",
	"Vaals", "Valkenburg aan de Geul", "Valkenswaard", "Veendam", "Veenendaal", "Veere", "Veldhoven", "Velsen",
	"Venlo", "Venray", "Vijfheerenlanden", "Vlaardingen", "Vlieland", "Vlissingen", "Voerendaal", "Voorne aan Zee",
	"Voorschoten", "Voorst", "Vught", "Waadhoeke", "Waalre", "Waalwijk", "Waddinxveen", "Wageningen",
	"Wassenaar", "Waterland", "Weert", "Westerkwartier", "Westerveld", "Westerwolde", "Westland", "Weststellingwerf",
	"Wierden", "Wijchen", "Wijdemeren", "Wijk bij Duurstede", "Winterswijk", "Woensdrecht", "Woerden", "De Wolden",
	"Wormerland", "Woudenberg", "Zaanstad", "Zaltbommel", "Zandvoort", "Zeewolde", "Zeist", "Zevenaar",
	"Zoetermeer", "Zoeterwoude", "Zuidplas", "Zundert", "Zutphen", "Zwartewaterland", "Zwijndrecht", "Zwolle",
}

// notOnboarded are real municipalities the emulated platform does not carry.
var notOnboarded = map[string]bool{
	"Ameland":           true,
	"Schiermonnikoog":   true,
	"Vlieland":          true,
	"Terschelling":      true,
	"Rozendaal":         true,
	"Renswoude":         true,
	"Eemnes":            true,
	"Blaricum":          true,
	"Laren":             true,
	"Landsmeer":         true,
	"Oostzaan":          true,
	"Opmeer":            true,
	"Uitgeest":          true,
	"Simpelveld":        true,
	"Vaals":             true,
	"Voerendaal":        true,
	"Beesel":            true,
	"Mook en Middelaar": true,
	"Baarle-Nassau":     true,
	"Boekel":            true,
	"Reusel-De Mierden": true,
	"Hilvarenbeek":      true,
	"Noord-Beveland":    true,
	"Kapelle":           true,
	"Scherpenzeel":      true,
	"Oudewater":         true,
	"Montfoort":         true,
	"Lopik":             true,
	"Zoeterwoude":       true,
	"Hattem":            true,
	"Doesburg":          true,
	"Heerde":            true,
	"Pekela":            true,
	"Staphorst":         true,
	"Urk":               true,
	"Wormerland":        true,
	"Stede Broec":       true,
	"Drechterland":      true,
}

// mergers are real municipalities that ended in a merger, with the
// successor's key and the date the source stopped.
var mergers = []struct{ label, successor, at string }{
	{"Weesp", "amsterdam", "2022-03-24"},
	{"Heerhugowaard", "dijk-en-waard", "2022-01-01"},
	{"Langedijk", "dijk-en-waard", "2022-01-01"},
	{"Beemster", "purmerend", "2022-01-01"},
	{"Brielle", "voorne-aan-zee", "2023-01-01"},
	{"Hellevoetsluis", "voorne-aan-zee", "2023-01-01"},
	{"Westvoorne", "voorne-aan-zee", "2023-01-01"},
	{"Uden", "maashorst", "2022-01-01"},
	{"Landerd", "maashorst", "2022-01-01"},
	{"Boxmeer", "land-van-cuijk", "2022-01-01"},
}

var provinces = []struct{ key, label, cbs string }{
	{"noord-holland", "Noord-Holland", "PV27"},
	{"zuid-holland", "Zuid-Holland", "PV28"},
	{"utrecht-provincie", "Provincie Utrecht", "PV26"},
	{"gelderland", "Gelderland", "PV25"},
	{"noord-brabant", "Noord-Brabant", "PV30"},
	{"overijssel", "Overijssel", "PV23"},
	{"fryslan", "Fryslân", "PV21"},
	{"zeeland", "Zeeland", "PV29"},
}

var waterBoards = []struct{ key, label string }{
	{"hhnk", "Hoogheemraadschap Hollands Noorderkwartier"},
	{"rijnland", "Hoogheemraadschap van Rijnland"},
	{"delfland", "Hoogheemraadschap van Delfland"},
	{"agv", "Waterschap Amstel, Gooi en Vecht"},
	{"hdsr", "Hoogheemraadschap De Stichtse Rijnlanden"},
	{"hhsk", "Hoogheemraadschap van Schieland en de Krimpenerwaard"},
	{"hollandse-delta", "Waterschap Hollandse Delta"},
	{"brabantse-delta", "Waterschap Brabantse Delta"},
	{"de-dommel", "Waterschap De Dommel"},
	{"aa-en-maas", "Waterschap Aa en Maas"},
	{"vallei-en-veluwe", "Waterschap Vallei en Veluwe"},
	{"rijn-en-ijssel", "Waterschap Rijn en IJssel"},
	{"wetterskip-fryslan", "Wetterskip Fryslân"},
}

// realCBS are the real CBS codes of municipalities the fixtures mention.
var realCBS = map[string]string{
	"amsterdam": "GM0363", "rotterdam": "GM0599", "den-haag": "GM0518", "utrecht": "GM0344",
	"soest": "GM0342", "houten": "GM0321", "putten": "GM0273", "weesp": "GM0457",
	"eindhoven": "GM0772", "groningen": "GM0014", "tilburg": "GM0855", "almere": "GM0034",
}

// pinned suppliers match the platform's own documentation examples.
var pinned = map[string]string{
	"soest": Notubiz, "putten": Notubiz, "houten": IBabs, "amsterdam": Notubiz,
	"utrecht": IBabs, "rotterdam": IBabs, "weesp": Notubiz,
}

// Slug turns a label into a key: lowercase ASCII, words joined by '-'.
func Slug(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFD.String(label) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r == '\'':
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			dash = false
		default:
			if b.Len() > 0 && !dash {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

var (
	orgsOnce sync.Once
	orgs     []Org
	orgIndex map[string]int
)

// NumCurrentMunicipalities is how many current municipalities Orgs holds;
// with the 10 merged ones that makes 309 gemeenten.
const NumCurrentMunicipalities = 299

func buildOrgs() {
	var out []Org
	for _, name := range municipalities {
		if notOnboarded[name] {
			continue
		}
		out = append(out, Org{Key: Slug(name), Label: name, Type: Gemeente})
	}
	for _, m := range mergers {
		out = append(out, Org{Key: Slug(m.label), Label: m.label, Type: Gemeente, Discontinued: true, SucceededBy: m.successor, DiscontinuedAt: m.at})
	}
	for _, p := range provinces {
		out = append(out, Org{Key: p.key, Label: p.label, Type: Provincie, CBSID: p.cbs})
	}
	for i, w := range waterBoards {
		out = append(out, Org{Key: w.key, Label: w.label, Type: Waterschap, CBSID: "WS" + pad4(100+i*7)})
	}
	// CBS codes for municipalities: real where known, stable otherwise.
	used := map[string]bool{}
	for _, c := range realCBS {
		used[c] = true
	}
	for i := range out {
		if out[i].Type != Gemeente {
			continue
		}
		if c, ok := realCBS[out[i].Key]; ok {
			out[i].CBSID = c
			continue
		}
		r := Rand(0, "cbs", out[i].Key)
		for {
			c := "GM" + pad4(1+r.IntN(1999))
			if !used[c] {
				used[c] = true
				out[i].CBSID = c
				break
			}
		}
	}
	// Suppliers: pinned ones first, the rest by a fixed shuffle so that the
	// totals are exactly 166/128/33/3.
	left := map[string]int{}
	for s, n := range supplierCounts {
		left[s] = n
	}
	var free []int
	for i := range out {
		if s, ok := pinned[out[i].Key]; ok {
			out[i].Supplier = s
			left[s]--
		} else {
			free = append(free, i)
		}
	}
	r := Rand(0, "suppliers")
	r.Shuffle(len(free), func(a, b int) { free[a], free[b] = free[b], free[a] })
	k := 0
	for _, s := range Suppliers {
		for n := 0; n < left[s]; n++ {
			out[free[k]].Supplier = s
			k++
		}
	}
	if n := len(out) - len(mergers) - len(provinces) - len(waterBoards); n != NumCurrentMunicipalities {
		panic("corpus: " + itoa(n) + " current municipalities, want 299")
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	orgs = out
	orgIndex = make(map[string]int, len(out))
	for i, o := range out {
		orgIndex[o.Key] = i
	}
}

func pad4(n int) string {
	s := "000" + itoa(n)
	return s[len(s)-4:]
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// Orgs returns the 330 organisations (309 gemeenten of which 10 merged away,
// 8 provinces, 13 water boards), sorted by key. The slice is a copy.
func Orgs() []Org {
	orgsOnce.Do(buildOrgs)
	out := make([]Org, len(orgs))
	copy(out, orgs)
	return out
}

// OrgByKey returns the organisation with the given key.
func OrgByKey(key string) (Org, bool) {
	orgsOnce.Do(buildOrgs)
	i, ok := orgIndex[key]
	if !ok {
		return Org{}, false
	}
	return orgs[i], true
}
