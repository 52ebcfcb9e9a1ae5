package tk

import (
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Citation is how a Tweede Kamer document is cited. A kamerstuk
// (kamerstuk in Officiële Bekendmakingen' form, kst-36200-VII-12, which a
// search gets from the document's dossier) is "Kamerstukken II 2023/24,
// 36200 VII, nr. 12", its vergaderjaar the document's own (2023-2024;
// left out when it has none). Any other document is cited by the Kamer,
// its kind, its number and its date (YYYY-MM-DD): "Tweede Kamer, Brief
// regering 2023D41173, 3 oktober 2023", parts the answer lacks left out.
// Without a kamerstuk or a valid document number there is none.
func Citation(kamerstuk, vergaderjaar, soort, nummer, date string) string {
	if k, ok := adapters.ParseKamerstuk(kamerstuk); ok {
		if c := adapters.KamerstukCitation("II", vergaderjaar, k); c != "" {
			return c
		}
	}
	nummer = strings.TrimSpace(nummer)
	if !nummerRE.MatchString(nummer) {
		return ""
	}
	what := nummer
	if s := adapters.Cut(adapters.Squash(soort), 80); s != "" {
		what = s + " " + nummer
	}
	c := "Tweede Kamer, " + what
	if d := adapters.DutchDate(date); d != "" {
		c += ", " + d
	}
	return c
}

func (d document) citation() string {
	return Citation(d.Kamerstuk, d.Vergaderjaar, d.Soort, d.Nummer, day(d.Datum))
}
