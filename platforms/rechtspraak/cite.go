package rechtspraak

import (
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Citation is how a ruling or an opinion is cited (Leidraad voor
// juridische auteurs): the court's abbreviation, the decision date in
// Dutch and the ECLI, "HR 12 januari 2024, ECLI:NL:HR:2024:123",
// "Rb. Den Haag 3 juli 2013, ECLI:NL:RBDHA:2013:15631". court is the
// court's name as the platform writes it (dcterms:creator, the feed
// title's second part); when that names no court CourtAbbreviation
// knows, the ECLI's court code names it (a table of the current courts). An opinion of the Parket bij de Hoge Raad is
// "PHR ...": which Advocate-General wrote it is not in the answer.
// Without a known court or a decision date (YYYY-MM-DD) the citation is
// the ECLI alone; without a valid ECLI there is none.
func Citation(ecli, court, date string) string {
	id, err := ValidECLI(ecli)
	if err != nil {
		return ""
	}
	abbr := CourtAbbreviation(court)
	if abbr == "" {
		abbr = courtCodes[eCLICourt(id)]
	}
	day := adapters.DutchDate(date)
	if abbr == "" || day == "" {
		return id
	}
	return abbr + " " + day + ", " + id
}

// courtNames are the courts cited by an abbreviation of their own, by
// their name in lower case.
var courtNames = map[string]string{
	"hoge raad":                                 "HR",
	"hoge raad der nederlanden":                 "HR",
	"parket bij de hoge raad":                   "PHR",
	"raad van state":                            "RvS",
	"centrale raad van beroep":                  "CRvB",
	"college van beroep voor het bedrijfsleven": "CBb",
}

// CourtAbbreviation is a court's name as citations abbreviate it: HR,
// PHR, RvS, CRvB, CBb, "Rb. Den Haag" for Rechtbank Den Haag, "Hof
// Amsterdam" for Gerechtshof Amsterdam; "" for any other name.
func CourtAbbreviation(name string) string {
	n := adapters.Squash(name)
	if a, ok := courtNames[strings.ToLower(n)]; ok {
		return a
	}
	for prefix, abbr := range map[string]string{"Rechtbank ": "Rb. ", "Gerechtshof ": "Hof "} {
		if place, ok := strings.CutPrefix(n, prefix); ok && place != "" && len(place) <= 60 && !strings.ContainsAny(place, ",;()") {
			return abbr + place
		}
	}
	return ""
}

// courtCodes are the court codes of the current Dutch courts in an ECLI,
// cited as the courts' names are (CourtAbbreviation).
var courtCodes = map[string]string{
	"HR": "HR", "PHR": "PHR", "RVS": "RvS", "CRVB": "CRvB", "CBB": "CBb",
	"RBAMS": "Rb. Amsterdam", "RBDHA": "Rb. Den Haag", "RBROT": "Rb. Rotterdam", "RBMNE": "Rb. Midden-Nederland",
	"RBNHO": "Rb. Noord-Holland", "RBOBR": "Rb. Oost-Brabant", "RBZWB": "Rb. Zeeland-West-Brabant",
	"RBLIM": "Rb. Limburg", "RBGEL": "Rb. Gelderland", "RBOVE": "Rb. Overijssel", "RBNNE": "Rb. Noord-Nederland",
	"GHAMS": "Hof Amsterdam", "GHDHA": "Hof Den Haag", "GHARL": "Hof Arnhem-Leeuwarden", "GHSHE": "Hof 's-Hertogenbosch",
}

// eCLICourt is the court code of a Dutch ECLI (RBDHA in
// ECLI:NL:RBDHA:2013:15631), "" for another country's.
func eCLICourt(ecli string) string {
	parts := strings.Split(ecli, ":")
	if len(parts) != 5 || parts[1] != "NL" {
		return ""
	}
	return parts[2]
}
