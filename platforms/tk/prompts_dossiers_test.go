package tk

import (
	"net/url"
	"strings"
	"testing"
)

// The recent dossiers' request asks for the fields the service has, newest
// change first where it has GewijzigdOp; their answer keeps only dossiers
// whose number and addition tk_votes would take.
func TestRecentDossiers(t *testing.T) {
	for _, tc := range []struct {
		props         []string
		filter, order string
	}{
		{[]string{"Id", "Nummer", "Toevoeging", "Titel", "Verwijderd", "GewijzigdOp"}, "Verwijderd eq false", "GewijzigdOp desc,Nummer desc,Id desc"},
		{[]string{"Id", "Nummer", "Toevoeging"}, "", "Nummer desc,Id desc"},
	} {
		md, err := ParseMetadata(csdlWithDossier(v5Document, tc.props))
		if err != nil {
			t.Fatal(err)
		}
		e := entityOf(t, NewSchema(DefaultRoot, md), "Kamerstukdossier")
		r := RecentDossiersRequest(e)
		u, err := url.Parse(r.Path)
		if err != nil || u.Path != DefaultRoot+"/Kamerstukdossier" {
			t.Fatalf("%s: %v", r.Path, err)
		}
		q := u.Query()
		if q.Get("$filter") != tc.filter || q.Get("$orderby") != tc.order || q.Get("$top") != "100" ||
			q.Get("$select") != strings.Join(tc.props, ",") {
			t.Errorf("%v: %s", tc.props, r.Path)
		}
	}
	md, _ := ParseMetadata(csdlWithDossier(v5Document, []string{"Id", "Nummer", "Toevoeging", "Titel"}))
	e := entityOf(t, NewSchema(DefaultRoot, md), "Kamerstukdossier")
	body := `{"value":[
		{"Id":"a","Nummer":36200,"Toevoeging":"vii","Titel":"Vaststelling van de begrotingsstaten van het Ministerie van Binnenlandse Zaken"},
		{"Id":"b","Nummer":36410,"Toevoeging":null,"Titel":"Wet  betaalbare   huur"},
		{"Id":"c","Nummer":12,"Toevoeging":"","Titel":"too short"},
		{"Id":"d","Nummer":36000,"Toevoeging":"VII-1","Titel":"bad addition"},
		{"Id":"e","Nummer":"36000'or'1","Toevoeging":"","Titel":"not a number"}]}`
	ds, err := ParseDossiers(e, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Number != "36200-VII" || ds[1].Number != "36410" || ds[1].Title != "Wet betaalbare huur" {
		t.Errorf("dossiers: %+v", ds)
	}
	if _, err := ParseDossiers(e, []byte("<html>")); err == nil {
		t.Error("an answer that is no JSON parsed")
	}
}
