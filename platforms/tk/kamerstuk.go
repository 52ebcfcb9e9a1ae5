package tk

import (
	"encoding/json"
	"regexp"
)

// A Document in a kamerstukdossier is a kamerstuk: Officiële
// Bekendmakingen publishes it as kst-<dossier>[-<addition>]-<volgnummer>
// (kst-36200-VII-12). The dossier's number and addition are not fields of
// the Document but of its Kamerstukdossier, a navigation property, so a
// search asks for them with
// $expand=Kamerstukdossier($select=Nummer,Toevoeging), the form real
// clients of the Gegevensmagazijn use (and opendata.tweedekamer.nl
// documents). It is asked only when the service's $metadata lists the
// navigation with both fields, so a service without them is asked exactly
// as before.
const (
	dossierNav        = "Kamerstukdossier"
	dossierNummer     = "Nummer"
	dossierToevoeging = "Toevoeging"
)

var (
	dossierNummerRE     = regexp.MustCompile(`^[0-9]{4,6}$`)
	dossierToevoegingRE = regexp.MustCompile(`^[A-Za-z0-9]{1,12}$`)
	volgnummerRE        = regexp.MustCompile(`^[1-9][0-9]{0,4}$`)
)

// dossierNavigation is the navigation property to the dossier when the
// service has it with the number and the addition (navs: a set's
// navigation properties and their targets' properties); "" otherwise.
// Without the addition a number such as 36200 would name the wrong
// dossier (36200-VII is another), so both are needed.
func dossierNavigation(navs map[string]map[string]bool) string {
	if p := navs[dossierNav]; p[dossierNummer] && p[dossierToevoeging] {
		return dossierNav
	}
	return ""
}

// expandList is the $expand value of a search, "" when the service has
// no dossier to expand.
func (e *Entity) expandList() string {
	if e.dossier == "" {
		return ""
	}
	return e.dossier + "($select=" + dossierNummer + "," + dossierToevoeging + ")"
}

// kamerstukOf is the kamerstuk number of a row (kst-36200-VII-12), or ""
// when the row does not name exactly one dossier with a valid number and
// a volgnummer. A document in two dossiers has its volgnummer in one of
// them, and which one is not said, so it gets none: a missed fold costs
// less than two documents folded into one.
func kamerstukOf(e *Entity, r row, volgnummer string) string {
	if e.dossier == "" || !volgnummerRE.MatchString(volgnummer) {
		return ""
	}
	raw, ok := r[e.dossier]
	if !ok {
		return ""
	}
	var many []map[string]any
	if json.Unmarshal(raw, &many) != nil {
		// A single-valued navigation is an object, not a list.
		var one map[string]any
		if json.Unmarshal(raw, &one) != nil || one == nil {
			return ""
		}
		many = []map[string]any{one}
	}
	if len(many) != 1 {
		return ""
	}
	return kamerstukID(str(many[0][dossierNummer]), str(many[0][dossierToevoeging]), volgnummer)
}

// kamerstukID is the kamerstuk number of a document numbered volgnummer
// in the dossier nummer (with its toevoeging), or "" when one of them is
// not valid. OData's row and the replica's feed entities (timeline_replica.go)
// are read so.
func kamerstukID(nummer, toevoeging, volgnummer string) string {
	if !volgnummerRE.MatchString(volgnummer) || !dossierNummerRE.MatchString(nummer) || (toevoeging != "" && !dossierToevoegingRE.MatchString(toevoeging)) {
		return ""
	}
	id := "kst-" + nummer
	if toevoeging != "" {
		id += "-" + toevoeging
	}
	return id + "-" + volgnummer
}
