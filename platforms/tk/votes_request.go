package tk

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// The requests of tk_votes (votes.go): what the tool's parameters may
// ask, and the OData queries that read the decisions and their votes.

var zaakNummerRE = regexp.MustCompile(`^[0-9]{4}Z[0-9]{3,6}$`)

// VotesParams ask for the votes on zaken named one of three ways.
type VotesParams struct {
	Zaak       string // a zaak number, 2022Z17826
	Dossier    string // a kamerstukdossier number, 36200 or 36200-VII
	Toevoeging string // the dossier's addition, VII
	Ordnummer  int    // the kamerstuk's number in the dossier (Zaak.Volgnummer)
	Query      string // words in the zaak's title or subject
	DateFrom   string // the voting day, Dutch calendar days
	DateTo     string
	Limit      int
	Offset     int
}

// Check checks and normalises p before anything is asked.
func (p *VotesParams) Check() error {
	p.Zaak = strings.ToUpper(strings.TrimSpace(p.Zaak))
	p.Dossier = strings.TrimSpace(p.Dossier)
	p.Toevoeging = strings.TrimSpace(p.Toevoeging)
	if p.Limit == 0 {
		p.Limit = 10
	}
	if p.Limit < 1 || p.Limit > MaxVotesLimit {
		return fmt.Errorf("limit %d is out of range: use 1 to %d", p.Limit, MaxVotesLimit)
	}
	if p.Offset < 0 || p.Offset > 1000 {
		return fmt.Errorf("offset %d is out of range: use 0 to 1000", p.Offset)
	}
	if _, _, err := adapters.ParseDates(p.DateFrom, p.DateTo); err != nil {
		return err
	}
	given := 0
	for _, s := range []string{p.Zaak, p.Dossier, strings.TrimSpace(p.Query)} {
		if s != "" {
			given++
		}
	}
	if given != 1 {
		return fmt.Errorf("give exactly one of zaak (a zaak number such as 2022Z17826), dossier (a Kamerstuk dossier number such as 36200 or 36200-VII) or query (words of the title)")
	}
	if p.Zaak != "" && !zaakNummerRE.MatchString(p.Zaak) {
		if IsNumber(p.Zaak) {
			return fmt.Errorf("zaak %q is not a zaak number: a zaak number has a Z (2022Z17826); a document number (D) is read with tk_fetch, and a motion's zaak number is on its page at tweedekamer.nl", p.Zaak)
		}
		return fmt.Errorf("zaak %q is not a zaak number such as 2022Z17826", adapters.Cut(p.Zaak, 40))
	}
	if p.Dossier != "" {
		d, err := adapters.ParseDossier(p.Dossier, p.Toevoeging)
		if err != nil {
			return err
		}
		p.Dossier, p.Toevoeging = d.Number, d.Addition
	} else if p.Toevoeging != "" || p.Ordnummer != 0 {
		return fmt.Errorf("toevoeging and ordnummer belong to a dossier: give dossier too")
	}
	if p.Ordnummer != 0 && !volgnummerRE.MatchString(strconv.Itoa(p.Ordnummer)) {
		return fmt.Errorf("ordnummer %d is out of range: use 1 to 99999", p.Ordnummer)
	}
	words := strings.Fields(p.Query)
	if len(words) > 8 {
		return fmt.Errorf("query has %d words: use at most 8", len(words))
	}
	for _, w := range words {
		if len([]rune(w)) < 2 {
			return fmt.Errorf("query word %q is too short: use words of two letters or more", w)
		}
	}
	return nil
}

// voteSets are the sets a vote request reads, resolved in one schema.
type voteSets struct {
	besluit, stemming, zaak, agendapunt, activiteit *Entity
}

// VoteSets resolves the sets of a vote and checks that the service has
// the navigation properties the request follows.
func VoteSets(s *Schema) (*voteSets, error) {
	var v voteSets
	for _, x := range []struct {
		set string
		e   **Entity
	}{{"Besluit", &v.besluit}, {"Stemming", &v.stemming}, {"Zaak", &v.zaak}, {"Agendapunt", &v.agendapunt}, {"Activiteit", &v.activiteit}} {
		e, err := s.Entity(x.set)
		if err != nil {
			return nil, err
		}
		*x.e = e
	}
	for _, n := range []struct {
		e   *Entity
		nav string
	}{{v.besluit, "Zaak"}, {v.besluit, "Stemming"}, {v.besluit, "Agendapunt"}, {v.agendapunt, "Activiteit"}} {
		if _, ok := n.e.navs[n.nav]; !ok {
			return nil, mismatchf("the Tweede Kamer's OData service at %s has no navigation %s/%s in its $metadata; the API has changed", s.root, n.e.Set, n.nav)
		}
	}
	return &v, nil
}

// DossierZakenRequest asks for the zaken of a dossier (newest first),
// their Id and Nummer, a page of limit from offset.
func DossierZakenRequest(s *Schema, p VotesParams) (adapters.Request, error) {
	z, err := s.Entity("Zaak")
	if err != nil {
		return adapters.Request{}, err
	}
	k, err := s.Entity("Kamerstukdossier")
	if err != nil {
		return adapters.Request{}, err
	}
	if _, ok := z.navs["Kamerstukdossier"]; !ok {
		return adapters.Request{}, mismatchf("the Tweede Kamer's OData service at %s has no navigation Zaak/Kamerstukdossier in its $metadata; the API has changed", s.root)
	}
	// A dossier without an addition: null or empty, whichever the
	// service writes (the emulator writes "").
	tv := "k/" + k.Name(fToevoeging)
	toev := "(" + tv + " eq null or " + tv + " eq '')"
	if p.Toevoeging != "" {
		toev = tv + " eq " + quote(p.Toevoeging)
	}
	f := fmt.Sprintf("%s eq false and Kamerstukdossier/any(k:k/%s eq %s and %s)", z.Name(fVerwijderd),
		k.Name(fNummer), p.Dossier, toev)
	if p.Ordnummer != 0 {
		if z.Name(fVolgnummer) == "" {
			return adapters.Request{}, mismatchf("the Tweede Kamer's OData service at %s has no Volgnummer on Zaak, so ordnummer cannot be looked up; ask for the whole dossier", s.root)
		}
		f += fmt.Sprintf(" and %s eq %d", z.Name(fVolgnummer), p.Ordnummer)
	}
	order := z.Name(fID) + " desc"
	if g := z.Name(fGestartOp); g != "" {
		order = g + " desc," + order
	}
	q := odataQuery("$filter", f, "$select", z.Name(fID)+","+z.Name(fNummer), "$orderby", order,
		"$top", strconv.Itoa(p.Limit), "$skip", strconv.Itoa(p.Offset), "$count", "true")
	return adapters.Request{Method: "GET", Path: s.root + "/" + z.Set + "?" + q}, nil
}

// ParseDossierZaken reads the answer to DossierZakenRequest: the zaak
// GUIDs and the dossier's zaken in all.
func ParseDossierZaken(s *Schema, body []byte) (ids []string, total int, err error) {
	z, err := s.Entity("Zaak")
	if err != nil {
		return nil, 0, err
	}
	rows, total, err := parseCounted(body)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rows {
		id := strings.ToLower(r.str(z, fID))
		if !guidRE.MatchString(id) {
			return nil, 0, fmt.Errorf("Tweede Kamer zaak has no valid %s", z.Name(fID))
		}
		ids = append(ids, id)
	}
	return ids, total, nil
}

// VotesRequest asks for the decisions that were votes on the zaken p
// names (zaakIDs: the dossier's, from DossierZakenRequest), newest
// voting day first.
func VotesRequest(v *voteSets, p VotesParams, zaakIDs []string) (adapters.Request, error) {
	b, z, st := v.besluit, v.zaak, v.stemming
	filter := []string{b.Name(fVerwijderd) + " eq false", "startswith(" + b.Name(fBesluitSoort) + ",'Stemmen')"}
	zv := "z/" + z.Name(fVerwijderd) + " eq false"
	switch {
	case p.Zaak != "":
		filter = append(filter, fmt.Sprintf("Zaak/any(z:%s and z/%s eq %s)", zv, z.Name(fNummer), quote(p.Zaak)))
	case len(zaakIDs) > 0:
		var or []string
		for _, id := range zaakIDs {
			or = append(or, "z/"+z.Name(fID)+" eq "+id)
		}
		filter = append(filter, fmt.Sprintf("Zaak/any(z:%s and (%s))", zv, strings.Join(or, " or ")))
	case strings.TrimSpace(p.Query) != "":
		var and []string
		for _, w := range strings.Fields(p.Query) {
			c := "contains(z/" + z.Name(fTitel) + "," + quote(w) + ")"
			if o := z.Name(fOnderwerp); o != "" {
				c = "(" + c + " or contains(z/" + o + "," + quote(w) + "))"
			}
			and = append(and, c)
		}
		filter = append(filter, fmt.Sprintf("Zaak/any(z:%s and %s)", zv, strings.Join(and, " and ")))
	default:
		return adapters.Request{}, fmt.Errorf("no zaak to ask the votes of")
	}
	day := "Agendapunt/Activiteit/" + v.activiteit.Name(fDatum)
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return adapters.Request{}, err
	}
	if from != "" {
		d, _ := dayStart(from, 0)
		filter = append(filter, day+" ge "+d)
	}
	if to != "" {
		d, _ := dayStart(to, 1)
		filter = append(filter, day+" lt "+d)
	}
	expand := "Zaak($select=" + z.selectList() + ")," +
		"Stemming($filter=" + st.Name(fVerwijderd) + " eq false;$select=" + st.selectList() + ")," +
		"Agendapunt($select=" + v.agendapunt.selectList() + ";$expand=Activiteit($select=" + v.activiteit.selectList() + "))"
	skip := p.Offset
	if len(zaakIDs) > 0 {
		skip = 0 // the dossier's page was taken from its zaken
	}
	q := odataQuery("$filter", strings.Join(filter, " and "), "$select", b.selectList(), "$expand", expand,
		"$orderby", day+" desc,"+b.Name(fID)+" desc", "$top", strconv.Itoa(p.Limit), "$skip", strconv.Itoa(skip), "$count", "true")
	return adapters.Request{Method: "GET", Path: b.root + "/" + b.Set + "?" + q}, nil
}
