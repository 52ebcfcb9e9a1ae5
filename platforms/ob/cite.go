package ob

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Citation is how a publication is cited, from its identifier and what
// its record says (creator: the issuing body, which names the chamber of
// a kamerstuk; vergaderjaar: the record's overheidwetgeving:vergaderjaar,
// 2023-2024, "" when it has none):
//
//	stb-2018-84           Stb. 2018, 84 (also Stcrt., Trb., Gmb., Prb., Wsb., Bgr.)
//	kst-36200-VII-12      Kamerstukken II 2023/24, 36200 VII, nr. 12
//	h-tk-20232024-12-3    Handelingen II 2023/24, nr. 12, item 3
//	ah-tk-20232024-123    Aanhangsel Handelingen II 2023/24, nr. 123
//
// Any other identifier (kamervragen without answer, bijlagen, agendas,
// Handelingen before 2011/12, which are cited by page) is cited by
// nothing rather than by a guess.
func Citation(id, creator, vergaderjaar string) string {
	id = strings.TrimSpace(id)
	if c := adapters.PublicationCitation(id); c != "" {
		return c
	}
	if k, ok := adapters.ParseKamerstuk(id); ok {
		return adapters.KamerstukCitation(adapters.Chamber(creator), vergaderjaar, k)
	}
	return handelingen(id)
}

// handelingenRE is a Handelingen or Aanhangsel identifier: the chamber
// (tk, ek), the vergaderjaar written as eight digits, then the meeting's
// number and the item (Handelingen) or the aanhangsel's number.
var handelingenRE = regexp.MustCompile(`^(h|ah)-(tk|ek)-([0-9]{8})-([1-9][0-9]{0,4})(?:-([1-9][0-9]{0,3}))?$`)

// itemsSince is the first vergaderjaar whose Handelingen this cites by
// meeting and item; older Handelingen were cited by page (p. 1234), and
// their identifiers' numbers are pages, so those get no citation.
const itemsSince = 2011

// ParseCitation reads a citation back to the publication's identifier:
// each form Citation writes ("Stb. 2018, 84" is stb-2018-84, "Kamerstukken
// II 2023/24, 36200 VII, nr. 12" kst-36200-VII-12, "Handelingen II
// 2023/24, nr. 12, item 3" h-tk-20232024-12-3), and the looser forms
// people write of the first two (adapters.ParsePublicationCitation,
// adapters.ParseKamerstukCitation). ok is false for anything else.
func ParseCitation(s string) (id string, ok bool) {
	if id, ok := adapters.ParsePublicationCitation(s); ok {
		return id, true
	}
	if k, ok := adapters.ParseKamerstukCitation(s); ok {
		return k.ID(), true
	}
	return parseHandelingen(s)
}

// handelingenCitationRE is a citation handelingen writes: "Handelingen
// II 2023/24, nr. 12, item 3", "Aanhangsel Handelingen I 2019/20, nr. 5".
var handelingenCitationRE = regexp.MustCompile(`(?i)^(Aanhangsel\s+)?Handelingen\s+(I{1,2})\s+([12][0-9]{3}\s*/\s*(?:[0-9]{4}|[0-9]{2}))\s*,\s*` +
	`nr\.?\s*([0-9]{1,5})(?:\s*,\s*item\s+([0-9]{1,4}))?$`)

// parseHandelingen reads a citation of the Handelingen or their
// Aanhangsel back to its identifier; only one handelingen would write.
func parseHandelingen(s string) (string, bool) {
	m := handelingenCitationRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	vj := adapters.Vergaderjaar(m[3]) // 2023/24
	if vj == "" {
		return "", false
	}
	first, _ := strconv.Atoi(vj[:4])
	kind, chamber := "h", "tk"
	if m[1] != "" {
		kind = "ah"
	}
	if strings.EqualFold(m[2], "I") {
		chamber = "ek"
	}
	id := kind + "-" + chamber + "-" + vj[:4] + strconv.Itoa(first+1) + "-" + m[4]
	if m[5] != "" {
		id += "-" + m[5]
	}
	if handelingen(id) == "" {
		return "", false
	}
	return id, true
}

func handelingen(id string) string {
	m := handelingenRE.FindStringSubmatch(strings.ToLower(id))
	if m == nil {
		return ""
	}
	vj := adapters.Vergaderjaar(m[3])
	if vj == "" {
		return ""
	}
	chamber := "II"
	if m[2] == "ek" {
		chamber = "I"
	}
	if m[1] == "ah" {
		if m[5] != "" {
			return ""
		}
		return "Aanhangsel Handelingen " + chamber + " " + vj + ", nr. " + m[4]
	}
	if start, _ := strconv.Atoi(m[3][:4]); start < itemsSince || m[5] == "" {
		return ""
	}
	return "Handelingen " + chamber + " " + vj + ", nr. " + m[4] + ", item " + m[5]
}
