package emulator

import (
	"strings"
	"sync"
)

// instantie is one entry of /Waardelijst/Instanties.
type instantie struct {
	ID    string // Identifier (a URI; a few contain a space or use another form)
	Naam  string
	Abbr  string // Afkorting; empty for some old or special instances
	Type  string
	Begin string
	End   string // EndDate of a closed instance
	Seat  string // zittingsplaats of current courts (not in the list itself)
	// Courts that publish rulings in the emulated index.
	weight int    // rulings per year
	from   int    // first year with rulings
	to     int    // last year with rulings (0 = until now)
	kind   string // "hr", "phr", "rvs", "crvb", "cbb", "hof", "rb"
}

const owms = "http://standaarden.overheid.nl/owms/terms/"
const psi = "http://psi.rechtspraak.nl/"

// courts are the instances that hand down the emulated rulings, with their
// real ECLI court codes. The 2013 reorganisation of the judicial map split
// them into those before and after 1 January 2013.
var courts = []instantie{
	{ID: owms + "Hoge_Raad_der_Nederlanden", Naam: "Hoge Raad", Abbr: "HR", Type: "Hoge Raad", Begin: "1838-10-01", Seat: "Den Haag", weight: 90, from: 1998, kind: "hr"},
	{ID: owms + "Parket_bij_de_Hoge_Raad", Naam: "Parket bij de Hoge Raad", Abbr: "PHR", Type: "Hoge Raad", Begin: "1838-10-01", Seat: "Den Haag", weight: 45, from: 1998, kind: "phr"},
	{ID: owms + "Raad_van_State", Naam: "Raad van State", Abbr: "RVS", Type: "Raad van State", Begin: "1531-10-01", Seat: "Den Haag", weight: 70, from: 1998, kind: "rvs"},
	{ID: owms + "Centrale_Raad_van_Beroep", Naam: "Centrale Raad van Beroep", Abbr: "CRVB", Type: "AndereGerechtelijkeInstantie", Begin: "1903-01-01", Seat: "Utrecht", weight: 50, from: 1998, kind: "crvb"},
	{ID: owms + "College_van_Beroep_voor_het_bedrijfsleven", Naam: "College van Beroep voor het bedrijfsleven", Abbr: "CBB", Type: "AndereGerechtelijkeInstantie", Begin: "1954-01-01", Seat: "Den Haag", weight: 20, from: 1998, kind: "cbb"},
	{ID: owms + "Gerechtshof_Amsterdam", Naam: "Gerechtshof Amsterdam", Abbr: "GHAMS", Type: "Gerechtshof", Begin: "1838-10-01", Seat: "Amsterdam", weight: 45, from: 1998, kind: "hof"},
	{ID: owms + "Gerechtshof_s-Hertogenbosch", Naam: "Gerechtshof 's-Hertogenbosch", Abbr: "GHSHE", Type: "Gerechtshof", Begin: "1838-10-01", Seat: "'s-Hertogenbosch", weight: 40, from: 1998, kind: "hof"},
	{ID: owms + "Gerechtshof_Arnhem-Leeuwarden", Naam: "Gerechtshof Arnhem-Leeuwarden", Abbr: "GHARL", Type: "Gerechtshof", Begin: "2013-01-01", Seat: "Arnhem", weight: 55, from: 2013, kind: "hof"},
	{ID: owms + "Gerechtshof_Den_Haag", Naam: "Gerechtshof Den Haag", Abbr: "GHDHA", Type: "Gerechtshof", Begin: "2013-01-01", Seat: "Den Haag", weight: 45, from: 2013, kind: "hof"},
	{ID: owms + "Gerechtshof_Arnhem", Naam: "Gerechtshof Arnhem", Abbr: "GHARN", Type: "Gerechtshof", Begin: "1838-10-01", End: "2012-12-31", Seat: "Arnhem", weight: 25, from: 1998, to: 2012, kind: "hof"},
	{ID: owms + "Gerechtshof_Leeuwarden", Naam: "Gerechtshof Leeuwarden", Abbr: "GHLEE", Type: "Gerechtshof", Begin: "1838-10-01", End: "2012-12-31", Seat: "Leeuwarden", weight: 20, from: 1998, to: 2012, kind: "hof"},
	{ID: owms + "Gerechtshof_s-Gravenhage", Naam: "Gerechtshof 's-Gravenhage", Abbr: "GHSGR", Type: "Gerechtshof", Begin: "1838-10-01", End: "2012-12-31", Seat: "'s-Gravenhage", weight: 30, from: 1998, to: 2012, kind: "hof"},
	{ID: owms + "Rechtbank_Amsterdam", Naam: "Rechtbank Amsterdam", Abbr: "RBAMS", Type: "Rechtbank", Begin: "1838-10-01", Seat: "Amsterdam", weight: 110, from: 1998, kind: "rb"},
	{ID: owms + "Rechtbank_Rotterdam", Naam: "Rechtbank Rotterdam", Abbr: "RBROT", Type: "Rechtbank", Begin: "1838-10-01", Seat: "Rotterdam", weight: 100, from: 1998, kind: "rb"},
	{ID: owms + "Rechtbank_Den_Haag", Naam: "Rechtbank Den Haag", Abbr: "RBDHA", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Den Haag", weight: 150, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Gelderland", Naam: "Rechtbank Gelderland", Abbr: "RBGEL", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Arnhem", weight: 90, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Limburg", Naam: "Rechtbank Limburg", Abbr: "RBLIM", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Maastricht", weight: 70, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Midden-Nederland", Naam: "Rechtbank Midden-Nederland", Abbr: "RBMNE", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Utrecht", weight: 90, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Noord-Holland", Naam: "Rechtbank Noord-Holland", Abbr: "RBNHO", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Haarlem", weight: 80, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Noord-Nederland", Naam: "Rechtbank Noord-Nederland", Abbr: "RBNNE", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Groningen", weight: 75, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Oost-Brabant", Naam: "Rechtbank Oost-Brabant", Abbr: "RBOBR", Type: "Rechtbank", Begin: "2013-01-01", Seat: "'s-Hertogenbosch", weight: 75, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Overijssel", Naam: "Rechtbank Overijssel", Abbr: "RBOVE", Type: "Rechtbank", Begin: "2013-04-01", Seat: "Zwolle", weight: 60, from: 2014, kind: "rb"},
	{ID: owms + "Rechtbank_Zeeland-West-Brabant", Naam: "Rechtbank Zeeland-West-Brabant", Abbr: "RBZWB", Type: "Rechtbank", Begin: "2013-01-01", Seat: "Breda", weight: 75, from: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Oost-Nederland", Naam: "Rechtbank Oost-Nederland", Abbr: "RBONE", Type: "Rechtbank", Begin: "2013-01-01", End: "2013-03-31", Seat: "Zwolle", weight: 40, from: 2013, to: 2013, kind: "rb"},
	{ID: owms + "Rechtbank_Alkmaar", Naam: "Rechtbank Alkmaar", Abbr: "RBALK", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Alkmaar", weight: 20, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Almelo", Naam: "Rechtbank Almelo", Abbr: "RBALM", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Almelo", weight: 20, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Arnhem", Naam: "Rechtbank Arnhem", Abbr: "RBARN", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Arnhem", weight: 30, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Assen", Naam: "Rechtbank Assen", Abbr: "RBASS", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Assen", weight: 15, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Breda", Naam: "Rechtbank Breda", Abbr: "RBBRE", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Breda", weight: 20, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Dordrecht", Naam: "Rechtbank Dordrecht", Abbr: "RBDOR", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Dordrecht", weight: 15, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Groningen", Naam: "Rechtbank Groningen", Abbr: "RBGRO", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Groningen", weight: 20, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Haarlem", Naam: "Rechtbank Haarlem", Abbr: "RBHAA", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Haarlem", weight: 25, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Leeuwarden", Naam: "Rechtbank Leeuwarden", Abbr: "RBLEE", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Leeuwarden", weight: 20, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Maastricht", Naam: "Rechtbank Maastricht", Abbr: "RBMAA", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Maastricht", weight: 15, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Middelburg", Naam: "Rechtbank Middelburg", Abbr: "RBMID", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Middelburg", weight: 10, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Roermond", Naam: "Rechtbank Roermond", Abbr: "RBROE", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Roermond", weight: 15, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_s-Gravenhage", Naam: "Rechtbank 's-Gravenhage", Abbr: "RBSGR", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "'s-Gravenhage", weight: 45, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_s-Hertogenbosch", Naam: "Rechtbank 's-Hertogenbosch", Abbr: "RBSHE", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "'s-Hertogenbosch", weight: 25, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Utrecht", Naam: "Rechtbank Utrecht", Abbr: "RBUTR", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Utrecht", weight: 30, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Zwolle-Lelystad", Naam: "Rechtbank Zwolle-Lelystad", Abbr: "RBZLY", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Zwolle", weight: 20, from: 1998, to: 2012, kind: "rb"},
	{ID: owms + "Rechtbank_Zutphen", Naam: "Rechtbank Zutphen", Abbr: "RBZUT", Type: "Rechtbank", Begin: "1838-10-01", End: "2012-12-31", Seat: "Zutphen", weight: 15, from: 1998, to: 2012, kind: "rb"},
}

// kantongerechten were abolished on 1 January 2002 (merged into the
// rechtbanken as "sector kanton"); older ones closed in earlier rounds.
var kantonSeats = strings.Split("Alkmaar,Almelo,Alphen aan den Rijn,Amersfoort,Amsterdam,Apeldoorn,Arnhem,Assen,"+
	"Bergen op Zoom,Boxmeer,Breda,Brielle,Delft,Den Helder,Deventer,Doetinchem,Dordrecht,Eindhoven,Emmen,Enschede,"+
	"Gorinchem,Gouda,Groenlo,Groningen,Haarlem,Haarlemmermeer,Harderwijk,Heerenveen,Heerlen,Helmond,Hilversum,Hoorn,"+
	"Hulst,Kampen,Leeuwarden,Leiden,Lelystad,Maastricht,Meppel,Middelburg,Nijmegen,Oostburg,Oss,Roermond,Rotterdam,"+
	"Schiedam,'s-Gravenhage,'s-Hertogenbosch,Sittard,Sneek,Steenwijk,Terneuzen,Tiel,Tilburg,Utrecht,Veendam,Venlo,"+
	"Waalwijk,Winschoten,Zaandam,Zevenbergen,Zierikzee,Zutphen,Zwolle,Appingedam,Beverwijk,Bolsward,Culemborg,"+
	"Goes,Grave,Hengelo,Hoogeveen,Purmerend,Schagen,Sliedrecht,Wageningen,Weert,Winterswijk,Woerden,Zeist", ",")

// kantonAbolished are the seats closed in 1998 rather than 2002.
var kantonEarly = map[string]bool{"Appingedam": true, "Beverwijk": true, "Bolsward": true, "Culemborg": true, "Goes": true,
	"Grave": true, "Hengelo": true, "Hoogeveen": true, "Purmerend": true, "Schagen": true, "Sliedrecht": true,
	"Wageningen": true, "Weert": true, "Winterswijk": true, "Woerden": true, "Zeist": true}

var ambtenarengerechten = []instantie{
	{ID: psi + "agam", Naam: "Ambtenarengerecht Amsterdam", Abbr: "AGAMS", Begin: "1913-01-01"},
	{ID: psi + "agah", Naam: "Ambtenarengerecht Arnhem", Abbr: "AGARN", Begin: "1913-01-01"},
	{ID: psi + "aggr", Naam: "Ambtenarengerecht Groningen", Abbr: "AGGRO", Begin: "1950-01-01"},
	{ID: psi + "aghl", Naam: "Ambtenarengerecht Haarlem", Abbr: "AGHAA", Begin: "1950-01-01"},
	{ID: psi + "agrm", Naam: "Ambtenarengerecht Roermond", Abbr: "AGROE", Begin: "1950-01-01"},
	{ID: psi + "AG DH", Naam: "Ambtenarengerecht 's-Gravenhage", Abbr: "AGSGR", Begin: "1913-01-01"},
	{ID: psi + "agut", Naam: "Ambtenarengerecht Utrecht", Abbr: "AGUTR", Begin: "1913-01-01"},
	{ID: psi + "agzw", Naam: "Ambtenarengerecht Zwolle", Abbr: "AGZWO", Begin: "1950-01-01"},
	{ID: psi + "agsh", Naam: "Ambtenarengerecht 's-Hertogenbosch", Abbr: "AGSHE", Begin: "1950-01-01"},
	{ID: psi + "agrd", Naam: "Ambtenarengerecht Rotterdam", Abbr: "AGROT", Begin: "1913-01-01"},
}

var radenVanBeroep = strings.Split("Amsterdam,Arnhem,Groningen,Haarlem,Leeuwarden,Roermond,Rotterdam,'s-Gravenhage,'s-Hertogenbosch,Utrecht,Zwolle", ",")

var otherInstances = []instantie{
	{ID: psi + "CvBStuf", Naam: "College van Beroep Studiefinanciering", Abbr: "CVBSTUF", Type: "AndereGerechtelijkeInstantie", Begin: "1986-10-01", End: "2000-12-31"},
	{ID: psi + "instantie/AndereGerechtelijkeInstantie/#BijzondereRaadvanCassatie", Naam: "Bijzondere Raad van Cassatie", Type: "AndereGerechtelijkeInstantie", Begin: "1945-01-01", End: "1950-12-31"},
	{ID: psi + "Tariefcommissie", Naam: "Tariefcommissie", Abbr: "TC", Type: "AndereGerechtelijkeInstantie", Begin: "1888-01-01", End: "1993-12-31"},
	{ID: psi + "GEA", Naam: "Gerecht in eerste aanleg van Aruba", Abbr: "OGEAA", Type: "AndereGerechtelijkeInstantie", Begin: "1986-01-01"},
	{ID: psi + "GEAC", Naam: "Gerecht in eerste aanleg van Curaçao", Abbr: "OGEAC", Type: "AndereGerechtelijkeInstantie", Begin: "2010-10-10"},
	{ID: psi + "GEASM", Naam: "Gerecht in eerste aanleg van Sint Maarten", Abbr: "OGEAM", Type: "AndereGerechtelijkeInstantie", Begin: "2010-10-10"},
	{ID: psi + "GEABES", Naam: "Gerecht in eerste aanleg van Bonaire, Sint Eustatius en Saba", Abbr: "OGEABES", Type: "AndereGerechtelijkeInstantie", Begin: "2010-10-10"},
	{ID: psi + "GHvJ", Naam: "Gemeenschappelijk Hof van Justitie van Aruba, Curaçao, Sint Maarten en van Bonaire, Sint Eustatius en Saba", Abbr: "OGHACMB", Type: "AndereGerechtelijkeInstantie", Begin: "2010-10-10"},
	{ID: psi + "GEANA", Naam: "Gerecht in eerste aanleg van de Nederlandse Antillen", Abbr: "OGEANA", Type: "AndereGerechtelijkeInstantie", Begin: "1954-01-01", End: "2010-10-09"},
	{ID: psi + "HvJNAA", Naam: "Gemeenschappelijk Hof van Justitie van de Nederlandse Antillen en Aruba", Abbr: "OGHNAA", Type: "AndereGerechtelijkeInstantie", Begin: "1986-01-01", End: "2010-10-09"},
	{ID: psi + "CTG", Naam: "Centraal Tuchtcollege voor de Gezondheidszorg", Abbr: "TGZCTG", Type: "AndereGerechtelijkeInstantie", Begin: "1997-12-01"},
	{ID: psi + "RTGAMS", Naam: "Regionaal Tuchtcollege voor de Gezondheidszorg Amsterdam", Abbr: "TGZRAMS", Type: "AndereGerechtelijkeInstantie", Begin: "1997-12-01"},
	{ID: psi + "RTGDH", Naam: "Regionaal Tuchtcollege voor de Gezondheidszorg Den Haag", Abbr: "TGZRSGR", Type: "AndereGerechtelijkeInstantie", Begin: "1997-12-01"},
	{ID: psi + "RTGEIN", Naam: "Regionaal Tuchtcollege voor de Gezondheidszorg Eindhoven", Abbr: "TGZREIN", Type: "AndereGerechtelijkeInstantie", Begin: "1997-12-01"},
	{ID: psi + "RTGGRO", Naam: "Regionaal Tuchtcollege voor de Gezondheidszorg Groningen", Abbr: "TGZRGRO", Type: "AndereGerechtelijkeInstantie", Begin: "1997-12-01"},
	{ID: psi + "RTGZWO", Naam: "Regionaal Tuchtcollege voor de Gezondheidszorg Zwolle", Abbr: "TGZRZWO", Type: "AndereGerechtelijkeInstantie", Begin: "1997-12-01"},
	{ID: psi + "HvD", Naam: "Hof van Discipline", Abbr: "ORBHVD", Type: "AndereGerechtelijkeInstantie", Begin: "1953-01-01"},
	{ID: psi + "RvDAMS", Naam: "Raad van Discipline Amsterdam", Abbr: "ORBAMS", Type: "AndereGerechtelijkeInstantie", Begin: "1953-01-01"},
	{ID: psi + "RvDARL", Naam: "Raad van Discipline Arnhem-Leeuwarden", Abbr: "ORBARL", Type: "AndereGerechtelijkeInstantie", Begin: "2013-01-01"},
	{ID: psi + "RvDDHA", Naam: "Raad van Discipline Den Haag", Abbr: "ORBDHA", Type: "AndereGerechtelijkeInstantie", Begin: "1953-01-01"},
	{ID: psi + "RvDSHE", Naam: "Raad van Discipline 's-Hertogenbosch", Abbr: "ORBSHE", Type: "AndereGerechtelijkeInstantie", Begin: "1953-01-01"},
	{ID: psi + "Accountantskamer", Naam: "Accountantskamer", Abbr: "TACAKN", Type: "AndereGerechtelijkeInstantie", Begin: "2009-01-01"},
	{ID: psi + "KvGD", Naam: "Kamer voor gerechtsdeurwaarders", Abbr: "TGDKG", Type: "AndereGerechtelijkeInstantie", Begin: "2001-07-15"},
	{ID: psi + "TCS", Naam: "Tuchtcollege voor de Scheepvaart", Abbr: "TSCHS", Type: "AndereGerechtelijkeInstantie", Begin: "2010-01-01"},
	{ID: psi + "RvTS", Naam: "Raad voor de Scheepvaart", Type: "AndereGerechtelijkeInstantie", Begin: "1909-01-01", End: "2009-12-31"},
	{ID: psi + "CAK", Naam: "College van Afgevaardigden", Type: "AndereGerechtelijkeInstantie", Begin: "1980-01-01", End: "2003-12-31"},
	{ID: psi + "CvBV", Naam: "Commissie van Beroep Vrijstellingsregeling", Type: "AndereGerechtelijkeInstantie", Begin: "1990-01-01", End: "2006-12-31"},
	{ID: psi + "GVRT", Naam: "Gerechtelijk Veterinair Tuchtcollege", Abbr: "TDIVTC", Type: "AndereGerechtelijkeInstantie", Begin: "1990-01-01"},
	{ID: psi + "VBTC", Naam: "Veterinair Beroepscollege", Abbr: "TDIVBC", Type: "AndereGerechtelijkeInstantie", Begin: "1990-01-01"},
	{ID: psi + "CvBO", Naam: "College van Beroep voor het hoger onderwijs", Abbr: "CBHO", Type: "AndereGerechtelijkeInstantie", Begin: "1993-08-01"},
	{ID: psi + "KvNAMS", Naam: "Kamer voor het notariaat Amsterdam", Abbr: "TNOKAMS", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01"},
	{ID: psi + "KvNARL", Naam: "Kamer voor het notariaat Arnhem-Leeuwarden", Abbr: "TNOKARL", Type: "AndereGerechtelijkeInstantie", Begin: "2013-01-01"},
	{ID: psi + "KvNDHA", Naam: "Kamer voor het notariaat Den Haag", Abbr: "TNOKDHA", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01"},
	{ID: psi + "KvNSHE", Naam: "Kamer voor het notariaat 's-Hertogenbosch", Abbr: "TNOKSHE", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01"},
	{ID: psi + "KvNARN", Naam: "Kamer voor het notariaat Arnhem", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01", End: "2012-12-31"},
	{ID: psi + "KvNLEE", Naam: "Kamer voor het notariaat Leeuwarden", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01", End: "2012-12-31"},
	{ID: psi + "KvNUTR", Naam: "Kamer voor het notariaat Utrecht", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01", End: "2012-12-31"},
	{ID: psi + "KvNZWO", Naam: "Kamer voor het notariaat Zwolle", Type: "AndereGerechtelijkeInstantie", Begin: "1999-10-01", End: "2012-12-31"},
	{ID: psi + "Octrooiraad", Naam: "Octrooiraad", Type: "AndereGerechtelijkeInstantie", Begin: "1912-06-01", End: "1995-03-31"},
	{ID: psi + "CRvB-P", Naam: "Pensioenraad", Type: "AndereGerechtelijkeInstantie", Begin: "1922-01-01", End: "1987-12-31"},
	{ID: psi + "BenGH", Naam: "Benelux Gerechtshof", Abbr: "BGH", Type: "AndereGerechtelijkeInstantie", Begin: "1974-05-11"},
	{ID: psi + "MGH", Naam: "Militair Gerechtshof", Type: "AndereGerechtelijkeInstantie", Begin: "1814-01-01", End: "1990-12-31"},
	{ID: psi + "Krijgsraad", Naam: "Arrondissementskrijgsraad", Type: "AndereGerechtelijkeInstantie", Begin: "1903-01-01", End: "1990-12-31"},
	{ID: psi + "CvBBW", Naam: "College van Beroep Bijzondere Wetgeving", Type: "AndereGerechtelijkeInstantie", Begin: "1996-01-01", End: "2002-12-31"},
	{ID: psi + "SCB", Naam: "Scheidsgerecht Centraal Beheer", Type: "AndereGerechtelijkeInstantie", Begin: "1980-01-01"},
}

// kantonOld are seats closed in the 1933 reorganisation.
var kantonOld = strings.Split("Dokkum,Edam,Elst,Enkhuizen,Harlingen,Heusden,Hellevoetsluis,Medemblik,Ommen,"+
	"Oud-Beijerland,Rhenen,Tholen,Vlaardingen,Zaltbommel,Zevenaar,Gennep,Hardenberg,Coevorden,Zuidbroek,Ter Apel", ",")

// arrondissementen are the 19 judicial districts before 2013.
var arrondissementen = strings.Split("Alkmaar,Almelo,Amsterdam,Arnhem,Assen,Breda,Dordrecht,Groningen,Haarlem,"+
	"Leeuwarden,Maastricht,Middelburg,Roermond,Rotterdam,'s-Gravenhage,'s-Hertogenbosch,Utrecht,Zutphen,Zwolle-Lelystad", ",")

func slug(s string) string { return strings.NewReplacer("'", "", " ", "_").Replace(s) }

// allInstanties returns the full Instanties value list (about 260 items,
// open and closed).
var allInstanties = sync.OnceValue(func() []instantie {
	var out []instantie
	out = append(out, courts...)
	for _, a := range ambtenarengerechten {
		a.Type = "AndereGerechtelijkeInstantie"
		a.End = "1993-12-31"
		out = append(out, a)
	}
	for _, s := range kantonSeats {
		slug := strings.NewReplacer("'", "", " ", "", "-", "").Replace(s)
		in := instantie{ID: psi + "ktg" + strings.ToLower(slug), Naam: "Kantongerecht " + s, Type: "Kantongerecht", Begin: "1838-10-01", End: "2001-12-31"}
		if kantonEarly[s] {
			in.End = "1997-12-31"
		} else {
			in.Abbr = "KTG" + strings.ToUpper(slug[:min(3, len(slug))])
		}
		out = append(out, in)
	}
	for _, s := range kantonOld {
		out = append(out, instantie{ID: psi + "ktg" + strings.ToLower(slug(s)), Naam: "Kantongerecht " + s, Type: "Kantongerecht", Begin: "1838-10-01", End: "1933-12-31"})
	}
	for _, s := range radenVanBeroep {
		out = append(out, instantie{ID: psi + "rvb/" + slug(s), Naam: "Raad van Beroep " + s, Type: "AndereGerechtelijkeInstantie", Begin: "1903-01-01", End: "1991-12-31"})
	}
	for _, s := range radenVanBeroep {
		out = append(out, instantie{ID: psi + "pachtkamer/" + slug(s), Naam: "Pachtkamer " + s, Type: "AndereGerechtelijkeInstantie", Begin: "1958-01-01", End: "2001-12-31"})
	}
	out = append(out, otherInstances...)
	for _, s := range []string{"Amsterdam", "Arnhem", "'s-Gravenhage", "'s-Hertogenbosch", "Leeuwarden"} {
		out = append(out, instantie{ID: psi + "ehk/" + slug(s), Naam: "Enquêtekamer " + s, Type: "AndereGerechtelijkeInstantie", Begin: "1971-01-01", End: "1994-12-31"})
	}
	for _, s := range arrondissementen {
		out = append(out, instantie{ID: psi + "kvt/" + slug(s), Naam: "Kamer van Toezicht " + s, Type: "AndereGerechtelijkeInstantie", Begin: "1842-07-09", End: "1999-09-30"})
	}
	for _, s := range arrondissementen {
		out = append(out, instantie{ID: psi + "rvt/" + slug(s), Naam: "Raad van Toezicht " + s, Type: "AndereGerechtelijkeInstantie", Begin: "1953-01-01", End: "2009-12-31"})
	}
	return out
})

// foreign instances (/Waardelijst/InstantiesBuitenlands).
var foreignInstances = []instantie{
	{ID: psi + "buitenlands#EHRM", Naam: "Europees Hof voor de Rechten van de Mens", Abbr: "EHRM", Type: "BuitenlandseInstantie", Begin: "1959-01-21"},
	{ID: psi + "buitenlands#HvJEU", Naam: "Hof van Justitie van de Europese Unie", Abbr: "HvJ EU", Type: "BuitenlandseInstantie", Begin: "1952-12-04"},
	{ID: psi + "buitenlands#GEU", Naam: "Gerecht van de Europese Unie", Abbr: "GEU", Type: "BuitenlandseInstantie", Begin: "1989-09-01"},
	{ID: psi + "buitenlands#GvA", Naam: "Gerecht voor ambtenarenzaken van de Europese Unie", Type: "BuitenlandseInstantie", Begin: "2005-12-12", End: "2016-08-31"},
	{ID: psi + "buitenlands#BGH", Naam: "Benelux-Gerechtshof", Abbr: "BenGH", Type: "BuitenlandseInstantie", Begin: "1974-05-11"},
	{ID: psi + "buitenlands#ICC", Naam: "Internationaal Strafhof", Abbr: "ICC", Type: "BuitenlandseInstantie", Begin: "2002-07-01"},
	{ID: psi + "buitenlands#ICTY", Naam: "Joegoslavië-tribunaal", Abbr: "ICTY", Type: "BuitenlandseInstantie", Begin: "1993-05-25", End: "2017-12-31"},
	{ID: psi + "buitenlands#IGH", Naam: "Internationaal Gerechtshof", Abbr: "IGH", Type: "BuitenlandseInstantie", Begin: "1946-04-18"},
	{ID: psi + "buitenlands#BGHDE", Naam: "Bundesgerichtshof", Type: "BuitenlandseInstantie", Begin: "1950-10-01"},
	{ID: psi + "buitenlands#CassBE", Naam: "Hof van Cassatie (België)", Type: "BuitenlandseInstantie", Begin: "1832-10-04"},
}

type rechtsgebied struct {
	ID, Naam string
	Sub      []rechtsgebied
}

func rg(id, naam string, sub ...rechtsgebied) rechtsgebied {
	return rechtsgebied{ID: psi + "rechtsgebied#" + id, Naam: naam, Sub: sub}
}

// rechtsgebieden is the two-level tree of /Waardelijst/Rechtsgebieden.
var rechtsgebieden = []rechtsgebied{
	rg("bestuursrecht", "Bestuursrecht",
		rg("bestuursrecht_ambtenarenrecht", "Ambtenarenrecht"),
		rg("bestuursrecht_belastingrecht", "Belastingrecht"),
		rg("bestuursrecht_bestuursprocesrecht", "Bestuursprocesrecht"),
		rg("bestuursrecht_bestuursstrafrecht", "Bestuursstrafrecht"),
		rg("bestuursrecht_europeesbestuursrecht", "Europees bestuursrecht"),
		rg("bestuursrecht_mededingingsrecht", "Mededingingsrecht"),
		rg("bestuursrecht_omgevingsrecht", "Omgevingsrecht"),
		rg("bestuursrecht_socialezekerheidsrecht", "Socialezekerheidsrecht"),
		rg("bestuursrecht_vreemdelingenrecht", "Vreemdelingenrecht"),
		rg("bestuursrecht_onderwijsenstudiefinanciering", "Onderwijs en studiefinanciering"),
		rg("bestuursrecht_energierecht", "Energierecht"),
		rg("bestuursrecht_milieurecht", "Milieurecht"),
	),
	rg("civielRecht", "Civiel recht",
		rg("civielRecht_aanbestedingsrecht", "Aanbestedingsrecht"),
		rg("civielRecht_arbeidsrecht", "Arbeidsrecht"),
		rg("civielRecht_burgerlijkProcesrecht", "Burgerlijk procesrecht"),
		rg("civielRecht_goederenrecht", "Goederenrecht"),
		rg("civielRecht_insolventierecht", "Insolventierecht"),
		rg("civielRecht_intellectueelEigendomsrecht", "Intellectueel-eigendomsrecht"),
		rg("civielRecht_internationaalPrivaatrecht", "Internationaal privaatrecht"),
		rg("civielRecht_ondernemingsrecht", "Ondernemingsrecht"),
		rg("civielRecht_personenEnFamilierecht", "Personen- en familierecht"),
		rg("civielRecht_verbintenissenrecht", "Verbintenissenrecht"),
		rg("civielRecht_huurrecht", "Huurrecht"),
		rg("civielRecht_vervoersrecht", "Vervoersrecht"),
		rg("civielRecht_europeesCivielRecht", "Europees civiel recht"),
	),
	rg("internationaalPubliekrecht", "Internationaal publiekrecht",
		rg("internationaalPubliekrecht_mensenrechten", "Mensenrechten"),
		rg("internationaalPubliekrecht_volkenrecht", "Volkenrecht"),
		rg("internationaalPubliekrecht_internationaalStrafrecht", "Internationaal strafrecht"),
	),
	rg("strafRecht", "Strafrecht",
		rg("strafRecht_europeesStrafrecht", "Europees strafrecht"),
		rg("strafRecht_internationaalStrafrecht", "Internationaal strafrecht"),
		rg("strafRecht_materieelStrafrecht", "Materieel strafrecht"),
		rg("strafRecht_penitentiairStrafrecht", "Penitentiair strafrecht"),
		rg("strafRecht_strafprocesrecht", "Strafprocesrecht"),
	),
}

// leafArea is a second-level rechtsgebied with its parent.
type leafArea struct {
	ID, Naam, Parent, ParentNaam string
}

var leaves = func() []leafArea {
	var out []leafArea
	for _, top := range rechtsgebieden {
		for _, s := range top.Sub {
			out = append(out, leafArea{ID: s.ID, Naam: s.Naam, Parent: top.ID, ParentNaam: top.Naam})
		}
	}
	return out
}()

// leavesOf returns the indexes into leaves below a top-level area.
func leavesOf(top string) []int { return leavesByTop[top] }

var leavesByTop = func() map[string][]int {
	m := map[string][]int{}
	for i, l := range leaves {
		top := strings.TrimPrefix(l.Parent, psi+"rechtsgebied#")
		m[top] = append(m[top], i)
	}
	return m
}()

var proceduresoorten = [][2]string{
	{"bodemzaak", "Bodemzaak"}, {"eersteAanlegEnkelvoudig", "Eerste aanleg - enkelvoudig"},
	{"eersteAanlegMeervoudig", "Eerste aanleg - meervoudig"}, {"hogerBeroep", "Hoger beroep"},
	{"cassatie", "Cassatie"}, {"kortGeding", "Kort geding"}, {"mondelingeUitspraak", "Mondelinge uitspraak"},
	{"procesverbaal", "Proces-verbaal"}, {"voorlopigeVoorziening", "Voorlopige voorziening"},
	{"herziening", "Herziening"}, {"verzet", "Verzet"}, {"beschikking", "Beschikking"},
	{"kortGedingHogerBeroep", "Hoger beroep kort geding"}, {"prejudicieleVraag", "Prejudiciële vraag"},
	{"cassatieInHetBelangDerWet", "Cassatie in het belang der wet"}, {"wrakingszaak", "Wraking"},
	{"artikel81RO", "Artikel 81 RO-zaak"}, {"tussenuitspraakBestuurlijkeLus", "Tussenuitspraak bestuurlijke lus"},
	{"verwijzing", "Verwijzing na cassatie"}, {"deskundigenbericht", "Deskundigenbericht"},
}

var formeleRelaties = [][2]string{
	{"eersteAanleg", "Eerste aanleg"}, {"hogerBeroep", "Hoger beroep"}, {"cassatie", "Cassatie"},
	{"conclusie", "Conclusie"}, {"verwijzing", "Verwijzing"}, {"herziening", "Herziening"},
	{"prejudicieleVraag", "Prejudiciële vraag"}, {"terugverwijzing", "Terugverwijzing"},
	{"sprongcassatie", "Sprongcassatie"}, {"tussenuitspraak", "Tussenuitspraak"}, {"einduitspraak", "Einduitspraak"},
	{"verzet", "Verzet"},
}

var gevolgen = []string{"Bekrachtiging/bevestiging", "Vernietiging en zelf afgedaan", "Vernietiging met verwijzen", "(Gedeeltelijke) vernietiging en zelf afgedaan", "Verwerping"}
