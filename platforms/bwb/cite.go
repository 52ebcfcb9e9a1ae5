package bwb

import (
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Citation is how a regulation, or one of its articles or chapters, is
// cited: by name ("Wet op de rechterlijke organisatie"), an article
// before it ("art. 3 Wet op de rechterlijke organisatie"), a chapter
// likewise ("hoofdstuk 2 ..."), and the day the text cited was in force
// after it ("(geldend op 1 januari 2024)", date YYYY-MM-DD; left out
// when empty). partKind and partLabel are a Part's Kind and Label; a
// part of another kind (a paragraph, an appendix), or a label without a
// number, cites the regulation alone. An empty name cites nothing.
func Citation(name, partKind, partLabel, date string) string {
	name = adapters.Squash(name)
	if name == "" {
		return ""
	}
	c := name
	if nr := partNumber(partKind, partLabel); nr != "" {
		switch partKind {
		case "artikel":
			c = "art. " + nr + " " + name
		case "hoofdstuk":
			c = "hoofdstuk " + nr + " " + name
		}
	}
	if d := adapters.DutchDate(date); d != "" {
		c += " (geldend op " + d + ")"
	}
	return c
}

var partNumberRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z:.]{0,19}$`)

// partNumber is the number in a part's label ("Artikel 3:40" → "3:40",
// "Hoofdstuk 2" → "2"), as the label writes it; "" when the label is
// not the kind's word and a number.
func partNumber(kind, label string) string {
	words := map[string]string{"artikel": "artikel", "hoofdstuk": "hoofdstuk"}
	word, ok := words[kind]
	if !ok {
		return ""
	}
	l := adapters.Squash(label)
	if len(l) <= len(word) || !strings.EqualFold(l[:len(word)], word) {
		return ""
	}
	nr := strings.TrimSuffix(strings.TrimSpace(l[len(word):]), ".")
	if !partNumberRE.MatchString(nr) {
		return ""
	}
	return nr
}

// name is how the version is named in a citation: its citeertitel, else
// its title (the intitule) with the publication that made it (Stcrt.
// 1996, 239), as a regulation without a citeertitel is cited; "" when
// the toestand has neither title.
func (t *Toestand) name() string {
	if t.Citeertitel != "" {
		return t.Citeertitel
	}
	if t.Title == "" || t.Title == t.ID {
		return ""
	}
	for _, p := range t.Publications() {
		if p.Effect == "nieuwe-regeling" {
			return t.Title + ", " + p.Label
		}
	}
	return t.Title
}
