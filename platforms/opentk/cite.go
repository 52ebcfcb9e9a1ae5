package opentk

import (
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

var toezeggingRE = regexp.MustCompile(`^TZ[0-9]{6}-[0-9]{1,4}$`) // TZ202310-067

// citeWords are the categories cited by their number, as the Kamer's
// own words for them.
var citeWords = map[string]string{Document: "document", Activiteit: "activiteit", Toezegging: "toezegging"}

// Citation is how an OpenTK item is cited: "Tweede Kamer, document
// 2023D41173, 12 oktober 2023" (also activiteit and toezegging), the date
// (YYYY-MM-DD) left out when the answer has none. OpenTK's answer does not
// say a document's kind (Motie, Brief regering) or kamerstuk: the
// Gegevensmagazijn (tk) does. Minutes, gifts and Woo documents carry only
// a GUID or another body's id, which no one cites: they get nothing, as
// does a malformed number.
func Citation(category, nummer, date string) string {
	word, ok := citeWords[category]
	nummer = strings.TrimSpace(nummer)
	if !ok || !(tk.IsNumber(nummer) && category != Toezegging || toezeggingRE.MatchString(nummer) && category == Toezegging) {
		return ""
	}
	c := "Tweede Kamer, " + word + " " + nummer
	if d := adapters.DutchDate(date); d != "" {
		c += ", " + d
	}
	return c
}
