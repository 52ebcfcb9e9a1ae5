package tk

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
)

// EntityRequest asks the SyncFeed for one entity's XML by GUID: the route
// a document takes when its OData route fails (SyncFeed is unchanged by
// the new OData version).
func EntityRequest(guid string) adapters.Request {
	return adapters.Request{Method: "GET", Path: FeedRoot + "/Entiteiten/" + guid}
}

// feedNames maps the SyncFeed's lowerCamel element names (compared
// case-insensitively) to document fields; both the old and the new
// number names are accepted.
var feedNames = map[string]string{
	"soort": fSoort, "documentnummer": fNummer, "nummer": fNummer, "titel": fTitel, "onderwerp": fOnderwerp,
	"datum": fDatum, "vergaderjaar": fVergaderjaar, "organisatie": fOrganisatie, "contenttype": fContentType,
	"contentlength": fContentLen, "volgnummer": fOndernummer, "ondernummer": fOndernummer, "datumregistratie": fRegistratie,
}

// ParseFeedDocument parses /SyncFeed/2.0/Entiteiten/<guid> for a document:
// <document id=… tk:verwijderd=…> with one child element per field.
func ParseFeedDocument(body []byte) (adapters.Document, error) {
	e, err := feed.ParseEntity(body)
	if err != nil {
		return adapters.Document{}, err
	}
	if e.Category != "document" {
		return adapters.Document{}, fmt.Errorf("the SyncFeed entity is a %s, not a document", e.Element)
	}
	if e.Deleted {
		return adapters.Document{}, ErrNoDocument
	}
	d := documentOfFeed(e.ID, e.Fields)
	out := d.doc()
	out.Meta["via"] = "syncfeed"
	return out, nil
}

// documentOfFeed is a document as the SyncFeed writes it: its GUID and
// its fields by their lowerCamel names (feedNames).
func documentOfFeed(guid string, fields map[string]string) document {
	vals := map[string]string{}
	// In the order of the names, so that a document that gives both an
	// old and a new name of one field reads the same every time.
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if f := feedNames[strings.ToLower(name)]; f != "" {
			vals[f] = fields[name]
		}
	}
	d := document{ID: guid, Soort: vals[fSoort], Nummer: vals[fNummer], Titel: vals[fTitel], Onderwerp: vals[fOnderwerp],
		Datum: vals[fDatum], Vergaderjaar: vals[fVergaderjaar], Organisatie: vals[fOrganisatie], ContentType: vals[fContentType],
		ContentLength: vals[fContentLen], Ondernummer: vals[fOndernummer], Registratie: vals[fRegistratie]}
	if d.Ondernummer == "-1" {
		d.Ondernummer = ""
	}
	return d
}
