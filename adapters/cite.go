package adapters

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Citation helpers shared by the platform packages (each has its own
// cite.go with the forms of its documents). Every helper answers "" when
// its input does not have the expected form: no citation is better than
// a wrong one.

var dutchMonths = [...]string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
	"september", "oktober", "november", "december"}

// DutchDate writes a day YYYY-MM-DD as Dutch legal citations write it:
// "12 januari 2024". Anything else is "".
func DutchDate(day string) string {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(day))
	if err != nil {
		return ""
	}
	return strconv.Itoa(t.Day()) + " " + dutchMonths[t.Month()-1] + " " + strconv.Itoa(t.Year())
}

var vergaderjaarRE = regexp.MustCompile(`^([12][0-9]{3})\s*[-/]?\s*([0-9]{4}|[0-9]{2})$`)

// Vergaderjaar writes a parliamentary year as citations write it,
// "2023/24", from the platforms' "2023-2024" (also "2023/2024",
// "20232024" and "2023/24"). The second year must follow the first;
// anything else is "".
func Vergaderjaar(v string) string {
	m := vergaderjaarRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return ""
	}
	first, _ := strconv.Atoi(m[1])
	next := (first + 1) % 100
	second, _ := strconv.Atoi(m[2])
	if len(m[2]) == 4 {
		if second != first+1 {
			return ""
		}
		second %= 100
	}
	if second != next {
		return ""
	}
	return m[1] + "/" + m[2][len(m[2])-2:]
}

// citedSeries are the publication series of Officiële Bekendmakingen cited
// as "<abbreviation> <year>, <number>", by their identifier's prefix.
var citedSeries = map[string]string{
	"stb":   "Stb.",   // Staatsblad
	"stcrt": "Stcrt.", // Staatscourant
	"trb":   "Trb.",   // Tractatenblad
	"gmb":   "Gmb.",   // Gemeenteblad
	"prb":   "Prb.",   // Provinciaal blad
	"wsb":   "Wsb.",   // Waterschapsblad
	"bgr":   "Bgr.",   // Blad gemeenschappelijke regeling
}

// SeriesAbbreviation is the abbreviation a publication of the series
// with this identifier prefix (stb, gmb, ...) is cited by; false for a
// series not cited so.
func SeriesAbbreviation(prefix string) (string, bool) {
	abbr, ok := citedSeries[prefix]
	return abbr, ok
}

var publicationRE = regexp.MustCompile(`^([a-z]{2,5})-([12][0-9]{3})-([1-9][0-9]{0,8})$`)

// PublicationCitation cites an Officiële Bekendmakingen publication of
// a numbered series by its identifier: stb-2018-84 is "Stb. 2018, 84",
// gmb-2016-146361 "Gmb. 2016, 146361". Other identifiers (kamerstukken,
// Handelingen, a suffixed or malformed one) are "".
func PublicationCitation(id string) string {
	m := publicationRE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(id)))
	if m == nil {
		return ""
	}
	abbr, ok := citedSeries[m[1]]
	if !ok {
		return ""
	}
	return abbr + " " + m[2] + ", " + m[3]
}

// publicationCitationRE is a citation of a numbered series as people
// write it: "Stb. 2018, 84", also "Stcrt. 2006, nr. 73", "stb 2018 84".
var publicationCitationRE = regexp.MustCompile(`(?i)^([a-z]{2,5})\.?\s*([12][0-9]{3})\s*,?\s*(?:nr\.?\s*)?([1-9][0-9]{0,8})$`)

// ParsePublicationCitation reads a citation PublicationCitation writes
// back to its identifier: "Stb. 2018, 84" is stb-2018-84. It takes the
// looser forms people write too (any case, without the dot or the comma,
// with "nr."). Anything else is not one.
func ParsePublicationCitation(s string) (id string, ok bool) {
	m := publicationCitationRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	series := strings.ToLower(m[1])
	if _, ok := citedSeries[series]; !ok {
		return "", false
	}
	return series + "-" + m[2] + "-" + m[3], true
}

// Kamerstuk is a kamerstuk's place: its dossier (36200), the dossier's
// addition (VII; "" for none) and its number in the dossier (12, or a
// letter such as A for the Eerste Kamer's).
type Kamerstuk struct {
	Dossier, Addition, Number string
}

var (
	dossierRE    = regexp.MustCompile(`^[1-9][0-9]{3,5}$`)
	additionRE   = regexp.MustCompile(`^[A-Za-z0-9]{1,12}$`)
	kstNumberRE  = regexp.MustCompile(`^([1-9][0-9]{0,4}|[A-Za-z]{1,3})$`)
	rijkswetRE   = regexp.MustCompile(`^[Rr][0-9]{3,5}$`)
	allDigitsRE  = regexp.MustCompile(`^[0-9]+$`)
	allLettersRE = regexp.MustCompile(`^[A-Za-z]+$`)
)

// ParseKamerstuk reads a kamerstuk number in Officiële Bekendmakingen'
// form, kst-<dossier>[-<addition>]-<number> (kst-36410-5,
// kst-36200-VII-12, kst-21501-20-1234, kst-35979-H). Any other form
// (kst-, kst--, a number such as n1) is not one.
func ParseKamerstuk(id string) (Kamerstuk, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(id), "kst-")
	if !ok {
		rest, ok = strings.CutPrefix(strings.TrimSpace(id), "KST-")
	}
	if !ok || len(rest) > 40 {
		return Kamerstuk{}, false
	}
	parts := strings.Split(rest, "-")
	var k Kamerstuk
	switch len(parts) {
	case 2:
		k = Kamerstuk{Dossier: parts[0], Number: parts[1]}
	case 3:
		k = Kamerstuk{Dossier: parts[0], Addition: parts[1], Number: parts[2]}
	default:
		return Kamerstuk{}, false
	}
	if !k.valid() {
		return Kamerstuk{}, false
	}
	return k, true
}

// kstInText is where a kamerstuk number may start in a text: "kst-" at
// the start of a word; the number runs to the first character that
// cannot be in it.
var kstInText = regexp.MustCompile(`(?i)\bkst-[0-9A-Za-z-]+`)

// FindKamerstuk returns the first kamerstuk number written in text as
// ParseKamerstuk reads it: an identifier (kst-36200-VII-12) or one in a
// link (zoek.officielebekendmakingen.nl/kst-36200-VII-12.html,
// .../op/kst-36200-VII-12). A longer identifier that starts like one
// (kst-26100-1-n1, another publication) is not one.
func FindKamerstuk(text string) (Kamerstuk, bool) {
	for _, m := range kstInText.FindAllString(text, -1) {
		if k, ok := ParseKamerstuk("kst-" + m[len("kst-"):]); ok {
			return k, true
		}
	}
	return Kamerstuk{}, false
}

// valid tells whether k's parts have their forms.
func (k Kamerstuk) valid() bool {
	return dossierRE.MatchString(k.Dossier) && kstNumberRE.MatchString(k.Number) &&
		(k.Addition == "" || additionRE.MatchString(k.Addition))
}

// ID is k's identifier in Officiële Bekendmakingen' form, the one
// ParseKamerstuk reads: kst-36200-VII-12.
func (k Kamerstuk) ID() string {
	id := "kst-" + k.Dossier
	if k.Addition != "" {
		id += "-" + k.Addition
	}
	return id + "-" + k.Number
}

// dossier writes the dossier with its addition as citations do: a
// chapter or letter after a space (36200 VII, 36200 A), a numbered
// series after a hyphen (21501-20), a kingdom act's number in brackets
// (36128 (R2166)).
func (k Kamerstuk) dossier() string {
	a := k.Addition
	switch {
	case a == "":
		return k.Dossier
	case allDigitsRE.MatchString(a):
		return k.Dossier + "-" + a
	case rijkswetRE.MatchString(a):
		return k.Dossier + " (" + strings.ToUpper(a) + ")"
	}
	return k.Dossier + " " + strings.ToUpper(a)
}

// KamerstukCitation cites a kamerstuk: "Kamerstukken II 2023/24, 36200
// VII, nr. 12". chamber is "II" (Tweede Kamer), "I" (Eerste Kamer) or ""
// (not said: left out); vergaderjaar is the platform's value (2023-2024),
// left out when it is empty or malformed. A letter (the Eerste Kamer's
// numbering) is written without "nr.": "Kamerstukken I 2022/23, 35979,
// H".
func KamerstukCitation(chamber, vergaderjaar string, k Kamerstuk) string {
	if !k.valid() {
		return ""
	}
	head := "Kamerstukken"
	if chamber == "I" || chamber == "II" {
		head += " " + chamber
	}
	if vj := Vergaderjaar(vergaderjaar); vj != "" {
		head += " " + vj
	}
	nr := "nr. " + k.Number
	if allLettersRE.MatchString(k.Number) {
		nr = strings.ToUpper(k.Number)
	}
	return head + ", " + k.dossier() + ", " + nr
}

// kamerstukCitationRE is a kamerstuk's citation as KamerstukCitation and
// people write it: the chamber and the vergaderjaar (2023/24, 2023-2024,
// 2023) may be left out; the dossier's addition follows a space or a
// hyphen, or stands in brackets (a kingdom act's); the number follows
// "nr.", a letter stands alone.
var kamerstukCitationRE = regexp.MustCompile(`(?i)^Kamerstukk?en(?:\s+I{1,2})?(?:\s+[12][0-9]{3}(?:\s*[-/]\s*(?:[0-9]{4}|[0-9]{2}))?)?\s*,\s*` +
	`([0-9]{4,6})(?:\s*\(([A-Z0-9]{1,12})\)|[ -]([A-Z0-9]{1,12}))?\s*,\s*(?:nr\.?\s*([0-9]{1,5})|([A-Z]{1,3}))$`)

// ParseKamerstukCitation reads a kamerstuk's citation back to the
// kamerstuk: "Kamerstukken II 2023/24, 36200 VII, nr. 12" is 36200, VII
// and 12 (kst-36200-VII-12 by its ID), whatever KamerstukCitation writes
// and the looser forms people write. Anything else is not one.
func ParseKamerstukCitation(s string) (Kamerstuk, bool) {
	m := kamerstukCitationRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || strings.EqualFold(m[5], "nr") {
		return Kamerstuk{}, false
	}
	k := Kamerstuk{Dossier: m[1], Addition: strings.ToUpper(m[2] + m[3]), Number: strings.ToUpper(m[4] + m[5])}
	if !k.valid() {
		return Kamerstuk{}, false
	}
	return k, true
}

// Chamber is the chamber ("II" or "I") an organisation's name says,
// "Tweede Kamer der Staten-Generaal" or "Eerste Kamer ..."; "" otherwise.
func Chamber(org string) string {
	o := strings.ToLower(org)
	switch {
	case strings.Contains(o, "tweede kamer"):
		return "II"
	case strings.Contains(o, "eerste kamer"):
		return "I"
	}
	return ""
}

// CouncilCitation cites a council's document the way a clerk or a
// journalist does: "<organisation>, <title>, <12 januari 2024>", each
// part left out when missing (day must be YYYY-MM-DD), the organisation
// also when the title already starts with it. A title alone, or no
// title, cites nothing.
func CouncilCitation(org, title, day string) string {
	org, title = Squash(org), Squash(title)
	if title == "" {
		return ""
	}
	if startsWithName(title, org) {
		org = ""
	}
	var parts []string
	if org != "" {
		parts = append(parts, org)
	}
	parts = append(parts, title)
	if d := DutchDate(day); d != "" {
		parts = append(parts, d)
	}
	if len(parts) == 1 {
		return ""
	}
	return strings.Join(parts, ", ")
}

// startsWithName tells whether title starts with the organisation name
// org as a whole word ("Soest, raadsvoorstel", not "Soesterberg"), also
// after the word for its kind of body ("Gemeente Soest: ...").
func startsWithName(title, org string) bool {
	if org == "" {
		return false
	}
	t, o := strings.ToLower(title), strings.ToLower(org)
	for _, kind := range []string{"", "gemeente ", "provincie ", "waterschap ", "hoogheemraadschap "} {
		if rest, ok := strings.CutPrefix(t, kind+o); ok {
			r, _ := utf8.DecodeRuneInString(rest)
			if rest == "" || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return true
			}
		}
	}
	return false
}
